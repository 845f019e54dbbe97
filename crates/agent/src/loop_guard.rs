//! Catches a model that repeats itself: the same code (white space aside) on an
//! unchanged screen, step after step. The second time the model is warned; at the
//! limit the run stops.

use codeact_platform::ui::{StableHasher, stable_hash};

/// What the guard says about a step's code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repetition {
    /// New code, or a new screen.
    Fresh,
    /// The same as the step before: warn the model.
    Repeated,
    /// The same this many times in a row: stop.
    Looping(usize),
}

#[derive(Debug)]
pub struct LoopGuard {
    limit: usize,
    last: Option<u64>,
    repeats: usize,
}

impl LoopGuard {
    /// Stops at `limit` identical steps in a row.
    pub fn new(limit: usize) -> Self {
        Self { limit, last: None, repeats: 0 }
    }

    /// Notes that `code` ran on a screen that read `screen_text`.
    pub fn note(&mut self, code: &str, screen_text: &str) -> Repetition {
        let compact: String = code.split_whitespace().collect();
        let key = StableHasher::default()
            .field(&stable_hash(compact.as_bytes()).to_le_bytes())
            .field(screen_text.as_bytes())
            .finish();
        self.repeats = if self.last == Some(key) { self.repeats + 1 } else { 0 };
        self.last = Some(key);
        if self.repeats + 1 >= self.limit {
            Repetition::Looping(self.repeats + 1)
        } else if self.repeats > 0 {
            Repetition::Repeated
        } else {
            Repetition::Fresh
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_code_on_the_same_screen_warns_then_stops() {
        let mut guard = LoopGuard::new(3);
        assert_eq!(guard.note("tap(1, 2);", "screen A"), Repetition::Fresh);
        assert_eq!(guard.note("tap(1,\n 2);", "screen A"), Repetition::Repeated, "white space aside");
        assert_eq!(guard.note("tap(1, 2);", "screen A"), Repetition::Looping(3));
        assert_eq!(guard.note("tap(1, 2);", "screen B"), Repetition::Fresh, "a new screen starts over");
    }
}
