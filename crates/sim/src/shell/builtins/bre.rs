//! POSIX regular expressions (BRE and ERE, as grep reads them) translated into the regex
//! crate's syntax, with toybox's messages for patterns it cannot use. Not matching or grep's
//! options (`grep`), nor shell globs.

use std::fmt::Write as _;

/// Pushes `c` as a literal in regex-crate syntax.
fn push_lit(out: &mut String, c: char) {
    let mut buf = [0u8; 4];
    out.push_str(&regex::escape(c.encode_utf8(&mut buf)));
}

/// Why grep cannot use a pattern, in toybox's words.
#[derive(Debug, Clone, Copy, thiserror::Error)]
pub(super) enum PatternError {
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
pub(super) fn translate(pat: &str, ere: bool) -> Result<String, PatternError> {
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
