//! The text tools that read and write streams of bytes: `echo`, `cat`, `head`, `tail`, `wc`
//! and `base64`. Not `grep` or `printf` (their own files), nor anything that changes files.

use base64::Engine as _;
use std::fmt::Write as _;

use super::super::env::Cx;
use super::super::output::Output;
use super::escapes::unescape;
use super::shared::{fail, getopt, inputs, text};

/// mksh's `echo`: backslash escapes are interpreted unless `-E` (`-e` turns them back on),
/// `\c` ends the output, `-n` drops the newline.
pub(super) fn echo(args: &[String], _: &[u8], _: &Cx) -> Output {
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

pub(super) fn cat(args: &[String], stdin: &[u8], cx: &Cx) -> Output {
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

pub(super) fn head(args: &[String], stdin: &[u8], cx: &Cx) -> Output {
    head_tail(args, stdin, cx, false)
}

pub(super) fn tail(args: &[String], stdin: &[u8], cx: &Cx) -> Output {
    head_tail(args, stdin, cx, true)
}

pub(super) fn wc(args: &[String], stdin: &[u8], cx: &Cx) -> Output {
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

pub(super) fn base64(args: &[String], stdin: &[u8], cx: &Cx) -> Output {
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
