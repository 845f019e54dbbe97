//! Shortening untrusted text before it is kept, shown or sent: a script, a model or a
//! device can hand the runtime megabytes where a line is expected. A clipped text
//! says how big the whole was, so nobody mistakes the part for the whole.
//! Not here: secrets (`secrets/`) or control characters (`terminal.rs`).

use std::borrow::Cow;

/// `text` whole when it fits in `max` bytes; else its first bytes (cut on a
/// character boundary) and `… [N bytes in all]`, the result at most `max` bytes plus
/// that note.
pub fn clip(text: &str, max: usize) -> Cow<'_, str> {
    if text.len() <= max {
        return Cow::Borrowed(text);
    }
    let cut = text.floor_char_boundary(max);
    Cow::Owned(format!("{}… [{} bytes in all]", &text[..cut], text.len()))
}

/// Whether [`clip`] cut `shown` (it ends with the note).
pub fn was_clipped(shown: &str) -> bool {
    shown.ends_with(" bytes in all]") && shown.contains("… [")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_text_is_cut_on_a_character_boundary_and_says_its_size() {
        assert_eq!(clip("short", 10), "short");
        let long = "é".repeat(100);
        let shown = clip(&long, 11);
        assert_eq!(shown, format!("{}… [200 bytes in all]", "é".repeat(5)));
        assert!(was_clipped(&shown) && !was_clipped("short"));
    }
}
