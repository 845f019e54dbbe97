//! The `-android uiautomator` locator over the observed tree: the expression read
//! and compiled by appium-locators' `uiselector`, matched against the tree's
//! elements (an element says its words and states through [`View`]; its `index`
//! is the one the device reported). A `UiScrollable` search is answered by
//! `find.rs`, which swipes. Not the other locators.

use appium_locators::uiselector::{self as language, Query, View};
use codeact_platform::ui::{Element, UiTree};

pub use appium_locators::uiselector::Selector;

/// What a locator asks for, ready to match.
pub enum Asked {
    Plain(Selector),
    Scroll { within: Selector, target: Selector, max_swipes: usize, horizontal: bool },
}

/// Reads a locator.
pub fn parse(text: &str) -> Result<Asked, String> {
    let said = |e: language::UiSelectorError| codeact_base::error_text::full_message(&e);
    Ok(match language::parse(text).map_err(said)? {
        Query::Plain(fields) => Asked::Plain(Selector::compile(&fields).map_err(said)?),
        Query::Scroll(s) => Asked::Scroll {
            within: Selector::compile(&s.within).map_err(said)?,
            target: Selector::compile(&s.target).map_err(said)?,
            max_swipes: s.max_swipes,
            horizontal: s.horizontal,
        },
    })
}

/// An element as a selector sees it.
struct Seen<'a>(&'a Element);

impl View for Seen<'_> {
    fn text(&self) -> &str {
        &self.0.text
    }
    fn class(&self) -> &str {
        &self.0.class
    }
    fn description(&self) -> &str {
        &self.0.content_desc
    }
    fn package(&self) -> &str {
        &self.0.package
    }
    fn resource_id(&self) -> &str {
        &self.0.resource_id
    }
    fn state(&self, name: &str) -> bool {
        let e = self.0;
        match name {
            "checkable" => e.checkable,
            "checked" => e.checked,
            "clickable" => e.clickable,
            "longClickable" => e.long_clickable,
            "scrollable" => e.scrollable,
            "enabled" => e.enabled,
            "focusable" => e.focusable,
            "focused" => e.focused,
            _ => e.selected,
        }
    }
}

/// The ids of the elements `selector` finds (below `scope` only, when given), its
/// `instance` applied.
pub fn find(selector: &Selector, tree: &UiTree, scope: Option<usize>) -> Vec<usize> {
    let all = match scope {
        Some(id) => tree.subtree(id).get(1..).unwrap_or(&[]),
        None => &tree.elements[..],
    };
    let found = all.iter().filter(|e| selector.accepts(&Seen(e), e.index)).map(|e| e.id);
    match selector.instance() {
        Some(nth) => found.skip(nth).take(1).collect(),
        None => found.collect(),
    }
}
