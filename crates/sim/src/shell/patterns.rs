//! Compiled `grep` patterns, kept: a host that observes the phone runs the same
//! `dumpsys … | grep -E '…'` line on every look, and compiling its pattern cost
//! more than the rest of the line (a third of a millisecond for an alternation).
//! Not what grep does with a pattern (`builtins/grep.rs`).

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use regex::bytes::{Regex, RegexBuilder};

/// Patterns kept at most; the cache starts over when full (hosts use a handful).
const KEPT: usize = 64;
/// Longer patterns are compiled each time: a script's huge pattern is not kept.
const KEPT_LEN: usize = 256;

type Cache = Mutex<HashMap<(String, bool), Regex>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// `pattern` compiled (case-insensitively when asked), from the cache when it was
/// compiled before.
pub(crate) fn compiled(pattern: &str, case_insensitive: bool) -> Result<Regex, regex::Error> {
    let key = (pattern.to_string(), case_insensitive);
    if let Some(re) = cache().lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Ok(re);
    }
    let re = RegexBuilder::new(pattern).case_insensitive(case_insensitive).build()?;
    if pattern.len() > KEPT_LEN {
        return Ok(re);
    }
    if let Ok(mut kept) = cache().lock() {
        if kept.len() >= KEPT {
            kept.clear();
        }
        kept.insert(key, re.clone());
    }
    Ok(re)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_patterns_match_as_compiled_ones() {
        let first = compiled("mCurrentFocus|mFocusedApp", false).unwrap();
        let again = compiled("mCurrentFocus|mFocusedApp", false).unwrap();
        assert!(first.is_match(b"  mFocusedApp=x") && again.is_match(b"  mCurrentFocus=y"));
        assert!(compiled("abc", true).unwrap().is_match(b"ABC"));
        assert!(!compiled("abc", false).unwrap().is_match(b"ABC"));
        assert!(compiled("(", false).is_err());
        for i in 0..(KEPT * 2) {
            assert!(compiled(&format!("p{i}"), false).unwrap().is_match(format!("p{i}").as_bytes()));
        }
    }
}
