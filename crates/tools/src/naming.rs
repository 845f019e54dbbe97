//! How an element is named in every message (`Switch "Wi-Fi" (id wifi_switch)`): the
//! one wording the errors, the gate, the effects and the watchers share. Not finding
//! the nearest elements or suggesting a selector (`locating/closest.rs`).

use codeact_platform::ui::Element;

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
