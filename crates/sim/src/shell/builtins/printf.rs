//! `printf`: toybox's format language (`%s %b %c %d %i %u %x %X %o`, widths, precisions,
//! `-`/`0` flags), the format repeated until the arguments run out. Not the escapes
//! themselves (`escapes`, shared with `echo`).

use super::super::env::Cx;
use super::super::output::Output;
use super::escapes::{unescape, unescape_at};
use super::shared::fail;

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

pub(super) fn printf(args: &[String], _: &[u8], cx: &Cx) -> Output {
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
