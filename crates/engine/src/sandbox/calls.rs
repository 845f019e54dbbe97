//! Which functions a parsed script calls that nothing defines — not a tool the
//! session has, not one of the engine's own, not a `fn` of the script — found
//! without running it (`codeact exec --check`). The tool a mistyped name is a slip
//! of is `slip.rs`'s. Calls into imported modules (`m::f()`) and method calls
//! (`s.len()`) are left to the run: what they reach is not known from the script
//! alone.

use std::collections::BTreeSet;

use rhai::{AST, ASTNode, Engine, Expr, Position, Stmt};

use super::error::{ErrorKind, RunError};
use super::session::{Compiled, Sandbox};

/// Functions the engine handles itself, which its list of functions leaves out.
const KEYWORDS: &[&str] = &["print", "debug", "type_of", "Fn", "call", "curry", "is_def_fn", "is_def_var", "is_shared"];

impl Sandbox {
    /// The functions a script may call in a session whose tools are `tools`: those
    /// and the engine's own (read once, for any number of scripts).
    pub fn known_functions(&self, tools: &[&str]) -> Result<BTreeSet<String>, RunError> {
        let engines = self.worker.submit(|s| engine_functions(&s.engine));
        let mut known = engines.map_err(|e| RunError::plain(e.to_string(), ErrorKind::Crashed))?;
        known.extend(tools.iter().map(|t| (*t).to_string()));
        Ok(known)
    }

    /// The calls in `compiled` to functions neither in `known` nor its own.
    pub fn unknown_calls(&self, compiled: &Compiled, known: &BTreeSet<String>) -> Vec<UnknownCall> {
        unknown_calls(&compiled.ast, known)
    }
}

/// A call to a function nothing defines: its name and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownCall {
    pub name: String,
    pub position: Position,
}

/// The names of the engine's own functions (its packages' and those registered on
/// it), from their signatures (`len(string: &str) -> i64`).
pub(super) fn engine_functions(engine: &Engine) -> BTreeSet<String> {
    let mut names: BTreeSet<String> = engine
        .gen_fn_signatures(true)
        .iter()
        .filter_map(|signature| signature.split_once('(').map(|(name, _)| name.trim().to_string()))
        .collect();
    names.extend(KEYWORDS.iter().map(|k| (*k).to_string()));
    names
}

/// The calls in `ast` to a function that is neither in `known` (the session's
/// tools and the engine's functions) nor defined by the script: the top level's
/// first, then those in the script's `fn`s.
pub(super) fn unknown_calls(ast: &AST, known: &BTreeSet<String>) -> Vec<UnknownCall> {
    let defined: BTreeSet<&str> = ast.iter_functions().map(|f| f.name).collect();
    let mut unknown = Vec::new();
    ast.walk(&mut |path: &[ASTNode]| {
        // A call is an expression, or a statement of its own (`tap(1, 2);`).
        let found = match path.last() {
            Some(ASTNode::Expr(Expr::FnCall(call, position))) => Some((call, position)),
            Some(ASTNode::Stmt(Stmt::FnCall(call, position))) => Some((call, position)),
            _ => None,
        };
        if let Some((call, position)) = found
            && !call.is_qualified()
            && call.op_token.is_none()
            && call.name.starts_with(|c: char| c.is_alphabetic() || c == '_')
            && !known.contains(call.name.as_str())
            && !defined.contains(call.name.as_str())
        {
            unknown.push(UnknownCall { name: call.name.to_string(), position: *position });
        }
        true
    });
    unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_nothing_defines_are_found_in_order_and_the_rest_are_not() {
        let engine = Engine::new();
        let ast = engine
            .compile("fn mine(x) { tapp(x) }\nlet n = len(\"ab\") + 1;\nprint(n);\nmine(1);\ntap(1, 2);\nzoom();\n\"a\".len();")
            .expect("parses");
        let mut known = engine_functions(&engine);
        known.insert("tap".into());
        let unknown: Vec<(String, Option<usize>)> =
            unknown_calls(&ast, &known).into_iter().map(|c| (c.name, c.position.line())).collect();
        assert_eq!(unknown, [("zoom".to_string(), Some(6)), ("tapp".to_string(), Some(1))]);
    }
}
