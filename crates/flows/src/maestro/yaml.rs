//! A Maestro flow file read into plain nodes that know their line: its config
//! (the first YAML document, when the file has two) and its commands (a sequence).
//! Parsed by `saphyr` (YAML 1.2); scalars keep their text, so `tapOn: 123` taps
//! "123". Not here: what the commands mean (`commands.rs`).

use saphyr::{LoadableYamlNode, MarkedYamlOwned, ScalarOwned, YamlDataOwned};

use super::error::FlowError;

/// How deep a flow's values may nest.
const MAX_DEPTH: usize = 64;

/// A YAML value, its scalars as text.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Text(String),
    List(Vec<Node>),
    Map(Vec<(String, Node)>),
}

/// A value and the line (from 1) it starts on.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub value: Value,
    pub line: usize,
}

impl Node {
    pub fn text(&self) -> Option<&str> {
        match &self.value {
            Value::Text(t) => Some(t),
            _ => None,
        }
    }

    /// The value under `key` of a map.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// A flow file: its config and its commands.
#[derive(Debug)]
pub struct FlowFile {
    pub config: Option<Node>,
    pub commands: Vec<Node>,
}

fn node(yaml: &MarkedYamlOwned, depth: usize) -> Result<Node, String> {
    if depth > MAX_DEPTH {
        return Err(format!("values nest more than {MAX_DEPTH} deep"));
    }
    let line = yaml.span.start.line();
    let mut first_key_line = None;
    let value = match &yaml.data {
        YamlDataOwned::Value(scalar) => match scalar {
            ScalarOwned::Null => Value::Null,
            ScalarOwned::Boolean(b) => Value::Text(b.to_string()),
            ScalarOwned::Integer(i) => Value::Text(i.to_string()),
            ScalarOwned::FloatingPoint(f) => Value::Text(f.to_string()),
            ScalarOwned::String(s) => Value::Text(s.clone()),
        },
        YamlDataOwned::Representation(text, _, _) => Value::Text(text.clone()),
        YamlDataOwned::Sequence(items) => {
            Value::List(items.iter().map(|i| node(i, depth + 1)).collect::<Result<_, _>>()?)
        }
        YamlDataOwned::Mapping(entries) => {
            let mut out = Vec::with_capacity(entries.len());
            for (k, v) in entries {
                let key = node(k, depth + 1)?;
                first_key_line.get_or_insert(key.line);
                let Value::Text(key) = key.value else {
                    return Err(format!("line {}: a key must be a word", k.span.start.line()));
                };
                out.push((key, node(v, depth + 1)?));
            }
            Value::Map(out)
        }
        YamlDataOwned::Tagged(_, inner) => return node(inner, depth + 1),
        YamlDataOwned::Alias(_) => return Err(format!("line {line}: YAML aliases (*name) are not supported")),
        YamlDataOwned::BadValue => return Err(format!("line {line}: a value YAML cannot read")),
    };
    // A collection's own span may be empty: it starts where its first entry does.
    let line = match (&value, line) {
        (Value::List(items), 0) => items.first().map_or(0, |i| i.line),
        (Value::Map(_), 0) => first_key_line.unwrap_or(0),
        _ => line,
    };
    Ok(Node { value, line })
}

/// What the loader must never see, found by the parser's own events (which it
/// yields one at a time, without recursing): a NUL, which the parser takes for the
/// end of the file (every later command would be dropped, silently); an alias
/// (`*name`), whose target the loader copies (a few lines of aliases to aliases
/// grow to gigabytes); and lists or maps nested deeper than a flow's commands ever
/// are, which the loader would recurse into until the stack ran out.
fn prescan(text: &str) -> Result<(), FlowError> {
    if let Some(at) = text.find('\0') {
        let line = text[..at].matches('\n').count() + 1;
        return Err(FlowError::Yaml(format!(
            "line {line}: the flow holds a NUL byte (\\0); remove it (a file saved as UTF-16 holds many)"
        )));
    }
    let mut depth = 0usize;
    for event in saphyr_parser::Parser::new_from_str(text) {
        match event {
            Ok((saphyr_parser::Event::Alias(_), span)) => {
                let line = span.start.line();
                return Err(FlowError::Yaml(format!("line {line}: YAML aliases (*name) are not supported")));
            }
            Ok((saphyr_parser::Event::SequenceStart(..) | saphyr_parser::Event::MappingStart(..), span)) => {
                depth += 1;
                if depth > MAX_DEPTH {
                    let line = span.start.line();
                    return Err(FlowError::Yaml(format!(
                        "line {line}: lists and maps nest more than {MAX_DEPTH} deep here; a flow's commands never do"
                    )));
                }
            }
            Ok((saphyr_parser::Event::SequenceEnd | saphyr_parser::Event::MappingEnd, _)) => {
                depth = depth.saturating_sub(1);
            }
            Ok(_) => {}
            Err(e) => return Err(FlowError::Yaml(e.to_string())),
        }
    }
    Ok(())
}

/// Reads a flow: `config --- commands`, or commands alone.
pub fn read_flow(text: &str) -> Result<FlowFile, FlowError> {
    prescan(text)?;
    // The parser is not ours: a panic inside it is a flow it cannot read.
    let parsed = std::panic::catch_unwind(|| MarkedYamlOwned::load_from_str(text))
        .map_err(|_| FlowError::Yaml("the YAML parser gave up on this file".into()))?
        .map_err(|e| FlowError::Yaml(e.to_string()))?;
    let docs: Vec<Node> = parsed.iter().map(|d| node(d, 0)).collect::<Result<_, _>>().map_err(FlowError::Yaml)?;
    let (config, commands) = match docs.as_slice() {
        [] => return Err(FlowError::NoCommands),
        [one] => (None, one.clone()),
        [config, commands] => (Some(config.clone()), commands.clone()),
        _ => return Err(FlowError::Yaml("a flow has at most two documents: its config, ---, its commands".into())),
    };
    let commands = match commands.value {
        Value::List(items) => items,
        Value::Null => Vec::new(),
        _ => {
            return Err(FlowError::Yaml(format!("line {}: the commands must be a list (- tapOn: ...)", commands.line)));
        }
    };
    if let Some(c) = &config
        && !matches!(c.value, Value::Map(_) | Value::Null)
    {
        return Err(FlowError::Yaml(format!("line {}: the config (before ---) must be a map (appId: ...)", c.line)));
    }
    Ok(FlowFile { config, commands })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_and_commands_keep_their_lines() {
        let flow = read_flow("appId: com.x\ntags:\n  - smoke\n---\n- launchApp\n- tapOn: 123\n- tapOn:\n    id: ok\n")
            .unwrap();
        let config = flow.config.unwrap();
        assert_eq!(config.get("appId").and_then(Node::text), Some("com.x"));
        assert_eq!(flow.commands.len(), 3);
        assert_eq!(flow.commands[0], Node { value: Value::Text("launchApp".into()), line: 5 });
        assert_eq!(flow.commands[1].get("tapOn").and_then(Node::text), Some("123"));
        assert_eq!(flow.commands[2].line, 7);
        assert!(read_flow("- tapOn: ok\n").unwrap().config.is_none());
        for bad in ["a: [", "- a: &x 1\n- b: *x\n", "x: 1\n---\ny: 2\n", "1\n---\n- back\n"] {
            assert!(matches!(read_flow(bad), Err(FlowError::Yaml(_))), "{bad}");
        }
        let deep = format!("{}1{}", "[".repeat(100), "]".repeat(100));
        assert!(read_flow(&deep).is_err());
        // Block nesting has no limit in the parser: the loader would recurse 100,000 deep.
        let e = read_flow(&"- ".repeat(100_000)).unwrap_err().to_string();
        assert!(e.contains("nest more than 64 deep"), "{e}");
        let e = read_flow("- tapOn: a\n- back\0\n- tapOn: b\n").unwrap_err().to_string();
        assert!(e.contains("line 2: the flow holds a NUL byte"), "{e}");
    }
}
