//! The world's data as screens read it and tools change it: collections' records (the
//! computed `files` one included), the record a screen shows, and `simctl set|add|empty`
//! and `pm clear`. Not the template language over it (`template`).

use super::files;
use super::model::World;
use super::names::FILES;
use super::template::{Record, Value};

impl World {
    /// `pm clear`: the app stops and forgets its data (its collections emptied, its
    /// state keys back to their first values).
    pub(crate) fn clear_app_data(&mut self, app: usize) {
        self.force_stop(app);
        let Some(spec) = self.catalog.apps.get(app) else { return };
        let data = spec.data.clone();
        for entry in &data {
            if let Some(records) = self.collections.get_mut(entry) {
                records.clear();
                continue;
            }
            let prefix = entry.ends_with('.') || entry.ends_with('_');
            let keys: Vec<String> = self
                .catalog
                .initial_state
                .keys()
                .filter(|k| if prefix { k.starts_with(entry.as_str()) } else { *k == entry })
                .cloned()
                .collect();
            for key in keys {
                if let Some(first) = self.catalog.initial_state.get(&key).cloned() {
                    self.state.insert(key, first);
                }
            }
        }
        self.screen_changed();
    }

    /// `simctl set`: a state value, typed as `set` types it (booleans; a number where
    /// the key holds one).
    pub(crate) fn set_value(&mut self, key: &str, text: &str) {
        let value = match (self.state.get(key), text.parse::<i64>()) {
            (Some(Value::Int(_)), Ok(n)) => Value::Int(n),
            _ => match text {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => Value::Str(text.to_string()),
            },
        };
        self.write(key, value, &None);
    }

    /// `simctl add`: a record at the end of a declared collection (false: no such one).
    pub(crate) fn add_record(&mut self, collection: &str, record: Record) -> bool {
        let Some(records) = self.collections.get_mut(collection) else { return false };
        records.push(record);
        self.screen_changed();
        true
    }

    /// `simctl empty`: a declared collection without records (false: no such one).
    pub(crate) fn empty_collection(&mut self, collection: &str) -> bool {
        let Some(records) = self.collections.get_mut(collection) else { return false };
        records.clear();
        self.screen_changed();
        true
    }

    /// A collection's records: the world's own, or for `files` every file and folder
    /// under /sdcard, read from the file system each time (so `adb push` and the Files
    /// app agree).
    pub(crate) fn records(&self, source: &str) -> std::borrow::Cow<'_, [Record]> {
        if source == FILES {
            return std::borrow::Cow::Owned(files::records(&self.fs));
        }
        std::borrow::Cow::Borrowed(self.collections.get(source).map(Vec::as_slice).unwrap_or(&[]))
    }

    /// One record of a collection (computed ones included).
    pub(crate) fn record(&self, source: &str, index: usize) -> Option<Record> {
        self.records(source).get(index).cloned()
    }

    /// For a screen with a `source`: the record its parameter points at.
    pub(crate) fn screen_record(&self) -> Option<(usize, &Record)> {
        let (_, screen, inst) = self.top()?;
        let source = screen.source.as_ref()?;
        let index: usize = inst.param.parse().ok()?;
        self.collections.get(source)?.get(index).map(|r| (index, r))
    }
}
