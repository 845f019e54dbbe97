//! The JSON `simctl state` prints: foreground app and activity, keyboard, focus, dialog,
//! settings, collections and values. Not how the world changes (the rest of `world`).

use std::collections::BTreeMap;

use serde::Serialize;

use super::model::{DialogInstance, World};
use super::names::FILES;
use super::template::Value;

/// The JSON `simctl state` prints.
#[derive(Debug, Serialize)]
pub(crate) struct StateReport {
    pub(crate) foreground_package: String,
    pub(crate) activity: String,
    pub(crate) keyboard_shown: bool,
    /// A slow-ui animation is still settling.
    pub(crate) animating: bool,
    pub(crate) focused: Option<String>,
    pub(crate) dialog: Option<String>,
    pub(crate) ime: String,
    pub(crate) settings: BTreeMap<String, Value>,
    #[serde(flatten)]
    pub(crate) collections: BTreeMap<String, serde_json::Value>,
    pub(crate) values: BTreeMap<String, Value>,
}

impl World {
    /// The JSON report `simctl state` prints.
    pub(crate) fn report(&self) -> StateReport {
        let settings = self
            .state
            .iter()
            .filter_map(|(k, v)| k.strip_prefix("settings.").map(|s| (s.to_string(), v.clone())))
            .collect();
        let values = self
            .state
            .iter()
            .filter(|(k, _)| !k.starts_with("settings."))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let files = (FILES.to_string(), self.records(FILES).into_owned());
        let collections = self
            .collections
            .iter()
            .chain(std::iter::once((&files.0, &files.1)))
            .map(|(name, records)| {
                let json = match self.catalog.world.export_field.get(name) {
                    Some(field) => serde_json::Value::Array(
                        records
                            .iter()
                            .map(|r| serde_json::json!(r.get(field).map(|v| v.to_string()).unwrap_or_default()))
                            .collect(),
                    ),
                    None => serde_json::to_value(records).unwrap_or(serde_json::Value::Null),
                };
                (name.clone(), json)
            })
            .collect();
        let focused =
            self.focus.and_then(|f| self.top().and_then(|(_, s, _)| s.items.get(f.item)).map(|i| i.id.clone()));
        let dialog = self.dialogs.last().map(|d| match d {
            DialogInstance::Fault { kind, .. } => format!("fault:{}", kind.name()),
            DialogInstance::App { app, dialog, .. } => self
                .catalog
                .apps
                .get(*app)
                .and_then(|a| a.dialogs.get(*dialog))
                .map(|d| d.name.clone())
                .unwrap_or_default(),
        });
        StateReport {
            foreground_package: self.foreground_package(),
            activity: self.activity(),
            keyboard_shown: self.keyboard_shown,
            animating: self.animating(),
            focused,
            dialog,
            ime: self.ime.clone(),
            settings,
            collections,
            values,
        }
    }
}
