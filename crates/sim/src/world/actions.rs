//! Runs the action scripts of the data files (`open .Detail {index}; clear draft.x`).
//!
//! The verbs are listed in `spec.rs`. Actions never fail loudly: an action that
//! cannot apply (a missing record, an unknown activity) does nothing, as a tap on a
//! dead button does on a phone. Files are checked for unknown verbs when loaded.

use super::model::{DialogInstance, World};
use super::template::{Record, Value};

/// The record an action script acts on: (collection, index).
pub(crate) type RecordRef = Option<(String, usize)>;

impl World {
    /// Runs `script` (actions separated by `;`) for `record`, or for the screen's own
    /// record when `record` is `None`.
    pub(crate) fn run_actions(&mut self, script: &str, record: RecordRef) {
        let record = record.or_else(|| {
            let (_, screen, _) = self.top()?;
            let source = screen.source.clone()?;
            self.screen_record().map(|(i, _)| (source, i))
        });
        for action in super::spec::split_actions(script) {
            if !self.run_action(action, &record) {
                break;
            }
        }
    }

    fn render(&self, template: &str, record: &RecordRef) -> String {
        let rec: Option<Record> = record.as_ref().and_then(|(c, i)| self.record(c, *i));
        self.scope(rec.as_ref(), record.as_ref().map(|(_, i)| *i)).render(template)
    }

    /// One action; false stops the script (`require` on an empty value).
    fn run_action(&mut self, action: &str, record: &RecordRef) -> bool {
        let (verb, rest) = action.split_once(char::is_whitespace).unwrap_or((action, ""));
        let rest = rest.trim();
        match verb {
            "back" => self.finish_activity(),
            "home" => self.go_home(),
            "dismiss" => {
                self.dialogs.pop();
                self.screen_changed();
            }
            "launch" => {
                if let Some(app) = self.catalog.app_index(rest) {
                    self.launch(app);
                }
            }
            "open" => {
                let (activity, arg) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                let param = self.render(arg.trim(), record);
                let (app, activity) = match activity.split_once('/') {
                    Some((pkg, act)) => (self.catalog.app_index(pkg), act.to_string()),
                    None => (self.top_app(), activity.to_string()),
                };
                if let Some(app) = app {
                    self.push_screen(app, &activity, param);
                }
            }
            "dialog" => {
                let app = self.top_app().unwrap_or(0);
                if let Some(dialog) = self.catalog.apps.get(app).and_then(|a| a.dialog_index(rest)) {
                    self.dialogs.push(DialogInstance::App { app, dialog, record: record.clone() });
                    self.screen_changed();
                }
            }
            "toggle" => {
                let now = self.read(rest, record).is_some_and(|v| v.truthy());
                self.write(rest, Value::Bool(!now), record);
            }
            "set" => {
                let (key, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                let text = self.render(value.trim(), record);
                // Keep a number a number (sliders), as the state declared it.
                let value = match (self.read(key, record), text.parse::<i64>()) {
                    (Some(Value::Int(_)), Ok(n)) => Value::Int(n),
                    _ => typed(&text),
                };
                self.write(key, value, record);
            }
            "clear" => self.write(rest, Value::Str(String::new()), record),
            "require" => return self.read(rest, record).is_some_and(|v| v.truthy()),
            // `require_between KEY MIN MAX`: a whole number in that range, else stop
            // (a clock refuses 25:61).
            "require_between" => {
                let mut words = rest.split_whitespace();
                let (Some(key), Some(min), Some(max)) = (words.next(), words.next(), words.next()) else {
                    return false;
                };
                let (Ok(min), Ok(max)) = (min.parse::<i64>(), max.parse::<i64>()) else { return false };
                let n = match self.read(key, record) {
                    Some(Value::Int(n)) => Some(n),
                    Some(Value::Str(s)) => s.trim().parse::<i64>().ok(),
                    _ => None,
                };
                return n.is_some_and(|n| (min..=max).contains(&n));
            }
            // `sort COLLECTION FIELD...`: records in order of those fields (numbers as
            // numbers), as a clock lists its alarms.
            "sort" => {
                let mut words = rest.split_whitespace();
                let Some(collection) = words.next() else { return true };
                let fields: Vec<&str> = words.collect();
                if let Some(records) = self.collections.get_mut(collection) {
                    records.sort_by(|a, b| {
                        fields
                            .iter()
                            .map(|f| sort_key(a.get(*f)).cmp(&sort_key(b.get(*f))))
                            .find(|o| o.is_ne())
                            .unwrap_or(std::cmp::Ordering::Equal)
                    });
                    self.screen_changed();
                }
            }
            "add" => {
                let (collection, fields) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                let new = self.fields(fields, record);
                self.collections.entry(collection.to_string()).or_default().push(new);
                self.screen_changed();
            }
            // `empty COLLECTION`: every record gone (a cart emptied, tabs closed).
            "empty" => {
                if let Some(records) = self.collections.get_mut(rest) {
                    records.clear();
                    self.screen_changed();
                }
            }
            // `move FROM TO FIELD=VALUE...`: every record of FROM joins TO with those
            // fields added, and FROM is left empty (a cart's items become an order's).
            "move" => {
                let mut words = rest.splitn(3, char::is_whitespace);
                let (Some(from), Some(to)) = (words.next(), words.next()) else { return true };
                let extra = self.fields(words.next().unwrap_or(""), record);
                let moved: Vec<Record> = self.collections.get_mut(from).map(std::mem::take).unwrap_or_default();
                let target = self.collections.entry(to.to_string()).or_default();
                target.extend(moved.into_iter().map(|mut r| {
                    r.extend(extra.clone());
                    r
                }));
                self.screen_changed();
            }
            // `require_same KEY OTHER`: stop unless both hold the same text (a password
            // typed twice).
            "require_same" => {
                let (key, other) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                let text = |k: &str| self.read(k.trim(), record).map(|v| v.to_string()).unwrap_or_default();
                return text(key) == text(other);
            }
            "update" => {
                let fields = self.fields(rest, record);
                if let Some(rec) = self.record_mut(record) {
                    rec.extend(fields);
                    self.screen_changed();
                }
            }
            "delete" if record.as_ref().is_some_and(|(c, _)| c == super::names::FILES) => {
                if let Some(path) = self.read("record.path", record) {
                    let _ = self.fs.remove(&path.to_string(), true);
                    self.screen_changed();
                }
            }
            // `file_move FOLDER`: the file or folder the screen shows (its path is the
            // screen's parameter) moves into FOLDER, as `mv` would.
            "file_move" => {
                let (from, folder) = (self.render("{param}", record), self.render(rest, record));
                let name = from.rsplit('/').next().unwrap_or_default().to_string();
                let _ = super::files::move_to(&self.fs, &from, &format!("{}/{name}", folder.trim_end_matches('/')));
                self.screen_changed();
            }
            // `file_rename NAME`: the screen's file gets a new name in the same folder.
            "file_rename" => {
                let (from, name) = (self.render("{param}", record), self.render(rest, record));
                let name = name.trim();
                if name.is_empty() || name.contains('/') || name == "." || name == ".." {
                    return false;
                }
                let folder = from.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
                let _ = super::files::move_to(&self.fs, &from, &format!("{folder}/{name}"));
                self.screen_changed();
            }
            // `require_format KEY FORMAT`: stop unless KEY reads as FORMAT (`well_formed`).
            // A format ending in `?` also lets an empty value through (an optional field).
            "require_format" => {
                let (key, format) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                let value = self.read(key, record).map(|v| v.to_string()).unwrap_or_default();
                let (format, optional) = match format.trim().strip_suffix('?') {
                    Some(format) => (format, true),
                    None => (format.trim(), false),
                };
                return (optional && value.trim().is_empty()) || super::files::well_formed(value.trim(), format);
            }
            // `require_any KEY...`: stop unless at least one of them is set (a topic chosen).
            "require_any" => {
                return rest.split_whitespace().any(|key| self.read(key, record).is_some_and(|v| v.truthy()));
            }
            // `increase KEY N`: KEY (a whole number; else 0) grows by N (a game's score).
            "increase" => {
                let (key, by) = rest.split_once(char::is_whitespace).unwrap_or((rest, "1"));
                let by = self.render(by.trim(), record).trim().parse::<i64>().unwrap_or(0);
                let now = match self.read(key, record) {
                    Some(Value::Int(n)) => n,
                    Some(Value::Str(s)) => s.trim().parse().unwrap_or(0),
                    _ => 0,
                };
                self.write(key, Value::Int(now.saturating_add(by)), record);
            }
            // `set_now KEY`: KEY holds the device clock's seconds (a stopwatch starting).
            "set_now" => {
                let now = self.now_secs();
                self.write(rest, Value::Int(now), record);
            }
            // `add_elapsed KEY SINCE`: KEY grows by the seconds since the clock time in
            // SINCE (a stopwatch pausing).
            "add_elapsed" => {
                let (key, since) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                let as_int = |v: Option<Value>| match v {
                    Some(Value::Int(n)) => n,
                    Some(Value::Str(s)) => s.trim().parse().unwrap_or(0),
                    _ => 0,
                };
                let (total, start) = (as_int(self.read(key, record)), as_int(self.read(since.trim(), record)));
                let elapsed = if start > 0 { (self.now_secs() - start).max(0) } else { 0 };
                self.write(key, Value::Int(total + elapsed), record);
            }
            "delete" => {
                if let Some((collection, index)) = record {
                    let showing = self.screen_record().map(|(i, _)| i) == Some(*index)
                        && self.top().is_some_and(|(_, s, _)| s.source.as_deref() == Some(collection));
                    if let Some(records) = self.collections.get_mut(collection)
                        && *index < records.len()
                    {
                        records.remove(*index);
                    }
                    if showing {
                        self.finish_activity();
                    }
                    self.screen_changed();
                }
            }
            _ => {}
        }
        true
    }

    /// `field=template field=#{number}` pairs; a `#` marks a number.
    fn fields(&self, spec: &str, record: &RecordRef) -> Record {
        spec.split_whitespace()
            .filter_map(|pair| pair.split_once('='))
            .map(|(field, template)| {
                let value = match template.strip_prefix('#') {
                    Some(t) => {
                        let text = self.render(t, record);
                        text.trim().parse::<i64>().map(Value::Int).unwrap_or(Value::Str(text))
                    }
                    None => typed(&self.render(template, record)),
                };
                (field.to_string(), value)
            })
            .collect()
    }

    fn record_mut(&mut self, record: &RecordRef) -> Option<&mut Record> {
        let (collection, index) = record.as_ref()?;
        self.collections.get_mut(collection)?.get_mut(*index)
    }

    /// A state key or `record.FIELD`.
    pub(crate) fn read(&self, key: &str, record: &RecordRef) -> Option<Value> {
        match key.strip_prefix("record.") {
            Some(field) => {
                let (c, i) = record.as_ref()?;
                self.record(c, *i)?.get(field).cloned()
            }
            None => self.state.get(key).cloned(),
        }
    }

    pub(crate) fn write(&mut self, key: &str, value: Value, record: &RecordRef) {
        match key.strip_prefix("record.") {
            Some(field) => {
                if let Some(rec) = self.record_mut(record) {
                    rec.insert(field.to_string(), value);
                }
            }
            None => {
                self.state.insert(key.to_string(), value);
            }
        }
        self.screen_changed();
    }
}

/// How a field sorts: numbers before text, numbers by value.
fn sort_key(v: Option<&Value>) -> (u8, i64, String) {
    match v {
        Some(Value::Int(n)) => (0, *n, String::new()),
        Some(Value::Str(s)) => s.trim().parse::<i64>().map_or((1, 0, s.clone()), |n| (0, n, String::new())),
        Some(Value::Bool(b)) => (0, i64::from(*b), String::new()),
        None => (2, 0, String::new()),
    }
}

/// Literal `true`/`false` become booleans; everything else stays text (typed digits
/// in a message are still a message).
fn typed(text: &str) -> Value {
    match text {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        _ => Value::Str(text.to_string()),
    }
}
