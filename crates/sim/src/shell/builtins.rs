//! The toybox tools the simulated shell implements itself (echo, cat, ls, grep, ...), with
//! toybox's messages and exit codes, over [`MemFs`](super::MemFs).
//!
//! Each tool has a minimal surface (no `--help`, few flags). Shell-level commands that need the
//! executor (`sh`, `timeout`, `exit`) live in `super`; Android tools come from `super::Commands`.

use base64::Engine as _;

use super::{Cx, MemFs, Output};
use regex::bytes::Regex;
use std::fmt::Write as _;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A builtin: arguments after the command name, stdin, environment.
pub(crate) type Builtin = fn(&[String], &[u8], &Cx) -> Output;

const TABLE: &[(&str, Builtin)] = &[
    ("echo", echo),
    ("cat", cat),
    ("ls", ls),
    ("rm", rm),
    ("mkdir", mkdir),
    ("touch", touch),
    ("grep", grep),
    ("egrep", egrep),
    ("fgrep", fgrep),
    ("head", head),
    ("tail", tail),
    ("wc", wc),
    ("sleep", sleep),
    ("true", |_, _, _| Output::default()),
    ("false", |_, _, _| status(1)),
    ("pwd", |_, _, cx| text(format!("{}\n", cx.cwd))),
    ("base64", base64),
    ("printf", printf),
    ("id", |_, _, _| text("uid=2000(shell) gid=2000(shell) groups=2000(shell)\n")),
    ("whoami", |_, _, _| text("shell\n")),
    ("uname", uname),
    ("date", date),
    ("which", which),
    ("stat", stat),
    ("cp", cp),
    ("mv", mv),
];

/// Names `which` reports besides the builtins: executor-level commands and the Android tools.
const OTHER_COMMANDS: &[&str] = &[
    "sh",
    "timeout",
    "input",
    "am",
    "pm",
    "wm",
    "dumpsys",
    "uiautomator",
    "screencap",
    "monkey",
    "getprop",
    "settings",
    "ime",
    "cmd",
    "svc",
    "simctl",
];

/// Finds a builtin by (path-stripped) name.
pub(crate) fn lookup(name: &str) -> Option<Builtin> {
    TABLE.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

fn text(s: impl AsRef<[u8]>) -> Output {
    Output { stdout: s.as_ref().to_vec(), ..Output::default() }
}

fn status(code: i32) -> Output {
    Output { code, ..Output::default() }
}

/// Reports `msg` on stderr and marks the result failed with `code`.
fn fail(o: &mut Output, msg: String, code: i32) {
    o.stderr.extend_from_slice(msg.as_bytes());
    o.stderr.push(b'\n');
    o.code = code;
}

fn join(dir: &str, name: &str) -> String {
    if dir.ends_with('/') { format!("{dir}{name}") } else { format!("{dir}/{name}") }
}

/// Parsed options: flags in order (value empty for plain flags) and operands.
struct Opts {
    flags: Vec<(char, String)>,
    args: Vec<String>,
}

impl Opts {
    fn has(&self, c: char) -> bool {
        self.flags.iter().any(|f| f.0 == c)
    }
    fn val(&self, c: char) -> Option<&str> {
        self.flags.iter().rev().find(|f| f.0 == c).map(|f| f.1.as_str())
    }
}

/// toybox-style option parsing: flags may follow operands, `--` ends options, long options
/// are ignored; `valued` lists flags that take a value.
fn getopt(cmd: &str, argv: &[String], plain: &str, valued: &str) -> Result<Opts, Output> {
    let mut o = Opts { flags: Vec::new(), args: Vec::new() };
    let mut it = argv.iter();
    let mut done = false;
    while let Some(a) = it.next() {
        let body = match a.strip_prefix('-') {
            Some(b) if !done && !b.is_empty() => b,
            _ => {
                o.args.push(a.clone());
                continue;
            }
        };
        if body == "-" {
            done = true;
            continue;
        }
        if body.starts_with('-') {
            continue;
        }
        for (k, c) in body.char_indices() {
            if valued.contains(c) {
                let rest = body.get(k + c.len_utf8()..).unwrap_or_default();
                let v = if !rest.is_empty() {
                    rest.to_string()
                } else if let Some(v) = it.next() {
                    v.clone()
                } else {
                    let mut out = Output::default();
                    fail(&mut out, format!("{cmd}: Missing argument to -{c}"), 1);
                    return Err(out);
                };
                o.flags.push((c, v));
                break;
            } else if plain.contains(c) {
                o.flags.push((c, String::new()));
            } else {
                let mut out = Output::default();
                let help = format!("(see \"{cmd} --help\")");
                fail(&mut out, format!("{cmd}: Unknown option '{c}' {help}"), 1);
                return Err(out);
            }
        }
    }
    Ok(o)
}

/// Rewrites `-N` (head/tail shorthand) into `-n N`.
fn numeric_shorthand(args: &[String]) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for a in args {
        // `-n -3`: the `-3` is the value of `-n`, not another shorthand.
        let is_value = v.last().is_some_and(|p| p == "-n" || p == "-c");
        match a.strip_prefix('-') {
            Some(n) if !is_value && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                v.push("-n".into());
                v.push(n.into());
            }
            _ => v.push(a.clone()),
        }
    }
    v
}

/// Reads operands (or stdin when there are none / for `-`); errors go to `o` as
/// `cmd: FILE: error` with code 1.
fn inputs(cmd: &str, files: &[String], stdin: &[u8], cx: &Cx, o: &mut Output) -> Vec<(String, Vec<u8>)> {
    if files.is_empty() {
        return vec![("-".into(), stdin.to_vec())];
    }
    let mut v = Vec::new();
    for f in files {
        if f == "-" {
            v.push((f.clone(), stdin.to_vec()));
            continue;
        }
        match cx.env.fs.read(&cx.path(f)) {
            Ok(d) => v.push((f.clone(), d)),
            Err(e) => fail(o, format!("{cmd}: {f}: {e}"), 1),
        }
    }
    v
}

/// Handles the escape after a backslash at `cs[*i]` (echo -e / printf); returns true on `\c`.
fn unescape_at(cs: &[char], i: &mut usize, out: &mut Vec<u8>) -> bool {
    let Some(&c) = cs.get(*i) else {
        out.push(b'\\');
        return false;
    };
    *i += 1;
    let simple = match c {
        '\\' => Some(b'\\'),
        'a' => Some(7),
        'b' => Some(8),
        'e' => Some(27),
        'f' => Some(12),
        'n' => Some(b'\n'),
        'r' => Some(b'\r'),
        't' => Some(b'\t'),
        'v' => Some(11),
        _ => None,
    };
    if let Some(b) = simple {
        out.push(b);
        return false;
    }
    let radix_digits = |i: &mut usize, radix: u32, max: usize| -> Option<u32> {
        let mut v: Option<u32> = None;
        for _ in 0..max {
            let Some(d) = cs.get(*i).and_then(|c| c.to_digit(radix)) else {
                break;
            };
            v = Some(v.unwrap_or(0) * radix + d);
            *i += 1;
        }
        v
    };
    match c {
        'c' => return true,
        '0'..='7' => {
            *i -= 1;
            if c == '0' {
                *i += 1;
            }
            let v = radix_digits(i, 8, 3).unwrap_or(0);
            out.push((v & 0xff) as u8);
        }
        'x' => match radix_digits(i, 16, 2) {
            Some(v) => out.push((v & 0xff) as u8),
            None => out.extend_from_slice(b"\\x"),
        },
        _ => {
            out.push(b'\\');
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    false
}

/// Expands backslash escapes; the flag is true when `\c` stopped output.
fn unescape(s: &str) -> (Vec<u8>, bool) {
    let cs: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = cs.get(i) {
        i += 1;
        if c == '\\' {
            if unescape_at(&cs, &mut i, &mut out) {
                return (out, true);
            }
        } else {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    (out, false)
}

/// mksh's `echo`: backslash escapes are interpreted unless `-E` (`-e` turns them back on),
/// `\c` ends the output, `-n` drops the newline.
fn echo(args: &[String], _: &[u8], _: &Cx) -> Output {
    let (mut newline, mut escapes) = (true, true);
    let mut rest = args;
    while let Some((a, tail)) = rest.split_first() {
        let Some(flags) = a.strip_prefix('-') else {
            break;
        };
        if flags.is_empty() || !flags.chars().all(|c| matches!(c, 'n' | 'e' | 'E')) {
            break;
        }
        for c in flags.chars() {
            match c {
                'n' => newline = false,
                'e' => escapes = true,
                _ => escapes = false,
            }
        }
        rest = tail;
    }
    let joined = rest.join(" ");
    let mut out = if escapes {
        let (v, stop) = unescape(&joined);
        if stop {
            newline = false;
        }
        v
    } else {
        joined.into_bytes()
    };
    if newline {
        out.push(b'\n');
    }
    text(out)
}

fn cat(args: &[String], stdin: &[u8], cx: &Cx) -> Output {
    let files: Vec<String> = args.iter().filter(|a| a.as_str() == "-" || !a.starts_with('-')).cloned().collect();
    let mut o = Output::default();
    for f in &files {
        // Read one operand at a time so a run of large files stops at the budget.
        let mut data = inputs("cat", std::slice::from_ref(f), stdin, cx, &mut o);
        for (_, d) in data.drain(..) {
            if !cx.room(&o, d.len()) {
                return cx.too_large();
            }
            o.stdout.extend(d);
        }
    }
    if files.is_empty() {
        if !cx.room(&o, stdin.len()) {
            return cx.too_large();
        }
        o.stdout.extend_from_slice(stdin);
    }
    o
}

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

/// `secs` since the epoch in UTC, as strftime(3) formats it (the device's clock runs
/// in UTC); `None` for a format jiff does not know.
fn strftime(fmt: &str, secs: i64) -> Option<String> {
    let when = jiff::Timestamp::from_second(secs).ok()?.to_zoned(jiff::tz::TimeZone::UTC);
    jiff::fmt::strtime::format(fmt, &when).ok()
}

pub(crate) fn host_now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX / 2))
        .unwrap_or(0)
}

fn ls(args: &[String], _: &[u8], cx: &Cx) -> Output {
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

fn emit_entries(body: &mut String, entries: &[(String, String, super::Meta)], long: bool) {
    let width = |f: &dyn Fn(&(String, String, super::Meta)) -> usize| entries.iter().map(f).max().unwrap_or(0);
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

fn rm(args: &[String], _: &[u8], cx: &Cx) -> Output {
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

fn mkdir(args: &[String], _: &[u8], cx: &Cx) -> Output {
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

fn touch(args: &[String], _: &[u8], cx: &Cx) -> Output {
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

/// Pushes `c` as a literal in regex-crate syntax.
fn push_lit(out: &mut String, c: char) {
    let mut buf = [0u8; 4];
    out.push_str(&regex::escape(c.encode_utf8(&mut buf)));
}

/// Why grep cannot use a pattern, in toybox's words.
#[derive(Debug, Clone, Copy, thiserror::Error)]
enum PatternError {
    #[error("Unmatched [")]
    UnmatchedBracket,
    #[error("Trailing backslash")]
    TrailingBackslash,
    #[error("Back-references are not supported")]
    BackReference,
}

/// Translates a POSIX bracket expression starting after `[` at `cs[i]`; returns the index
/// after the closing `]`.
fn bracket(cs: &[char], mut i: usize, out: &mut String) -> Result<usize, PatternError> {
    let mut s = String::from("[");
    if cs.get(i) == Some(&'^') {
        s.push('^');
        i += 1;
    }
    let first = i;
    loop {
        let Some(&c) = cs.get(i) else {
            return Err(PatternError::UnmatchedBracket);
        };
        i += 1;
        match c {
            ']' if i - 1 > first => {
                s.push(']');
                out.push_str(&s);
                return Ok(i);
            }
            '[' if matches!(cs.get(i), Some(':' | '=' | '.')) => {
                let kind = cs.get(i).copied().unwrap_or(':');
                let start = i + 1;
                let end = (start..cs.len())
                    .find(|&k| cs.get(k) == Some(&kind) && cs.get(k + 1) == Some(&']'))
                    .ok_or(PatternError::UnmatchedBracket)?;
                let inner: String = cs.get(start..end).unwrap_or_default().iter().collect();
                if kind == ':' {
                    let _ = write!(s, "[:{inner}:]");
                } else {
                    inner.chars().for_each(|c| push_lit(&mut s, c));
                }
                i = end + 2;
            }
            '-' if i - 1 > first && cs.get(i) != Some(&']') && !s.ends_with('-') => s.push('-'),
            c if c.is_alphanumeric() => s.push(c),
            c => push_lit(&mut s, c),
        }
    }
}

/// Translates a POSIX BRE (`ere == false`) or ERE into regex-crate syntax.
fn translate(pat: &str, ere: bool) -> Result<String, PatternError> {
    let cs: Vec<char> = pat.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    // Where a quantifier would have nothing to repeat (so it is literal).
    let mut at_start = true;
    while let Some(&c) = cs.get(i) {
        i += 1;
        let was_start = std::mem::replace(&mut at_start, false);
        // An operator character, after BRE/ERE escaping rules are applied.
        let op = match c {
            '\\' => {
                let Some(&n) = cs.get(i) else {
                    return Err(PatternError::TrailingBackslash);
                };
                i += 1;
                match n {
                    '(' | ')' | '{' | '}' | '|' | '+' | '?' if !ere => Some(n),
                    '<' | '>' => {
                        out.push_str("\\b");
                        None
                    }
                    'w' | 'W' | 's' | 'S' | 'b' | 'B' | 'd' | 'D' => {
                        out.push('\\');
                        out.push(n);
                        None
                    }
                    '1'..='9' => return Err(PatternError::BackReference),
                    n => {
                        push_lit(&mut out, n);
                        None
                    }
                }
            }
            '(' | ')' | '{' | '}' | '|' | '+' | '?' if ere => Some(c),
            '*' | '^' | '$' | '.' | '[' => Some(c),
            c => {
                push_lit(&mut out, c);
                None
            }
        };
        let Some(op) = op else { continue };
        match op {
            '(' => {
                out.push('(');
                at_start = true;
            }
            '|' => {
                out.push('|');
                at_start = true;
            }
            ')' => out.push(')'),
            '*' | '+' | '?' if was_start => push_lit(&mut out, op),
            '*' | '+' | '?' => out.push(op),
            '{' => {
                // An interval: digits and commas, then the close (`}` in ERE, `\}` in BRE).
                // Only the digit run is scanned, so many `{` stay linear.
                let close: &[char] = if ere { &['}'] } else { &['\\', '}'] };
                let e =
                    i + cs.get(i..).unwrap_or_default().iter().take_while(|c| c.is_ascii_digit() || **c == ',').count();
                if !was_start && e > i && cs.get(e..e + close.len()) == Some(close) {
                    let b: String = cs.get(i..e).unwrap_or_default().iter().collect();
                    let _ = write!(out, "{{{b}}}");
                    i = e + close.len();
                } else {
                    push_lit(&mut out, '{');
                }
            }
            '}' => push_lit(&mut out, '}'),
            '^' if ere || was_start => {
                out.push('^');
                at_start = true;
            }
            '$' if ere || i == cs.len() || (cs.get(i) == Some(&'\\') && matches!(cs.get(i + 1), Some(')' | '|'))) => {
                out.push('$');
            }
            '.' => out.push('.'),
            '[' => i = bracket(&cs, i, &mut out)?,
            c => push_lit(&mut out, c),
        }
    }
    Ok(out)
}

fn egrep(args: &[String], stdin: &[u8], cx: &Cx) -> Output {
    let mut a = vec!["-E".to_string()];
    a.extend_from_slice(args);
    grep(&a, stdin, cx)
}

fn fgrep(args: &[String], stdin: &[u8], cx: &Cx) -> Output {
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

fn grep(args: &[String], stdin: &[u8], cx: &Cx) -> Output {
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
    let re: Regex = match super::patterns::compiled(&re, o.has('i')) {
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

/// Lines (with their terminators) or bytes of `data`, for head/tail.
fn head_tail(args: &[String], stdin: &[u8], cx: &Cx, tail: bool) -> Output {
    let cmd = if tail { "tail" } else { "head" };
    let o = match getopt(cmd, &numeric_shorthand(args), "qvf", "nc") {
        Ok(o) => o,
        Err(e) => return e,
    };
    let mut out = Output::default();
    let (bytes, spec) = match (o.val('c'), o.val('n')) {
        (Some(c), _) => (true, c.to_string()),
        (None, Some(n)) => (false, n.to_string()),
        _ => (false, "10".to_string()),
    };
    let from_start = tail && spec.starts_with('+');
    let Ok(n) = spec.trim_start_matches(['+', '-']).parse::<usize>() else {
        fail(&mut out, format!("{cmd}: Not integer: '{spec}'"), 1);
        return out;
    };
    if !tail && spec.starts_with('-') && n > 0 {
        // toybox head takes no negative counts (`head -n -3` is not GNU's "all but 3").
        let flag = if bytes { 'c' } else { 'n' };
        fail(&mut out, format!("{cmd}: Invalid -{flag} '{spec}'"), 1);
        return out;
    }
    let inputs = inputs(cmd, &o.args, stdin, cx, &mut out);
    let headers = inputs.len() > 1 && !o.has('q') || o.has('v');
    for (k, (name, data)) in inputs.iter().enumerate() {
        if headers {
            let sep = if k > 0 { "\n" } else { "" };
            out.stdout.extend(format!("{sep}==> {name} <==\n").bytes());
        }
        let len = data.len();
        let range = match (bytes, tail) {
            (true, false) => 0..n.min(len),
            (true, true) if from_start => n.saturating_sub(1).min(len)..len,
            (true, true) => len.saturating_sub(n)..len,
            (false, false) => 0..nth_line_end(data, n),
            (false, true) if from_start => nth_line_end(data, n.saturating_sub(1))..len,
            (false, true) => last_lines_start(data, n)..len,
        };
        let part = data.get(range).unwrap_or_default();
        if !cx.room(&out, part.len()) {
            return cx.too_large();
        }
        out.stdout.extend_from_slice(part);
    }
    out
}

/// Byte offset just after the `n`-th line of `data` (its length when it has fewer).
fn nth_line_end(data: &[u8], n: usize) -> usize {
    match n.checked_sub(1) {
        None => 0,
        Some(k) => data.iter().enumerate().filter(|(_, b)| **b == b'\n').nth(k).map_or(data.len(), |(i, _)| i + 1),
    }
}

/// Byte offset where the last `n` lines of `data` start (a final line without a newline
/// counts).
fn last_lines_start(data: &[u8], n: usize) -> usize {
    if n == 0 {
        return data.len();
    }
    let body = data.strip_suffix(b"\n").unwrap_or(data);
    body.iter().enumerate().rev().filter(|(_, b)| **b == b'\n').nth(n - 1).map_or(0, |(i, _)| i + 1)
}

fn head(args: &[String], stdin: &[u8], cx: &Cx) -> Output {
    head_tail(args, stdin, cx, false)
}

fn tail(args: &[String], stdin: &[u8], cx: &Cx) -> Output {
    head_tail(args, stdin, cx, true)
}

fn wc(args: &[String], stdin: &[u8], cx: &Cx) -> Output {
    let o = match getopt("wc", args, "lwcm", "") {
        Ok(o) => o,
        Err(e) => return e,
    };
    let mut out = Output::default();
    let mut which: Vec<char> = "lwcm".chars().filter(|&c| o.has(c)).collect();
    if which.is_empty() {
        which = vec!['l', 'w', 'c'];
    }
    let count = |d: &[u8], c: char| -> usize {
        match c {
            'l' => d.iter().filter(|&&b| b == b'\n').count(),
            'w' => d.split(|b| b.is_ascii_whitespace()).filter(|w| !w.is_empty()).count(),
            'm' => String::from_utf8_lossy(d).chars().count(),
            _ => d.len(),
        }
    };
    let inputs = inputs("wc", &o.args, stdin, cx, &mut out);
    let mut totals = vec![0usize; which.len()];
    let mut line = |nums: &[usize], name: &str| {
        let mut s = String::new();
        for (k, n) in nums.iter().enumerate() {
            let sep = if k > 0 { " " } else { "" };
            let _ = if which.len() > 1 { write!(s, "{sep}{n:7}") } else { write!(s, "{sep}{n}") };
        }
        if !o.args.is_empty() {
            let _ = write!(s, " {name}");
        }
        s.push('\n');
        out.stdout.extend(s.bytes());
    };
    for (name, data) in &inputs {
        let nums: Vec<usize> = which.iter().map(|&c| count(data, c)).collect();
        for (t, n) in totals.iter_mut().zip(&nums) {
            *t = t.saturating_add(*n);
        }
        line(&nums, name);
    }
    if inputs.len() > 1 {
        line(&totals, "total");
    }
    out
}

/// Parses `1`, `0.5`, `2s`, `3m`, `1h`, `1d` into a duration.
pub(crate) fn parse_duration(s: &str) -> Option<Duration> {
    let (num, mult) = match s.char_indices().last()? {
        (k, 's') => (s.get(..k)?, 1.0),
        (k, 'm') => (s.get(..k)?, 60.0),
        (k, 'h') => (s.get(..k)?, 3600.0),
        (k, 'd') => (s.get(..k)?, 86_400.0),
        _ => (s, 1.0),
    };
    let v: f64 = num.parse().ok()?;
    if !v.is_finite() || v < 0.0 || num.starts_with(['+', '-']) {
        return None;
    }
    Some(Duration::try_from_secs_f64(v * mult).unwrap_or(Duration::MAX))
}

fn sleep(args: &[String], _: &[u8], cx: &Cx) -> Output {
    let mut out = Output::default();
    if args.is_empty() {
        fail(&mut out, "sleep: Needs 1 argument".into(), 1);
        return out;
    }
    let mut total = Duration::ZERO;
    for a in args {
        match parse_duration(a) {
            Some(d) => total = total.saturating_add(d),
            None => {
                fail(&mut out, format!("sleep: Bad duration '{a}'"), 1);
                return out;
            }
        }
    }
    if !cx.env.sleep(total) {
        out.code = 143;
    }
    out
}

/// `base64`'s encoding with lines of `wrap` characters (0: one line), each ending
/// in a newline, as toybox prints it.
fn b64_encode(data: &[u8], wrap: usize) -> Vec<u8> {
    let encoded = base64::engine::general_purpose::STANDARD.encode(data).into_bytes();
    let mut out = Vec::with_capacity(encoded.len() + encoded.len() / wrap.max(1) + 1);
    if wrap == 0 {
        out.extend_from_slice(&encoded);
        if !out.is_empty() {
            out.push(b'\n');
        }
    } else {
        for line in encoded.chunks(wrap) {
            out.extend_from_slice(line);
            out.push(b'\n');
        }
    }
    out
}

/// Decodes, skipping line breaks (and, with `ignore_garbage`, anything outside the
/// alphabet); padding may be left out, as toybox allows.
fn b64_decode(data: &[u8], ignore_garbage: bool) -> Option<Vec<u8>> {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    let kept: Vec<u8> = data
        .iter()
        .copied()
        .filter(|c| {
            let in_alphabet = c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=');
            in_alphabet || !(c.is_ascii_whitespace() || ignore_garbage)
        })
        .collect();
    let lenient = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    lenient.decode(kept).ok()
}

fn base64(args: &[String], stdin: &[u8], cx: &Cx) -> Output {
    let o = match getopt("base64", args, "di", "w") {
        Ok(o) => o,
        Err(e) => return e,
    };
    let mut out = Output::default();
    let files = o.args.get(..1).unwrap_or_default();
    let Some((_, data)) = inputs("base64", files, stdin, cx, &mut out).pop() else {
        return out;
    };
    if o.has('d') {
        if !cx.room(&out, data.len() / 4 * 3 + 3) {
            return cx.too_large();
        }
        match b64_decode(&data, o.has('i')) {
            Some(d) => out.stdout = d,
            None => fail(&mut out, "base64: bad input".into(), 1),
        }
    } else {
        let wrap: usize = o.val('w').and_then(|w| w.parse().ok()).unwrap_or(76);
        let enc = data.len().div_ceil(3).saturating_mul(4);
        if !cx.room(&out, enc.saturating_add(enc.checked_div(wrap).unwrap_or(0)).saturating_add(1)) {
            return cx.too_large();
        }
        out.stdout = b64_encode(&data, wrap);
    }
    out
}

/// Pads `s` to `width` (left-justified with `left`, zero-filled with `zero`).
fn pad(s: String, width: usize, left: bool, zero: bool) -> String {
    let len = s.chars().count();
    if len >= width {
        return s;
    }
    let fill = width - len;
    if left {
        format!("{s}{}", " ".repeat(fill))
    } else if zero {
        let (sign, digits) = match s.strip_prefix('-') {
            Some(d) => ("-", d.to_string()),
            None => ("", s),
        };
        format!("{sign}{}{digits}", "0".repeat(fill))
    } else {
        format!("{}{s}", " ".repeat(fill))
    }
}

/// printf's numeric argument: decimal, 0x hex, 0 octal, or `'c` for a character code.
fn printf_num(a: &str) -> Option<i64> {
    if let Some(c) = a.strip_prefix(['\'', '"']) {
        return Some(c.chars().next().map_or(0, |c| i64::from(u32::from(c))));
    }
    let (neg, body) = match a.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, a.strip_prefix('+').unwrap_or(a)),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()?
    } else if body.len() > 1 && body.starts_with('0') {
        i64::from_str_radix(body, 8).ok()?
    } else {
        body.parse().ok()?
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

/// One pass over the format; returns true when `\c` stopped output, `Err` when the output
/// budget ran out.
fn printf_once(fmt: &[char], args: &[String], next: &mut usize, out: &mut Output, cx: &Cx) -> Result<bool, ()> {
    let mut i = 0;
    while let Some(&c) = fmt.get(i) {
        i += 1;
        // A literal or escape adds at most 4 bytes; fields are checked below.
        if !cx.room(out, 4) {
            return Err(());
        }
        if c == '\\' {
            if unescape_at(fmt, &mut i, &mut out.stdout) {
                return Ok(true);
            }
            continue;
        }
        if c != '%' {
            let mut buf = [0u8; 4];
            out.stdout.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        let (mut left, mut zero) = (false, false);
        while let Some(&f) = fmt.get(i).filter(|c| matches!(c, '-' | '0' | '+' | ' ' | '#')) {
            left |= f == '-';
            zero |= f == '0';
            i += 1;
        }
        let num = |i: &mut usize| {
            let mut v = 0usize;
            while let Some(d) = fmt.get(*i).and_then(|c| c.to_digit(10)) {
                v = (v * 10 + d as usize).min(4096);
                *i += 1;
            }
            v
        };
        let width = num(&mut i);
        let prec = if fmt.get(i) == Some(&'.') {
            i += 1;
            Some(num(&mut i))
        } else {
            None
        };
        let Some(&conv) = fmt.get(i) else {
            out.stdout.push(b'%');
            break;
        };
        i += 1;
        if conv == '%' {
            out.stdout.push(b'%');
            continue;
        }
        let arg = args.get(*next).cloned();
        if matches!(conv, 's' | 'b' | 'c' | 'd' | 'i' | 'u' | 'x' | 'X' | 'o') {
            *next += 1;
        }
        let arg = arg.unwrap_or_default();
        let numeric = |out: &mut Output| -> i64 {
            if arg.is_empty() {
                return 0;
            }
            printf_num(&arg).unwrap_or_else(|| {
                fail(out, format!("printf: invalid number '{arg}'"), 1);
                0
            })
        };
        let s = match conv {
            's' => match prec {
                Some(p) => arg.chars().take(p).collect(),
                None => arg.clone(),
            },
            'b' => {
                let (v, stop) = unescape(&arg);
                if !cx.room(out, v.len()) {
                    return Err(());
                }
                out.stdout.extend(v);
                if stop {
                    return Ok(true);
                }
                continue;
            }
            'c' => arg.chars().next().map(String::from).unwrap_or_default(),
            'd' | 'i' => numeric(out).to_string(),
            'u' => (numeric(out) as u64).to_string(),
            'x' => format!("{:x}", numeric(out)),
            'X' => format!("{:X}", numeric(out)),
            'o' => format!("{:o}", numeric(out)),
            other => format!("%{other}"),
        };
        let numeric_conv = matches!(conv, 'd' | 'i' | 'u' | 'x' | 'X' | 'o');
        let field = pad(s, width, left, zero && numeric_conv);
        if !cx.room(out, field.len()) {
            return Err(());
        }
        out.stdout.extend(field.bytes());
    }
    Ok(false)
}

fn printf(args: &[String], _: &[u8], cx: &Cx) -> Output {
    let mut out = Output::default();
    let Some((fmt, rest)) = args.split_first() else {
        fail(&mut out, "printf: Needs 1 argument".into(), 1);
        return out;
    };
    let fmt: Vec<char> = fmt.chars().collect();
    let mut next = 0;
    loop {
        let before = next;
        match printf_once(&fmt, rest, &mut next, &mut out, cx) {
            Err(()) => return cx.too_large(),
            Ok(true) => break,
            Ok(false) if next >= rest.len() || next == before => break,
            Ok(false) => {}
        }
    }
    out
}

fn uname(args: &[String], _: &[u8], _: &Cx) -> Output {
    let o = match getopt("uname", args, "asnrvmo", "") {
        Ok(o) => o,
        Err(e) => return e,
    };
    let fields = [
        ('s', "Linux"),
        ('n', "localhost"),
        ('r', "6.1.75-android14-11"),
        ('v', "#1 SMP PREEMPT"),
        ('m', "aarch64"),
        ('o', "Toybox"),
    ];
    let mut picked: Vec<&str> = fields.iter().filter(|(c, _)| o.has('a') || o.has(*c)).map(|(_, v)| *v).collect();
    if picked.is_empty() {
        picked.push("Linux");
    }
    text(format!("{}\n", picked.join(" ")))
}

fn date(args: &[String], _: &[u8], cx: &Cx) -> Output {
    let mut fmt = "%a %b %e %H:%M:%S %Z %Y".to_string();
    for a in args {
        if let Some(f) = a.strip_prefix('+') {
            fmt = f.to_string();
        } else if a != "-u" {
            let mut out = Output::default();
            fail(&mut out, "date: cannot set date: Operation not permitted".into(), 1);
            return out;
        }
    }
    match strftime(&fmt, cx.env.commands.now_secs()) {
        Some(shown) => text(format!("{shown}\n")),
        None => {
            let mut out = Output::default();
            fail(&mut out, format!("date: bad format '{fmt}'"), 1);
            out
        }
    }
}

fn which(args: &[String], _: &[u8], _: &Cx) -> Output {
    let mut out = Output::default();
    let known = |n: &str| lookup(n).is_some() || OTHER_COMMANDS.contains(&n);
    for a in args.iter().filter(|a| !a.starts_with('-')) {
        let name = a.strip_prefix("/system/bin/").unwrap_or(a);
        if known(name) {
            out.stdout.extend(format!("/system/bin/{name}\n").bytes());
        } else {
            out.code = 1;
        }
    }
    if args.is_empty() {
        out.code = 1;
    }
    out
}

fn stat(args: &[String], _: &[u8], cx: &Cx) -> Output {
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
pub(crate) fn copy_tree(fs: &MemFs, src: &str, dst: &str) -> Result<(), super::FsError> {
    let mut stack = vec![(src.to_string(), dst.to_string())];
    while let Some((src, dst)) = stack.pop() {
        let m = fs.stat(&src).ok_or(super::FsError::NotFound)?;
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

fn cp(args: &[String], _: &[u8], cx: &Cx) -> Output {
    copy_or_move("cp", args, cx, false)
}

fn mv(args: &[String], _: &[u8], cx: &Cx) -> Output {
    copy_or_move("mv", args, cx, true)
}

#[cfg(test)]
mod tests {
    use super::super::{Budget, Commands, ShellEnv};
    use super::*;

    struct NoCommands;
    impl Commands for NoCommands {
        fn run_command(&self, _: &[String], _: &[u8], _: &ShellEnv) -> Option<Output> {
            None
        }
    }

    /// Runs builtin `name` with string args and stdin on `fs`.
    fn call(fs: &MemFs, name: &str, args: &[&str], stdin: &str) -> Output {
        call_with(fs, "/", usize::MAX, name, args, stdin.as_bytes()).0
    }

    /// Like `call`, in directory `cwd` with `budget` output bytes; also says whether the
    /// builtin ran out of budget.
    fn call_with(fs: &MemFs, cwd: &str, budget: usize, name: &str, args: &[&str], stdin: &[u8]) -> (Output, bool) {
        let env = ShellEnv { fs, commands: &NoCommands, deadline: None, cancel: None };
        let budget = Budget::new(budget, 10);
        let cx = Cx { env: &env, cwd, budget: &budget };
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let f = lookup(name).unwrap();
        let out = f(&args, stdin, &cx);
        (out, budget.stopped())
    }

    fn so(o: &Output) -> String {
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    fn grep_out(args: &[&str], input: &str) -> (String, i32) {
        let o = call(&MemFs::new(), "grep", args, input);
        (so(&o), o.code)
    }

    #[test]
    fn echo_flags() {
        let fs = MemFs::new();
        assert_eq!(so(&call(&fs, "echo", &["-n", "a", "b"], "")), "a b");
        assert_eq!(so(&call(&fs, "echo", &["-e", "a\\tb\\x41\\0101"], "")), "a\tbAA\n");
        assert_eq!(so(&call(&fs, "echo", &["-e", "x\\cy"], "")), "x");
        assert_eq!(so(&call(&fs, "echo", &["-x", "a\\n"], "")), "-x a\n\n");
        assert_eq!(so(&call(&fs, "echo", &[], "")), "\n");
    }

    #[test]
    fn echo_is_mksh() {
        let fs = MemFs::new();
        // Escapes are on by default; -E turns them off, -e back on; \c ends the output.
        assert_eq!(so(&call(&fs, "echo", &["a\\nb"], "")), "a\nb\n");
        assert_eq!(so(&call(&fs, "echo", &["a\\tb", "c\\cd", "e"], "")), "a\tb c");
        assert_eq!(so(&call(&fs, "echo", &["-E", "a\\nb"], "")), "a\\nb\n");
        assert_eq!(so(&call(&fs, "echo", &["-E", "-e", "a\\nb"], "")), "a\nb\n");
        assert_eq!(so(&call(&fs, "echo", &["-En", "x\\n"], "")), "x\\n");
        assert_eq!(so(&call(&fs, "echo", &["-n", "-", "x"], "")), "- x");
    }

    #[test]
    fn budget_stops_output_loops() {
        let fs = MemFs::new();
        fs.write("/sdcard/k", &[b'x'; 1000]).unwrap();
        let run = |name: &str, args: &[&str], stdin: &[u8]| call_with(&fs, "/", 1500, name, args, stdin);
        let (o, stopped) = run("cat", &["/sdcard/k", "/sdcard/k"], b"");
        assert!(stopped && o.code == 1 && o.stdout.is_empty());
        assert!(!run("cat", &["/sdcard/k"], b"").1);
        let (o, stopped) = run("printf", &["%1000s"], b"");
        assert!(!stopped && o.stdout.len() == 1000);
        assert!(run("printf", &["%1000s", "a", "b"], b"").1);
        assert!(run("printf", &["%s%s", "a", "b", "c"], b"").0.code == 0);
        let lines = "line\n".repeat(400);
        assert!(run("grep", &["l"], lines.as_bytes()).1);
        assert!(!run("grep", &["-c", "l"], lines.as_bytes()).1);
        assert!(run("head", &["-n", "1000"], lines.as_bytes()).1);
        assert!(run("tail", &["-c", "1600"], lines.as_bytes()).1);
        assert!(!run("tail", &["-c", "1400"], lines.as_bytes()).1);
        assert!(run("base64", &[], &[0; 1200]).1);
        assert!(!run("base64", &[], &[0; 1000]).1);
        for k in 0..200 {
            fs.write(&format!("/sdcard/file-with-a-long-name-{k}"), b"").unwrap();
        }
        assert!(run("ls", &["/sdcard"], b"").1);
    }

    #[test]
    fn paths_follow_cwd() {
        let fs = MemFs::new();
        fs.write("/sdcard/Download/f", b"data\n").unwrap();
        let c = |name: &str, args: &[&str]| call_with(&fs, "/sdcard/Download", usize::MAX, name, args, b"").0;
        assert_eq!(so(&c("cat", &["f"])), "data\n");
        assert_eq!(so(&c("pwd", &[])), "/sdcard/Download\n");
        assert_eq!(c("mkdir", &["d"]).code, 0);
        assert!(fs.stat("/sdcard/Download/d").is_some_and(|m| m.is_dir));
        assert_eq!(c("cp", &["f", "d/g"]).code, 0);
        assert_eq!(fs.read("/sdcard/Download/d/g").unwrap(), b"data\n");
        assert_eq!(so(&c("ls", &["d"])), "g\n");
        assert_eq!(so(&c("grep", &["-r", "da", "."])), "./d/g:data\n./f:data\n");
        assert_eq!(c("rm", &["-r", "d"]).code, 0);
        assert!(fs.stat("/sdcard/Download/d").is_none());
    }

    #[test]
    fn deep_trees_do_not_recurse() {
        let fs = MemFs::new();
        let deep = format!("/sdcard/t{}", "/d".repeat(1900));
        fs.mkdir(&deep, true).unwrap();
        fs.write(&format!("{deep}/f"), b"needle\n").unwrap();
        let o = call(&fs, "grep", &["-rl", "needle", "/sdcard/t"], "");
        assert_eq!(so(&o), format!("{deep}/f\n"));
        assert_eq!(call(&fs, "cp", &["-r", "/sdcard/t", "/sdcard/u"], "").code, 0);
        assert_eq!(fs.read(&format!("/sdcard/u{}/f", "/d".repeat(1900))).unwrap(), b"needle\n");
    }

    #[test]
    fn grep_braces_are_linear() {
        let start = std::time::Instant::now();
        let pat = "x{1".repeat(100_000);
        let (_, code) = grep_out(&[&pat], "x\n");
        assert!(code == 1 || code == 2);
        let (_, code) = grep_out(&["-E", &"{".repeat(200_000)], "x\n");
        assert!(code == 1 || code == 2);
        assert_eq!(grep_out(&["-E", "a{2}{"], "aa{\n"), ("aa{\n".into(), 0));
        assert_eq!(grep_out(&["a\\{1,2\\}b"], "ab\n"), ("ab\n".into(), 0));
        assert!(start.elapsed() < std::time::Duration::from_secs(10));
    }

    #[test]
    fn grep_basics() {
        let input = "apple\nbanana\na+b\nApple pie\n";
        assert_eq!(grep_out(&["-c", "an"], input), ("1\n".into(), 0));
        assert_eq!(grep_out(&["-v", "a"], input), ("Apple pie\n".into(), 0));
        assert_eq!(grep_out(&["a+b"], input), ("a+b\n".into(), 0));
        assert_eq!(grep_out(&["-E", "a+b"], input), ("".into(), 1));
        assert_eq!(grep_out(&["an\\+a"], input), ("banana\n".into(), 0));
        assert_eq!(grep_out(&["-i", "-n", "^apple"], input), ("1:apple\n4:Apple pie\n".into(), 0));
        assert_eq!(grep_out(&["-o", "-E", "an+"], "banana\n"), ("an\nan\n".into(), 0));
        assert_eq!(grep_out(&["-q", "pie"], input), ("".into(), 0));
        assert_eq!(grep_out(&["-F", "a+b"], input), ("a+b\n".into(), 0));
        assert_eq!(grep_out(&["-e", "zzz", "-e", "pie"], input), ("Apple pie\n".into(), 0));
        assert_eq!(grep_out(&["\\(an\\)\\{2\\}"], input), ("banana\n".into(), 0));
        assert_eq!(grep_out(&["-E", "(an){2}|^a\\+"], input), ("banana\na+b\n".into(), 0));
        assert_eq!(grep_out(&["*a"], "x*a\nya\n"), ("x*a\n".into(), 0));
        assert_eq!(grep_out(&["[[:digit:]]x"], "1x\nax\n"), ("1x\n".into(), 0));
        assert_eq!(grep_out(&["[]a]"], "]\nb\n"), ("]\n".into(), 0));
        assert_eq!(grep_out(&["a$b"], "a$b\nab\n"), ("a$b\n".into(), 0));
        assert_eq!(grep_out(&["-w", "app"], "app x\napple\n"), ("app x\n".into(), 0));
        assert_eq!(grep_out(&["-x", "ab"], "ab\nabc\n"), ("ab\n".into(), 0));
        assert_eq!(grep_out(&["x{"], "x{\n"), ("x{\n".into(), 0));
        assert_eq!(grep_out(&["-E", "x{"], "x{\n"), ("x{\n".into(), 0));
        assert_eq!(grep_out(&["[a"], "x\n").1, 2);
        assert_eq!(grep_out(&["\\1"], "x\n").1, 2);
        assert_eq!(grep_out(&[], "x\n").1, 2);
    }

    #[test]
    fn grep_files() {
        let fs = MemFs::new();
        fs.write("/sdcard/a", b"one\ntwo\n").unwrap();
        fs.mkdir("/sdcard/d", false).unwrap();
        fs.write("/sdcard/d/b", b"two\n").unwrap();
        let o = call(&fs, "grep", &["two", "/sdcard/a", "/sdcard/missing"], "");
        assert_eq!(so(&o), "/sdcard/a:two\n");
        assert_eq!(o.stderr, b"grep: /sdcard/missing: No such file or directory\n");
        assert_eq!(o.code, 2);
        let o = call(&fs, "grep", &["-r", "two", "/sdcard"], "");
        assert_eq!(so(&o), "/sdcard/a:two\n/sdcard/d/b:two\n");
        let o = call(&fs, "grep", &["-l", "one", "/sdcard/a", "/sdcard/d/b"], "");
        assert_eq!(so(&o), "/sdcard/a\n");
    }

    #[test]
    fn ls_rm_mkdir_touch() {
        let fs = MemFs::new();
        call(&fs, "mkdir", &["-p", "/sdcard/x/y"], "");
        let o = call(&fs, "mkdir", &["/sdcard/x"], "");
        assert_eq!((o.stderr.as_slice(), o.code), (&b"mkdir: '/sdcard/x': File exists\n"[..], 1));
        call(&fs, "touch", &["/sdcard/x/.hidden", "/sdcard/x/f"], "");
        assert_eq!(so(&call(&fs, "ls", &["/sdcard/x"], "")), "f\ny\n");
        assert_eq!(so(&call(&fs, "ls", &["-a", "/sdcard/x"], "")), ".\n..\n.hidden\nf\ny\n");
        assert_eq!(so(&call(&fs, "ls", &["/sdcard/x/f", "/sdcard/x/y"], "")), "/sdcard/x/f\n\n/sdcard/x/y:\n");
        fs.write("/sdcard/x/f", b"hello").unwrap();
        let long = so(&call(&fs, "ls", &["-l", "/sdcard/x/f"], ""));
        assert!(long.starts_with("-rw-rw---- 1 root sdcard_rw 5 20"), "{long}");
        assert!(long.ends_with(" /sdcard/x/f\n"));
        let o = call(&fs, "rm", &["/sdcard/x"], "");
        assert_eq!(o.stderr, b"rm: /sdcard/x: Is a directory\n");
        let o = call(&fs, "rm", &["/sdcard/nope"], "");
        assert_eq!((o.stderr.as_slice(), o.code), (&b"rm: /sdcard/nope: No such file or directory\n"[..], 1));
        assert_eq!(call(&fs, "rm", &["-f", "/sdcard/nope"], "").code, 0);
        assert_eq!(call(&fs, "rm", &["-rf", "/sdcard/x"], "").code, 0);
        assert!(fs.stat("/sdcard/x").is_none());
        let o = call(&fs, "rm", &["-rf", "/system/bin"], "");
        assert_eq!(o.stderr, b"rm: /system/bin: Read-only file system\n");
        let o = call(&fs, "ls", &["-z"], "");
        assert_eq!(o.code, 1);
        assert!(String::from_utf8_lossy(&o.stderr).starts_with("ls: Unknown option 'z'"));
    }

    #[test]
    fn cat_head_tail_wc() {
        let fs = MemFs::new();
        fs.write("/sdcard/n", b"1\n2\n3\n4\n5\n").unwrap();
        let o = call(&fs, "cat", &["/sdcard/n", "/nope", "-"], "in");
        assert_eq!(so(&o), "1\n2\n3\n4\n5\nin");
        assert_eq!((o.stderr.as_slice(), o.code), (&b"cat: /nope: No such file or directory\n"[..], 1));
        assert_eq!(so(&call(&fs, "head", &["-n", "2", "/sdcard/n"], "")), "1\n2\n");
        assert_eq!(so(&call(&fs, "head", &["-3"], "a\nb\nc\nd\n")), "a\nb\nc\n");
        assert_eq!(so(&call(&fs, "tail", &["-n", "2", "/sdcard/n"], "")), "4\n5\n");
        assert_eq!(so(&call(&fs, "tail", &["-n", "+4", "/sdcard/n"], "")), "4\n5\n");
        assert_eq!(so(&call(&fs, "tail", &["-c", "3"], "abcdef")), "def");
        assert_eq!(so(&call(&fs, "tail", &["-1"], "x\ny")), "y");
        assert_eq!(so(&call(&fs, "wc", &["-l"], "a\nb\n")), "2\n");
        assert_eq!(so(&call(&fs, "wc", &["-l", "/sdcard/n"], "")), "5 /sdcard/n\n");
        assert_eq!(so(&call(&fs, "wc", &[], "a b\nc\n")), "      2       3       6\n");
        assert_eq!(call(&fs, "head", &["-n", "x"], "").code, 1);
    }

    #[test]
    fn head_tail_edges() {
        let fs = MemFs::new();
        let o = call(&fs, "head", &["-n", "-3"], "1\n2\n3\n4\n");
        assert_eq!((so(&o).as_str(), o.stderr.as_slice(), o.code), ("", &b"head: Invalid -n '-3'\n"[..], 1));
        assert_eq!(call(&fs, "head", &["-c", "-3"], "abc").code, 1);
        assert_eq!(so(&call(&fs, "tail", &["-n", "-2"], "1\n2\n3\n")), "2\n3\n");
        assert_eq!(so(&call(&fs, "head", &["-n", "0"], "1\n")), "");
        assert_eq!(so(&call(&fs, "head", &["-n", "2"], "1\n2")), "1\n2");
        assert_eq!(so(&call(&fs, "tail", &["-n", "0"], "1\n")), "");
        assert_eq!(so(&call(&fs, "tail", &["-n", "5"], "1\n2")), "1\n2");
        assert_eq!(so(&call(&fs, "tail", &["-n", "+1"], "1\n2")), "1\n2");
        assert_eq!(so(&call(&fs, "tail", &["-n", "+3"], "1\n2")), "");
        assert_eq!(so(&call(&fs, "tail", &["-n", "1"], "\n\n")), "\n");
        // -c slices the data directly (no per-byte allocation).
        let big = vec![b'z'; 8 << 20];
        let (o, _) = call_with(&fs, "/", usize::MAX, "head", &["-c", "5000000"], &big);
        assert_eq!(o.stdout.len(), 5_000_000);
        let (o, _) = call_with(&fs, "/", usize::MAX, "tail", &["-c", "+8388000"], &big);
        assert_eq!(o.stdout.len(), 609);
        assert_eq!(so(&call(&fs, "head", &["-c", "2"], "abc")), "ab");
    }

    #[test]
    fn base64_round_trip() {
        let fs = MemFs::new();
        assert_eq!(so(&call(&fs, "base64", &[], "hello")), "aGVsbG8=\n");
        assert_eq!(so(&call(&fs, "base64", &["-d"], "aGVsbG8=\n")), "hello");
        assert_eq!(so(&call(&fs, "base64", &["-d"], "aGVsbG8")), "hello");
        assert_eq!(so(&call(&fs, "base64", &[], "")), "");
        let long = "x".repeat(100);
        let enc = so(&call(&fs, "base64", &[], &long));
        assert_eq!(enc.lines().next().map(str::len), Some(76));
        assert_eq!(so(&call(&fs, "base64", &["-d"], &enc)), long);
        let o = call(&fs, "base64", &["-d"], "a*b");
        assert_eq!((o.stderr.as_slice(), o.code), (&b"base64: bad input\n"[..], 1));
        assert_eq!(call(&fs, "base64", &["-d"], "a").code, 1);
    }

    #[test]
    fn printf_formats() {
        let fs = MemFs::new();
        let p = |a: &[&str]| so(&call(&fs, "printf", a, ""));
        assert_eq!(p(&["%s-%d%%\\n", "a", "42"]), "a-42%\n");
        assert_eq!(p(&["%s\\t", "a", "b"]), "a\tb\t");
        assert_eq!(p(&["[%5s|%-3d|%03d|%x]", "ab", "7", "5", "255"]), "[   ab|7  |005|ff]");
        assert_eq!(p(&["%d", "'A"]), "65");
        assert_eq!(p(&["%99999999999s", "a"]).len(), 4096);
        assert_eq!(call(&fs, "printf", &["%d", "zz"], "").code, 1);
    }

    #[test]
    fn misc_tools() {
        let fs = MemFs::new();
        assert_eq!(so(&call(&fs, "uname", &[], "")), "Linux\n");
        assert_eq!(
            so(&call(&fs, "uname", &["-a"], "")),
            "Linux localhost 6.1.75-android14-11 #1 SMP PREEMPT aarch64 Toybox\n"
        );
        assert_eq!(so(&call(&fs, "uname", &["-m"], "")), "aarch64\n");
        assert_eq!(so(&call(&fs, "id", &[], "")), "uid=2000(shell) gid=2000(shell) groups=2000(shell)\n");
        assert_eq!(so(&call(&fs, "which", &["ls", "input", "nope"], "")), "/system/bin/ls\n/system/bin/input\n");
        assert_eq!(call(&fs, "which", &["nope"], "").code, 1);
        let d = so(&call(&fs, "date", &[], ""));
        assert!(d.contains(" UTC 20") && d.ends_with('\n'), "{d}");
        let at = |fmt: &str, secs: i64| strftime(fmt, secs).unwrap_or_default();
        assert_eq!(at("%a %b %e %H:%M:%S %Z %Y", 1_795_323_120), "Sun Nov 22 04:52:00 UTC 2026");
        assert_eq!(at("%F %T", 0), "1970-01-01 00:00:00");
        assert_eq!(at("%F", 951_782_400), "2000-02-29");
        fs.write("/sdcard/s", b"12345").unwrap();
        assert_eq!(so(&call(&fs, "stat", &["-c", "%s", "/sdcard/s"], "")), "5\n");
        assert_eq!(call(&fs, "stat", &["-c", "%s", "/sdcard/none"], "").code, 1);
        assert_eq!(parse_duration("1.5m"), Some(Duration::from_secs(90)));
        assert_eq!(parse_duration("-1"), None);
        assert_eq!(parse_duration("x"), None);
        assert_eq!(call(&fs, "sleep", &["0.01"], "").code, 0);
        assert_eq!(call(&fs, "sleep", &["abc"], "").code, 1);
    }

    #[test]
    fn cp_mv() {
        let fs = MemFs::new();
        fs.write("/sdcard/a", b"A").unwrap();
        assert_eq!(call(&fs, "cp", &["/sdcard/a", "/sdcard/b"], "").code, 0);
        assert_eq!(fs.read("/sdcard/b").unwrap(), b"A");
        assert_eq!(call(&fs, "mv", &["/sdcard/b", "/sdcard/Download"], "").code, 0);
        assert!(fs.stat("/sdcard/b").is_none());
        assert_eq!(fs.read("/sdcard/Download/b").unwrap(), b"A");
        let o = call(&fs, "cp", &["/sdcard/Download", "/sdcard/D2"], "");
        assert_eq!(o.code, 1);
        assert_eq!(call(&fs, "cp", &["-r", "/sdcard/Download", "/sdcard/D2"], "").code, 0);
        assert_eq!(fs.read("/sdcard/D2/b").unwrap(), b"A");
        assert_eq!(call(&fs, "mv", &["/sdcard/D2", "/sdcard/D2/x"], "").code, 1);
        let o = call(&fs, "cp", &["/sdcard/a", "/system/a"], "");
        assert_eq!(o.stderr, b"cp: /sdcard/a: Read-only file system\n");
        assert_eq!(call(&fs, "mv", &["/sdcard/zz", "/sdcard/y"], "").code, 1);
    }
}
