//! Finding secrets in text in one pass whatever their number: Aho-Corasick
//! automata over every secret's spellings, built once when the set changes and
//! shared by every reader, so the cost of a search grows with the text, not with
//! how many secrets a server has seen. A secret shorter than
//! [`STANDALONE_BELOW`](super::STANDALONE_BELOW) counts only where it stands alone
//! (not inside a longer word or number). Not here: which secrets there are
//! (`registry.rs`) or what is done where they stand (`mod.rs`).

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

/// Secrets shorter than this (a PIN) are blotted out only where they stand alone:
/// not inside a longer number or word, where they would garble text that holds no
/// secret (`14791` for the PIN `4791`, a screen's `1080`).
pub const STANDALONE_BELOW: usize = 8;

/// One set of secrets, searchable: the long ones leftmost-longest, the short ones
/// every place they end (at most one per length, so the matches stay few).
#[derive(Default)]
struct Automata {
    long: Option<AhoCorasick>,
    short: Option<AhoCorasick>,
}

impl Automata {
    fn new<'a>(secrets: impl Iterator<Item = &'a str>) -> Self {
        let (short, long): (Vec<&str>, Vec<&str>) = secrets.partition(|s| s.len() < STANDALONE_BELOW);
        let build = |patterns: &[&str], kind| {
            if patterns.is_empty() {
                return None;
            }
            // A build error (never for plain strings) leaves that half out: it is
            // logged, and the other half still works.
            AhoCorasickBuilder::new()
                .match_kind(kind)
                .build(patterns)
                .inspect_err(|e| tracing::warn!("secrets could not be indexed: {e}"))
                .ok()
        };
        Automata { long: build(&long, MatchKind::LeftmostLongest), short: build(&short, MatchKind::Standard) }
    }

    fn is_empty(&self) -> bool {
        self.long.is_none() && self.short.is_none()
    }

    /// Where secrets stand in `text` (start and end bytes), in order, not overlapping;
    /// of two that overlap, the one that starts first, then the longer.
    fn places(&self, text: &str) -> Vec<(usize, usize)> {
        let mut found: Vec<(usize, usize)> = Vec::new();
        if let Some(long) = &self.long {
            found.extend(long.find_iter(text).map(|m| (m.start(), m.end())));
        }
        if let Some(short) = &self.short {
            found.extend(
                short
                    .find_overlapping_iter(text)
                    .map(|m| (m.start(), m.end()))
                    .filter(|&(s, e)| standalone(text, s, e)),
            );
        }
        if found.is_empty() {
            return found;
        }
        found.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let mut kept: Vec<(usize, usize)> = Vec::with_capacity(found.len());
        for place in found {
            if kept.last().is_none_or(|last| place.0 >= last.1) {
                kept.push(place);
            }
        }
        kept
    }

    fn is_in(&self, text: &str) -> bool {
        self.long.as_ref().is_some_and(|a| a.is_match(text))
            || self
                .short
                .as_ref()
                .is_some_and(|a| a.find_overlapping_iter(text).any(|m| standalone(text, m.start(), m.end())))
    }
}

/// Whether the short secret at `start..end` stands alone: not joined to a letter or
/// digit on a side where it begins or ends with one.
fn standalone(text: &str, start: usize, end: usize) -> bool {
    let secret = &text[start..end];
    let starts_word = secret.chars().next().is_some_and(char::is_alphanumeric);
    let ends_word = secret.chars().next_back().is_some_and(char::is_alphanumeric);
    let joined_before = starts_word && text[..start].chars().next_back().is_some_and(char::is_alphanumeric);
    let joined_after = ends_word && text[end..].chars().next().is_some_and(char::is_alphanumeric);
    !(joined_before || joined_after)
}

/// Every secret known at one moment, searchable.
#[derive(Default)]
pub(super) struct Matcher {
    /// Every secret.
    all: Automata,
    /// The ones a tool's argument may not hold (the process's and typed ones; not a
    /// client's words it marked sensitive, which its own script may send).
    refusing: Automata,
    /// Whether any secret may show on a screen (typed, or a client's words).
    on_screens: bool,
}

/// A secret as the matcher is built from it.
pub(super) struct Pattern<'a> {
    pub text: &'a str,
    pub refusing: bool,
    pub on_screens: bool,
}

impl Matcher {
    pub(super) fn new(patterns: &[Pattern<'_>]) -> Self {
        Matcher {
            all: Automata::new(patterns.iter().map(|p| p.text)),
            refusing: Automata::new(patterns.iter().filter(|p| p.refusing).map(|p| p.text)),
            on_screens: patterns.iter().any(|p| p.on_screens),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.all.is_empty()
    }

    pub(super) fn on_screens(&self) -> bool {
        self.on_screens
    }

    /// Where any secret stands in `text`.
    pub(super) fn places(&self, text: &str) -> Vec<(usize, usize)> {
        self.all.places(text)
    }

    /// Where a long secret stands in `text`.
    pub(super) fn long_places(&self, text: &str) -> Vec<(usize, usize)> {
        let long = Automata { long: self.all.long.clone(), short: None };
        long.places(text)
    }

    /// Where a short secret stands (alone) in `text`.
    pub(super) fn short_places(&self, text: &str) -> Vec<(usize, usize)> {
        let short = Automata { long: None, short: self.all.short.clone() };
        short.places(text)
    }

    pub(super) fn is_in(&self, text: &str) -> bool {
        self.all.is_in(text)
    }

    pub(super) fn refused_in(&self, text: &str) -> bool {
        self.refusing.is_in(text)
    }
}

/// `text` with each of `places` (in order, not overlapping) replaced by `with`.
pub(super) fn replaced(text: &str, places: &[(usize, usize)], with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for &(start, end) in places {
        out.push_str(&text[last..start]);
        out.push_str(with);
        last = end;
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(secrets: &[&str]) -> Matcher {
        let patterns: Vec<Pattern> =
            secrets.iter().map(|t| Pattern { text: t, refusing: true, on_screens: true }).collect();
        Matcher::new(&patterns)
    }

    #[test]
    fn overlapping_secrets_are_found_once_the_longest_first() {
        let m = matcher(&["hunter2-long", "hunter2-longer-still", "4791"]);
        let text = "a hunter2-longer-still b hunter2-long c 4791 d 14791";
        let places = m.places(text);
        let found: Vec<&str> = places.iter().map(|&(s, e)| &text[s..e]).collect();
        assert_eq!(found, ["hunter2-longer-still", "hunter2-long", "4791"]);
        assert_eq!(replaced(text, &places, "[key]"), "a [key] b [key] c [key] d 14791");
        assert!(m.is_in("pin: 4791.") && !m.is_in("x14791"));
    }
}
