//! `grep`, `egrep` and `fgrep`: toybox's options, output and exit codes over files, stdin
//! and (with `-r`) directory trees. Not turning BRE/ERE patterns into regex syntax (`bre`).

use regex::bytes::Regex;

use super::super::env::Cx;
use super::super::output::Output;
use super::super::patterns;
use super::bre::translate;
use super::shared::{fail, getopt, inputs, join};

pub(super) fn egrep(args: &[String], stdin: &[u8], cx: &Cx) -> Output {
    let mut a = vec!["-E".to_string()];
    a.extend_from_slice(args);
    grep(&a, stdin, cx)
}

pub(super) fn fgrep(args: &[String], stdin: &[u8], cx: &Cx) -> Output {
    let mut a = vec!["-F".to_string()];
    a.extend_from_slice(args);
    grep(&a, stdin, cx)
}

/// Collects the (shown) names of the files under `root` (for `grep -r`), in order;
/// iterative, so deep trees cannot overflow the stack.
fn walk(cx: &Cx, root: &str, out: &mut Vec<String>) {
    let mut stack = vec![root.to_string()];
    while let Some(shown) = stack.pop() {
        match cx.env.fs.list(&cx.path(&shown)) {
            Ok(entries) => stack.extend(entries.iter().rev().map(|(name, _)| join(&shown, name))),
            Err(_) => out.push(shown),
        }
    }
}

pub(super) fn grep(args: &[String], stdin: &[u8], cx: &Cx) -> Output {
    let o = match getopt("grep", args, "EFGHhiIvcqonlLswxrRsz", "efmABC") {
        Ok(o) => o,
        Err(mut e) => {
            e.code = 2;
            return e;
        }
    };
    let mut out = Output::default();
    let mut operands = o.args.clone();
    let mut pats: Vec<String> = o.flags.iter().filter(|f| f.0 == 'e').map(|f| f.1.clone()).collect();
    for (_, f) in o.flags.iter().filter(|f| f.0 == 'f') {
        match cx.env.fs.read(&cx.path(f)) {
            Ok(d) => pats.extend(String::from_utf8_lossy(&d).lines().map(String::from)),
            Err(e) => {
                fail(&mut out, format!("grep: {f}: {e}"), 2);
                return out;
            }
        }
    }
    if !o.has('e') && !o.has('f') {
        if operands.is_empty() {
            fail(&mut out, "grep: Needs 1 argument".into(), 2);
            return out;
        }
        pats.extend(operands.remove(0).split('\n').map(String::from));
    }
    let mut alts = Vec::new();
    for p in &pats {
        let t = if o.has('F') { Ok(regex::escape(p)) } else { translate(p, o.has('E')) };
        match t {
            Ok(t) => alts.push(format!("(?:{t})")),
            Err(e) => {
                fail(&mut out, format!("grep: {e}"), 2);
                return out;
            }
        }
    }
    let mut re = alts.join("|");
    if o.has('x') {
        re = format!("^(?:{re})$");
    } else if o.has('w') {
        re = format!("\\b(?:{re})\\b");
    }
    let re: Regex = match patterns::compiled(&re, o.has('i')) {
        Ok(r) => r,
        Err(e) => {
            let first = e.to_string().lines().last().unwrap_or_default().to_string();
            fail(&mut out, format!("grep: {first}"), 2);
            return out;
        }
    };
    let recursive = o.has('r') || o.has('R');
    let mut files = Vec::new();
    if recursive {
        let roots = if operands.is_empty() { vec![".".to_string()] } else { operands };
        for r in roots {
            walk(cx, &r, &mut files);
        }
    } else {
        files = operands;
    }
    let show_name = !o.has('h') && (o.has('H') || recursive || files.len() > 1);
    let max = o.val('m').and_then(|m| m.parse::<usize>().ok()).unwrap_or(usize::MAX);
    let mut any = false;
    let mut io_err = false;
    let mut tmp = Output::default();
    let data = inputs("grep", &files, stdin, cx, &mut tmp);
    if tmp.code != 0 {
        io_err = true;
        if !o.has('s') {
            out.stderr.extend(tmp.stderr);
        }
    }
    let name_of = |n: &str| {
        if n == "-" { "(standard input)".to_string() } else { n.to_string() }
    };
    for (name, data) in data {
        let mut count = 0usize;
        let sep = if o.has('z') { b'\0' } else { b'\n' };
        let body = data.strip_suffix(&[sep]).unwrap_or(&data);
        let lines = if data.is_empty() { Vec::new() } else { body.split(|&b| b == sep).collect() };
        for (n, line) in lines.into_iter().enumerate() {
            if count >= max {
                break;
            }
            if re.is_match(line) == o.has('v') {
                continue;
            }
            count += 1;
            any = true;
            if o.has('q') || o.has('l') || o.has('L') || o.has('c') {
                continue;
            }
            let mut prefix = Vec::new();
            if show_name {
                prefix.extend(format!("{}:", name_of(&name)).bytes());
            }
            if o.has('n') {
                prefix.extend(format!("{}:", n + 1).bytes());
            }
            if !cx.room(&out, prefix.len() + line.len() + 1) {
                return cx.too_large();
            }
            if o.has('o') && !o.has('v') {
                for m in re.find_iter(line).filter(|m| !m.as_bytes().is_empty()) {
                    out.stdout.extend(&prefix);
                    out.stdout.extend(m.as_bytes());
                    out.stdout.push(sep);
                }
            } else {
                out.stdout.extend(prefix);
                out.stdout.extend(line);
                out.stdout.push(sep);
            }
        }
        if o.has('q') && any {
            return Output::default();
        }
        if o.has('c') {
            let n = if show_name { format!("{}:", name_of(&name)) } else { String::new() };
            out.stdout.extend(format!("{n}{count}\n").bytes());
        }
        if !cx.room(&out, 0) {
            return cx.too_large();
        }
        if (o.has('l') && count > 0) || (o.has('L') && count == 0) {
            out.stdout.extend(format!("{}\n", name_of(&name)).bytes());
        }
    }
    out.code = if io_err && !(o.has('q') && any) {
        2
    } else if any {
        0
    } else {
        1
    };
    if o.has('q') {
        out.stdout.clear();
    }
    out
}
