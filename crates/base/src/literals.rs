//! Where a Rhai source's string literals and comments lie, read as text (no engine):
//! so that redaction and rewrites of code written by someone else touch only code,
//! never text inside a string or a comment. Not here: writing literals (the
//! emitter's) or parsing code (the sandbox's).

/// The byte ranges of `code`'s string literals (`"…"`, `` `…` ``, `'…'`) and
/// comments (`//…`, nested `/* … */`), so that a rewrite of calls in code written
/// by someone else touches only code, never text inside a string or a comment.
pub fn literal_spans(code: &str) -> Vec<(usize, usize)> {
    let bytes = code.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let end = match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                bytes[i..].iter().position(|b| matches!(b, b'\n' | b'\r')).map_or(bytes.len(), |p| i + p)
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => block_comment_end(bytes, i),
            quote @ (b'"' | b'`' | b'\'') => {
                let mut j = i + 1;
                while j < bytes.len() && bytes[j] != quote {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                (j + 1).min(bytes.len())
            }
            _ => {
                i += 1;
                continue;
            }
        };
        spans.push((start, end));
        i = end.max(start + 1);
    }
    spans
}

/// Where the block comment opening at `start` ends (Rhai's nest), or the end.
fn block_comment_end(bytes: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut j = start;
    while j + 1 < bytes.len() {
        match (bytes[j], bytes[j + 1]) {
            (b'/', b'*') => {
                depth += 1;
                j += 2;
            }
            (b'*', b'/') => {
                depth -= 1;
                j += 2;
                if depth == 0 {
                    return j;
                }
            }
            _ => j += 1,
        }
    }
    bytes.len()
}

/// Whether the range `start..end` lies inside one of `spans` (as [`literal_spans`]
/// gives them: in order, apart).
pub fn inside_spans(spans: &[(usize, usize)], start: usize, end: usize) -> bool {
    let after = spans.partition_point(|(s, _)| *s <= start);
    after > 0 && spans[after - 1].1 >= end
}
