//! The page source a WebDriver client reads, in its platform's form: Appium's
//! UiAutomator2 XML on Android (a tag per widget class, `resource-id`,
//! `content-desc`, `bounds`...), XCUITest's on iOS (`XCUIElementType*` tags,
//! `name`, `label`, `value`, and the frame in points), and uitest's attribute
//! names on HarmonyOS. One XML element per element of the observed [`UiTree`], in
//! its order, below one wrapper — so what XPath selects maps back to the tree
//! (`xpath.rs`), and `GET attribute` reads the very attributes the source shows.
//! Every value is escaped (codeact-base's `xml`); tags are made valid XML names. Not finding (`find.rs`).

use codeact_platform::device::{Observation, Platform};
use codeact_platform::ui::{Element, UiTree};

/// One element's attributes, in the order the source writes them.
pub type Attributes = Vec<(&'static str, String)>;

/// The page as a client sees it.
pub struct Page {
    /// The tag of each element of the tree (by its id).
    pub tags: Vec<String>,
    /// The attributes of each element of the tree (by its id).
    pub attributes: Vec<Attributes>,
    /// Pixels per unit of the coordinates the client uses (iOS: points).
    pub scale: f64,
    pub platform: Platform,
}

impl Page {
    /// The page of an observation.
    pub fn of(obs: &Observation) -> Self {
        let platform = obs.phone.platform;
        let tree = &obs.ui;
        let from_dump = (platform == Platform::Ios).then(|| ios_from_dump(&obs.dump, tree.len())).flatten();
        let (tags, attributes, scale) = match from_dump {
            Some((tags, attributes)) => {
                let scale = ios_scale(tree, &attributes);
                (tags, attributes, scale)
            }
            None => {
                let attributes: Vec<Attributes> = tree.elements.iter().map(|e| generated(e, platform)).collect();
                let tags = tree.elements.iter().map(|e| tag_of(e, platform)).collect();
                (tags, attributes, 1.0)
            }
        };
        Page { tags, attributes, scale, platform }
    }

    /// The attribute `name` of element `id` (with the aliases Appium's drivers take).
    pub fn attribute(&self, id: usize, name: &str) -> Option<&str> {
        let attrs = self.attributes.get(id)?;
        let get = |key: &str| attrs.iter().find(|(k, _)| *k == key).map(|(_, v)| v.as_str());
        if let Some(v) = get(name) {
            return Some(v);
        }
        let alias = match (self.platform, name) {
            (Platform::Android, "name") => {
                return get("content-desc").filter(|d| !d.is_empty()).or_else(|| get("text"));
            }
            (Platform::Android, "contentDescription") => "content-desc",
            (Platform::Android, "resourceId") => "resource-id",
            (Platform::Android, "className") => "class",
            (Platform::Android, "longClickable") => "long-clickable",
            (Platform::Android | Platform::Harmony, "visible") => "displayed",
            (Platform::Ios, "displayed") => "visible",
            (Platform::Ios, "className" | "class") => "type",
            (Platform::Harmony, "className" | "class") => "type",
            (Platform::Harmony, "resource-id" | "resourceId") => "id",
            (Platform::Harmony, "content-desc" | "contentDescription") => "description",
            _ => return None,
        };
        get(alias)
    }

    /// What `GET /element/:id/text` answers.
    pub fn text(&self, id: usize) -> String {
        let read = |name| self.attribute(id, name).unwrap_or("").to_string();
        match self.platform {
            Platform::Ios => {
                let value = read("value");
                if value.is_empty() { read("label") } else { value }
            }
            _ => read("text"),
        }
    }

    /// The page as XML under its platform's wrapper.
    pub fn xml(&self, tree: &UiTree) -> String {
        let mut out = String::with_capacity(tree.len() * 200 + 200);
        let (width, height) = tree.screen;
        match self.platform {
            Platform::Ios => out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?><AppiumAUT>"),
            _ => out.push_str(&format!(
                "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\r\n<hierarchy index=\"0\" class=\"hierarchy\" rotation=\"{}\" width=\"{width}\" height=\"{height}\">",
                tree.rotation
            )),
        }
        // Depth-first without recursion: (element, whether its children are written).
        let mut stack: Vec<(usize, bool)> = tree.roots.iter().rev().map(|r| (*r, false)).collect();
        while let Some((id, closing)) = stack.pop() {
            let (Some(e), Some(tag)) = (tree.get(id), self.tags.get(id)) else { continue };
            if closing {
                out.push_str(&format!("</{tag}>"));
                continue;
            }
            out.push('<');
            out.push_str(tag);
            for (name, value) in self.attributes.get(id).into_iter().flatten() {
                out.push_str(&format!(" {name}=\""));
                codeact_base::xml::push_attribute(&mut out, value);
                out.push('"');
            }
            if e.children.is_empty() {
                out.push_str(" />");
            } else {
                out.push('>');
                stack.push((id, true));
                stack.extend(e.children.iter().rev().map(|c| (*c, false)));
            }
        }
        out.push_str(if self.platform == Platform::Ios { "</AppiumAUT>" } else { "</hierarchy>" });
        out
    }
}

/// An element's tag: its class (Android), its native type (iOS, HarmonyOS).
fn tag_of(e: &Element, platform: Platform) -> String {
    let name = match platform {
        Platform::Android => e.class.as_str(),
        _ if !e.native_class.is_empty() => e.native_class.as_str(),
        _ => e.class.as_str(),
    };
    xml_name(name)
}

/// `name` as a valid XML name: characters past the ASCII letters, digits, `_`,
/// `-` and `.` become `_`; one that starts with neither a letter nor `_` gets one.
pub fn xml_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .take(200)
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') { c } else { '_' })
        .collect();
    if !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out.insert(0, '_');
    }
    out
}

fn flag(b: bool) -> String {
    b.to_string()
}

fn bounds(e: &Element) -> String {
    let b = e.bounds;
    format!("[{},{}][{},{}]", b.left, b.top, b.right, b.bottom)
}

/// The attributes of `e` as its platform's driver writes them.
fn generated(e: &Element, platform: Platform) -> Attributes {
    match platform {
        Platform::Android => vec![
            ("index", e.index.to_string()),
            ("package", e.package.clone()),
            ("class", e.class.clone()),
            ("text", e.text.clone()),
            ("resource-id", e.resource_id.clone()),
            ("checkable", flag(e.checkable)),
            ("checked", flag(e.checked)),
            ("clickable", flag(e.clickable)),
            ("enabled", flag(e.enabled)),
            ("focusable", flag(e.focusable)),
            ("focused", flag(e.focused)),
            ("long-clickable", flag(e.long_clickable)),
            ("password", flag(e.password)),
            ("scrollable", flag(e.scrollable)),
            ("selected", flag(e.selected)),
            ("bounds", bounds(e)),
            ("displayed", flag(e.visible)),
            ("content-desc", e.content_desc.clone()),
            ("hint", e.hint.clone()),
        ],
        Platform::Harmony => vec![
            ("index", e.index.to_string()),
            ("id", e.resource_id.clone()),
            ("type", if e.native_class.is_empty() { e.class.clone() } else { e.native_class.clone() }),
            ("text", e.text.clone()),
            ("description", e.content_desc.clone()),
            ("hint", e.hint.clone()),
            ("bundleName", e.package.clone()),
            ("bounds", bounds(e)),
            ("checkable", flag(e.checkable)),
            ("checked", flag(e.checked)),
            ("clickable", flag(e.clickable)),
            ("longClickable", flag(e.long_clickable)),
            ("scrollable", flag(e.scrollable)),
            ("enabled", flag(e.enabled)),
            ("focused", flag(e.focused)),
            ("selected", flag(e.selected)),
            ("displayed", flag(e.visible)),
        ],
        Platform::Ios => {
            let label = if e.content_desc.is_empty() { e.text.clone() } else { e.content_desc.clone() };
            let name = if e.resource_id.is_empty() { label.clone() } else { e.resource_id.clone() };
            let b = e.bounds;
            vec![
                ("type", if e.native_class.is_empty() { e.class.clone() } else { e.native_class.clone() }),
                ("value", if e.is_editable() || e.checkable { e.text.clone() } else { String::new() }),
                ("name", name),
                ("label", label),
                ("enabled", flag(e.enabled)),
                ("visible", flag(e.visible)),
                ("x", b.left.to_string()),
                ("y", b.top.to_string()),
                ("width", b.width().to_string()),
                ("height", b.height().to_string()),
                ("index", e.index.to_string()),
            ]
        }
    }
}

/// The attributes iOS writes, read from WebDriverAgent's own source when it holds
/// exactly the tree's elements (the tree is read from it in the same order).
fn ios_from_dump(dump: &str, count: usize) -> Option<(Vec<String>, Vec<Attributes>)> {
    const KEPT: [&str; 14] = [
        "type",
        "value",
        "name",
        "label",
        "enabled",
        "visible",
        "accessible",
        "x",
        "y",
        "width",
        "height",
        "index",
        "placeholderValue",
        "traits",
    ];
    let start = dump.find("<XCUIElementType")?;
    let doc = roxmltree::Document::parse(&dump[start..]).ok()?;
    let nodes: Vec<roxmltree::Node> = doc.root_element().descendants().filter(|n| n.is_element()).collect();
    if nodes.len() != count {
        return None;
    }
    let mut tags = Vec::with_capacity(count);
    let mut all = Vec::with_capacity(count);
    for node in nodes {
        let tag = node.attribute("type").unwrap_or(node.tag_name().name());
        tags.push(xml_name(tag));
        let attrs: Attributes = KEPT.iter().filter_map(|k| node.attribute(*k).map(|v| (*k, v.to_string()))).collect();
        all.push(attrs);
    }
    Some((tags, all))
}

/// Pixels per point: the first element's width in pixels over its width in points.
fn ios_scale(tree: &UiTree, attributes: &[Attributes]) -> f64 {
    let points = attributes
        .first()
        .and_then(|a| a.iter().find(|(k, _)| *k == "width"))
        .and_then(|(_, v)| v.parse::<f64>().ok())
        .filter(|w| w.is_finite() && *w > 0.0);
    let pixels = tree.elements.first().map(|e| f64::from(e.bounds.width())).filter(|w| *w > 0.0);
    match (points, pixels) {
        (Some(pt), Some(px)) => (px / pt).clamp(0.1, 16.0),
        _ => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_values_are_made_safe() {
        assert_eq!(xml_name("android.widget.Button"), "android.widget.Button");
        assert_eq!(xml_name("Foo$Bar"), "Foo_Bar");
        assert_eq!(xml_name(""), "_");
        assert_eq!(xml_name("1x"), "_1x");
    }
}
