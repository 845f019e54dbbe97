//! `ui_state` and `phone_state` as scripts see them: the elements worth acting on or
//! reading (visible, and actionable or labelled), indexed in reading order, as Rhai
//! maps. The same list backs index-based tools, so an index means one element.

use rhai::{Array, Dynamic, Map};

use codeact_platform::device::Observation;
use codeact_platform::ui::Element;

/// The elements `ui_state` lists (shared with the compact screen text).
pub use codeact_platform::ui::screen_text::listed;

fn int(v: i32) -> Dynamic {
    Dynamic::from(i64::from(v))
}

/// One element as a map with the keys the tool docs promise.
pub fn element_map(index: usize, e: &Element) -> Map {
    let mut m = Map::new();
    let b = e.bounds;
    let mut put = |k: &str, v: Dynamic| {
        m.insert(k.into(), v);
    };
    put("index", Dynamic::from(index as i64));
    // A secret typed into a field is not the script's to read.
    let shown = |t: &str| Dynamic::from(codeact_base::secrets::blot_registered(t).into_owned());
    put("text", shown(&e.text));
    put("desc", shown(&e.content_desc));
    put("hint", shown(&e.hint));
    put("id", Dynamic::from(e.resource_id.rsplit('/').next().unwrap_or("").to_string()));
    put("class", Dynamic::from(e.class.rsplit('.').next().unwrap_or("").to_string()));
    put("bounds", Dynamic::from(vec![int(b.left), int(b.top), int(b.right), int(b.bottom)] as Array));
    put("center", Dynamic::from(vec![int(e.center.0), int(e.center.1)] as Array));
    for (k, v) in [
        ("clickable", e.clickable),
        ("checkable", e.checkable),
        ("checked", e.checked),
        ("editable", e.actions.set_text),
        ("scrollable", e.scrollable),
        ("focused", e.focused),
        ("enabled", e.enabled),
        ("selected", e.selected),
    ] {
        put(k, Dynamic::from(v));
    }
    let mut actions = Array::new();
    for (name, on) in [
        ("touch", e.actions.touch),
        ("long_touch", e.actions.long_touch),
        ("set_text", e.actions.set_text),
        ("scroll", e.actions.scroll),
    ] {
        if on {
            actions.push(Dynamic::from(name.to_string()));
        }
    }
    put("actions", Dynamic::from(actions));
    put("signature", Dynamic::from(format!("{:016x}", e.signature)));
    m
}

pub fn ui_state(obs: &Observation) -> Dynamic {
    let list: Array = listed(&obs.ui).into_iter().enumerate().map(|(i, e)| Dynamic::from(element_map(i, e))).collect();
    Dynamic::from(list)
}

pub fn phone_state(obs: &Observation) -> Dynamic {
    let mut m = Map::new();
    // `package` is a reserved word in Rhai (`phone_state.package` does not parse), so
    // the same value is also under `app`.
    m.insert("app".into(), Dynamic::from(obs.phone.package.clone()));
    m.insert("package".into(), Dynamic::from(obs.phone.package.clone()));
    m.insert("activity".into(), Dynamic::from(obs.phone.activity.clone()));
    m.insert("screen".into(), Dynamic::from(obs.phone.screen().to_string()));
    m.insert("platform".into(), Dynamic::from(obs.phone.platform.id()));
    m.insert("keyboard_shown".into(), Dynamic::from(obs.phone.keyboard_shown));
    let focused = obs
        .phone
        .focused
        .and_then(|f| obs.ui.get(f))
        // Android's dump writes an empty field's hint as its text: it holds nothing.
        .filter(|e| !(e.is_editable() && !e.hint.is_empty() && e.text == e.hint))
        .map(|e| codeact_base::secrets::blot_registered(&e.text).into_owned())
        .unwrap_or_default();
    m.insert("focused_text".into(), Dynamic::from(focused));
    m.insert("screen_width".into(), Dynamic::from(i64::from(obs.screen.0)));
    m.insert("screen_height".into(), Dynamic::from(i64::from(obs.screen.1)));
    Dynamic::from(m)
}
