//! The file tools: `ls`, `rm`, `mkdir`, `touch`, `stat`, `cp` and `mv`, with the owners and
//! mode strings they show. Not the file system itself (`super::super::fs`), nor tools that
//! only read file contents (`text`).

use std::fmt::Write as _;

use super::super::env::Cx;
use super::super::fs::{FsError, MemFs, Meta};
use super::super::output::Output;
use super::shared::{fail, getopt, join, strftime};

/// Owner and group shown by `ls -l` / `stat`.
fn owner(path: &str) -> (&'static str, &'static str) {
    if path == "/sdcard" || path.starts_with("/sdcard/") {
        ("root", "sdcard_rw")
    } else if path.starts_with("/data/local/tmp") {
        ("shell", "shell")
    } else {
        ("root", "root")
    }
}

fn mode_string(mode: u32) -> String {
    let kind = match mode & 0o170000 {
        0o040000 => 'd',
        0o020000 => 'c',
        _ => '-',
    };
    let mut s = String::from(kind);
    for shift in [6u32, 3, 0] {
        let bits = (mode >> shift) & 7;
        s.push(if bits & 4 != 0 { 'r' } else { '-' });
        s.push(if bits & 2 != 0 { 'w' } else { '-' });
        s.push(if bits & 1 != 0 { 'x' } else { '-' });
    }
    s
}

pub(super) fn ls(args: &[String], _: &[u8], cx: &Cx) -> Output {
    let o = match getopt("ls", args, "aAl1dhnCFtrRSsciLpux", "") {
        Ok(o) => o,
        Err(e) => return e,
    };
    let long = o.has('l') || o.has('n');
    let mut out = Output::default();
    let paths = if o.args.is_empty() { vec![".".to_string()] } else { o.args.clone() };
    // (shown name, absolute path, meta)
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    for p in &paths {
        let ap = cx.abs(p);
        match cx.env.fs.stat(&ap) {
            None => fail(&mut out, format!("ls: {p}: No such file or directory"), 1),
            Some(m) if m.is_dir && !o.has('d') => dirs.push((p.clone(), ap)),
            Some(m) => files.push((p.clone(), ap, m)),
        }
    }
    let mut body = String::new();
    emit_entries(&mut body, &files, long);
    for (p, ap) in &dirs {
        if paths.len() > 1 {
            if !body.is_empty() {
                body.push('\n');
            }
            let _ = writeln!(body, "{p}:");
        }
        let mut entries = Vec::new();
        if o.has('a') {
            for (n, d) in [(".", ap.clone()), ("..", cx.abs(&join(ap, "..")))] {
                if let Some(m) = cx.env.fs.stat(&d) {
                    entries.push((n.to_string(), d, m));
                }
            }
        }
        match cx.env.fs.list(ap) {
            Ok(list) => {
                for (name, m) in list {
                    if !name.starts_with('.') || o.has('a') || o.has('A') {
                        let path = join(ap, &name);
                        entries.push((name, path, m));
                    }
                }
            }
            Err(e) => fail(&mut out, format!("ls: {p}: {e}"), 1),
        }
        if long {
            let blocks: u64 = entries.iter().map(|e| e.2.size.div_ceil(4096) * 4).sum();
            let _ = writeln!(body, "total {blocks}");
        }
        emit_entries(&mut body, &entries, long);
        if !cx.room(&out, body.len()) {
            return cx.too_large();
        }
    }
    out.stdout = body.into_bytes();
    out
}

fn emit_entries(body: &mut String, entries: &[(String, String, Meta)], long: bool) {
    let width = |f: &dyn Fn(&(String, String, Meta)) -> usize| entries.iter().map(f).max().unwrap_or(0);
    let size_w = width(&|e| e.2.size.to_string().len());
    let own_w = width(&|e| owner(&e.1).0.len());
    let grp_w = width(&|e| owner(&e.1).1.len());
    for (name, path, m) in entries {
        if long {
            let (u, g) = owner(path);
            let date = strftime("%Y-%m-%d %H:%M", i64::from(m.mtime)).unwrap_or_default();
            let links = if m.is_dir { 2 } else { 1 };
            let mode = mode_string(m.mode);
            let _ = writeln!(body, "{mode} {links} {u:<own_w$} {g:<grp_w$} {:>size_w$} {date} {name}", m.size);
        } else {
            let _ = writeln!(body, "{name}");
        }
    }
}

pub(super) fn rm(args: &[String], _: &[u8], cx: &Cx) -> Output {
    let o = match getopt("rm", args, "fRriv", "") {
        Ok(o) => o,
        Err(e) => return e,
    };
    let (force, recursive) = (o.has('f'), o.has('r') || o.has('R'));
    let mut out = Output::default();
    if o.args.is_empty() && !force {
        fail(&mut out, "rm: Needs 1 argument".into(), 1);
    }
    for p in &o.args {
        let path = cx.path(p);
        match cx.env.fs.stat(&path) {
            None if force => {}
            None => fail(&mut out, format!("rm: {p}: No such file or directory"), 1),
            Some(m) if m.is_dir && !recursive => {
                fail(&mut out, format!("rm: {p}: Is a directory"), 1);
            }
            Some(_) => {
                if let Err(e) = cx.env.fs.remove(&path, recursive) {
                    fail(&mut out, format!("rm: {p}: {e}"), 1);
                }
            }
        }
    }
    out
}

pub(super) fn mkdir(args: &[String], _: &[u8], cx: &Cx) -> Output {
    let o = match getopt("mkdir", args, "pv", "m") {
        Ok(o) => o,
        Err(e) => return e,
    };
    let mut out = Output::default();
    if o.args.is_empty() {
        fail(&mut out, "mkdir: Needs 1 argument".into(), 1);
    }
    for p in &o.args {
        if let Err(e) = cx.env.fs.mkdir(&cx.path(p), o.has('p')) {
            fail(&mut out, format!("mkdir: '{p}': {e}"), 1);
        }
    }
    out
}

pub(super) fn touch(args: &[String], _: &[u8], cx: &Cx) -> Output {
    let o = match getopt("touch", args, "acmh", "dtr") {
        Ok(o) => o,
        Err(e) => return e,
    };
    let mut out = Output::default();
    if o.args.is_empty() {
        fail(&mut out, "touch: Needs 1 argument".into(), 1);
    }
    for p in &o.args {
        let path = cx.path(p);
        let r = match cx.env.fs.stat(&path) {
            Some(m) if m.is_dir => Ok(()),
            // Appending nothing updates the mtime without copying the contents.
            Some(_) => cx.env.fs.append(&path, b""),
            None if o.has('c') => Ok(()),
            None => cx.env.fs.write(&path, b""),
        };
        if let Err(e) = r {
            fail(&mut out, format!("touch: {p}: {e}"), 1);
        }
    }
    out
}

pub(super) fn stat(args: &[String], _: &[u8], cx: &Cx) -> Output {
    let o = match getopt("stat", args, "fLt", "c") {
        Ok(o) => o,
        Err(e) => return e,
    };
    let mut out = Output::default();
    if o.args.is_empty() {
        fail(&mut out, "stat: Needs 1 argument".into(), 1);
    }
    let default = "  File: %n\n  Size: %s\t %F\nAccess: (%a/%A)\tUid: %U\tGid: %G\nModify: %y";
    let fmt = o.val('c').unwrap_or(default);
    for p in &o.args {
        let ap = cx.abs(p);
        let Some(m) = cx.env.fs.stat(&ap) else {
            fail(&mut out, format!("stat: {p}: No such file or directory"), 1);
            continue;
        };
        let (u, g) = owner(&ap);
        let mut s = String::new();
        let mut chars = fmt.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                s.push(c);
                continue;
            }
            let _ = match chars.next() {
                Some('s') => write!(s, "{}", m.size),
                Some('n') => write!(s, "{p}"),
                Some('a') => write!(s, "{:o}", m.mode & 0o7777),
                Some('A') => write!(s, "{}", mode_string(m.mode)),
                Some('F') => write!(s, "{}", if m.is_dir { "directory" } else { "regular file" }),
                Some('Y') => write!(s, "{}", m.mtime),
                Some('y') => write!(s, "{}", strftime("%F %T", i64::from(m.mtime)).unwrap_or_default()),
                Some('U') => write!(s, "{u}"),
                Some('G') => write!(s, "{g}"),
                Some('%') => write!(s, "%"),
                Some(x) => write!(s, "?{x}"),
                None => write!(s, "%"),
            };
        }
        s.push('\n');
        out.stdout.extend(s.bytes());
    }
    out
}

/// Copies a file or (recursively) a directory; iterative, so deep trees cannot overflow
/// the stack.
pub(crate) fn copy_tree(fs: &MemFs, src: &str, dst: &str) -> Result<(), FsError> {
    let mut stack = vec![(src.to_string(), dst.to_string())];
    while let Some((src, dst)) = stack.pop() {
        let m = fs.stat(&src).ok_or(FsError::NotFound)?;
        if !m.is_dir {
            fs.write(&dst, &fs.read(&src)?)?;
            continue;
        }
        if fs.stat(&dst).is_none() {
            fs.mkdir(&dst, false)?;
        }
        for (name, _) in fs.list(&src)?.iter().rev() {
            stack.push((join(&src, name), join(&dst, name)));
        }
    }
    Ok(())
}

fn copy_or_move(cmd: &str, args: &[String], cx: &Cx, is_move: bool) -> Output {
    let o = match getopt(cmd, args, "rRfaipvnFdPlsuTHL", "t") {
        Ok(o) => o,
        Err(e) => return e,
    };
    let mut out = Output::default();
    let Some((dst, srcs)) = o.args.split_last().filter(|(_, s)| !s.is_empty()) else {
        fail(&mut out, format!("{cmd}: Needs 2 arguments"), 1);
        return out;
    };
    let dst_is_dir = cx.env.fs.stat(&cx.path(dst)).is_some_and(|m| m.is_dir);
    if srcs.len() > 1 && !dst_is_dir {
        fail(&mut out, format!("{cmd}: {dst}: Not a directory"), 1);
        return out;
    }
    let recursive = is_move || o.has('r') || o.has('R') || o.has('a');
    for src in srcs {
        let (asrc, base) = (cx.abs(src), cx.abs(src));
        let name = base.rsplit('/').next().unwrap_or_default();
        let target = if dst_is_dir { join(&cx.abs(dst), name) } else { cx.abs(dst) };
        let Some(m) = cx.env.fs.stat(&asrc) else {
            fail(&mut out, format!("{cmd}: {src}: No such file or directory"), 1);
            continue;
        };
        if m.is_dir && !recursive {
            fail(&mut out, format!("{cmd}: {src}: Is a directory"), 1);
            continue;
        }
        if target == asrc {
            if !is_move {
                fail(&mut out, format!("{cmd}: '{src}' and '{dst}' are the same file"), 1);
            }
            continue;
        }
        if target.starts_with(&format!("{asrc}/")) {
            fail(&mut out, format!("{cmd}: {src}: Can't copy into itself"), 1);
            continue;
        }
        let r = copy_tree(cx.env.fs, &asrc, &target)
            .and_then(|()| if is_move { cx.env.fs.remove(&asrc, true) } else { Ok(()) });
        if let Err(e) = r {
            fail(&mut out, format!("{cmd}: {src}: {e}"), 1);
        }
    }
    out
}

pub(super) fn cp(args: &[String], _: &[u8], cx: &Cx) -> Output {
    copy_or_move("cp", args, cx, false)
}

pub(super) fn mv(args: &[String], _: &[u8], cx: &Cx) -> Output {
    copy_or_move("mv", args, cx, true)
}
