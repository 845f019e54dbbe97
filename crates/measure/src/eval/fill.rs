//! Filling a template's `{param}` and `{param.field}` from drawn parameters: goals,
//! set-up lines (quoted for the shell) and set-up values that keep their types.
//! Not how parameters are drawn (`params.rs`) nor what a task file holds (`task.rs`).

use serde_json::Value;

/// The names inside `{...}` of a template (`{who.name}` → `who`).
pub(crate) fn placeholders(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('{') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('}') else { break };
        let inner = &after[..end];
        out.push(inner.split('.').next().unwrap_or(inner));
        rest = &after[end + 1..];
    }
    out
}

/// A parameter's value as text: strings as they are, numbers and booleans as
/// written, lists joined with ", ".
pub fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(text_of).collect::<Vec<_>>().join(", "),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Looks up `who` or `who.name` in the parameters (and `item`).
pub fn lookup<'a>(
    path: &str,
    params: &'a serde_json::Map<String, Value>,
    item: Option<&'a Value>,
) -> Option<&'a Value> {
    let mut parts = path.split('.');
    let first = parts.next()?;
    let mut value = if first == "item" { item? } else { params.get(first)? };
    for part in parts {
        value = value.get(part)?;
    }
    Some(value)
}

/// Fills `{...}` from the parameters; `quote` wraps each value (for shell lines).
pub fn render(
    template: &str,
    params: &serde_json::Map<String, Value>,
    item: Option<&Value>,
    quote: fn(&str) -> String,
) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let key = &after[..end];
        match lookup(key, params, item) {
            Some(v) => out.push_str(&quote(&text_of(v))),
            None => {
                out.push('{');
                out.push_str(key);
                out.push('}');
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// A value in a setup record or `to`: a string that is exactly `{param}` keeps the
/// parameter's type (a number stays a number); other strings are rendered.
pub fn render_value(value: &Value, params: &serde_json::Map<String, Value>, item: Option<&Value>) -> Value {
    match value {
        Value::String(s) => {
            if let Some(key) = s.strip_prefix('{').and_then(|k| k.strip_suffix('}'))
                && !key.contains(['{', '}'])
                && let Some(v) = lookup(key, params, item)
            {
                return v.clone();
            }
            Value::String(render(s, params, item, |s| s.to_string()))
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_fill_and_keep_types() {
        let params: serde_json::Map<String, Value> =
            serde_json::from_str(r#"{"who": {"name": "Bob Smith"}, "n": 3}"#).unwrap();
        assert_eq!(render("Text {who.name} {n}x", &params, None, |s| s.to_string()), "Text Bob Smith 3x");
        assert_eq!(render_value(&Value::String("{n}".into()), &params, None), Value::from(3));
        assert_eq!(render("{missing}", &params, None, |s| s.to_string()), "{missing}");
    }
}
