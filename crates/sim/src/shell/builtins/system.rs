//! The system tools: `sleep`, `uname` and `date`, and the durations they read (`which`
//! is `mod.rs`'s, beside the table it reads). Not `timeout` (the executor's, `super::super::special`), though it parses durations here.

use std::time::Duration;

use super::super::env::Cx;
use super::super::output::Output;
use super::shared::{fail, getopt, strftime, text};

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

pub(super) fn sleep(args: &[String], _: &[u8], cx: &Cx) -> Output {
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

pub(super) fn uname(args: &[String], _: &[u8], _: &Cx) -> Output {
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

pub(super) fn date(args: &[String], _: &[u8], cx: &Cx) -> Output {
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
