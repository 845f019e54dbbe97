//! `codeact exec` as a library: scripts read and checked, each run in a fresh
//! session state on one of one or more devices with the caller's variables, each
//! with its own trajectory when asked, each judged as a test
//! ([`Verdict`](codeact_record::trajectory::junit::Verdict)), every print and
//! action told to a listener as it happens. The CLI prints the events
//! and writes JUnit from the reports; nothing here prints.

use rhai::Dynamic;

mod attempt;
mod error;
mod evidence;
mod exec_request;
pub mod heal;
mod patch;
pub mod steps;
mod subflows;
pub mod suite;
mod vocab;
mod workers;
pub use error::ScriptError;
pub use exec_request::{ExecOutcome, ExecRequest, run_suite};
pub use subflows::{SubflowError, collect as modules_imported_by};
pub use suite::{read_scripts, suite_folder};
pub use vocab::{ExecEvent, ExecOptions, Listener, Report, Script};
pub use workers::{SessionOpener, run_scripts};

use codeact_engine::sandbox::{ErrorKind, Limits, RunError, Sandbox};

/// `--var KEY=VALUE` items as typed variables (numbers and true/false are typed).
pub fn parse_vars(vars: &[String]) -> Result<Vec<(String, Dynamic)>, ScriptError> {
    vars.iter()
        .map(|var| {
            let (key, value) = var.split_once('=').ok_or_else(|| ScriptError::VarNotKeyValue(var.clone()))?;
            if !codeact_engine::sandbox::is_variable_name(key) {
                return Err(ScriptError::VarName { var: var.clone(), key: key.to_string() });
            }
            Ok((key.to_string(), typed_value(value)))
        })
        .collect()
}

/// A `--var KEY=VALUE` value typed as a script expects: whole numbers, decimals and
/// true/false are typed, anything else is a string.
fn typed_value(value: &str) -> Dynamic {
    match value {
        "true" => Dynamic::from(true),
        "false" => Dynamic::from(false),
        v => v
            .parse::<i64>()
            .map(Dynamic::from)
            .ok()
            .or_else(|| v.parse::<f64>().ok().filter(|f| f.is_finite()).map(Dynamic::from))
            .unwrap_or_else(|| Dynamic::from(v.to_string())),
    }
}

/// Checks each script without running it (no device): that it parses, and that
/// every function it calls exists — a tool of `persona` (every tool without one),
/// one of the engine's, or one the script defines. The first error, per script.
pub fn check(
    scripts: &[Script],
    limits: &Limits,
    persona: Option<&codeact_runtime::persona::Persona>,
) -> Result<Vec<Option<RunError>>, ScriptError> {
    let tools: Vec<&str> = codeact_tools::names().into_iter().filter(|t| persona.is_none_or(|p| p.allows(t))).collect();
    let mut builder = Sandbox::builder(limits.clone())?;
    for tool in codeact_tools::names() {
        builder.protect(tool);
    }
    let sandbox = builder.start(String::new())?;
    let known = sandbox.known_functions(&tools);
    let first_error = |script: &Script| {
        let compiled = match sandbox.compile(&script.code) {
            Ok(compiled) => compiled,
            Err(e) => return Some(e),
        };
        let known = match &known {
            Ok(known) => known,
            Err(e) => return Some(e.clone()),
        };
        let calls = sandbox.unknown_calls(&compiled, known);
        let call = calls.first()?;
        let message = match codeact_engine::sandbox::near(&call.name, tools.iter().copied()) {
            Some(near) => format!("Function not found: {}; did you mean {near}()?", call.name),
            None => format!("Function not found: {}; the functions this session has: {}", call.name, tools.join(", ")),
        };
        Some(RunError::at(message, ErrorKind::Script, call.position, &script.code))
    };
    Ok(scripts.iter().map(first_error).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_are_typed_and_named_properly() {
        let vars = parse_vars(&["name=张三".into(), "count=3".into(), "on=true".into()]).unwrap();
        assert_eq!(vars[0].1.clone().into_string().ok().as_deref(), Some("张三"));
        assert_eq!(vars[1].1.as_int(), Ok(3));
        assert_eq!(vars[2].1.as_bool(), Ok(true));
        for bad in ["2x=1", "变量=2", "let=1", "fn=1", "_=1", "a-b=1", "a b=1", "=1", "x;y=1"] {
            assert!(matches!(parse_vars(&[bad.into()]), Err(ScriptError::VarName { .. })), "{bad}");
        }
        assert!(parse_vars(&["_count=1".into(), "x2=1".into()]).is_ok());
        assert!(matches!(parse_vars(&["novalue".into()]), Err(ScriptError::VarNotKeyValue(_))));
    }
}
