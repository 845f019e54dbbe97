//! What the three parsers share: their error, the bounds of a page (depth, element
//! count, checked before any tree is built), the XML options, one walk over a
//! hierarchy and what is derived from each element once it is read. Not a format
//! (`uiautomator.rs`, `uitest.rs`, `xcui.rs`).

use crate::ui::stable_hash::StableHasher;
use crate::ui::tree::{Actions, Bounds, UiTree};

/// Why a dump could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    #[error("the hierarchy dump is empty; the screen may be locked or the app secure (FLAG_SECURE) — try again")]
    Empty,
    #[error("no <hierarchy> element in the dump (it starts with {start:?}); this is not uiautomator output")]
    NoHierarchy { start: String },
    #[error("the dump stops before </hierarchy> after {len} bytes; it was cut off — dump again")]
    Truncated { len: usize },
    #[error("the dump is not well-formed XML at line {line}, column {column}: {message}")]
    Xml { line: u32, column: u32, message: String },
    #[error(
        "no XCUIElementType element in the page source (it starts with {start:?}); this is not WebDriverAgent's /source"
    )]
    NotXcui { start: String },
    #[error("no JSON layout in the output (it starts with {start:?}); this is not `uitest dumpLayout`")]
    NotUitest { start: String },
    #[error("the layout is not readable JSON at line {line}, column {column}: {message}")]
    Json { line: usize, column: usize, message: String },
    #[error("the hierarchy nests elements more than {max} deep; no screen does: this dump is not one to trust")]
    TooDeep { max: usize },
    #[error(
        "the page holds more than {max} elements; no screen does (a list drawn whole?): this page is not one to read"
    )]
    TooMany { max: usize },
}

/// The deepest a hierarchy may nest: real screens stay under a hundred levels, and
/// every walk over a tree (selectors' ancestors, the screen text) is paid per level.
pub const MAX_DEPTH: usize = 512;

/// The most elements a page may hold: real screens hold a few thousand at most,
/// and each element read costs its tree and every walk over it.
pub const MAX_ELEMENTS: usize = 100_000;

/// Refuses, before anything is parsed, a page whose text holds more element
/// openings (`marker`: `<` in XML, `{` in JSON) than [`MAX_ELEMENTS`] could need:
/// the parsed tree of a page costs many times its bytes, so a page of a million
/// nodes is turned away at the cost of one scan, not of its tree.
pub(in crate::ui) fn not_too_many(text: &str, marker: u8) -> Result<(), ParseError> {
    let openings = text.as_bytes().iter().filter(|b| **b == marker).count();
    // Closing tags, texts and attribute objects count too: twice the elements, and more.
    if openings > MAX_ELEMENTS.saturating_mul(3) {
        return Err(ParseError::TooMany { max: MAX_ELEMENTS });
    }
    Ok(())
}

/// Parsing options for a page's XML: no DTD, and no more nodes than its elements
/// could be (each element, its text and its closing count).
pub(in crate::ui) fn xml_options<'input>() -> roxmltree::ParsingOptions<'input> {
    roxmltree::ParsingOptions {
        allow_dtd: false,
        nodes_limit: u32::try_from(MAX_ELEMENTS.saturating_mul(3)).unwrap_or(u32::MAX),
        ..Default::default()
    }
}

/// Where a node sits: its id (its position in pre-order), its parent, its depth and
/// its place among its siblings.
#[derive(Clone, Copy)]
pub(in crate::ui) struct Place {
    pub id: usize,
    pub parent: Option<usize>,
    pub depth: usize,
    pub sibling: usize,
}

/// Reads the trees under `top` into `tree` in pre-order, without recursion (deep
/// trees cannot overflow the stack): `children` lists a node's children in order,
/// `element` makes a node's element at its place. A tree deeper than
/// [`MAX_DEPTH`] is refused.
pub(in crate::ui) fn walk<N>(
    tree: &mut UiTree,
    top: Vec<N>,
    children: impl Fn(&N) -> Vec<N>,
    element: impl Fn(&N, Place) -> crate::ui::tree::Element,
) -> Result<(), ParseError> {
    let mut stack: Vec<(N, Option<usize>, usize, usize)> = Vec::new();
    for (sibling, node) in top.into_iter().enumerate().rev() {
        stack.push((node, None, 0, sibling));
    }
    while let Some((node, parent, depth, sibling)) = stack.pop() {
        if depth >= MAX_DEPTH {
            return Err(ParseError::TooDeep { max: MAX_DEPTH });
        }
        let id = tree.elements.len();
        if id >= MAX_ELEMENTS {
            return Err(ParseError::TooMany { max: MAX_ELEMENTS });
        }
        tree.elements.push(element(&node, Place { id, parent, depth, sibling }));
        match parent.and_then(|p| tree.elements.get_mut(p)) {
            Some(p) => p.children.push(id),
            None => tree.roots.push(id),
        }
        for (sibling, child) in children(&node).into_iter().enumerate().rev() {
            stack.push((child, Some(id), depth + 1, sibling));
        }
    }
    Ok(())
}

/// Centre, actions, visibility and signatures, computed once.
pub(in crate::ui) fn derive(tree: &mut UiTree) {
    // `wm size` is the portrait size; a landscape dump's windows only fit it with
    // the sides swapped (and `rotation` cannot be trusted to say so).
    let (w, h) = (tree.screen.0 as i32, tree.screen.1 as i32);
    let roots = tree.roots.iter().filter_map(|r| tree.elements.get(*r));
    let (right, bottom) = roots.fold((0, 0), |(r, b), e| (r.max(e.bounds.right), b.max(e.bounds.bottom)));
    if w > 0 && h > 0 && (right > w || bottom > h) && right <= h && bottom <= w {
        tree.screen = (tree.screen.1, tree.screen.0);
    }
    let screen = Bounds { left: 0, top: 0, right: tree.screen.0 as i32, bottom: tree.screen.1 as i32 };
    let known_screen = !screen.is_empty();
    // Children come after their parent in pre-order, so a reverse pass sees every
    // child's signature before its parent's.
    for id in (0..tree.elements.len()).rev() {
        let child_sigs: Vec<u64> =
            tree.elements[id].children.iter().filter_map(|c| tree.elements.get(*c)).map(|c| c.signature).collect();
        let e = &mut tree.elements[id];
        // The point to act on: the centre of the part on the screen, so an element
        // that runs off an edge is never tapped off the screen.
        e.center = match e.bounds.within(&screen) {
            Some(shown) if known_screen => shown.center(),
            _ => e.bounds.center(),
        };
        e.actions = Actions {
            touch: e.clickable || e.checkable,
            long_touch: e.long_clickable,
            set_text: e.is_editable(),
            scroll: e.scrollable,
        };
        e.visible =
            !e.bounds.is_empty() && e.visible_to_user != Some(false) && (!known_screen || e.bounds.intersects(&screen));
        let mut h = StableHasher::default();
        h.field(e.class.as_bytes()).field(e.resource_id.as_bytes()).field(e.content_desc.as_bytes());
        let text = if e.is_editable() { "" } else { e.text.as_str() };
        h.field(text.as_bytes());
        for sig in &child_sigs {
            h.field(&sig.to_le_bytes());
        }
        if e.resource_id.is_empty() && e.content_desc.is_empty() && text.is_empty() && child_sigs.is_empty() {
            let b = e.bounds;
            for v in [b.left, b.top, b.right, b.bottom] {
                h.field(&v.to_le_bytes());
            }
        }
        e.signature = h.finish();
    }
}
