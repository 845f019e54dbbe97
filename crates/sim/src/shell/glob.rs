//! Pathname expansion: a glob field (`*`, `?`, `[...]`; quoted characters literal) matched
//! against the in-memory file system one path component at a time, within a candidate cap.
//! Not deciding which words are globbed (that is `expand`).

use super::env::GLOB_LIMIT;
use super::fs::MemFs;

/// Turns one path component of a glob pattern into an anchored regex (linear in its length).
pub(super) fn glob_regex(comp: &[(char, bool)]) -> Option<regex::Regex> {
    // next_close[k]: index of the first unquoted-or-not `]` at or after k.
    let mut next_close = vec![usize::MAX; comp.len() + 1];
    for k in (0..comp.len()).rev() {
        next_close[k] = if comp.get(k).is_some_and(|&(c, _)| c == ']') { k } else { next_close[k + 1] };
    }
    let mut re = String::from("^");
    let mut i = 0;
    while let Some(&(c, q)) = comp.get(i) {
        i += 1;
        match (c, q) {
            ('*', false) => re.push_str(".*"),
            ('?', false) => re.push('.'),
            ('[', false) => {
                // A `]` right after `[` (or `[!`) is part of the set.
                let close = next_close.get(i + 1).copied().filter(|&e| e != usize::MAX);
                let Some(end) = close else {
                    re.push_str("\\[");
                    continue;
                };
                re.push('[');
                for (k, &(c, _)) in comp.get(i..end).unwrap_or_default().iter().enumerate() {
                    match c {
                        '!' | '^' if k == 0 => re.push('^'),
                        '-' => re.push('-'),
                        c => re.push_str(&regex::escape(&c.to_string())),
                    }
                }
                re.push(']');
                i = end + 1;
            }
            (c, _) => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    regex::Regex::new(&re).ok()
}

/// Expands a glob field against the file system (relative patterns against `cwd`);
/// sorted, deduplicated matches (empty when none). Only directories are descended into
/// and at most [`GLOB_LIMIT`] candidates are kept.
pub(super) fn glob(field: &[(char, bool)], fs: &MemFs, cwd: &str) -> Vec<String> {
    let absolute = field.first().is_some_and(|&(c, _)| c == '/');
    // Each candidate: (path as shown, absolute path).
    let start = if absolute { "/".to_string() } else { String::new() };
    let mut cands: Vec<(String, String)> = vec![(start, MemFs::normalize(cwd, "/"))];
    let join = |base: &str, name: &str| {
        if base.is_empty() || base.ends_with('/') { format!("{base}{name}") } else { format!("{base}/{name}") }
    };
    for (k, comp) in field.split(|&(c, _)| c == '/').filter(|c| !c.is_empty()).enumerate() {
        if k > 0 {
            cands.retain(|(_, abs)| fs.stat(abs).is_some_and(|m| m.is_dir));
        }
        let literal = !comp.iter().any(|&(c, q)| !q && matches!(c, '*' | '?' | '['));
        let mut next = Vec::new();
        if literal {
            let name: String = comp.iter().map(|&(c, _)| c).collect();
            for (shown, abs) in &cands {
                let a = MemFs::normalize(&name, abs);
                if fs.stat(&a).is_some() {
                    next.push((join(shown, &name), a));
                }
            }
        } else {
            let Some(re) = glob_regex(comp) else {
                return Vec::new();
            };
            let dot_ok = comp.first().is_some_and(|&(c, _)| c == '.');
            'outer: for (shown, abs) in &cands {
                for (name, _) in fs.list(abs).unwrap_or_default() {
                    if (dot_ok || !name.starts_with('.')) && re.is_match(&name) {
                        if next.len() >= GLOB_LIMIT {
                            break 'outer;
                        }
                        next.push((join(shown, &name), MemFs::normalize(&name, abs)));
                    }
                }
            }
        }
        next.truncate(GLOB_LIMIT);
        cands = next;
        if cands.is_empty() {
            return Vec::new();
        }
    }
    let dir_only = field.last().is_some_and(|&(c, _)| c == '/');
    let mut out: Vec<String> = Vec::new();
    for (mut shown, abs) in cands {
        if dir_only {
            if !fs.stat(&abs).is_some_and(|m| m.is_dir) {
                continue;
            }
            if !shown.ends_with('/') {
                shown.push('/');
            }
        }
        out.push(shown);
    }
    out.sort();
    out.dedup();
    out
}
