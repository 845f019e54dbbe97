//! Judges: a Rhai expression per template, run in an engine of its own that has no
//! device tools, no `eval`, no `import` and tight limits. It reads `state` (the
//! phone's `simctl state` after the run), `initial` (the state after set-up),
//! `params`, `answer` (the agent's `answer(text)`, or `()`), `done` (it called
//! `complete(true)`) and `screen` (the final screen as text), and returns `true`,
//! `false` or a score in 0..1 (partial credit). Helpers compare loosely so a judge
//! reads as what it checks: `same`, `has`, `digits`, `num`, `same_number`, `int`,
//! `score`.

use rhai::{Array, Dynamic, Engine, Map, Scope};
use serde_json::Value;

/// Why a judge (or a parameter's `expr`) gave no score.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    #[error("{0}")]
    Script(String),
    #[error("it returned {0}; return true/false or a number between 0 and 1")]
    NotAScore(String),
}

/// What a judge sees.
pub struct Evidence<'a> {
    pub state: &'a Value,
    pub initial: &'a Value,
    pub params: &'a serde_json::Map<String, Value>,
    pub answer: Option<&'a str>,
    pub done: bool,
    pub screen: &'a str,
}

fn engine() -> Engine {
    let mut engine = Engine::new();
    engine.set_max_operations(2_000_000);
    engine.set_max_string_size(1 << 20);
    // Values nest at most as deep as these allow: see `on_judge_stack`.
    engine.set_max_array_size(20_000);
    engine.set_max_map_size(20_000);
    engine.set_max_expr_depths(64, 32);
    engine.set_max_call_levels(32);
    engine.disable_symbol("eval");
    engine.set_module_resolver(rhai::module_resolvers::DummyModuleResolver::new());
    // Operations are counted, but a size check under limits costs as much as the
    // value is deep: the clock bounds what the count cannot.
    let started = std::time::Instant::now();
    engine.on_progress(move |_| (started.elapsed() > JUDGE_TIME).then(|| "the judge ran past its 5 s".into()));
    engine.on_print(|_| {});
    engine.on_debug(|_, _, _| {});
    engine.register_fn("norm", |v: Dynamic| norm(&text(&v)));
    engine.register_fn("same", |a: Dynamic, b: Dynamic| {
        let (a, b) = (norm(&text(&a)), norm(&text(&b)));
        !b.is_empty() && a == b
    });
    engine.register_fn("has", |a: Dynamic, b: Dynamic| {
        let (a, b) = (norm(&text(&a)), norm(&text(&b)));
        !b.is_empty() && a.contains(&b)
    });
    engine.register_fn("digits", |v: Dynamic| text(&v).chars().filter(char::is_ascii_digit).collect::<String>());
    engine.register_fn("num", |v: Dynamic| number(&text(&v)).map_or(Dynamic::UNIT, Dynamic::from_float));
    engine.register_fn("same_number", |a: Dynamic, b: Dynamic| match (number(&text(&a)), number(&text(&b))) {
        (Some(a), Some(b)) => (a - b).abs() < 0.005,
        _ => false,
    });
    engine.register_fn("int", |v: Dynamic| -> i64 {
        if let Ok(i) = v.as_int() {
            return i;
        }
        if let Ok(f) = v.as_float() {
            return f as i64;
        }
        text(&v).trim().parse().unwrap_or(0)
    });
    engine.register_fn("text", |v: Dynamic| text(&v));
    engine.register_fn("score", |parts: Array| {
        if parts.is_empty() {
            return 0.0;
        }
        parts.iter().filter(|p| p.as_bool().unwrap_or(false)).count() as f64 / parts.len() as f64
    });
    engine
}

/// A judge's error as it is reported: the deadline by name.
fn script_error(e: &rhai::EvalAltResult) -> JudgeError {
    match e {
        rhai::EvalAltResult::ErrorTerminated(..) => {
            JudgeError::Script(format!("it ran past its {} s", JUDGE_TIME.as_secs()))
        }
        e => JudgeError::Script(e.to_string()),
    }
}

/// The longest a judge (or a parameter's `expr`) may run.
const JUDGE_TIME: std::time::Duration = std::time::Duration::from_secs(5);

/// A value as text; `()` is empty.
fn text(v: &Dynamic) -> String {
    if v.is_unit() { String::new() } else { v.to_string() }
}

/// Lowercase words of letters and digits, single-spaced: "  Bob's  number. " → "bob s number".
pub fn norm(s: &str) -> String {
    s.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

/// The first number in a text ("$12.50" → 12.5, "3 items" → 3).
fn number(s: &str) -> Option<f64> {
    let start = s.find(|c: char| c.is_ascii_digit())?;
    let negative = s[..start].ends_with('-');
    let digits: String = s[start..].chars().take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',').collect();
    let n: f64 = digits.replace(',', "").trim_end_matches('.').parse().ok()?;
    Some(if negative { -n } else { n })
}

/// Whether a judge parses.
pub fn check(judge: &str) -> Result<(), JudgeError> {
    engine().compile(judge).map(|_| ()).map_err(|e| JudgeError::Script(e.to_string()))
}

/// The stack judges run on: the values a judge builds (a map in a map in a map…)
/// nest as deep as the size limits allow, and Rhai clones, measures, prints and
/// drops them one level per frame.
const JUDGE_STACK: usize = 64 << 20;

/// Runs `work` on a thread with [`JUDGE_STACK`]: a judge comes from a task file,
/// and what it builds must not end the process that runs the suite.
fn on_judge_stack<T: Send>(work: impl FnOnce() -> Result<T, JudgeError> + Send) -> Result<T, JudgeError> {
    std::thread::scope(|s| {
        match std::thread::Builder::new().name("codeact-judge".into()).stack_size(JUDGE_STACK).spawn_scoped(s, work) {
            Ok(judge) => judge.join().unwrap_or_else(|_| Err(JudgeError::Script("the judge's engine failed".into()))),
            Err(e) => Err(JudgeError::Script(format!("cannot start a thread for the judge: {e}"))),
        }
    })
}

/// The score `judge` gives this evidence, in 0..=1.
pub fn score(judge: &str, evidence: &Evidence) -> Result<f64, JudgeError> {
    on_judge_stack(|| score_here(judge, evidence))
}

fn score_here(judge: &str, evidence: &Evidence) -> Result<f64, JudgeError> {
    let mut scope = Scope::new();
    scope.push_constant("state", to_dynamic(evidence.state));
    scope.push_constant("initial", to_dynamic(evidence.initial));
    scope.push_constant("params", to_dynamic(&Value::Object(evidence.params.clone())));
    scope.push_constant("answer", evidence.answer.map_or(Dynamic::UNIT, |a| Dynamic::from(a.to_string())));
    scope.push_constant("done", evidence.done);
    scope.push_constant("screen", evidence.screen.to_string());
    let result = engine().eval_with_scope::<Dynamic>(&mut scope, judge).map_err(|e| script_error(&e))?;
    if let Ok(b) = result.as_bool() {
        return Ok(if b { 1.0 } else { 0.0 });
    }
    if let Ok(i) = result.as_int() {
        return Ok((i as f64).clamp(0.0, 1.0));
    }
    if let Ok(f) = result.as_float()
        && f.is_finite()
    {
        return Ok(f.clamp(0.0, 1.0));
    }
    Err(JudgeError::NotAScore(format!("{} {}", result.type_name(), text(&result))))
}

/// A parameter's `expr`: a value computed from the parameters drawn before it and
/// the phone's first state.
pub fn compute(expr: &str, params: &serde_json::Map<String, Value>, initial: &Value) -> Result<Value, JudgeError> {
    on_judge_stack(|| {
        let mut scope = Scope::new();
        scope.push_constant("params", to_dynamic(&Value::Object(params.clone())));
        scope.push_constant("initial", to_dynamic(initial));
        let value = engine().eval_with_scope::<Dynamic>(&mut scope, expr).map_err(|e| script_error(&e))?;
        let json = to_json(&value);
        if json_depth(&json) > JSON_DEPTH {
            return Err(JudgeError::NotAScore(format!("a value nested more than {JSON_DEPTH} deep")));
        }
        Ok(json)
    })
}

/// The deepest a computed parameter may nest (it is kept as JSON, and JSON readers
/// stop at 128).
const JSON_DEPTH: usize = 64;

/// How deep `v` nests, counted without recursion.
fn json_depth(v: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(v, 0usize)];
    while let Some((v, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|i| (i, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|i| (i, depth + 1))),
            _ => {}
        }
    }
    deepest
}

/// JSON as Rhai values (whole numbers as integers).
pub fn to_dynamic(v: &Value) -> Dynamic {
    match v {
        Value::Null => Dynamic::UNIT,
        Value::Bool(b) => Dynamic::from(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Dynamic::from(i),
            None => Dynamic::from_float(n.as_f64().unwrap_or(0.0)),
        },
        Value::String(s) => Dynamic::from(s.clone()),
        Value::Array(items) => Dynamic::from_array(items.iter().map(to_dynamic).collect()),
        Value::Object(map) => {
            let mut m = Map::new();
            for (k, v) in map {
                m.insert(k.as_str().into(), to_dynamic(v));
            }
            Dynamic::from_map(m)
        }
    }
}

/// Rhai values as JSON (anything else as its text).
pub fn to_json(v: &Dynamic) -> Value {
    if v.is_unit() {
        return Value::Null;
    }
    if let Ok(b) = v.as_bool() {
        return Value::Bool(b);
    }
    if let Ok(i) = v.as_int() {
        return Value::from(i);
    }
    if let Ok(f) = v.as_float() {
        return serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number);
    }
    if let Some(items) = v.read_lock::<Array>() {
        return Value::Array(items.iter().map(to_json).collect());
    }
    if let Some(map) = v.read_lock::<Map>() {
        return Value::Object(map.iter().map(|(k, v)| (k.to_string(), to_json(v))).collect());
    }
    Value::String(v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge(code: &str, state: Value, answer: Option<&str>) -> Result<f64, JudgeError> {
        let params = serde_json::json!({"who": {"name": "Bob Smith", "phone": "+1 212-555-0105"}});
        let params = params.as_object().cloned().unwrap_or_default();
        let evidence = Evidence { state: &state, initial: &state, params: &params, answer, done: true, screen: "" };
        score(code, &evidence)
    }

    #[test]
    fn judges_score_loosely_and_refuse_what_is_not_a_score() {
        let state = serde_json::json!({"settings": {"wifi": false}, "notes": [{"title": "A"}, {"title": "B"}]});
        assert_eq!(judge("!state.settings.wifi", state.clone(), None).unwrap(), 1.0);
        assert_eq!(judge("score([true, false, state.notes.len() == 2, false])", state.clone(), None).unwrap(), 0.5);
        assert_eq!(
            judge("digits(answer) == digits(params.who.phone)", state.clone(), Some("(212) 555-0105 +1")).unwrap(),
            0.0
        );
        assert_eq!(
            judge("digits(answer) == digits(params.who.phone)", state.clone(), Some("+1 212 555 0105")).unwrap(),
            1.0
        );
        assert_eq!(judge("same(answer, \"bob smith\")", state.clone(), Some("Bob  Smith.")).unwrap(), 1.0);
        assert_eq!(judge("same(answer, \"bob smith\")", state.clone(), None).unwrap(), 0.0);
        assert_eq!(judge("same_number(answer, 12.5)", state.clone(), Some("$12.50")).unwrap(), 1.0);
        assert!(matches!(judge("\"yes\"", state.clone(), None), Err(JudgeError::NotAScore(_))));
        assert!(matches!(judge("loop {}", state.clone(), None), Err(JudgeError::Script(_))));
        assert!(matches!(judge("eval(\"1\")", state, None), Err(JudgeError::Script(_))));
    }
}
