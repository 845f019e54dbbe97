//! The world as data: the TOML schema of `sim/world.toml` and `sim/apps/*.toml`.
//!
//! A world file holds the initial state (scalar values and record collections); each
//! app file declares one package: its launcher icon, its screens (activities) made of
//! items, and its dialogs. Adding a screen or an app needs no Rust. This module only
//! reads and checks the files; `World` runs them.
//!
//! # App file
//! ```toml
//! package = "com.example.notes"
//! label = "Notes"                        # launcher label
//! icon = { shape = "squircle", color = "#F9AB00" }   # circle|square|squircle|triangle|hexagon
//! launcher = ".NotesList"                # activity the launcher intent opens
//!
//! [[screens]]
//! activity = ".NotesList"                # ".Name" is relative to the package
//! title = "Notes"
//! root = true                            # no "Navigate up" button
//! dialog = "welcome"                     # optional: shown on arrival while `dialog_when` holds
//! dialog_when = "!perm.notes"
//! autofocus = "title"                    # optional: id of a field focused on arrival
//! [[screens.items]]
//! type = "list"                          # header|row|switch|field|button|slider|text|list|grid|fab|action
//! id = "notes_list"
//! source = "notes"                       # a collection from world.toml
//! where = "{record.folder} == {param}"   # optional filter (condition syntax below)
//! text = "{record.title}"                # row title, a template
//! summary = "{record.body}"
//! on_tap = "open .NoteEditor {index}"    # actions, separated by ';'
//! on_long_press = "dialog note_menu"
//! ```
//! Items: `text`, `summary`, `desc` (content-desc), `hint`, `id` (resource-id; a bare
//! name gets `PACKAGE:id/`), `bind` (the state key a switch, field or slider shows and
//! changes; `record.FIELD` inside lists), `enabled` (a condition), `number` (fields
//! accept digits only), `max` (sliders), `dock = "bottom"` (stays below the list, above
//! the keyboard), `glyph` (fab and action buttons), `empty` (a list's text when empty).
//!
//! Templates: `{key}` reads a state value, `{record.FIELD}` a list record's field,
//! `{param}` the screen's parameter, `{index}` the record's position, `{key:02}` pads a
//! number, `{key?Yes:No}` chooses by truth.
//! Conditions: `KEY`, `!KEY`, `A == B`, `A != B`, `A ~= B` (A contains B, ignoring
//! case) — both sides templates.
//! Screens with `source = "COLLECTION"` show the record at index `{param}` as `{record.*}`.
//! Actions: `open ACTIVITY [ARG]`, `back` (closes the screen), `home`, `launch PACKAGE`, `toggle KEY`,
//! `set KEY VALUE`, `clear KEY`, `require KEY` (stop here when KEY is empty),
//! `add COLLECTION FIELD=VALUE...`, `update FIELD=VALUE...` (the screen's record),
//! `delete` (the dialog's or screen's record), `dialog NAME`, `dismiss`.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::template::Value;

/// The world file: initial state and what `simctl state` exports.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorldSpec {
    /// Nested tables flatten to dotted keys: `[state.settings] wifi = true` → `settings.wifi`.
    #[serde(default)]
    pub state: toml::Table,
    #[serde(default)]
    pub collections: BTreeMap<String, Vec<BTreeMap<String, Value>>>,
    /// Collections exported as a list of one field (e.g. `contacts = "name"`).
    #[serde(default)]
    pub export_field: BTreeMap<String, String>,
    /// Packages installed but without screens (listed by `pm list packages`).
    #[serde(default)]
    pub system_packages: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppSpec {
    pub package: String,
    pub label: String,
    pub icon: IconSpec,
    /// The activity the launcher intent starts; `None` for apps without an icon.
    #[serde(default)]
    pub launcher: Option<String>,
    /// Shown on the launcher (false for the launcher itself).
    #[serde(default = "yes")]
    pub on_home: bool,
    /// A system app (`pm list packages -3` leaves it out).
    #[serde(default)]
    pub system: bool,
    #[serde(default)]
    pub screens: Vec<ScreenSpec>,
    #[serde(default)]
    pub dialogs: Vec<DialogSpec>,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IconSpec {
    pub shape: String,
    pub color: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScreenSpec {
    pub activity: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub root: bool,
    #[serde(default)]
    pub dialog: Option<String>,
    #[serde(default)]
    pub dialog_when: Option<String>,
    #[serde(default)]
    pub autofocus: Option<String>,
    /// A collection whose record `{param}` (an index) this screen shows.
    #[serde(default)]
    pub source: Option<String>,
    /// Actions run on arrival (e.g. clearing a draft).
    #[serde(default)]
    pub on_open: Option<String>,
    #[serde(default)]
    pub items: Vec<ItemSpec>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    Header,
    Row,
    Switch,
    Field,
    Button,
    Slider,
    Text,
    List,
    Grid,
    Fab,
    Action,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemSpec {
    #[serde(rename = "type")]
    pub kind: ItemKind,
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub text: String,
    #[serde(default)]
    pub summary: String,
    #[serde(default)]
    pub desc: String,
    #[serde(default)]
    pub hint: String,
    #[serde(default)]
    pub bind: Option<String>,
    #[serde(default)]
    pub enabled: Option<String>,
    #[serde(default)]
    pub number: bool,
    #[serde(default)]
    pub max: Option<i64>,
    #[serde(default)]
    pub dock: Option<String>,
    #[serde(default)]
    pub glyph: String,
    #[serde(default)]
    pub source: Option<String>,
    #[serde(rename = "where", default)]
    pub filter: Option<String>,
    #[serde(default)]
    pub empty: String,
    /// Lists: show only the newest record for each value of this field.
    #[serde(default)]
    pub distinct: Option<String>,
    #[serde(default)]
    pub on_tap: Option<String>,
    #[serde(default)]
    pub on_long_press: Option<String>,
    /// Rows of a list that show a switch bound to this record field.
    #[serde(default)]
    pub switch: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DialogSpec {
    pub name: String,
    /// The package the dialog window belongs to (permission dialogs are the
    /// permission controller's); defaults to the app's.
    #[serde(default)]
    pub package: Option<String>,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub message: String,
    pub buttons: Vec<DialogButton>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DialogButton {
    pub text: String,
    #[serde(default)]
    pub id: String,
    pub on_tap: String,
}

/// Why the world's data files could not be used.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("{file}: {message}")]
    Parse { file: String, message: String },
    #[error("{file}: {message}")]
    Invalid { file: String, message: String },
    #[error("cannot read {file}")]
    Read { file: String, source: std::io::Error },
}

impl ItemSpec {
    pub fn is_docked(&self) -> bool {
        self.dock.as_deref() == Some("bottom")
    }
}

impl AppSpec {
    /// `.Name` → `package.Name`; anything else as given.
    pub fn full_activity(&self, activity: &str) -> String {
        if activity.starts_with('.') { format!("{}{}", self.package, activity) } else { activity.to_string() }
    }

    pub fn screen(&self, activity: &str) -> Option<(usize, &ScreenSpec)> {
        let full = self.full_activity(activity);
        self.screens.iter().enumerate().find(|(_, s)| self.full_activity(&s.activity) == full)
    }

    pub fn dialog(&self, name: &str) -> Option<&DialogSpec> {
        self.dialogs.iter().find(|d| d.name == name)
    }

    pub fn dialog_index(&self, name: &str) -> Option<usize> {
        self.dialogs.iter().position(|d| d.name == name)
    }

    /// Checks what serde cannot: known shapes, colours, activities, dialogs, verbs.
    pub fn validate(&self, file: &str) -> Result<(), SpecError> {
        let invalid = |message: String| SpecError::Invalid { file: file.to_string(), message };
        if super::super::screen::IconShape::parse(&self.icon.shape).is_none() {
            return Err(invalid(format!(
                "icon shape {:?} is unknown; use circle, square, squircle, triangle or hexagon",
                self.icon.shape
            )));
        }
        parse_color(&self.icon.color)
            .ok_or_else(|| invalid(format!("icon color {:?} is not #RRGGBB", self.icon.color)))?;
        if let Some(launcher) = &self.launcher
            && self.screen(launcher).is_none()
        {
            return Err(invalid(format!("launcher activity {launcher} has no [[screens]] entry")));
        }
        let mut scripts: Vec<&str> =
            self.dialogs.iter().flat_map(|d| d.buttons.iter().map(|b| b.on_tap.as_str())).collect();
        for screen in &self.screens {
            if let Some(d) = &screen.dialog
                && self.dialog(d).is_none()
            {
                return Err(invalid(format!("screen {} names dialog {d:?}, which is not declared", screen.activity)));
            }
            scripts.extend(screen.on_open.iter().map(String::as_str));
            for item in &screen.items {
                scripts.extend(item.on_tap.iter().chain(item.on_long_press.iter()).map(String::as_str));
                if item.kind == ItemKind::List && item.source.is_none() {
                    return Err(invalid(format!("a list on {} has no `source`", screen.activity)));
                }
                if matches!(item.kind, ItemKind::Switch | ItemKind::Field | ItemKind::Slider) && item.bind.is_none() {
                    return Err(invalid(format!("a {:?} item on {} has no `bind`", item.kind, screen.activity)));
                }
            }
        }
        for script in scripts {
            for action in split_actions(script) {
                self.check_action(action).map_err(|m| invalid(format!("action {action:?}: {m}")))?;
            }
        }
        Ok(())
    }

    fn check_action(&self, action: &str) -> Result<(), String> {
        let mut words = action.split_whitespace();
        let verb = words.next().unwrap_or("");
        let arg = words.next();
        match (verb, arg) {
            ("back" | "home" | "delete" | "dismiss", _) => Ok(()),
            // Another app's screen (`PKG/ACTIVITY`) is checked when it is opened.
            ("open", Some(activity)) if activity.contains('/') => Ok(()),
            ("open", Some(activity)) => {
                self.screen(activity).map(|_| ()).ok_or_else(|| format!("no screen {activity} in {}", self.package))
            }
            ("dialog", Some(name)) => self.dialog(name).map(|_| ()).ok_or_else(|| format!("no dialog {name}")),
            ("launch" | "toggle" | "set" | "clear" | "require" | "add" | "update", Some(_)) => Ok(()),
            _ => Err("unknown verb or missing argument (see the list in src/sim/world/spec.rs)".into()),
        }
    }
}

/// Splits an action script on `;`, dropping empty parts.
pub fn split_actions(script: &str) -> impl Iterator<Item = &str> {
    script.split(';').map(str::trim).filter(|a| !a.is_empty())
}

/// `#RRGGBB` → 0xRRGGBB.
pub fn parse_color(s: &str) -> Option<u32> {
    let hex = s.strip_prefix('#')?;
    if hex.len() != 6 {
        return None;
    }
    u32::from_str_radix(hex, 16).ok()
}

/// Flattens nested tables into dotted keys.
pub fn flatten_state(table: &toml::Table, prefix: &str, out: &mut BTreeMap<String, Value>) -> Result<(), String> {
    for (key, value) in table {
        let full = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
        match value {
            toml::Value::Table(t) => flatten_state(t, &full, out)?,
            toml::Value::Boolean(b) => {
                out.insert(full, Value::Bool(*b));
            }
            toml::Value::Integer(i) => {
                out.insert(full, Value::Int(*i));
            }
            toml::Value::String(s) => {
                out.insert(full, Value::Str(s.clone()));
            }
            other => return Err(format!("state key {full}: {} values are not supported", other.type_str())),
        }
    }
    Ok(())
}
