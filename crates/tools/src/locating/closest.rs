//! How errors name elements (`Switch "Wi-Fi" (id wifi_switch)`), and what a
//! "nothing matches" error shows: the few elements on screen nearest to what the
//! script asked for, each with its id, with how many there are in all, and the
//! selector of the closest ("did you mean …"), so a wrong name is fixed from the
//! message alone while the message stays one short line (`ui_state`, and the run
//! directory's dumps, have the whole screen). Only reads a tree.

use codeact_platform::device::Observation;
use codeact_platform::ui::{Element, UiTree};

use crate::error::ToolError;
use crate::select::Selector;
use crate::select::unique_selector::selector_for;

/// How many elements a "nothing matches" message names (the rest are counted).
pub const NAMED: usize = 5;

pub use crate::naming::described;

/// The [`NAMED`] listed elements nearest to what `sel` looks for (the first ones on
/// screen when it names no text), in screen order, and how many there are in all:
/// `Switch (id wifi_switch), TextView "Wi-Fi" (id title) (2 of 34 on screen)`.
pub fn nearest_list(sel: &Selector, elements: &[&Element]) -> String {
    if elements.is_empty() {
        return "nothing".to_string();
    }
    let mut chosen: Vec<usize> = (0..elements.len()).collect();
    if let Some(wanted) = sel.wanted_text().map(folded).filter(|w| !w.is_empty()) {
        let nearness = |e: &Element| {
            let id = e.resource_id.rsplit('/').next().unwrap_or("");
            [e.text.as_str(), e.content_desc.as_str(), e.hint.as_str(), id]
                .into_iter()
                .filter(|t| !t.is_empty())
                .map(|t| distance(&wanted, &folded(t)))
                .min()
                .unwrap_or(usize::MAX)
        };
        chosen.sort_by_key(|i| nearness(elements[*i]));
    }
    chosen.truncate(NAMED);
    chosen.sort_unstable();
    let named: Vec<String> = chosen.iter().map(|i| described(elements[*i])).collect();
    match elements.len() > named.len() {
        true => format!("{} ({} of {} on screen)", named.join(", "), named.len(), elements.len()),
        false => named.join(", "),
    }
}

/// The error for `sel` matching nothing on `screen` (`searched`: how hard it looked,
/// as the message says it).
pub(crate) fn nothing_matches(screen: Option<&Observation>, sel: &Selector, searched: &str) -> ToolError {
    let searched = searched.to_string();
    let selector = sel.shown.clone();
    // A picture or a description has no nearest element: what each way said helps.
    let mut ways = Vec::new();
    if let Some(want) = &sel.image {
        ways.push(format!(
            "by picture, no place reaches the threshold (`codeact assets find {}` shows the best)",
            want.name
        ));
    }
    if let Some(description) = &sel.ai {
        ways.push(format!("the model says {description:?} is not on the screen"));
    }
    if sel.locates() && !sel.has_tree_part() {
        return ToolError::NothingMatches { selector, searched, visible: ways.join("; "), closest: None };
    }
    let Some(obs) = screen else {
        return ToolError::NothingMatches {
            selector,
            searched,
            visible: "nearest on screen: nothing".into(),
            closest: None,
        };
    };
    let shown = crate::context::state::listed(&obs.ui);
    ways.insert(0, format!("nearest on screen: {}", nearest_list(sel, &shown)));
    ways.extend(regex_hint(sel, &shown));
    ToolError::NothingMatches {
        selector,
        searched,
        visible: ways.join("; "),
        closest: suggestion(sel, &obs.ui, &shown),
    }
}

/// The selector (Rhai source) of the element closest to what `sel` looks for, when
/// one is close enough to be worth suggesting.
pub fn suggestion(sel: &Selector, tree: &UiTree, elements: &[&Element]) -> Option<String> {
    let wanted = folded(sel.wanted_text()?);
    if wanted.is_empty() {
        return None;
    }
    let wanted = wanted.as_str();
    let best = elements
        .iter()
        .flat_map(|e| {
            let id = e.resource_id.rsplit('/').next().unwrap_or("");
            // Ties go to what people read (text) before what developers named (ids).
            [e.text.as_str(), e.content_desc.as_str(), e.hint.as_str(), id]
                .into_iter()
                .enumerate()
                .filter(|(_, t)| !t.is_empty())
                .map(move |(rank, t)| (distance(wanted, &folded(t)), rank, e.id))
        })
        .min_by_key(|(d, rank, _)| (*d, *rank))?;
    let allowed = (wanted.chars().count() / 3).max(2);
    (best.0 <= allowed).then(|| selector_for(tree, best.2)).flatten()
}

/// Lower case, letters and digits only: "Wi-Fi", "wifi" and "WIFI" are one name.
fn folded(text: &str) -> String {
    text.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// Edit distance, with containment counted as a match; long texts are compared on
/// their first 64 characters (a suggestion, not a proof).
fn distance(a: &str, b: &str) -> usize {
    if a.contains(b) || b.contains(a) {
        return 0;
    }
    let a: Vec<char> = a.chars().take(64).collect();
    let b: Vec<char> = b.chars().take(64).collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

/// The error for a selector whose position anchor matches several places: each
/// place named, and a selector that finds each one alone.
pub fn ambiguous_anchor(
    tree: &codeact_platform::ui::UiTree,
    sel: &Selector,
    a: crate::select::AmbiguousAnchor,
) -> ToolError {
    let shown: Vec<&Element> = a.candidates.iter().filter_map(|id| tree.get(*id)).take(NAMED).collect();
    let places = shown.iter().map(|e| described(e)).collect();
    let fixes = shown.iter().filter_map(|e| selector_for(tree, e.id)).map(|s| format!("{}: {s}", a.relation)).collect();
    ToolError::AmbiguousAnchor { selector: sel.shown.clone(), relation: a.relation, anchor: a.anchor, places, fixes }
}

/// What a wait that timed out says after its selector: what is on screen nearest
/// to what it wanted (and whether its text reads as a regex), or, waiting for it
/// to go, what still matches.
pub(crate) fn after_wait(screen: Option<&Observation>, sel: &Selector, awaited: crate::error::Awaited) -> String {
    let Some(obs) = screen else { return String::new() };
    let shown = crate::context::state::listed(&obs.ui);
    match awaited {
        crate::error::Awaited::GoAway => {
            let still: Vec<String> = sel.find_all(&obs.ui).iter().take(NAMED).map(|e| described(e)).collect();
            if still.is_empty() { String::new() } else { format!("; still on screen: {}", still.join(", ")) }
        }
        crate::error::Awaited::Appear if sel.locates() && !sel.has_tree_part() => String::new(),
        crate::error::Awaited::Appear => {
            let mut said = format!("; nearest on screen: {}", nearest_list(sel, &shown));
            if let Some(hint) = regex_hint(sel, &shown) {
                said.push_str(&format!("; {hint}"));
            }
            said
        }
    }
}

/// When the literal text a selector looks for reads as a regex: what it would
/// match as one, and the key that says so (values are literal unless the key ends
/// in `_matches`).
pub(crate) fn regex_hint(sel: &Selector, elements: &[&Element]) -> Option<String> {
    let text = sel.wanted_text()?;
    if !text.contains(['\\', '.', '*', '+', '?', '[', '(', '|', '^', '$', '{']) {
        return None;
    }
    let re = regex::RegexBuilder::new(&format!("^(?:{text})$")).size_limit(1 << 20).build().ok()?;
    let hit = elements.iter().find(|e| {
        [&e.text, &e.content_desc, &e.hint].iter().any(|t| !t.is_empty() && t.as_str() != text && re.is_match(t))
    });
    let literal = codeact_engine::emit::rhai::string(text);
    match hit {
        Some(e) => Some(format!(
            "{literal} is matched literally; as a regex it matches {}: write #{{text_matches: {literal}}} (or desc_matches, label_matches)",
            described(e)
        )),
        None if ["\\d", "\\w", "\\s", ".*", ".+", "(?i)", "[0-9]"].iter().any(|sign| text.contains(sign)) => {
            Some(format!(
                "values are literal unless the key ends in _matches: #{{text_matches: {literal}}} reads it as a regex"
            ))
        }
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::tests::tree;

    #[test]
    fn lists_with_ids_and_suggests_the_nearest_name() {
        let t = tree();
        let all: Vec<&Element> = t.elements.iter().filter(|e| e.visible).collect();
        let sel = |s: &str| Selector::from_dynamic(&rhai::Dynamic::from(s.to_string())).unwrap();
        let list = nearest_list(&sel("wifi"), &all);
        assert!(list.contains("Switch (id wifi_switch)") && list.contains("TextView \"Wi-Fi\""), "{list}");
        if all.len() > NAMED {
            assert!(list.ends_with(&format!("({NAMED} of {} on screen)", all.len())), "{list}");
        }
        assert_eq!(suggestion(&sel("Wifi"), &t, &all).as_deref(), Some(r#"#{text: "Wi-Fi"}"#));
        assert_eq!(suggestion(&sel("Blutooth"), &t, &all).as_deref(), Some(r#"#{text: "Bluetooth"}"#));
        assert_eq!(suggestion(&sel("Airplane mode"), &t, &all), None, "nothing close");
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
