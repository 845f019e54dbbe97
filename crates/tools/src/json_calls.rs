//! The catalog's tools one by one as JSON function calls — MCP tools (`codeact mcp
//! --expose tools|both`) and OpenAI tools (`--actions json`): each tool name becomes
//! one function whose JSON Schema is made from its [`ToolSpec`] parameters (the forms
//! of a tool merged: `tap` takes `sel`, or `x` and `y`), and whose call is turned
//! into a typed [`ToolCall`] (every literal written by the one emitter), so it runs
//! through `Session::call` in the same sandbox, under the same limits and the same
//! gate, as a snippet a model wrote.
//!
//! Not here: running the call (the session), a protocol's framing of the tools
//! (MCP's server, the LLM client).

use serde_json::{Map, Value, json};

use super::call::{Arg, ToolCall};
use super::catalog::CATALOG;
use super::catalog::spec::ToolSpec;
use super::declaration::{Access, ParamKind};
use super::script_tools::{ScriptTool, ScriptTools};

/// Whether `complete(success, reason)` is a function too: it is for a model that
/// acts by function calls (it must end its task somehow); an MCP client ends
/// nothing, so its tools leave it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    Offered,
    Left,
}

/// One MCP tool made from a catalog tool's forms.
#[derive(Debug, Clone)]
pub struct GestureTool {
    pub name: String,
    /// Its forms' docs and signatures.
    pub description: String,
    pub input_schema: Map<String, Value>,
    pub access: Access,
}

/// Why a gesture call's arguments make no call.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum GestureArgsError {
    #[error("{tool} takes no argument {name:?}; it takes: {takes}")]
    Unknown { tool: String, name: String, takes: String },
    #[error("{tool}: no form takes these arguments ({given}); its forms: {forms}")]
    NoForm { tool: String, given: String, forms: String },
    #[error("{tool}: argument {name:?} must be {want}")]
    Kind { tool: String, name: String, want: &'static str },
    #[error("{tool}: argument {name:?} is nested too deeply")]
    TooDeep { tool: String, name: String },
}

/// `value` as an argument of `tool`'s parameter `name`, if the emitter can write it.
fn json_arg(tool: &str, name: &str, value: &Value) -> Result<Arg, GestureArgsError> {
    match codeact_engine::emit::rhai::json(value) {
        Some(_) => Ok(Arg::Json(value.clone())),
        None => Err(GestureArgsError::TooDeep { tool: tool.into(), name: name.into() }),
    }
}

/// Whether a catalog tool can be called with JSON arguments: a function parameter
/// (a watcher's callback) cannot, and `complete` only when `finish` offers it.
fn callable(spec: &ToolSpec, finish: Finish) -> bool {
    (spec.access != Access::Finishes || finish == Finish::Offered)
        && spec.params.iter().all(|p| p.kind != ParamKind::Function)
}

/// The forms of the tool called `name` that JSON can call.
fn forms(name: &str, finish: Finish) -> impl Iterator<Item = &'static ToolSpec> + '_ {
    CATALOG.iter().filter(move |t| t.name == name && callable(t, finish))
}

fn kind_schema(kind: ParamKind) -> Value {
    match kind {
        ParamKind::Selector => json!({"anyOf": [
            {"type": "string"},
            {"type": "object", "description": "selector keys, e.g. {\"id\": \"send\"} or {\"text_contains\": \"Wi\"}"}
        ]}),
        ParamKind::Integer => json!({"type": "integer"}),
        ParamKind::Coordinate => json!({"type": "number"}),
        ParamKind::Text => json!({"type": "string"}),
        ParamKind::Boolean => json!({"type": "boolean"}),
        ParamKind::TextOrMap => json!({"anyOf": [{"type": "string"}, {"type": "object"}]}),
        // Never reached: tools with one are not offered.
        ParamKind::Function => json!({}),
    }
}

/// Every tool `allowed` accepts that JSON can call, each once, in catalog order.
pub fn gesture_tools(allowed: &dyn Fn(&str) -> bool, finish: Finish) -> Vec<GestureTool> {
    let mut out: Vec<GestureTool> = Vec::new();
    for spec in CATALOG.iter().filter(|t| allowed(t.name) && callable(t, finish)) {
        if out.iter().any(|g| g.name == spec.name) {
            continue;
        }
        let forms: Vec<&ToolSpec> = forms(spec.name, finish).collect();
        let mut properties = Map::new();
        for p in forms.iter().flat_map(|f| f.params) {
            properties.entry(p.name).or_insert_with(|| {
                let mut schema = kind_schema(p.kind);
                if let Value::Object(o) = &mut schema {
                    o.insert("description".into(), Value::String(p.doc.to_string()));
                }
                schema
            });
        }
        // Required: what every form requires.
        let required: Vec<String> = properties
            .keys()
            .filter(|name| forms.iter().all(|f| f.params.iter().any(|p| p.name == name.as_str() && !p.optional)))
            .cloned()
            .collect();
        let description = if forms.len() == 1 {
            format!("{}: {}", spec.signature(), spec.doc)
        } else {
            let each: Vec<String> = forms.iter().map(|f| format!("{}: {}", f.signature(), f.doc)).collect();
            format!("One of: {}", each.join(" | "))
        };
        let mut schema = Map::new();
        schema.insert("type".into(), json!("object"));
        schema.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            schema.insert("required".into(), json!(required));
        }
        schema.insert("additionalProperties".into(), json!(false));
        out.push(GestureTool { name: spec.name.to_string(), description, input_schema: schema, access: spec.access });
    }
    out
}

/// The tools written in Rhai as MCP tools: every parameter required, of any JSON
/// type (passed to Rhai as the value it reads as).
pub fn script_gesture_tools(tools: &ScriptTools) -> Vec<GestureTool> {
    tools
        .tools
        .iter()
        .map(|t| {
            let properties: Map<String, Value> =
                t.params.iter().map(|p| (p.clone(), json!({"description": format!("{p} (any JSON value)")}))).collect();
            let mut schema = Map::new();
            schema.insert("type".into(), json!("object"));
            schema.insert("properties".into(), Value::Object(properties));
            schema.insert("required".into(), json!(t.params));
            schema.insert("additionalProperties".into(), json!(false));
            GestureTool {
                name: t.name.clone(),
                description: format!("{}: {} (written in Rhai)", t.signature(), t.doc),
                input_schema: schema,
                access: Access::Acts,
            }
        })
        .collect()
}

/// The call of the Rhai tool `tool` with `args`, or why there is none.
pub fn script_call(tool: &ScriptTool, args: &Map<String, Value>) -> Result<ToolCall, GestureArgsError> {
    if let Some(unknown) = args.keys().find(|k| !tool.params.contains(k)) {
        let takes = if tool.params.is_empty() { "nothing".to_string() } else { tool.params.join(", ") };
        return Err(GestureArgsError::Unknown { tool: tool.name.clone(), name: unknown.clone(), takes });
    }
    let mut literals = Vec::new();
    for p in &tool.params {
        let Some(value) = args.get(p) else {
            let given = args.keys().cloned().collect::<Vec<_>>().join(", ");
            let given = if given.is_empty() { "none".to_string() } else { given };
            return Err(GestureArgsError::NoForm { tool: tool.name.clone(), given, forms: tool.signature() });
        };
        literals.push(json_arg(&tool.name, p, value)?);
    }
    Ok(ToolCall::of_script_tool(&tool.name, literals))
}

/// The call of `tool` with `args` (JSON, by parameter name): the first form whose
/// parameters cover the names given and whose required ones are all there. Strings
/// become escaped Rhai strings; maps become object maps.
pub fn gesture_call(tool: &str, args: &Map<String, Value>, finish: Finish) -> Result<ToolCall, GestureArgsError> {
    let forms: Vec<&ToolSpec> = forms(tool, finish).collect();
    let takes = || {
        let mut names: Vec<&str> = forms.iter().flat_map(|f| f.params.iter().map(|p| p.name)).collect();
        names.dedup();
        if names.is_empty() { "nothing".to_string() } else { names.join(", ") }
    };
    if let Some(unknown) = args.keys().find(|k| !forms.iter().any(|f| f.params.iter().any(|p| p.name == k.as_str()))) {
        return Err(GestureArgsError::Unknown { tool: tool.into(), name: unknown.clone(), takes: takes() });
    }
    let fits = |f: &&&ToolSpec| {
        args.keys().all(|k| f.params.iter().any(|p| p.name == k.as_str()))
            && f.params.iter().all(|p| p.optional || args.contains_key(p.name))
    };
    let Some(form) = forms.iter().find(fits) else {
        let mut given: Vec<&str> = args.keys().map(String::as_str).collect();
        given.sort_unstable();
        let forms = forms.iter().map(|f| f.signature()).collect::<Vec<_>>().join(", ");
        let given = if given.is_empty() { "none".to_string() } else { given.join(", ") };
        return Err(GestureArgsError::NoForm { tool: tool.into(), given, forms });
    };
    let mut literals = Vec::new();
    // Optional parameters are positional: one left out ends the list.
    for p in form.params {
        let Some(value) = args.get(p.name) else { break };
        let kind_error = |want| GestureArgsError::Kind { tool: tool.into(), name: p.name.into(), want };
        let literal = match (p.kind, value) {
            (ParamKind::Integer, Value::Number(n)) if n.is_i64() => json_arg(tool, p.name, value)?,
            (ParamKind::Integer, _) => return Err(kind_error("an integer")),
            (ParamKind::Coordinate, Value::Number(_)) => json_arg(tool, p.name, value)?,
            (ParamKind::Coordinate, _) => return Err(kind_error("a number (pixels, or a fraction in 0..1)")),
            (ParamKind::Text, Value::String(s)) => Arg::Text(s.clone()),
            (ParamKind::Text, _) => return Err(kind_error("a string")),
            (ParamKind::Boolean, Value::Bool(b)) => Arg::Bool(*b),
            (ParamKind::Boolean, _) => return Err(kind_error("true or false")),
            (ParamKind::Selector | ParamKind::TextOrMap, Value::String(_) | Value::Object(_)) => {
                json_arg(tool, p.name, value)?
            }
            (ParamKind::Selector | ParamKind::TextOrMap, _) => return Err(kind_error("a string or an object")),
            (ParamKind::Function, _) => return Err(kind_error("a function, which JSON cannot carry")),
        };
        literals.push(literal);
    }
    Ok(ToolCall::of_form(form, literals))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn forms_merge_into_one_schema_and_calls_pick_their_form() {
        let tools = gesture_tools(&|_| true, Finish::Left);
        let tap = tools.iter().find(|t| t.name == "tap").unwrap();
        let props = tap.input_schema["properties"].as_object().unwrap();
        assert!(props.contains_key("sel") && props.contains_key("x") && props.contains_key("y"));
        assert!(tap.input_schema.get("required").is_none(), "tap(sel) and tap(x, y) share no required parameter");
        assert!(!tools.iter().any(|t| t.name == "complete"));
        assert_eq!(gesture_call("tap", &args(json!({"sel": "Wi-Fi"})), Finish::Left).unwrap().expr(), "tap(\"Wi-Fi\")");
        assert_eq!(
            gesture_call("tap", &args(json!({"x": 0.5, "y": 300})), Finish::Left).unwrap().expr(),
            "tap(0.5, 300)"
        );
        assert_eq!(gesture_call("tap", &args(json!({"x": 1.0, "y": 2})), Finish::Left).unwrap().expr(), "tap(1.0, 2)");
        assert_eq!(
            gesture_call("tap", &args(json!({"sel": {"id": "send\"); shell(\"rm"}})), Finish::Left).unwrap().expr(),
            "tap(#{\"id\": \"send\\\"); shell(\\\"rm\"})"
        );
        assert_eq!(gesture_call("home", &Map::new(), Finish::Left).unwrap().expr(), "home()");
        let finishing = gesture_tools(&|_| true, Finish::Offered);
        let complete = finishing.iter().find(|t| t.name == "complete").unwrap();
        assert_eq!(complete.input_schema["required"], json!(["success"]));
        let done = args(json!({"success": true, "reason": "Wi-Fi is \"off\""}));
        assert_eq!(
            gesture_call("complete", &done, Finish::Offered).unwrap().expr(),
            "complete(true, \"Wi-Fi is \\\"off\\\"\")"
        );
        assert!(gesture_call("complete", &done, Finish::Left).is_err(), "an MCP client ends nothing");
    }

    #[test]
    fn wrong_arguments_are_named() {
        let e = gesture_call("tap", &args(json!({"sel": "a", "bogus": 1})), Finish::Left).unwrap_err();
        assert!(matches!(e, GestureArgsError::Unknown { .. }), "{e}");
        let e = gesture_call("tap", &args(json!({"x": 1})), Finish::Left).unwrap_err();
        assert!(e.to_string().contains("no form takes these arguments (x)"), "{e}");
        let e = gesture_call("tap", &args(json!({"x": "left", "y": 2})), Finish::Left).unwrap_err();
        assert!(e.to_string().contains("must be a number"), "{e}");
        // Within the JSON reader's depth but past what the emitter writes: refused, named.
        let deep = (0..60).fold(json!("x"), |inner, _| json!({"id": inner}));
        let e = gesture_call("tap", &args(json!({"sel": deep})), Finish::Left).unwrap_err();
        assert_eq!(e, GestureArgsError::TooDeep { tool: "tap".into(), name: "sel".into() });
    }
}
