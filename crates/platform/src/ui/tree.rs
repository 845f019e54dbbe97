//! The parsed tree's types: a rectangle, what an element can do, an element and the
//! tree, with what is derived from each element once (centre, visible part, stable
//! signature). Not the parsers (`parse/`) nor the text the model reads
//! (`screen_text.rs`).

use super::stable_hash::StableHasher;

/// A rectangle in screen pixels, `[left,top][right,bottom]` as dumps print it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize)]
pub struct Bounds {
    pub left: i32,
    pub top: i32,
    pub right: i32,
    pub bottom: i32,
}

impl Bounds {
    pub fn width(&self) -> i32 {
        self.right.saturating_sub(self.left)
    }
    pub fn height(&self) -> i32 {
        self.bottom.saturating_sub(self.top)
    }
    pub fn is_empty(&self) -> bool {
        self.width() <= 0 || self.height() <= 0
    }
    pub fn center(&self) -> (i32, i32) {
        (
            ((i64::from(self.left) + i64::from(self.right)) / 2) as i32,
            ((i64::from(self.top) + i64::from(self.bottom)) / 2) as i32,
        )
    }
    pub fn contains(&self, x: i32, y: i32) -> bool {
        x >= self.left && x < self.right && y >= self.top && y < self.bottom
    }
    pub fn intersects(&self, other: &Bounds) -> bool {
        self.left < other.right && other.left < self.right && self.top < other.bottom && other.top < self.bottom
    }
    /// The part of these bounds inside `other`, if they overlap.
    pub fn within(&self, other: &Bounds) -> Option<Bounds> {
        self.intersects(other).then(|| Bounds {
            left: self.left.max(other.left),
            top: self.top.max(other.top),
            right: self.right.min(other.right),
            bottom: self.bottom.min(other.bottom),
        })
    }
}

/// What can be done to an element, derived from its flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Actions {
    pub touch: bool,
    pub long_touch: bool,
    pub set_text: bool,
    pub scroll: bool,
}

/// One view of the hierarchy, with what is derived from it.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Element {
    /// Position in [`UiTree::elements`] (pre-order).
    pub id: usize,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    pub depth: usize,
    /// The `index` attribute: position among siblings as the device reported it.
    pub index: usize,
    /// The Android widget class (`android.widget.Switch`); on HarmonyOS and iOS the
    /// nearest Android class for the platform's own type, so that one selector means
    /// the same on every platform.
    pub class: String,
    /// The platform's own type when it is not Android's (`Toggle` on HarmonyOS,
    /// `XCUIElementTypeSwitch` on iOS); a `class` selector matches it too.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub native_class: String,
    pub text: String,
    pub content_desc: String,
    pub resource_id: String,
    pub package: String,
    pub hint: String,
    pub bounds: Bounds,
    pub checkable: bool,
    pub checked: bool,
    pub clickable: bool,
    pub enabled: bool,
    pub focusable: bool,
    pub focused: bool,
    pub scrollable: bool,
    pub long_clickable: bool,
    pub password: bool,
    pub selected: bool,
    /// `visible-to-user` when the dump has it (UiAutomator2/Appium dumps).
    pub visible_to_user: Option<bool>,
    /// `NAF="true"`: not accessibility-friendly (no text or description).
    pub naf: bool,
    pub display_id: Option<u32>,
    pub drawing_order: Option<u32>,
    // Derived once at parse time.
    /// Where to act on it: the centre of its part on the screen.
    pub center: (i32, i32),
    pub actions: Actions,
    /// Non-empty and at least partly on screen.
    pub visible: bool,
    /// Stable across snapshots: class, resource-id, content-desc, text (unless
    /// editable) and the children's signatures; bounds when all of those are empty.
    pub signature: u64,
}

impl Element {
    /// EditText and friends: text typed into them does not define them.
    pub fn is_editable(&self) -> bool {
        self.class.contains("EditText") || self.class.ends_with("AutoCompleteTextView")
    }
}

/// A parsed hierarchy: every window's nodes in one arena, in document order.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct UiTree {
    pub elements: Vec<Element>,
    /// Top-level nodes (one per window in multi-window dumps).
    pub roots: Vec<usize>,
    /// The `rotation` attribute (0–3); it need not match the bounds.
    pub rotation: u8,
    /// Screen size in pixels, from `wm size` (not from the first node).
    pub screen: (u32, u32),
}

impl UiTree {
    pub fn get(&self, id: usize) -> Option<&Element> {
        self.elements.get(id)
    }

    pub fn len(&self) -> usize {
        self.elements.len()
    }

    /// Element `id` and everything under it (pre-order keeps a subtree contiguous).
    pub fn subtree(&self, id: usize) -> &[Element] {
        let Some(root) = self.elements.get(id) else { return &[] };
        let end = self.elements[id + 1..]
            .iter()
            .position(|e| e.depth <= root.depth)
            .map_or(self.elements.len(), |n| id + 1 + n);
        &self.elements[id..end]
    }

    pub fn is_empty(&self) -> bool {
        self.elements.is_empty()
    }

    /// A fingerprint of what is on screen (every element's signature and bounds):
    /// equal fingerprints mean nothing moved.
    pub fn fingerprint(&self) -> u64 {
        let mut h = StableHasher::default();
        for e in &self.elements {
            let b = e.bounds;
            h.field(&e.signature.to_le_bytes());
            for v in [b.left, b.top, b.right, b.bottom] {
                h.field(&v.to_le_bytes());
            }
        }
        h.finish()
    }

    /// The packages of the top-level windows, in dump order.
    pub fn window_packages(&self) -> Vec<&str> {
        self.roots.iter().filter_map(|r| self.elements.get(*r)).map(|e| e.package.as_str()).collect()
    }

    /// Whether a registered secret is on this screen (in what a person reads there:
    /// text, content-desc, hint), so no screenshot may be taken of it.
    pub fn shows_secret(&self) -> bool {
        use codeact_base::secrets::appears_in;
        codeact_base::secrets::any_registered()
            && self.elements.iter().any(|e| appears_in(&e.text) || appears_in(&e.content_desc) || appears_in(&e.hint))
    }
}
