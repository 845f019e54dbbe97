//! Parses the page source WebDriverAgent serves for iOS (`GET /source`: XML whose
//! tags are `XCUIElementType…` names, with `type, value, name, label, enabled,
//! visible, accessible, x, y, width, height, index, placeholderValue, traits`) into
//! the same [`UiTree`] Android's dump becomes, so that selectors, `ui_state` and the
//! prompt's screen text mean the same on both:
//!
//! - coordinates are points; they are scaled to pixels (the screenshot's), as every
//!   other part of the runtime counts;
//! - each type gets the nearest Android class (`XCUIElementTypeSwitch` →
//!   `android.widget.Switch`) and keeps its own name in `native_class`;
//! - visible words go where Android puts them: a static text's label is its
//!   `text`, a switch's or an image's label its `content-desc`, a button's or a
//!   cell's both (iOS does not say whether it is a title or what an icon or a row is
//!   called), a text
//!   field's typed value its `text` (its placeholder, the value WDA reports for an
//!   empty field, is its `hint`); an accessibility identifier distinct from the label
//!   is its `resource-id`;
//! - a switch's `value` "1" is checked; `Selected` among the traits is selected.
//!
//! What cannot be read gives a [`ParseError`], never a panic. Nothing here talks to
//! a device.

use super::shared::{ParseError, Place, derive, walk};
use crate::ui::tree::{Bounds, Element, UiTree};

/// The Android class nearest each XCUIElementType, and whether a tap is what it is for.
fn android_class(native: &str) -> (&'static str, bool) {
    let short = native.strip_prefix("XCUIElementType").unwrap_or(native);
    match short {
        "Button" | "Link" | "Key" | "MenuItem" | "Tab" | "SegmentedControl" => ("android.widget.Button", true),
        "Cell" => ("android.widget.LinearLayout", true),
        "StaticText" => ("android.widget.TextView", false),
        "Switch" | "Toggle" => ("android.widget.Switch", true),
        "CheckBox" => ("android.widget.CheckBox", true),
        "TextField" | "SecureTextField" | "SearchField" | "TextView" => ("android.widget.EditText", true),
        "Image" | "Icon" => ("android.widget.ImageView", false),
        "Slider" | "Stepper" => ("android.widget.SeekBar", true),
        "ProgressIndicator" | "ActivityIndicator" => ("android.widget.ProgressBar", false),
        "Table" | "CollectionView" => ("androidx.recyclerview.widget.RecyclerView", false),
        "ScrollView" => ("android.widget.ScrollView", false),
        "WebView" => ("android.webkit.WebView", false),
        "Picker" | "PickerWheel" | "DatePicker" => ("android.widget.NumberPicker", true),
        "Application" | "Window" => ("android.widget.FrameLayout", false),
        "Alert" | "Sheet" => ("android.widget.FrameLayout", false),
        _ => ("android.view.ViewGroup", false),
    }
}

/// Parses WDA's page source; `scale` is pixels per point (`/wda/screen`'s `scale`)
/// and `screen` the screen in pixels.
pub fn parse_xcui(bytes: &[u8], scale: f64, screen: (u32, u32)) -> Result<UiTree, ParseError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ParseError::Empty);
    }
    let text = String::from_utf8_lossy(bytes);
    let start = text
        .find("<XCUIElementType")
        .ok_or_else(|| ParseError::NotXcui { start: text.trim_start().chars().take(60).collect() })?;
    super::shared::not_too_many(&text[start..], b'<')?;
    let doc =
        roxmltree::Document::parse_with_options(&text[start..], super::shared::xml_options()).map_err(|e| match e {
            roxmltree::Error::NodesLimitReached => ParseError::TooMany { max: super::shared::MAX_ELEMENTS },
            e => {
                let pos = e.pos();
                ParseError::Xml { line: pos.row, column: pos.col, message: e.to_string() }
            }
        })?;
    let scale = if scale.is_finite() && scale > 0.0 { scale.min(16.0) } else { 1.0 };
    let root = doc.root_element();
    let package = root.attribute("bundleId").unwrap_or("").to_string();
    let mut tree = UiTree { screen, ..Default::default() };
    let make = |n: &roxmltree::Node, at| element_from(*n, at, scale, &package);
    walk(&mut tree, vec![root], |n| n.children().filter(|c| c.is_element()).collect(), make)?;
    derive(&mut tree);
    Ok(tree)
}

/// A number of points as pixels (clamped: a hostile source cannot overflow).
fn pixels(node: roxmltree::Node, name: &str, scale: f64) -> i32 {
    let points = node.attribute(name).and_then(|v| v.trim().parse::<f64>().ok()).unwrap_or(0.0);
    (points * scale).round().clamp(-1e9, 1e9) as i32
}

fn element_from(node: roxmltree::Node, at: Place, scale: f64, package: &str) -> Element {
    let Place { id, parent, depth, sibling } = at;
    let attr = |name: &str| node.attribute(name).unwrap_or("");
    let native = node.attribute("type").unwrap_or(node.tag_name().name()).to_string();
    let short = native.strip_prefix("XCUIElementType").unwrap_or(&native);
    let (class, tappable) = android_class(&native);
    let (label, value, name) = (attr("label"), attr("value"), attr("name"));
    let placeholder = attr("placeholderValue");
    let traits: Vec<&str> = attr("traits").split(',').map(str::trim).collect();
    let editable = class == "android.widget.EditText";
    let switch = class == "android.widget.Switch" || class == "android.widget.CheckBox";
    let (text, desc, hint) = match () {
        // An empty field reports its placeholder as its value.
        _ if editable => {
            let typed = if value == placeholder { "" } else { value };
            (typed, label, placeholder)
        }
        _ if switch || matches!(short, "Image" | "Icon" | "Slider" | "Other") => ("", label, ""),
        // The app's and a window's label name the app, which the phone line shows.
        _ if matches!(short, "Application" | "Window") => ("", "", ""),
        _ if short == "StaticText" && label.is_empty() => (value, "", ""),
        // A button's label is its title or, for an icon, what it is called: iOS does
        // not say which, so it is both (a script may look for either).
        _ if matches!(short, "Button" | "Link" | "Cell") => (label, label, ""),
        _ => (label, "", ""),
    };
    // `name` is the accessibility identifier when one is set, else the label again.
    let resource_id = if name != label && !name.is_empty() { name } else { "" };
    let (x, y) = (pixels(node, "x", scale), pixels(node, "y", scale));
    let bounds = Bounds {
        left: x,
        top: y,
        right: x.saturating_add(pixels(node, "width", scale)),
        bottom: y.saturating_add(pixels(node, "height", scale)),
    };
    let enabled = attr("enabled") != "false";
    Element {
        id,
        parent,
        depth,
        index: attr("index").parse().unwrap_or(sibling),
        class: class.to_string(),
        native_class: native.clone(),
        text: text.to_string(),
        content_desc: desc.to_string(),
        resource_id: resource_id.to_string(),
        package: package.to_string(),
        hint: hint.to_string(),
        bounds,
        checkable: switch,
        checked: switch && value == "1",
        clickable: tappable || traits.contains(&"Button") || traits.contains(&"Link"),
        enabled,
        focusable: editable,
        scrollable: matches!(short, "Table" | "CollectionView" | "ScrollView" | "WebView"),
        password: short == "SecureTextField",
        selected: traits.contains(&"Selected") || (short == "Button" && value == "1"),
        visible_to_user: node.attribute("visible").map(|v| v == "true"),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::ui::samples::IOS_WIFI as WIFI;

    #[test]
    fn a_wda_source_reads_as_android_would_show_it() {
        let tree = parse_xcui(WIFI.as_bytes(), 3.0, (1179, 2556)).unwrap();
        let by = |native: &str, n: usize| tree.elements.iter().filter(|e| e.native_class.ends_with(native)).nth(n);
        let switch = by("Switch", 0).unwrap();
        assert_eq!((switch.class.as_str(), switch.checked, switch.checkable), ("android.widget.Switch", true, true));
        assert_eq!((switch.content_desc.as_str(), switch.resource_id.as_str()), ("Wi-Fi", "wifi_switch"));
        assert_eq!(switch.bounds, Bounds { left: 930, top: 399, right: 1083, bottom: 492 }, "points × 3");
        assert_eq!(switch.package, "com.apple.Preferences");
        let label = by("StaticText", 0).unwrap();
        assert_eq!((label.text.as_str(), label.resource_id.as_str()), ("Wi-Fi", ""));
        let joined = by("Cell", 1).unwrap();
        assert_eq!((joined.text.as_str(), joined.content_desc.as_str()), ("HomeNet", "HomeNet"));
        assert!(joined.selected && joined.clickable, "{joined:?}");
        let field = by("TextField", 0).unwrap();
        assert_eq!((field.text.as_str(), field.hint.as_str()), ("", "Network Name"), "an empty field");
        assert!(field.is_editable() && field.actions.set_text);
        let secret = by("SecureTextField", 0).unwrap();
        assert!(secret.password && !secret.visible, "{secret:?}");
    }

    #[test]
    fn what_is_not_a_source_says_so() {
        assert!(matches!(parse_xcui(b"  ", 3.0, (0, 0)), Err(ParseError::Empty)));
        assert!(matches!(parse_xcui(b"{\"value\": null}", 3.0, (0, 0)), Err(ParseError::NotXcui { .. })));
        assert!(matches!(parse_xcui(b"<XCUIElementTypeApplication x=\"1\"", 3.0, (0, 0)), Err(ParseError::Xml { .. })));
        // Absurd numbers stay in range.
        let huge = r#"<XCUIElementTypeApplication type="XCUIElementTypeApplication" x="1e300" y="-1e300" width="NaN" height="inf"/>"#;
        let tree = parse_xcui(huge.as_bytes(), f64::NAN, (0, 0)).unwrap();
        assert_eq!(tree.elements.len(), 1);
    }
}
