//! Selectors: finding elements on the live screen the way scripts describe them.
//!
//! A string matches an element whose text, content-desc or hint is exactly that
//! string; when nothing on screen is, one that contains it (ignoring case). A map
//! narrows further, each key literal unless it says otherwise — see [`SELECTOR_KEYS`]
//! for every key with an example. Regexes are only ever asked for by name
//! (`text_matches`), and one that does not compile is an error. The n-th match is
//! `nth`; `index` belongs to `ui_state` and is refused here with the way to use it.
//! Not here: waiting, tapping, or what an error lists (`catalog/selectors.rs`).
//!
//! The keys are `keys.rs`'s, compiling within limits `compile.rs`'s, the errors
//! `error.rs`'s; this file holds the compiled selector and matches it on a screen.

mod anchors;
mod compile;
mod error;
mod keys;
mod limits;
mod reference;
pub(crate) mod selector;
pub(crate) mod unique_selector;

pub use anchors::AmbiguousAnchor;
pub use error::SelectorError;
use keys::{Field, Flag, Pattern, Relation};
pub use limits::{MAX_PARTS, MAX_PATTERNS, MAX_TEXT_BYTES};
pub use reference::{SELECTOR_KEYS, selector_help, selector_markdown};
pub use selector::{ImageWant, Selector};

use std::collections::HashSet;

use codeact_platform::ui::{Element, UiTree};

/// The class of the element an image match adds to the screen it was found on.
pub const IMAGE_CLASS: &str = "codeact.Image";
/// The class of the element a vision model's answer adds to the screen.
pub const AI_CLASS: &str = "codeact.Described";
/// The longest description `#{ai: ...}` takes.
pub const MAX_DESCRIPTION_BYTES: usize = 500;

/// Whether `e` was added to the screen by a lookup (a picture or a model's point)
/// rather than read from the tree.
pub fn is_located(e: &Element) -> bool {
    e.class == IMAGE_CLASS || e.class == AI_CLASS
}

/// The id of the element a picture match for `name` adds.
pub fn image_id(name: &str) -> String {
    format!("image/{name}")
}

/// The id of the element a model's answer for `description` adds.
pub fn ai_id(description: &str) -> String {
    format!("ai/{:016x}", codeact_platform::ui::stable_hash(description.as_bytes()))
}

/// The values of `e` a field matches against (an id and a class in full and short,
/// and a class also by the platform's own type name).
fn field_values(field: Field, e: &Element) -> [&str; 3] {
    match field {
        Field::Text => [&e.text, "", ""],
        Field::Desc => [&e.content_desc, "", ""],
        Field::Hint => [&e.hint, "", ""],
        Field::Label => [&e.text, &e.content_desc, &e.hint],
        // The short form is what `ui_state` shows as `id`.
        Field::Id => [&e.resource_id, e.resource_id.rsplit('/').next().unwrap_or(""), ""],
        Field::Class => [&e.class, e.class.rsplit('.').next().unwrap_or(""), &e.native_class],
        Field::Package => [&e.package, "", ""],
    }
}

impl Selector {
    /// The text the selector looks for (a bare string, or a text-like key), for
    /// suggesting what is on screen instead.
    pub fn wanted_text(&self) -> Option<&str> {
        self.any_text.as_deref().or_else(|| {
            self.fields.iter().find_map(|(_, p)| match p {
                Pattern::Exact(t) | Pattern::Contains(t) | Pattern::StartsWith(t) => Some(t.as_str()),
                Pattern::Regex(_) => None,
            })
        })
    }

    /// `e` on its own (no relations); `loose` takes a bare string as "contains, any case".
    fn matches_self(&self, e: &Element, loose: bool) -> bool {
        if let Some((signature, bounds)) = self.identity {
            return e.signature == signature && e.bounds == bounds;
        }
        let any_text = self.any_text.as_ref().is_none_or(|want| {
            let texts = [&e.text, &e.content_desc, &e.hint];
            if loose {
                let want = loose_text(want);
                texts.iter().any(|s| !s.is_empty() && loose_text(s).contains(&want))
            } else {
                texts.contains(&want)
            }
        });
        any_text
            && self
                .fields
                .iter()
                .all(|(field, p)| field_values(*field, e).iter().any(|v| !v.is_empty() && p.matches(v)))
            && self.flags.iter().all(|(f, want)| {
                let have = match f {
                    Flag::Clickable => e.clickable || e.actions.touch,
                    Flag::Checkable => e.checkable,
                    Flag::Checked => e.checked,
                    Flag::Enabled => e.enabled,
                    Flag::Focused => e.focused,
                    Flag::Focusable => e.focusable,
                    Flag::Editable => e.actions.set_text,
                    Flag::Scrollable => e.scrollable,
                    Flag::Selected => e.selected,
                    Flag::LongClickable => e.long_clickable,
                    Flag::Password => e.password,
                };
                have == *want
            })
    }

    /// Whether the selector says something about the tree (besides a picture or a
    /// description): that way is tried first.
    pub fn has_tree_part(&self) -> bool {
        self.any_text.is_some()
            || !self.fields.is_empty()
            || !self.flags.is_empty()
            || !self.relations.is_empty()
            || self.identity.is_some()
    }

    /// Whether it names a way besides the tree (a picture, a description).
    pub fn locates(&self) -> bool {
        self.image.is_some() || self.ai.is_some()
    }

    /// Every visible element that matches, in reading order (top to bottom, then
    /// left to right), or nearest first when a position relation is given. A
    /// selector with a picture or a description tries its ways in order: the tree
    /// part, then the element the picture's match added, then the model's.
    pub fn find_all<'a>(&self, tree: &'a UiTree) -> Vec<&'a Element> {
        if !self.locates() {
            return self.find_in_tree(tree);
        }
        if self.has_tree_part() {
            let found = self.find_in_tree(tree);
            if !found.is_empty() {
                return found;
            }
        }
        let ids = [self.image.as_ref().map(|w| image_id(&w.name)), self.ai.as_deref().map(ai_id)];
        ids.iter()
            .flatten()
            .find_map(|id| tree.elements.iter().find(|e| is_located(e) && &e.resource_id == id))
            .into_iter()
            .collect()
    }

    /// What the tree part matches (never an element a lookup added); nothing when a
    /// position anchor is ambiguous ([`Selector::ambiguous_anchor`] says which).
    pub fn find_in_tree<'a>(&self, tree: &'a UiTree) -> Vec<&'a Element> {
        self.find_checked(tree).unwrap_or_default()
    }

    /// What the tree part matches, or the position relation whose anchor matches
    /// several places that lead to different elements.
    pub(super) fn find_checked<'a>(&self, tree: &'a UiTree) -> Result<Vec<&'a Element>, AmbiguousAnchor> {
        let pick = |loose: bool| -> Vec<&'a Element> {
            tree.elements.iter().filter(|e| e.visible && !is_located(e) && self.matches_self(e, loose)).collect()
        };
        let mut found = pick(false);
        if found.is_empty() && self.any_text.is_some() {
            found = pick(true);
        }
        // An element that moved since it was read: the one with its signature, if
        // only one has it (as an index tap finds one).
        if let (true, Some((signature, _))) = (found.is_empty(), self.identity) {
            found = tree.elements.iter().filter(|e| e.visible && e.signature == signature).collect();
            if found.len() > 1 {
                found.clear();
            }
        }
        found.sort_by_key(|e| (e.bounds.top, e.bounds.left));
        for (rel, anchor_sel) in &self.relations {
            match rel {
                Relation::Inside => {
                    let anchors: HashSet<usize> = anchor_sel.find_in_tree(tree).iter().map(|a| a.id).collect();
                    found.retain(|e| ancestors(tree, e).any(|a| anchors.contains(&a)));
                }
                Relation::Has => {
                    // Every element some anchor lies inside: one walk up per anchor.
                    let holders: HashSet<usize> =
                        anchor_sel.find_in_tree(tree).iter().flat_map(|a| ancestors(tree, a)).collect();
                    found.retain(|e| holders.contains(&e.id));
                }
                _ => {
                    // An anchor that names several places is no anchor unless every
                    // place leads to the same element (a title and the control it
                    // labels, both above the field sought): nothing is guessed.
                    let anchors = anchor_sel.find_checked(tree)?;
                    let places = anchors::places(tree, &anchors);
                    if places.is_empty() {
                        return Ok(Vec::new());
                    }
                    let by_place: Vec<Vec<&'a Element>> =
                        places.iter().map(|anchor| relative_to(&found, *rel, anchor)).collect();
                    let chosen = |list: &[&Element]| list.get(self.nth.unwrap_or(0)).map(|e| e.id);
                    if by_place.iter().any(|list| chosen(list) != chosen(&by_place[0])) {
                        let relation = anchors::position_key(*rel).unwrap_or("below");
                        let candidates = places.iter().map(|e| e.id).collect();
                        return Err(AmbiguousAnchor { relation, anchor: anchor_sel.shown.clone(), candidates });
                    }
                    found = by_place.into_iter().next().unwrap_or_default();
                }
            }
        }
        Ok(match self.nth {
            Some(i) => found.into_iter().nth(i).into_iter().collect(),
            None => found,
        })
    }

    pub fn find<'a>(&self, tree: &'a UiTree) -> Option<&'a Element> {
        self.find_all(tree).into_iter().next()
    }
}

/// The elements of `found` on the side `rel` says of `anchor`, nearest first.
fn relative_to<'a>(found: &[&'a Element], rel: Relation, anchor: &Element) -> Vec<&'a Element> {
    let a = anchor.bounds;
    let mut out: Vec<&'a Element> = found
        .iter()
        .copied()
        .filter(|e| {
            let b = e.bounds;
            e.id != anchor.id
                && match rel {
                    Relation::Below => b.top >= a.bottom - 2,
                    Relation::Above => b.bottom <= a.top + 2,
                    Relation::LeftOf => b.right <= a.left + 2,
                    _ => b.left >= a.right - 2,
                }
        })
        .collect();
    let (ax, ay) = anchor.center;
    out.sort_by_key(|e| {
        let (dx, dy) = (i64::from(e.center.0 - ax), i64::from(e.center.1 - ay));
        dx * dx + dy * dy
    });
    out
}

/// The ids of `e`'s ancestors, nearest first.
fn ancestors<'a>(tree: &'a UiTree, e: &Element) -> impl Iterator<Item = usize> + 'a {
    std::iter::successors(e.parent, move |p| tree.get(*p).and_then(|p| p.parent))
}

/// Text as a bare-string selector compares it: any case, and typographic quotes
/// as typed ones (Android writes "Don’t allow"; a script types "Don't allow").
fn loose_text(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' | '\u{02BC}' => '\'',
            '\u{201C}' | '\u{201D}' => '"',
            c => c,
        })
        .collect::<String>()
        .to_lowercase()
}

#[cfg(test)]
pub(crate) mod tests;
