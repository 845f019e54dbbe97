//! Writes a [`Screen`] as the page source WebDriverAgent serves for iOS (`GET
//! /source`): libxml2's formatting (declaration, two-space indentation, empty
//! elements self-closed), each tag its `XCUIElementType…` name, attributes in WDA's
//! order (`type, value, name, label, enabled, visible, accessible, x, y, width,
//! height, index, placeholderValue, traits`), coordinates in points, the root
//! `XCUIElementTypeApplication` naming the app's `bundleId`.
//!
//! How each Android view becomes an iOS element, as WDA would show the nearest
//! UIKit control: a switch's `value` is "1" or "0"; a text field's `value` is its
//! text, or its placeholder when empty (as WDA reports an empty field); a clickable
//! text or image is a Button, a clickable row a Cell; the `label` is the
//! accessibility label (Android's content-desc) when there is one, else the text, as
//! UIKit's is; `name` is the accessibility identifier (the view id), else the label. Learned from appium/WebDriverAgent's
//! `FBXPath.m` and `XCUIElement+FBWebDriverAttributes.m` (public source); no code
//! copied.

use crate::screen::{Node, Role, Screen};

/// Points per pixel: iOS coordinates are points, the screenshot is pixels.
pub(crate) fn scale(screen: &Screen) -> u32 {
    (screen.density as f32 / 160.0).round().clamp(1.0, 4.0) as u32
}

/// The XCUIElementType a view shows as.
fn xcui_type(node: &Node) -> &'static str {
    let short = node.class.rsplit('.').next().unwrap_or("");
    match (&node.role, short) {
        (Role::Keyboard, _) => "XCUIElementTypeKeyboard",
        (Role::Switch, _) => "XCUIElementTypeSwitch",
        (_, "Switch" | "CheckBox" | "ToggleButton") => "XCUIElementTypeSwitch",
        (_, "EditText" | "AutoCompleteTextView") if node.password => "XCUIElementTypeSecureTextField",
        (_, "EditText" | "AutoCompleteTextView") => "XCUIElementTypeTextField",
        (_, "Button" | "ImageButton") => "XCUIElementTypeButton",
        (_, "TextView") if node.clickable => "XCUIElementTypeButton",
        (_, "TextView") => "XCUIElementTypeStaticText",
        (_, "ImageView") if node.clickable => "XCUIElementTypeButton",
        (_, "ImageView") => "XCUIElementTypeImage",
        (_, "RecyclerView" | "ListView" | "GridView") => "XCUIElementTypeTable",
        (_, "ScrollView" | "HorizontalScrollView" | "NestedScrollView") => "XCUIElementTypeScrollView",
        (_, "SeekBar") => "XCUIElementTypeSlider",
        (_, "ProgressBar") => "XCUIElementTypeProgressIndicator",
        _ if node.clickable => "XCUIElementTypeCell",
        _ => "XCUIElementTypeOther",
    }
}

/// The page source of what `world` shows: its app in front named, its screen's
/// activity as the navigation bar's title.
pub(crate) fn of_world(world: &crate::world::World) -> String {
    let package = world.foreground_package();
    let name = world.top().map(|(app, _, _)| app.label.clone()).unwrap_or_default();
    let activity = world.activity();
    let title = activity.rsplit('.').next().unwrap_or("");
    to_xml(&world.screen(), &package, &name, title)
}

/// The page source of `screen`, with `package` (the app in front) as its bundle id,
/// `name` as its label and `title` (the screen's: its activity's short name) as
/// its navigation bar's, as a UIKit app names its view controllers.
pub(crate) fn to_xml(screen: &Screen, package: &str, name: &str, title: &str) -> String {
    let scale = scale(screen) as i32;
    let (w, h) = (screen.width as i32 / scale, screen.height as i32 / scale);
    let mut out = String::with_capacity(16 * 1024);
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str("<XCUIElementTypeApplication type=\"XCUIElementTypeApplication\"");
    attr(&mut out, "name", name);
    attr(&mut out, "label", name);
    out.push_str(&format!(
        " enabled=\"true\" visible=\"true\" accessible=\"false\" x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" index=\"0\" traits=\"\""
    ));
    attr(&mut out, "processId", &format!("{}", 400 + package.len()));
    attr(&mut out, "bundleId", package);
    out.push_str(">\n");
    let windows = screen.windows.iter().filter(|w| w.role != Role::Scrim);
    for (index, window) in windows.enumerate() {
        if window.is_keyboard_window() {
            // iOS's own keyboard, whichever input method the Android side runs; its
            // keys are not elements a script taps.
            let b = window.bounds;
            out.push_str(&format!(
                "  <XCUIElementTypeKeyboard type=\"XCUIElementTypeKeyboard\" enabled=\"true\" visible=\"true\" accessible=\"false\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" index=\"{index}\" traits=\"\"/>\n",
                b.left / scale,
                b.top / scale,
                b.width() / scale,
                b.height() / scale
            ));
            continue;
        }
        write_node(&mut out, window, Some("XCUIElementTypeWindow"), index, 1, scale);
    }
    if !title.is_empty() {
        // Last, so the elements before it keep their places; no frame of its own.
        out.push_str("  <XCUIElementTypeNavigationBar type=\"XCUIElementTypeNavigationBar\"");
        attr(&mut out, "name", title);
        out.push_str(
            " enabled=\"true\" visible=\"false\" accessible=\"false\" x=\"0\" y=\"0\" width=\"0\" height=\"0\"",
        );
        out.push_str(&format!(" index=\"{}\" traits=\"\"/>\n", screen.windows.len()));
    }
    out.push_str("</XCUIElementTypeApplication>\n");
    out
}

fn write_node(out: &mut String, node: &Node, tag: Option<&'static str>, index: usize, depth: usize, scale: i32) {
    let tag = tag.unwrap_or_else(|| xcui_type(node));
    let indent = "  ".repeat(depth);
    out.push_str(&indent);
    out.push('<');
    out.push_str(tag);
    attr(out, "type", tag);
    let field = matches!(tag, "XCUIElementTypeTextField" | "XCUIElementTypeSecureTextField");
    // UIKit's label is the accessibility label when one is set (Android's
    // content-desc), else the title or text.
    let label = if !node.content_desc.is_empty() || field { &node.content_desc } else { &node.text };
    let value = match tag {
        "XCUIElementTypeSwitch" => (if node.checked { "1" } else { "0" }).to_string(),
        _ if field && node.text.is_empty() => node.hint.clone(),
        "XCUIElementTypeSecureTextField" => "•".repeat(node.text.chars().count()),
        _ if field => node.text.clone(),
        "XCUIElementTypeStaticText" => node.text.clone(),
        _ => String::new(),
    };
    let id = node.resource_id.rsplit('/').next().unwrap_or("");
    let name = if id.is_empty() { label.as_str() } else { id };
    for (key, text) in [("value", value.as_str()), ("name", name), ("label", label.as_str())] {
        if !text.is_empty() {
            attr(out, key, text);
        }
    }
    // Each edge rounded on its own: views that touch in pixels touch in points (an
    // iOS layout is in points to begin with).
    let b = node.bounds;
    let points = |px: i32| (px + scale / 2).div_euclid(scale);
    let (x, y, right, bottom) = (points(b.left), points(b.top), points(b.right), points(b.bottom));
    out.push_str(&format!(
        " enabled=\"{}\" visible=\"{}\" accessible=\"{}\" x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{}\" index=\"{index}\"",
        node.enabled,
        !b.is_empty(),
        node.clickable || !label.is_empty(),
        right - x,
        bottom - y
    ));
    if field {
        attr(out, "placeholderValue", &node.hint);
    }
    let mut traits: Vec<&str> = Vec::new();
    if node.clickable && tag != "XCUIElementTypeCell" {
        traits.push("Button");
    }
    if tag == "XCUIElementTypeStaticText" {
        traits.push("StaticText");
    }
    if node.selected {
        traits.push("Selected");
    }
    if !node.enabled {
        traits.push("NotEnabled");
    }
    attr(out, "traits", &traits.join(", "));
    let children: Vec<&Node> = node.children.iter().filter(|c| c.in_page_source()).collect();
    if children.is_empty() {
        out.push_str("/>\n");
        return;
    }
    out.push_str(">\n");
    for (i, child) in children.into_iter().enumerate() {
        write_node(out, child, None, i, depth + 1, scale);
    }
    out.push_str(&indent);
    out.push_str("</");
    out.push_str(tag);
    out.push_str(">\n");
}

/// ` name="value"`, escaped as libxml2 escapes attribute values: line breaks and
/// tabs as character references, other control characters dropped.
fn attr(out: &mut String, name: &str, value: &str) {
    crate::page_source::xml::attr(out, name, value, |c, out| match c {
        '\n' => {
            out.push_str("&#10;");
            true
        }
        '\r' => {
            out.push_str("&#13;");
            true
        }
        '\t' => {
            out.push_str("&#9;");
            true
        }
        c => (c as u32) < 0x20,
    });
}
