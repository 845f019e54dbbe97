//! Values, `{...}` templates and conditions used by the world's data files.
//!
//! Deliberately tiny: a template reads a value (`{settings.wifi}`, `{record.name}`,
//! `{param}`), optionally pads it (`{record.hour:02}`) or picks between two words by
//! its truth (`{settings.wifi?On:Off}`). It is not a scripting language.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A state value: what switches, fields and sliders show and change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum Value {
    Bool(bool),
    Int(i64),
    Str(String),
}

impl Value {
    pub(crate) fn truthy(&self) -> bool {
        match self {
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Str(s) => !s.is_empty(),
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Str(s) => f.write_str(s),
        }
    }
}

pub(crate) type Record = BTreeMap<String, Value>;

/// What a template can read.
pub(crate) struct Scope<'a> {
    pub(crate) state: &'a BTreeMap<String, Value>,
    pub(crate) record: Option<&'a Record>,
    pub(crate) index: Option<usize>,
    pub(crate) param: &'a str,
    /// The device clock, in seconds since the Unix epoch (for `{now.date}`, `{now.time}`).
    pub(crate) now: i64,
}

impl Scope<'_> {
    pub(crate) fn get(&self, key: &str) -> Option<Value> {
        if let Some(field) = key.strip_prefix("record.") {
            return self.record.and_then(|r| r.get(field).cloned());
        }
        match key {
            // Kept as text: "007" and "+1555" are names or numbers to compare verbatim.
            "param" => Some(Value::Str(self.param.to_string())),
            "index" => self.index.map(|i| Value::Int(i as i64)),
            "now.date" => Some(Value::Str(clock_text(self.now, "%Y-%m-%d"))),
            "now.time" => Some(Value::Str(clock_text(self.now, "%H:%M"))),
            _ => self.state.get(key).cloned(),
        }
    }

    /// Expands every `{...}` in `template`; unknown keys expand to nothing.
    pub(crate) fn render(&self, template: &str) -> String {
        let mut out = String::with_capacity(template.len());
        let mut rest = template;
        while let Some(start) = rest.find('{') {
            out.push_str(&rest[..start]);
            let after = &rest[start + 1..];
            let Some(end) = after.find('}') else {
                out.push_str(&rest[start..]);
                return out;
            };
            out.push_str(&self.expand(&after[..end]));
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        out
    }

    fn expand(&self, expr: &str) -> String {
        if let Some((key, choices)) = expr.split_once('?') {
            let (yes, no) = choices.split_once(':').unwrap_or((choices, ""));
            let truth = self.get(key.trim()).is_some_and(|v| v.truthy());
            return if truth { yes } else { no }.to_string();
        }
        if let Some(key) = expr.strip_suffix(":hms") {
            return match self.get(key.trim()) {
                Some(Value::Int(s)) => {
                    let s = s.max(0);
                    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                }
                _ => "00:00:00".to_string(),
            };
        }
        if let Some((key, width)) = expr.split_once(':') {
            let width: usize = width.parse().unwrap_or(0);
            return match self.get(key.trim()) {
                Some(Value::Int(i)) => format!("{i:0width$}"),
                Some(v) => v.to_string(),
                None => String::new(),
            };
        }
        self.get(expr.trim()).map(|v| v.to_string()).unwrap_or_default()
    }

    /// `KEY`, `!KEY`, `A == B`, `A != B`, `A ~= B` (contains, ignoring case).
    pub(crate) fn holds(&self, condition: &str) -> bool {
        let condition = condition.trim();
        if let Some((a, b)) = condition.split_once("~=") {
            let (a, b) = (self.render(a.trim()).to_lowercase(), self.render(b.trim()).to_lowercase());
            return a.contains(&b);
        }
        if let Some((a, b)) = condition.split_once("!=") {
            return self.render(a.trim()) != self.render(b.trim());
        }
        if let Some((a, b)) = condition.split_once("==") {
            return self.render(a.trim()) == self.render(b.trim());
        }
        if let Some(key) = condition.strip_prefix('!') {
            return !self.get(key.trim()).is_some_and(|v| v.truthy());
        }
        self.get(condition).is_some_and(|v| v.truthy())
    }
}

/// The device clock (UTC, as the virtual phone's time zone) in a strftime format.
pub(crate) fn clock_text(secs: i64, format: &str) -> String {
    jiff::Timestamp::from_second(secs)
        .map(|t| t.to_zoned(jiff::tz::TimeZone::UTC).strftime(format).to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_and_conditions() {
        let mut state = BTreeMap::new();
        state.insert("settings.wifi".to_string(), Value::Bool(true));
        let mut record = Record::new();
        record.insert("hour".into(), Value::Int(7));
        record.insert("name".into(), Value::Str("张三".into()));
        let scope = Scope { state: &state, record: Some(&record), index: Some(3), param: "张三", now: 1_697_384_040 };
        assert_eq!(scope.render("{record.hour:02}:{index:02}"), "07:03");
        assert_eq!(scope.render("Wi-Fi {settings.wifi?On:Off} {missing}"), "Wi-Fi On ");
        assert!(scope.holds("{record.name} == {param}"));
        assert!(scope.holds("settings.wifi"));
        assert!(scope.holds("!settings.bluetooth"));
        assert!(!scope.holds("{index} != 3"));
        assert!(scope.holds("{record.name} ~= 张"));
        assert!(scope.holds("{record.name} ~= {missing}"));
        assert_eq!(scope.render("unclosed {brace"), "unclosed {brace");
        assert_eq!(scope.render("{now.date} {now.time} {record.hour:hms}"), "2023-10-15 15:34 00:00:07");
    }
}
