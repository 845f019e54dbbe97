//! What a template is tagged with besides its app: a category (the kind of work, as
//! AndroidWorld tags its tasks) and a difficulty (easy, medium or hard by how many
//! device actions the reference solution takes). Results are summed up by both.
//! Not where the tags are read (`task.rs`) nor the tables (`results.rs`).

use serde::{Deserialize, Serialize};

/// The categories the built-in suite uses, with what each means. A suite of one's
/// own may use other words (lowercase letters and `_`).
pub const CATEGORIES: &[(&str, &str)] = &[
    ("data_entry", "type new records in: a contact, an event, a note, a message"),
    ("data_edit", "change or delete what is there"),
    ("search", "find one thing among many, with search or by scrolling"),
    ("reading", "answer a question read off the screen"),
    ("counting", "answer a question that needs counting, adding or comparing"),
    ("settings", "switches, sliders and modes"),
    ("navigation", "reach a screen deep in an app"),
    ("transaction", "a flow over several screens: cart, checkout"),
    ("validation", "forms that check what is typed and say what is wrong"),
    ("visual", "what only a picture shows: canvases, maps, games"),
    ("multi_app", "carry something from one app to another"),
    (
        "control_flow",
        "what a loop or a condition decides: bulk work, filters, sums, scrolling and collecting, a value read on one screen and used on another, if this then that",
    ),
];

/// How hard a template is, by its reference solution's device actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Difficulty {
    /// At most 4 actions.
    Easy,
    /// 5 to 7.
    Medium,
    /// 8 or more.
    Hard,
}

impl Difficulty {
    pub const ALL: [Difficulty; 3] = [Difficulty::Easy, Difficulty::Medium, Difficulty::Hard];

    /// The band `actions` (the oracle's device actions, app start included) falls in.
    pub fn of_actions(actions: u64) -> Self {
        match actions {
            0..=4 => Difficulty::Easy,
            5..=7 => Difficulty::Medium,
            _ => Difficulty::Hard,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Difficulty::Easy => "easy",
            Difficulty::Medium => "medium",
            Difficulty::Hard => "hard",
        }
    }
}

/// Whether `word` can be a category: lowercase letters and `_`, 1 to 32 of them.
pub fn is_category(word: &str) -> bool {
    (1..=32).contains(&word.len()) && word.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_and_words() {
        assert_eq!(Difficulty::of_actions(2), Difficulty::Easy);
        assert_eq!(Difficulty::of_actions(4), Difficulty::Easy);
        assert_eq!(Difficulty::of_actions(5), Difficulty::Medium);
        assert_eq!(Difficulty::of_actions(7), Difficulty::Medium);
        assert_eq!(Difficulty::of_actions(8), Difficulty::Hard);
        assert!(CATEGORIES.iter().all(|(c, _)| is_category(c)));
        assert!(!is_category("Data entry") && !is_category(""));
    }
}
