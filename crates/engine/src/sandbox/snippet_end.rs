//! How a snippet's end becomes a [`RunError`], on the worker thread: a parse that
//! would let a `fn` take a tool's name is refused; an error gets its line, column and
//! source line (in a kept `fn`'s own source when it came from one), its kind (syntax,
//! script, limit, cancelled, a tool's typed failure), and for a call with the wrong
//! arguments the tool's documented forms. Not running the snippet (`mod.rs`).

use std::collections::HashMap;
use std::sync::Arc;

use rhai::{AST, Dynamic, Engine, EvalAltResult};

use super::error::{self, ErrorKind, Limit, RunError};
use super::limits::Limits;
use super::shared::{STOP_COMPLETE, STOP_OPERATIONS, STOP_TIMEOUT, Shared};

/// Turns the error a snippet ended with into a [`RunError`] (on the worker thread).
pub(super) struct Judge {
    pub(super) shared: Arc<Shared>,
    pub(super) limits: Limits,
    pub(super) function_hint: String,
    /// Functions a script may not define (the tools, `sleep`).
    pub(super) protected: std::collections::BTreeSet<String>,
    /// Each tool's documented forms.
    pub(super) forms: std::collections::BTreeMap<String, Vec<String>>,
}

impl Judge {
    /// Parses `code`, refusing a `fn` that would take a tool's name: it would
    /// replace the tool for the rest of the session (a script's own `complete` would
    /// make the agent's never end a run).
    pub(super) fn parse(&self, engine: &Engine, code: &str) -> Result<AST, RunError> {
        let ast = engine.compile(code).map_err(|e| RunError::syntax(&e, code))?;
        let shadowed = ast.iter_functions().find(|f| self.protected.contains(f.name)).map(|f| f.name.to_string());
        match shadowed {
            None => Ok(ast),
            Some(name) => Err(shadowing(&name, code)),
        }
    }

    pub(super) fn error(
        &self,
        e: &EvalAltResult,
        code: &str,
        fn_sources: &HashMap<String, Arc<str>>,
    ) -> Option<RunError> {
        let inner = e.unwrap_inner();
        let l = &self.limits;
        let (message, kind) = match inner {
            EvalAltResult::ErrorTerminated(token, _) if token.to_string() == STOP_COMPLETE => return None,
            EvalAltResult::ErrorTerminated(token, _) if token.to_string() == STOP_TIMEOUT => {
                if self.shared.cancelled() {
                    ("the snippet was cancelled".to_string(), ErrorKind::Cancelled)
                } else {
                    (
                        format!("the snippet ran past its time limit of {:.1} s", l.timeout().as_secs_f64()),
                        ErrorKind::Limit { limit: Limit::Time },
                    )
                }
            }
            EvalAltResult::ErrorTooManyOperations(_) => (
                format!("the snippet exceeded {} operations (an endless loop?)", l.max_operations),
                ErrorKind::Limit { limit: Limit::Operations },
            ),
            EvalAltResult::ErrorTerminated(token, _) if token.to_string() == STOP_OPERATIONS => (
                format!("the snippet exceeded {} operations (an endless loop?)", l.max_operations),
                ErrorKind::Limit { limit: Limit::Operations },
            ),
            EvalAltResult::ErrorStackOverflow(_) => (
                format!("calls nested deeper than {} levels (endless recursion?)", l.max_call_levels),
                ErrorKind::Limit { limit: Limit::CallDepth },
            ),
            EvalAltResult::ErrorDataTooLarge(what, _) => (
                format!(
                    "{what} grew past its limit (strings {} bytes, arrays {} items, maps {} entries)",
                    l.max_string_size, l.max_array_size, l.max_map_size
                ),
                ErrorKind::Limit { limit: Limit::Size },
            ),
            EvalAltResult::ErrorFunctionNotFound(signature, _) => {
                let plain = || error::plain_types(&error::strip_position(&inner.to_string()));
                let message = match (self.wrong_arguments(signature), self.near_tool(signature)) {
                    (Some(forms), _) => forms,
                    (None, Some(near)) => format!("{}; did you mean {near}()?", plain()),
                    (None, None) if self.function_hint.is_empty() => plain(),
                    (None, None) => format!("{}; {}", plain(), self.function_hint),
                };
                (message, ErrorKind::Script)
            }
            EvalAltResult::ErrorRuntime(value, _) => {
                (error::strip_position(&inner.to_string()), self.host_failure(value).unwrap_or(ErrorKind::Script))
            }
            other => (error::plain_types(&error::strip_position(&other.to_string())), ErrorKind::Script),
        };
        // Inside functions: the innermost line, in the source that defined the
        // function, and the calls that led there.
        let chain = call_chain(e);
        let Some((deepest, _)) = chain.last() else {
            let pos = if e.position().is_none() { inner.position() } else { e.position() };
            return Some(RunError::at(message, kind, pos, code));
        };
        let mut trail = Vec::new();
        for (i, (name, at)) in chain.iter().enumerate().rev() {
            let from = if i == 0 { String::new() } else { format!(" in {}()", chain[i - 1].0) };
            trail.push(format!("{name}() was called at line {}{from}", at.line().unwrap_or(0)));
        }
        let body = fn_sources.get(deepest).map_or(code, |s| &**s);
        let earlier =
            if std::ptr::eq(body, code) || body == code { "" } else { ", a function from an earlier snippet" };
        let message = format!("{message} [in {deepest}(){earlier}; {}]", trail.join(", "));
        if inner.position().is_none() {
            return Some(RunError::at(message, kind, e.position(), code));
        }
        Some(RunError::at(message, kind, inner.position(), body))
    }

    /// A tool called with arguments it has no form for (`tap (string, string, string)`,
    /// as Rhai names the call), in the catalog's words.
    fn wrong_arguments(&self, signature: &str) -> Option<String> {
        let (name, given) = signature.split_once(" (")?;
        let forms = self.forms.get(name)?;
        let given = error::plain_types(given.strip_suffix(')').unwrap_or(given));
        let given = if given.trim().is_empty() { "no arguments".to_string() } else { format!("({given})") };
        Some(format!("{name}() cannot take {given}; use {}", forms.join(" or ")))
    }

    /// The session's tool the unknown function in `signature` is a slip of.
    fn near_tool(&self, signature: &str) -> Option<&str> {
        let name = signature.split_once(" (").map_or(signature, |(name, _)| name).trim();
        super::slip::near(name, self.forms.keys().map(String::as_str))
    }

    /// The tool failure `value` is, when it is the very error a tool raised (or a
    /// re-throw of it).
    fn host_failure(&self, value: &Dynamic) -> Option<ErrorKind> {
        let failure = self.shared.failure()?;
        let thrown = value.clone().into_immutable_string().ok()?;
        thrown.ptr_eq(&failure.message).then_some(ErrorKind::Tool { tool: failure.tool, failure: failure.kind })
    }
}

/// The error for a `fn` named like a tool, at its definition.
fn shadowing(name: &str, code: &str) -> RunError {
    let message = format!(
        "`fn {name}` would replace the tool {name}(), which scripts cannot redefine; give your function another name"
    );
    let pattern = format!(r"\bfn\s+{}\s*\(", regex::escape(name));
    let found = regex::Regex::new(&pattern).ok().and_then(|re| re.find(code));
    let mut e = RunError::plain(message, ErrorKind::Syntax);
    if let Some(m) = found {
        let before = &code[..m.start()];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        e.line = Some(line);
        e.column = Some(code[line_start..m.start()].chars().count() + 1);
        e.source_line = code[line_start..].lines().next().map(str::to_string);
    }
    e
}

/// The functions an error passed through, outermost first, each with the position
/// it was called at (in its caller).
fn call_chain(e: &EvalAltResult) -> Vec<(String, rhai::Position)> {
    let mut chain = Vec::new();
    let mut current = e;
    while let EvalAltResult::ErrorInFunctionCall(name, _, inner, at) = current {
        chain.push((name.clone(), *at));
        current = inner;
    }
    chain
}
