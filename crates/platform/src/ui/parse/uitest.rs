//! Parses the layout HarmonyOS's `uitest dumpLayout` writes (one line of JSON: each
//! node `{"attributes": {...}, "children": [...]}`, every attribute a string — `"true"`,
//! `"[l,t][r,b]"` — under a root whose children are the windows, each window naming
//! its `bundleName`) into the same [`UiTree`] Android's dump becomes:
//!
//! - each ArkUI type gets the nearest Android class (`Toggle` → `android.widget.Switch`,
//!   `TextInput` → `android.widget.EditText`) and keeps its own name in `native_class`;
//! - `text`, `description` (content-desc), `hint`, `id` (else `key`) as resource-id,
//!   the window's `bundleName` as every node's package, and the flags as they are.
//!
//! What the command prints before the JSON (`DumpLayout saved to:…`) is skipped. What
//! cannot be read gives a [`ParseError`], never a panic. Nothing here talks to a device.

use serde_json::{Map, Value};

use super::shared::{ParseError, Place, derive, walk};
use crate::ui::tree::{Bounds, Element, UiTree};

/// The Android class nearest each ArkUI component type.
fn android_class(native: &str) -> &'static str {
    match native {
        "Text" | "Span" | "TextClock" | "Marquee" => "android.widget.TextView",
        "Button" => "android.widget.Button",
        "Toggle" | "Switch" => "android.widget.Switch",
        "Checkbox" | "CheckboxGroup" => "android.widget.CheckBox",
        "Radio" => "android.widget.RadioButton",
        "TextInput" | "TextArea" | "Search" | "RichEditor" => "android.widget.EditText",
        "Image" | "ImageSpan" | "SymbolGlyph" => "android.widget.ImageView",
        "List" | "Grid" | "WaterFlow" => "androidx.recyclerview.widget.RecyclerView",
        "Scroll" => "android.widget.ScrollView",
        "ListItem" | "GridItem" | "Row" | "Column" | "Flex" => "android.widget.LinearLayout",
        "Slider" => "android.widget.SeekBar",
        "Progress" | "LoadingProgress" => "android.widget.ProgressBar",
        "Web" => "android.webkit.WebView",
        "root" | "Stack" | "RelativeContainer" | "WindowScene" => "android.widget.FrameLayout",
        "Select" | "TextPicker" | "DatePicker" | "TimePicker" => "android.widget.Spinner",
        _ => "android.view.ViewGroup",
    }
}

/// Parses `uitest dumpLayout`'s JSON (or the command's output that ends in it);
/// `screen` is the screen in pixels.
pub fn parse_uitest(bytes: &[u8], screen: (u32, u32)) -> Result<UiTree, ParseError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ParseError::Empty);
    }
    let text = String::from_utf8_lossy(bytes);
    let Some(start) = text.find('{') else {
        return Err(ParseError::NotUitest { start: text.trim_start().chars().take(60).collect() });
    };
    super::shared::not_too_many(&text[start..], b'{')?;
    let root: Value = serde_json::from_str(text[start..].trim_end()).map_err(|e| ParseError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let Some(root) = root.as_object() else {
        return Err(ParseError::NotUitest { start: text[start..].chars().take(60).collect() });
    };
    let mut tree = UiTree { screen, ..Default::default() };
    // The root only merges the windows' bounds: each window is a root of its own.
    let windows = children(root);
    let top: Vec<&Map<String, Value>> =
        if attrs(root).is_some_and(|a| text_of(a, "type").is_empty()) { windows } else { vec![root] };
    // Each node carries its window's bundle down to its children.
    let top: Vec<(&Map<String, Value>, String)> = top
        .into_iter()
        .map(|w| (w, attrs(w).map(|a| text_of(a, "bundleName").to_string()).unwrap_or_default()))
        .collect();
    walk(&mut tree, top, with_bundle, |(node, package), at| element_from(node, at, package))?;
    derive(&mut tree);
    Ok(tree)
}

/// A node's children, each with the bundle its window names.
fn with_bundle<'a>((node, package): &(&'a Map<String, Value>, String)) -> Vec<(&'a Map<String, Value>, String)> {
    children(node).into_iter().map(|c| (c, package.clone())).collect()
}

fn attrs(node: &Map<String, Value>) -> Option<&Map<String, Value>> {
    node.get("attributes").and_then(Value::as_object)
}

fn children(node: &Map<String, Value>) -> Vec<&Map<String, Value>> {
    node.get("children")
        .and_then(Value::as_array)
        .map(|c| c.iter().filter_map(Value::as_object).collect())
        .unwrap_or_default()
}

/// An attribute as text (uitest writes every value as a string; a number or a
/// boolean written plainly is read too).
fn text_of<'a>(attrs: &'a Map<String, Value>, name: &str) -> &'a str {
    match attrs.get(name) {
        Some(Value::String(s)) => s,
        Some(Value::Bool(true)) => "true",
        _ => "",
    }
}

fn parse_bounds(s: &str) -> Bounds {
    let mut nums = [0i32; 4];
    let parts = s.split(|c: char| !(c.is_ascii_digit() || c == '-')).filter(|p| !p.is_empty());
    for (slot, part) in nums.iter_mut().zip(parts) {
        *slot = part.parse::<i64>().map(|v| v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32).unwrap_or(0);
    }
    Bounds { left: nums[0], top: nums[1], right: nums[2], bottom: nums[3] }
}

fn element_from(node: &Map<String, Value>, at: Place, package: &str) -> Element {
    let Place { id, parent, depth, sibling } = at;
    let empty = Map::new();
    let a = attrs(node).unwrap_or(&empty);
    let attr = |name: &str| text_of(a, name).to_string();
    let flag = |name: &str| text_of(a, name) == "true";
    let native = attr("type");
    let class = android_class(&native);
    let resource_id = if text_of(a, "id").is_empty() { attr("key") } else { attr("id") };
    let own_package = text_of(a, "bundleName");
    Element {
        id,
        parent,
        depth,
        index: sibling,
        class: class.to_string(),
        native_class: native,
        text: attr("text"),
        content_desc: attr("description"),
        resource_id,
        package: if own_package.is_empty() { package.to_string() } else { own_package.to_string() },
        hint: attr("hint"),
        bounds: parse_bounds(text_of(a, "bounds")),
        checkable: flag("checkable"),
        checked: flag("checked"),
        clickable: flag("clickable"),
        enabled: text_of(a, "enabled") != "false",
        focusable: class == "android.widget.EditText",
        focused: flag("focused"),
        scrollable: flag("scrollable"),
        long_clickable: flag("longClickable"),
        selected: flag("selected"),
        visible_to_user: a.get("visible").map(|v| v.as_str() == Some("true")),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::ui::samples::HARMONY_SETTINGS as SETTINGS;

    #[test]
    fn a_uitest_layout_reads_as_android_would_show_it() {
        let tree = parse_uitest(SETTINGS.as_bytes(), (1260, 2720)).unwrap();
        assert_eq!(tree.roots.len(), 2, "one root per window");
        let toggle = tree.elements.iter().find(|e| e.native_class == "Toggle").unwrap();
        assert_eq!(
            (toggle.class.as_str(), toggle.checked, toggle.resource_id.as_str()),
            ("android.widget.Switch", true, "wifi_switch")
        );
        assert_eq!(toggle.package, "com.huawei.hmos.settings", "the window's bundle");
        assert_eq!(toggle.bounds, Bounds { left: 1080, top: 250, right: 1212, bottom: 330 });
        let field = tree.elements.iter().find(|e| e.native_class == "TextInput").unwrap();
        assert!(field.is_editable() && field.focused && field.hint == "Search");
        let scene = tree.elements.iter().find(|e| e.native_class == "WindowScene").unwrap();
        assert_eq!(scene.package, "com.ohos.sceneboard");
    }

    #[test]
    fn what_is_not_a_layout_says_so() {
        assert!(matches!(parse_uitest(b"\n", (0, 0)), Err(ParseError::Empty)));
        assert!(matches!(parse_uitest(b"DumpLayout failed:no window", (0, 0)), Err(ParseError::NotUitest { .. })));
        assert!(matches!(parse_uitest(b"{\"attributes\": {", (0, 0)), Err(ParseError::Json { .. })));
        assert!(matches!(parse_uitest(b"[1, 2]", (0, 0)), Err(ParseError::NotUitest { .. })));
        // Too deep for the reader is an error, not a stack overflow.
        let deep = format!("{}{}", "{\"children\":[".repeat(5000), "]}".repeat(5000));
        assert!(parse_uitest(deep.as_bytes(), (0, 0)).is_err());
        // Odd values are read as absent.
        let odd = r#"{"attributes":{"type":"Button","bounds":"[9999999999,-5][x,y]","clickable":1},"children":"none"}"#;
        let tree = parse_uitest(odd.as_bytes(), (0, 0)).unwrap();
        assert_eq!(tree.elements.len(), 1);
        assert!(!tree.elements[0].clickable);
    }
}
