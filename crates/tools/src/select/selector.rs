//! What a compiled selector holds ([`Selector`]: its text, fields, flags, relations
//! and position, the picture or description it falls back on) and the picture it may
//! name ([`ImageWant`]). Not compiling one (`compile.rs`) nor matching (`mod.rs`).

use super::keys::{Field, Flag, Pattern, Relation};

/// A compiled selector.
#[derive(Debug, Clone)]
pub struct Selector {
    /// A bare string: exact on text/desc/hint, else contains (any case).
    pub(super) any_text: Option<String>,
    pub(super) fields: Vec<(Field, Pattern)>,
    pub(super) flags: Vec<(Flag, bool)>,
    pub(super) relations: Vec<(Relation, Box<Selector>)>,
    pub(super) nth: Option<usize>,
    /// An action on it does not scroll to look when nothing matches.
    pub no_scroll: bool,
    /// A reference picture to find on the screenshot when the tree part (if any)
    /// finds nothing.
    pub image: Option<ImageWant>,
    /// A description a vision model is asked to find when neither the tree part nor
    /// the picture does.
    pub ai: Option<String>,
    /// How the script wrote it, for messages.
    pub shown: String,
    /// An element a lookup returned (`find()`, `ui_state[i]`), passed back as it is:
    /// that element, by its signature and frame.
    pub(super) identity: Option<(u64, codeact_platform::ui::Bounds)>,
}

/// A reference picture a selector names, and the score a match must reach (else
/// the reference's own, else 0.8).
#[derive(Debug, Clone, PartialEq)]
pub struct ImageWant {
    pub name: String,
    pub threshold: Option<f32>,
}
