//! The world as data: the TOML schema of `data/world.toml` and `data/apps/*.toml` (crates/sim).
//!
//! A world file holds the initial state (scalar values and record collections); each
//! app file declares one package: its launcher icon, its screens (activities) made of
//! items, and its dialogs. Adding a screen or an app needs no Rust. This module only
//! reads and checks the files (the checks in `spec/validate.rs`); `World` runs them.
//!
//! # App file
//! ```toml
//! package = "com.example.notes"
//! label = "Notes"                        # launcher label
//! icon = { shape = "squircle", color = "#F9AB00", emblem = "note" }
//!                                        # circle|square|squircle|triangle|hexagon; the
//!                                        # emblem (a picture, else the label's letter)
//! launcher = ".NotesList"                # activity the launcher intent opens
//! version = "2.1"                        # optional: the APK's versionName (1.0)
//! version_code = 21                      # optional: its versionCode (1)
//! permissions = ["android.permission.READ_CONTACTS"]   # optional: uses-permission
//!
//! [[screens]]
//! activity = ".NotesList"                # ".Name" is relative to the package
//! title = "Notes"
//! root = true                            # no "Navigate up" button
//! dialog = "welcome"                     # optional: shown on arrival while `dialog_when` holds
//! dialog_when = "!perm.notes"
//! autofocus = "title"                    # optional: id of a field focused on arrival
//! keyboard = "overlays"                  # optional: the keyboard covers the screen's bottom
//!                                        # (adjustPan) instead of shrinking it ("resizes")
//! [[screens.items]]
//! type = "list"                          # header|row|switch|field|button|slider|text|list|grid|fab|action|canvas|sprite|image
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
//! A `canvas` item fills the rest of the screen with `color` and is one plain view in
//! every page source, as a game's surface is; the screen's `sprite` items are drawn
//! on it and react to touch but are in no page source: `emblem` (the picture), `color`,
//! `x`, `y` (dp from the canvas' top-left, or from its right/bottom edge when
//! negative; templates), `size` (dp, default 64) and
//! `visible` (a condition). A screen with `fullscreen = true` has no app bar. An
//! `image` item is a picture in the page (an ImageView with `desc`): `emblem`,
//! `color` and `size` (dp, default 96), centred in its row.
//!
//! Templates: `{key}` reads a state value, `{record.FIELD}` a list record's field,
//! `{param}` the screen's parameter, `{index}` the record's position, `{key:02}` pads a
//! number, `{key?Yes:No}` chooses by truth, `{key:hms}` shows seconds as 01:02:03;
//! `{now.date}` and `{now.time}` are the device clock's day (2023-10-15) and minute.
//! Conditions: `KEY`, `!KEY`, `A == B`, `A != B`, `A ~= B` (A contains B, ignoring
//! case) — both sides templates.
//! Screens with `source = "COLLECTION"` show the record at index `{param}` as `{record.*}`.
//! Actions: `open ACTIVITY [ARG]`, `back` (closes the screen), `home`, `launch PACKAGE`, `toggle KEY`,
//! `set KEY VALUE`, `clear KEY`, `require KEY` (stop here when KEY is empty),
//! `require_between KEY MIN MAX` (stop unless KEY is a whole number in that range),
//! `add COLLECTION FIELD=VALUE...`, `sort COLLECTION FIELD...` (numbers by value),
//! `update FIELD=VALUE...` (the screen's record),
//! `delete` (the dialog's or screen's record; for a `files` record, the file),
//! `dialog NAME`, `dismiss`, `require_format KEY date|time|amount|email|phone|zip|password`
//! (stop unless KEY reads as 2023-10-15, 09:05, 12.50, a@b.com, +1 415-555-0101,
//! 94107 or has 8 characters; `email?` lets an empty value through),
//! `require_same KEY OTHER` (stop unless both hold the same text), `require_any
//! KEY...` (stop unless one is set),
//! `empty COLLECTION`, `move FROM TO FIELD=VALUE...` (FROM's records join TO with
//! those fields; FROM is left empty), `set_now KEY` (the device clock's seconds),
//! `add_elapsed KEY SINCE` (KEY grows by the seconds since the time in SINCE),
//! `increase KEY N` (a whole number grows by N),
//! `file_move FOLDER` and `file_rename NAME` (the file whose path is the screen's
//! parameter).
//!
//! The collection `files` is computed: every file and folder under /sdcard, with the
//! fields `path`, `name`, `folder` (the parent's path), `kind` (`folder` or `file`)
//! and `size`, read from the phone's file system each time it is shown.

mod validate;

use std::collections::BTreeMap;

use serde::Deserialize;

use super::template::Value;

/// The world file: initial state and what `simctl state` exports.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WorldSpec {
    /// Nested tables flatten to dotted keys: `[state.settings] wifi = true` → `settings.wifi`.
    #[serde(default)]
    pub(crate) state: toml::Table,
    #[serde(default)]
    pub(crate) collections: BTreeMap<String, Vec<BTreeMap<String, Value>>>,
    /// Collections exported as a list of one field (e.g. `contacts = "name"`).
    #[serde(default)]
    pub(crate) export_field: BTreeMap<String, String>,
    /// Packages installed but without screens (listed by `pm list packages`).
    #[serde(default)]
    pub(crate) system_packages: Vec<String>,
    /// The launcher's icons in this order, as a user arranged them; apps not listed
    /// follow in file order (a newly installed app goes last).
    #[serde(default)]
    pub(crate) home: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AppSpec {
    pub(crate) package: String,
    pub(crate) label: String,
    pub(crate) icon: IconSpec,
    /// The activity the launcher intent starts; `None` for apps without an icon.
    #[serde(default)]
    pub(crate) launcher: Option<String>,
    /// Shown on the launcher (false for the launcher itself).
    #[serde(default = "yes")]
    pub(crate) on_home: bool,
    /// A system app (`pm list packages -3` leaves it out).
    #[serde(default)]
    pub(crate) system: bool,
    #[serde(default)]
    pub(crate) screens: Vec<ScreenSpec>,
    #[serde(default)]
    pub(crate) dialogs: Vec<DialogSpec>,
    /// What `pm clear PACKAGE` forgets: collections by name (emptied) and state keys
    /// or key prefixes ending in `.` or `_` (back to their first values).
    #[serde(default)]
    pub(crate) data: Vec<String>,
    /// Links the app opens (`am start -a android.intent.action.VIEW -d URI`): the
    /// first whose `prefix` the URI starts with opens `activity` with the rest of the
    /// URI as its parameter.
    #[serde(default)]
    pub(crate) links: Vec<LinkSpec>,
    /// What the APK's manifest says: `version` (versionName), `version_code`, and the
    /// permissions it asks for (`uses-permission`).
    #[serde(default = "first_version")]
    pub(crate) version: String,
    #[serde(default = "first_version_code")]
    pub(crate) version_code: u32,
    #[serde(default)]
    pub(crate) permissions: Vec<String>,
}

fn first_version() -> String {
    "1.0".into()
}

fn first_version_code() -> u32 {
    1
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LinkSpec {
    pub(crate) prefix: String,
    pub(crate) activity: String,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct IconSpec {
    pub(crate) shape: String,
    pub(crate) color: String,
    /// The picture on the icon; the label's first letter when absent.
    #[serde(default)]
    pub(crate) emblem: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScreenSpec {
    pub(crate) activity: String,
    #[serde(default)]
    pub(crate) title: String,
    #[serde(default)]
    pub(crate) root: bool,
    /// No app bar: the content starts under the status bar (games).
    #[serde(default)]
    pub(crate) fullscreen: bool,
    #[serde(default)]
    pub(crate) dialog: Option<String>,
    #[serde(default)]
    pub(crate) dialog_when: Option<String>,
    #[serde(default)]
    pub(crate) autofocus: Option<String>,
    #[serde(default)]
    pub(crate) keyboard: KeyboardMode,
    /// A collection whose record `{param}` (an index) this screen shows.
    #[serde(default)]
    pub(crate) source: Option<String>,
    /// Actions run on arrival (e.g. clearing a draft).
    #[serde(default)]
    pub(crate) on_open: Option<String>,
    #[serde(default)]
    pub(crate) items: Vec<ItemSpec>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum KeyboardMode {
    /// The screen shrinks to end above the keyboard (adjustResize).
    #[default]
    Resizes,
    /// The keyboard is drawn over the screen's bottom (adjustPan, adjustNothing).
    Overlays,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ItemKind {
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
    Canvas,
    Sprite,
    Image,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ItemSpec {
    #[serde(rename = "type")]
    pub(crate) kind: ItemKind,
    #[serde(default)]
    pub(crate) id: String,
    #[serde(default)]
    pub(crate) text: String,
    #[serde(default)]
    pub(crate) summary: String,
    #[serde(default)]
    pub(crate) desc: String,
    #[serde(default)]
    pub(crate) hint: String,
    #[serde(default)]
    pub(crate) bind: Option<String>,
    #[serde(default)]
    pub(crate) enabled: Option<String>,
    #[serde(default)]
    pub(crate) number: bool,
    #[serde(default)]
    pub(crate) max: Option<i64>,
    #[serde(default)]
    pub(crate) dock: Option<String>,
    #[serde(default)]
    pub(crate) glyph: String,
    #[serde(default)]
    pub(crate) source: Option<String>,
    #[serde(rename = "where", default)]
    pub(crate) filter: Option<String>,
    #[serde(default)]
    pub(crate) empty: String,
    /// Lists: show only the newest record for each value of this field.
    #[serde(default)]
    pub(crate) distinct: Option<String>,
    #[serde(default)]
    pub(crate) on_tap: Option<String>,
    #[serde(default)]
    pub(crate) on_long_press: Option<String>,
    /// Rows of a list that show a switch bound to this record field.
    #[serde(default)]
    pub(crate) switch: Option<String>,
    /// Sprites: the picture drawn.
    #[serde(default)]
    pub(crate) emblem: Option<String>,
    /// Canvases: the background; sprites: the picture's colour (`#RRGGBB`).
    #[serde(default)]
    pub(crate) color: Option<String>,
    /// Sprites: the top-left corner in dp from the canvas' top-left (templates).
    #[serde(default)]
    pub(crate) x: Option<String>,
    #[serde(default)]
    pub(crate) y: Option<String>,
    /// Sprites: the side in dp.
    #[serde(default)]
    pub(crate) size: Option<f32>,
    /// Sprites: shown only while this condition holds.
    #[serde(default)]
    pub(crate) visible: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DialogSpec {
    pub(crate) name: String,
    /// The package the dialog window belongs to (permission dialogs are the
    /// permission controller's); defaults to the app's.
    #[serde(default)]
    pub(crate) package: Option<String>,
    #[serde(default)]
    pub(crate) title: String,
    #[serde(default)]
    pub(crate) message: String,
    pub(crate) buttons: Vec<DialogButton>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DialogButton {
    pub(crate) text: String,
    #[serde(default)]
    pub(crate) id: String,
    pub(crate) on_tap: String,
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
    pub(crate) fn is_docked(&self) -> bool {
        self.dock.as_deref() == Some("bottom")
    }
}

impl AppSpec {
    /// `.Name` → `package.Name`; anything else as given.
    pub(crate) fn full_activity(&self, activity: &str) -> String {
        if activity.starts_with('.') { format!("{}{}", self.package, activity) } else { activity.to_string() }
    }

    pub(crate) fn screen(&self, activity: &str) -> Option<(usize, &ScreenSpec)> {
        let full = self.full_activity(activity);
        self.screens.iter().enumerate().find(|(_, s)| self.full_activity(&s.activity) == full)
    }

    pub(crate) fn dialog(&self, name: &str) -> Option<&DialogSpec> {
        self.dialogs.iter().find(|d| d.name == name)
    }

    pub(crate) fn dialog_index(&self, name: &str) -> Option<usize> {
        self.dialogs.iter().position(|d| d.name == name)
    }
}

/// A value in `[state]` of a type the world cannot hold.
#[derive(Debug, thiserror::Error)]
#[error("state key {key}: {kind} values are not supported")]
pub(crate) struct UnsupportedValue {
    key: String,
    kind: &'static str,
}

/// Splits an action script on `;`, dropping empty parts.
pub(crate) fn split_actions(script: &str) -> impl Iterator<Item = &str> {
    script.split(';').map(str::trim).filter(|a| !a.is_empty())
}

/// `#RRGGBB` → 0xRRGGBB.
pub(crate) fn parse_color(s: &str) -> Option<u32> {
    let hex = s.strip_prefix('#')?;
    if hex.len() != 6 {
        return None;
    }
    u32::from_str_radix(hex, 16).ok()
}

/// Flattens nested tables into dotted keys.
pub(crate) fn flatten_state(
    table: &toml::Table,
    prefix: &str,
    out: &mut BTreeMap<String, Value>,
) -> Result<(), UnsupportedValue> {
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
            other => return Err(UnsupportedValue { key: full, kind: other.type_str() }),
        }
    }
    Ok(())
}
