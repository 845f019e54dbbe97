//! Backslash escapes as `echo` and `printf` expand them (`\n`, `\t`, `\0NNN`, `\xHH`, `\c`).
//! Not the shell's own quoting (`super::super::parse`) nor regex escapes.

/// Handles the escape after a backslash at `cs[*i]` (echo -e / printf); returns true on `\c`.
pub(super) fn unescape_at(cs: &[char], i: &mut usize, out: &mut Vec<u8>) -> bool {
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
pub(super) fn unescape(s: &str) -> (Vec<u8>, bool) {
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
