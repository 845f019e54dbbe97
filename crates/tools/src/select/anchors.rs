//! Whether a position relation's anchor names one place: `right_of: "Dark theme"`
//! on a screen with a picture and a label both called "Dark theme" could mean
//! either, and the nearest switch to the wrong one is a wrong tap that reports
//! success. An anchor that matches several places is refused, never guessed —
//! unless every place it could mean leads to the same element (a title and the
//! control it labels, the field sought below both); the same element seen twice (a
//! row and its own label, or two nodes with one frame) is one place. Not here:
//! matching (`mod.rs`), what the error says (`catalog/`).

use std::collections::HashSet;

use super::keys::Relation;
use super::selector::Selector;
use codeact_platform::ui::{Element, UiTree};

/// A position relation whose anchor matches several places.
#[derive(Debug, Clone, PartialEq)]
pub struct AmbiguousAnchor {
    /// The relation's key (`right_of`, `below`…).
    pub relation: &'static str,
    /// The anchor as written.
    pub anchor: String,
    /// The places it matches (element ids), in reading order.
    pub candidates: Vec<usize>,
}

/// The key a position relation is written with; `None` for `inside`/`has`, which
/// hold for every anchor they find.
pub(super) fn position_key(rel: Relation) -> Option<&'static str> {
    match rel {
        Relation::Below => Some("below"),
        Relation::Above => Some("above"),
        Relation::LeftOf => Some("left_of"),
        Relation::RightOf => Some("right_of"),
        Relation::Inside | Relation::Has => None,
    }
}

/// The distinct places among `found`: an element that holds another match (a row
/// around its label) or has another's very frame stands for the same place.
pub(super) fn places<'a>(tree: &UiTree, found: &[&'a Element]) -> Vec<&'a Element> {
    // One walk up from each match: what holds another match is the same place.
    let holders: HashSet<usize> =
        found.iter().flat_map(|e| std::iter::successors(e.parent, |p| tree.get(*p).and_then(|p| p.parent))).collect();
    let mut frames = HashSet::new();
    found.iter().copied().filter(|e| !holders.contains(&e.id) && frames.insert(e.bounds)).collect()
}

impl Selector {
    /// The position relation (this selector's, or an anchor's own) whose anchor
    /// matches several places on `tree` that lead to different elements; `None`
    /// when every place it could mean gives the same answer.
    pub fn ambiguous_anchor(&self, tree: &UiTree) -> Option<AmbiguousAnchor> {
        self.find_checked(tree).err()
    }
}
