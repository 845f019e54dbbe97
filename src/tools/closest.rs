//! How errors name elements (`Switch "Wi-Fi" (id wifi_switch)`), and what a
//! "nothing matches" error shows: the elements on screen, each with its id, and the
//! selector of the one closest to what the script asked for ("did you mean …"), so a
//! wrong name is fixed from the message alone. Only reads a tree.

use crate::ui::{Element, UiTree};

use super::select::Selector;
use super::unique_selector::selector_for;

/// How many elements the message lists (the rest are counted).
pub const LISTED: usize = 40;

/// `Switch "Wi-Fi" (id wifi_switch)`: how an element is named in messages.
pub fn described(e: &Element) -> String {
    let class = e.class.rsplit('.').next().unwrap_or("element");
    let text = [&e.text, &e.content_desc, &e.hint].into_iter().find(|t| !t.is_empty());
    let id = e.resource_id.rsplit('/').next().unwrap_or("");
    match (text, id.is_empty()) {
        (Some(t), false) => format!("{class} {t:?} (id {id})"),
        (Some(t), true) => format!("{class} {t:?}"),
        (None, false) => format!("{class} (id {id})"),
        (None, true) => class.to_string(),
    }
}

/// The listed elements as one line, at most [`LISTED`] of them.
pub fn visible_list(elements: &[&Element]) -> String {
    let mut out: Vec<String> = elements.iter().take(LISTED).map(|e| described(e)).collect();
    if elements.len() > LISTED {
        out.push(format!("and {} more", elements.len() - LISTED));
    }
    if out.is_empty() { "nothing".to_string() } else { out.join(", ") }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::select::tests::tree;

    #[test]
    fn lists_with_ids_and_suggests_the_nearest_name() {
        let t = tree();
        let all: Vec<&Element> = t.elements.iter().filter(|e| e.visible).collect();
        let list = visible_list(&all);
        assert!(list.contains("Switch (id wifi_switch)") && list.contains("TextView \"Wi-Fi\""), "{list}");
        let sel = |s: &str| Selector::from_dynamic(&rhai::Dynamic::from(s.to_string())).unwrap();
        assert_eq!(suggestion(&sel("Wifi"), &t, &all).as_deref(), Some(r#"#{text: "Wi-Fi"}"#));
        assert_eq!(suggestion(&sel("Blutooth"), &t, &all).as_deref(), Some(r#"#{text: "Bluetooth"}"#));
        assert_eq!(suggestion(&sel("Airplane mode"), &t, &all), None, "nothing close");
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
