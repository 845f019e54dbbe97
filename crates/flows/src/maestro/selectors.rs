//! Maestro's element selectors and texts as Rhai, as Maestro reads them: a text is
//! a regular expression matched whole, any case, `.` matching a line break too —
//! or the same text literally (`Price (€)` finds "Price (€)"), or, when it is no
//! regex at all, a literal. So `"Log in"` (nothing a regex would read otherwise)
//! stays a string selector (text, desc or hint, exact else contained, any case, as
//! Maestro's text matches text, hint and accessibility text); `Wi.Fi`, `Don.t
//! allow` or `Item [0-9]+` become `label_matches` (whole); `id`, `index`, `below`,
//! `rightOf`, `childOf`, `containsChild`, `enabled`... their codeact keys; and
//! `${NAME}` in any text the variable `NAME`. A key codeact cannot honour is an
//! error that names it, never dropped. Not here: the commands (`commands.rs`).

use super::error::FlowError;
use super::yaml::{Node, Value};
use codeact_engine::emit::rhai::string as rhai_string;

/// Characters a regex reads otherwise than as themselves.
const REGEX_CHARS: &[char] = &['.', '*', '+', '?', '[', ']', '(', ')', '{', '}', '|', '^', '$', '\\'];

/// Rhai source for a Maestro text: a literal, or `"a " + NAME + "!"` where it holds
/// `${NAME}`. `names` collects the variables it reads.
pub fn text_expr(text: &str, line: usize, names: &mut Vec<String>) -> Result<String, FlowError> {
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start..].find('}') else { break };
        let inner = rest[start + 2..start + len].trim();
        let plain = !inner.is_empty()
            && inner.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !inner.starts_with(|c: char| c.is_ascii_digit());
        if !plain {
            return Err(FlowError::Unsupported {
                line,
                what: format!("the expression ${{{inner}}}"),
                why: "codeact runs no JavaScript; only ${NAME} variables are read",
            });
        }
        let inner = codeact_engine::emit::rhai::ident(inner)
            .ok_or_else(|| FlowError::BadName { line, name: inner.to_string() })?;
        if start > 0 {
            parts.push(rhai_string(&rest[..start]));
        }
        parts.push(inner.to_string());
        // Duplicates are dropped once, after the whole flow (`convert`).
        names.push(inner.to_string());
        rest = &rest[start + len + 1..];
    }
    if !rest.is_empty() || parts.is_empty() {
        parts.push(rhai_string(rest));
    }
    // A variable alone is still text: `"" + NAME`.
    if parts.len() == 1 && !parts[0].starts_with('"') {
        parts.insert(0, "\"\"".into());
    }
    Ok(parts.join(" + "))
}

/// Whether a text reads otherwise as a regex than as itself (then it is matched
/// as Maestro matches it, [`pattern`]); `${NAME}` texts are known only when run.
fn is_regex(text: &str) -> bool {
    text.contains(REGEX_CHARS) && !text.contains("${")
}

/// A Maestro text as the `_matches` value that matches what Maestro's would: the
/// regex, whole, any case, `.` across lines; or the text itself, literally; a text
/// that is no regex Rust reads (Java's look-arounds) is matched literally, as
/// Maestro does with one it cannot compile.
pub(super) fn pattern(text: &str) -> String {
    let literal = regex::escape(text);
    // Read alone first: a group in the wrapper could close one the text left open.
    let whole = regex::Regex::new(text).and_then(|_| regex::Regex::new(&format!("^(?is:{text})$")));
    let wanted = match whole {
        Err(_) => format!("(?i){literal}"),
        // Matching itself, or written with escapes (a regex's author's), it is one.
        Ok(re) if re.is_match(text) || text.contains('\\') => format!("(?is){text}"),
        Ok(_) => format!("(?is)(?:{text})|{literal}"),
    };
    rhai_string(&wanted)
}

/// The text a `_matches` value written by [`pattern`] says, back as Maestro's.
pub fn maestro_text(pattern: &str) -> String {
    if let Some(rest) = pattern.strip_prefix("(?is)") {
        // `(?:P)|escaped`: P.
        if let Some(inner) = rest.strip_prefix("(?:")
            && let Some((p, escaped)) = inner.rsplit_once(")|")
            && regex::escape(p) == escaped
        {
            return p.to_string();
        }
        return rest.to_string();
    }
    pattern.strip_prefix("(?i)").unwrap_or(pattern).to_string()
}

/// Rhai source for a Maestro selector: a text, or a map of keys.
pub fn selector(node: &Node, names: &mut Vec<String>) -> Result<String, FlowError> {
    selector_at(node, names, 0)
}

fn selector_at(node: &Node, names: &mut Vec<String>, depth: usize) -> Result<String, FlowError> {
    if depth > 8 {
        return Err(FlowError::Unsupported {
            line: node.line,
            what: "a selector".into(),
            why: "relations nest too deep",
        });
    }
    let entries = match &node.value {
        Value::Text(text) if is_regex(text) => return Ok(format!("#{{label_matches: {}}}", pattern(text))),
        Value::Text(text) => return text_expr(text, node.line, names),
        Value::Map(entries) => entries,
        _ => {
            return Err(FlowError::Unsupported {
                line: node.line,
                what: "this selector".into(),
                why: "a selector is a text or a map of keys (text, id, index, below, ...)",
            });
        }
    };
    let mut keys = Vec::new();
    for (key, value) in entries {
        let line = value.line;
        let scalar =
            || value.text().ok_or(FlowError::Unsupported { line, what: format!("`{key}`"), why: "it needs a value" });
        let pair = match key.as_str() {
            "text" => {
                let t = scalar()?;
                if t.contains("${") {
                    format!("label: {}", text_expr(t, line, names)?)
                } else {
                    format!("label_matches: {}", pattern(t))
                }
            }
            "id" => {
                let t = scalar()?;
                if is_regex(t) {
                    format!("id_matches: {}", pattern(t))
                } else {
                    format!("id: {}", text_expr(t, line, names)?)
                }
            }
            "index" => format!("nth: {}", number(value, key)?),
            "enabled" | "checked" | "focused" | "selected" => format!("{key}: {}", boolean(value, key)?),
            "below" | "above" => format!("{key}: {}", selector_at(value, names, depth + 1)?),
            "leftOf" => format!("left_of: {}", selector_at(value, names, depth + 1)?),
            "rightOf" => format!("right_of: {}", selector_at(value, names, depth + 1)?),
            "childOf" => format!("inside: {}", selector_at(value, names, depth + 1)?),
            "containsChild" => format!("has: {}", selector_at(value, names, depth + 1)?),
            "containsDescendants" => match &value.value {
                Value::List(items) if items.len() == 1 => format!("has: {}", selector_at(&items[0], names, depth + 1)?),
                _ => {
                    return Err(FlowError::Unsupported {
                        line,
                        what: "containsDescendants with several selectors".into(),
                        why: "codeact's `has` takes one: nest them (containsChild inside containsChild)",
                    });
                }
            },
            // Said by the command, not the selector.
            "optional" | "label" | "retryTapIfNoChange" | "waitToSettleTimeoutMs" | "repeat" | "delay" => continue,
            other => {
                return Err(FlowError::Unsupported {
                    line,
                    what: format!("the selector key `{other}`"),
                    why: "codeact selects by text, id, index, below, above, leftOf, rightOf, childOf, containsChild, enabled, checked, focused, selected",
                });
            }
        };
        keys.push(pair);
    }
    if keys.is_empty() {
        return Err(FlowError::Unsupported {
            line: node.line,
            what: "an empty selector".into(),
            why: "give it a text or an id",
        });
    }
    Ok(format!("#{{{}}}", keys.join(", ")))
}

/// A whole number a flow gives (`index: 2`, `timeout: 5000`).
pub fn number(node: &Node, key: &str) -> Result<i64, FlowError> {
    node.text().and_then(|t| t.trim().parse::<i64>().ok()).filter(|n| *n >= 0).ok_or(FlowError::Unsupported {
        line: node.line,
        what: format!("`{key}`"),
        why: "it takes a whole number",
    })
}

/// `true` or `false`.
pub fn boolean(node: &Node, key: &str) -> Result<bool, FlowError> {
    match node.text() {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        _ => Err(FlowError::Unsupported { line: node.line, what: format!("`{key}`"), why: "it takes true or false" }),
    }
}

/// A point: `50%, 50%` as fractions, `100, 200` as pixels (Rhai arguments).
pub fn point(text: &str, line: usize) -> Result<String, FlowError> {
    let bad = || FlowError::Unsupported {
        line,
        what: format!("the point {text:?}"),
        why: "a point is \"x%, y%\" or \"x, y\" in pixels",
    };
    let (x, y) = text.split_once(',').ok_or_else(bad)?;
    let coord = |c: &str| -> Result<String, FlowError> {
        let c = c.trim();
        match c.strip_suffix('%') {
            Some(p) => {
                let p: f64 = p.trim().parse().map_err(|_| bad())?;
                if !(0.0..=100.0).contains(&p) {
                    return Err(bad());
                }
                Ok(format!("{:.4}", p / 100.0))
            }
            None => c.parse::<u32>().map(|n| n.to_string()).map_err(|_| bad()),
        }
    };
    Ok(format!("{}, {}", coord(x)?, coord(y)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(yaml: &str) -> Result<String, FlowError> {
        let flow = super::super::yaml::read_flow(&format!("- tapOn: {yaml}\n")).unwrap();
        selector(flow.commands[0].get("tapOn").unwrap(), &mut Vec::new())
    }

    #[test]
    fn selectors_become_codeacts() {
        assert_eq!(sel("Log in").unwrap(), "\"Log in\"");
        assert_eq!(
            sel("\"Item [0-9]+\"").unwrap(),
            "#{label_matches: \"(?is)(?:Item [0-9]+)|Item \\\\[0\\\\-9\\\\]\\\\+\"}",
            "a regex, or the very text (Maestro's equality)"
        );
        assert_eq!(sel("Wi.Fi").unwrap(), "#{label_matches: \"(?is)Wi.Fi\"}", "a dot is any character");
        assert_eq!(sel("\"Don.t allow\"").unwrap(), "#{label_matches: \"(?is)Don.t allow\"}");
        assert_eq!(
            sel("\"(?<=x)y\"").unwrap(),
            "#{label_matches: \"(?i)\\\\(\\\\?<=x\\\\)y\"}",
            "no Rust regex: literal"
        );
        assert_eq!(maestro_text("(?is)(?:Item [0-9]+)|Item \\[0\\-9\\]\\+"), "Item [0-9]+");
        assert_eq!(maestro_text("(?is)Wi.Fi"), "Wi.Fi");
        assert_eq!(sel("\"a)|(b\"").unwrap(), "#{label_matches: \"(?i)a\\\\)\\\\|\\\\(b\"}", "no regex alone: literal");
        assert_eq!(sel("{id: send, index: 1}").unwrap(), "#{id: \"send\", nth: 1}");
        assert_eq!(
            sel("{text: Wi-Fi, rightOf: {id: icon}, enabled: true}").unwrap(),
            "#{label_matches: \"(?is)Wi-Fi\", right_of: #{id: \"icon\"}, enabled: true}"
        );
        assert_eq!(
            sel("{childOf: {id: card}, text: Buy}").unwrap(),
            "#{inside: #{id: \"card\"}, label_matches: \"(?is)Buy\"}"
        );
        let e = sel("{width: 100}").unwrap_err().to_string();
        assert!(e.contains("line 1") && e.contains("`width`"), "{e}");
        let mut names = Vec::new();
        assert_eq!(text_expr("Hi ${USER}!", 1, &mut names).unwrap(), "\"Hi \" + USER + \"!\"");
        assert_eq!(text_expr("${USER}", 1, &mut names).unwrap(), "\"\" + USER");
        assert_eq!(names, ["USER", "USER"], "kept as read; convert drops the duplicates");
        assert!(text_expr("${output.x}", 3, &mut names).is_err());
        assert_eq!(point("50%, 25%", 1).unwrap(), "0.5000, 0.2500");
        assert_eq!(point("100,200", 1).unwrap(), "100, 200");
        assert!(point("150%, 1", 1).is_err());
    }
}
