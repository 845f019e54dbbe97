//! What every builtin shares: plain results (`text`, `status`), failures in toybox's
//! words (`fail`), toybox-style options (`getopt`), operands read as files or stdin
//! (`inputs`), path joining and strftime. Not the tools themselves nor their table
//! (`mod.rs`).

use super::super::env::Cx;
use super::super::output::Output;

pub(super) fn text(s: impl AsRef<[u8]>) -> Output {
    Output { stdout: s.as_ref().to_vec(), ..Output::default() }
}

pub(super) fn status(code: i32) -> Output {
    Output { code, ..Output::default() }
}

/// Reports `msg` on stderr and marks the result failed with `code`.
pub(super) fn fail(o: &mut Output, msg: String, code: i32) {
    o.stderr.extend_from_slice(msg.as_bytes());
    o.stderr.push(b'\n');
    o.code = code;
}

pub(super) fn join(dir: &str, name: &str) -> String {
    if dir.ends_with('/') { format!("{dir}{name}") } else { format!("{dir}/{name}") }
}

/// Parsed options: flags in order (value empty for plain flags) and operands.
pub(super) struct Opts {
    pub(super) flags: Vec<(char, String)>,
    pub(super) args: Vec<String>,
}

impl Opts {
    pub(super) fn has(&self, c: char) -> bool {
        self.flags.iter().any(|f| f.0 == c)
    }
    pub(super) fn val(&self, c: char) -> Option<&str> {
        self.flags.iter().rev().find(|f| f.0 == c).map(|f| f.1.as_str())
    }
}

/// toybox-style option parsing: flags may follow operands, `--` ends options, long options
/// are ignored; `valued` lists flags that take a value.
pub(super) fn getopt(cmd: &str, argv: &[String], plain: &str, valued: &str) -> Result<Opts, Output> {
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

/// Reads operands (or stdin when there are none / for `-`); errors go to `o` as
/// `cmd: FILE: error` with code 1.
pub(super) fn inputs(cmd: &str, files: &[String], stdin: &[u8], cx: &Cx, o: &mut Output) -> Vec<(String, Vec<u8>)> {
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

/// `secs` since the epoch in UTC, as strftime(3) formats it (the device's clock runs
/// in UTC); `None` for a format jiff does not know.
pub(super) fn strftime(fmt: &str, secs: i64) -> Option<String> {
    let when = jiff::Timestamp::from_second(secs).ok()?.to_zoned(jiff::tz::TimeZone::UTC);
    jiff::fmt::strtime::format(fmt, &when).ok()
}
