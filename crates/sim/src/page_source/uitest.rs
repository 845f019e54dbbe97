//! Writes a [`Screen`] as the layout HarmonyOS's `uitest dumpLayout` writes: one line
//! of JSON, each node `{"attributes": {...}, "children": [...]}` with its attributes
//! in alphabetical order and every value a string (`"true"`, `"[l,t][r,b]"`); a root
//! whose attributes are empty but for the merged `bounds`, whose children are the
//! windows, each window naming its `bundleName`, `abilityName` and `pagePath`.
//!
//! How each Android view becomes an ArkUI component, the nearest one a HarmonyOS app
//! would use: a TextView is a `Text`, an EditText a `TextInput` (its `hint` apart, a
//! password's text masked), a Switch a `Toggle`, a list a `List` of `ListItem`s; the
//! view id is the component's `id` and `key`, the content description its
//! `description`. Learned from `openharmony/testfwk_arkxtest` (`ui_model.h`,
//! `ui_driver.cpp`; public source) and a published real dump; no code copied.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::screen::{Node, Role, Screen};

/// The bundle of HarmonyOS's input method, as its keyboard window names it.
pub(crate) const KEYBOARD_BUNDLE: &str = "com.huawei.hmos.inputmethod";

/// One node as uitest writes it (fields in alphabetical order, as its JSON library
/// orders keys).
#[derive(Serialize)]
struct LayoutNode {
    attributes: BTreeMap<&'static str, String>,
    children: Vec<LayoutNode>,
}

/// The ArkUI component type a view shows as.
fn arkui_type(node: &Node, in_list: bool) -> &'static str {
    let short = node.class.rsplit('.').next().unwrap_or("");
    match (&node.role, short) {
        (Role::Switch, _) | (_, "Switch" | "ToggleButton") => "Toggle",
        (_, "CheckBox") => "Checkbox",
        (_, "RadioButton") => "Radio",
        (_, "EditText" | "AutoCompleteTextView") => "TextInput",
        (_, "Button" | "ImageButton") => "Button",
        (_, "TextView") => "Text",
        (_, "ImageView") => "Image",
        (_, "RecyclerView" | "ListView") => "List",
        (_, "GridView") => "Grid",
        (_, "ScrollView" | "HorizontalScrollView" | "NestedScrollView") => "Scroll",
        (_, "SeekBar") => "Slider",
        (_, "ProgressBar") => "Progress",
        (_, "WebView") => "Web",
        (_, "Spinner") => "Select",
        _ if in_list => "ListItem",
        (_, "FrameLayout") => "Stack",
        (_, "LinearLayout") => "Column",
        _ => "Column",
    }
}

/// `"[l,t][r,b]"`.
fn bounds(node: &Node) -> String {
    let b = node.bounds;
    format!("[{},{}][{},{}]", b.left, b.top, b.right, b.bottom)
}

fn flag(v: bool) -> String {
    v.to_string()
}

/// Counts nodes as uitest numbers them (`accessibilityId`, `hashcode`).
struct Numbering {
    next: u32,
    window: u32,
}

fn component(node: &Node, in_list: bool, hierarchy: &str, n: &mut Numbering) -> LayoutNode {
    let kind = arkui_type(node, in_list);
    n.next += 1;
    let id = node.resource_id.rsplit('/').next().unwrap_or("").to_string();
    // A password field shows bullets, never its text.
    let text = if node.password { "•".repeat(node.text.chars().count()) } else { node.text.clone() };
    let mut a: BTreeMap<&'static str, String> = BTreeMap::new();
    a.insert("accessibilityId", n.next.to_string());
    a.insert("backgroundColor", "#00000000".into());
    a.insert("backgroundImage", "empty source".into());
    a.insert("blur", "0.000000".into());
    a.insert("bounds", bounds(node));
    a.insert("checkable", flag(node.checkable));
    a.insert("checked", flag(node.checked));
    a.insert("clickable", flag(node.clickable));
    a.insert("description", node.content_desc.clone());
    a.insert("enabled", flag(node.enabled));
    a.insert("focused", flag(node.focused));
    a.insert("hashcode", format!("{}:{}", n.window, n.next));
    a.insert("hierarchy", hierarchy.to_string());
    a.insert("hint", node.hint.clone());
    a.insert("hitTestBehavior", "Default".into());
    a.insert("hostWindowId", n.window.to_string());
    a.insert("id", id.clone());
    a.insert("key", id);
    a.insert("longClickable", flag(node.long_clickable));
    a.insert("opacity", "1.000000".into());
    a.insert("origBounds", bounds(node));
    a.insert("scrollable", flag(node.scrollable));
    a.insert("selected", flag(node.selected));
    a.insert("text", text);
    a.insert("type", kind.to_string());
    a.insert("visible", flag(!node.bounds.is_empty()));
    a.insert("zIndex", "0".into());
    let list = matches!(kind, "List" | "Grid");
    let children = node
        .children
        .iter()
        .filter(|c| c.in_page_source())
        .enumerate()
        .map(|(i, c)| component(c, list, &format!("{hierarchy},{i}"), n))
        .collect();
    LayoutNode { attributes: a, children }
}

/// The layout of `screen`; `ability` names the ability of the app in front (its
/// bundle is `foreground`).
pub(crate) fn to_json(screen: &Screen, foreground: &str, ability: &str) -> String {
    let mut windows = Vec::new();
    for (index, window) in screen.windows.iter().filter(|w| w.role != Role::Scrim).enumerate() {
        let mut n = Numbering { next: 0, window: 100 + index as u32 };
        let hierarchy = format!("ROOT{}", n.window);
        let mut node = component(window, false, &hierarchy, &mut n);
        let mut bundle = window_bundle(window);
        if window.is_keyboard_window() {
            // HarmonyOS's own input method, whichever one the Android side runs; its
            // keys are not components a script taps.
            bundle = KEYBOARD_BUNDLE.to_string();
            node.children.clear();
        }
        let is_app = bundle == foreground;
        node.attributes.insert("type", "root".into());
        node.attributes.insert("abilityName", if is_app { ability.to_string() } else { String::new() });
        node.attributes.insert("pagePath", if is_app { "pages/Index".into() } else { String::new() });
        node.attributes.insert("bundleName", bundle);
        windows.push(node);
    }
    // The root merges the windows' bounds and says nothing else.
    let mut root = BTreeMap::new();
    for name in [
        "accessibilityId",
        "backgroundColor",
        "backgroundImage",
        "blur",
        "checkable",
        "checked",
        "clickable",
        "description",
        "enabled",
        "focused",
        "hitTestBehavior",
        "hostWindowId",
        "id",
        "key",
        "longClickable",
        "opacity",
        "origBounds",
        "scrollable",
        "selected",
        "text",
        "type",
        "zIndex",
    ] {
        root.insert(name, String::new());
    }
    let (w, h) = (screen.width, screen.height);
    root.insert("bounds", format!("[0,0][{w},{h}]"));
    let layout = LayoutNode { attributes: root, children: windows };
    serde_json::to_string(&layout).unwrap_or_default()
}

/// The bundle a window belongs to: its own package, else its first node's.
fn window_bundle(window: &Node) -> String {
    fn first(node: &Node) -> Option<&str> {
        if !node.package.is_empty() {
            return Some(&node.package);
        }
        node.children.iter().find_map(first)
    }
    first(window).unwrap_or("").to_string()
}
