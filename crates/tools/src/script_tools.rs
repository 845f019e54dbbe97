//! Tools written in Rhai: the files a persona or `codeact.toml` names in
//! `tools_from`, whose public functions with a `///` doc comment become tools of
//! the session — listed with that doc in the prompt, `codeact tools`, the REPL's
//! help and MCP, protected from redefinition like the built-in ones, and run in the
//! sandbox under the snippet's limits, calling only the built-in tools the persona
//! allows. This module reads and checks the files; the sandbox loads them
//! (`Sandbox::set_tools`). Not here: the built-in catalog (`catalog/`).

use std::path::{Path, PathBuf};

use super::CATALOG;

/// The largest tools file read.
pub const MAX_TOOLS_FILE: usize = 256 * 1024;
/// At most this many tools in a session's files together.
pub const MAX_SCRIPT_TOOLS: usize = 64;

/// One tool a Rhai file defines.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ScriptTool {
    pub name: String,
    pub params: Vec<String>,
    /// Its doc comment, one line.
    pub doc: String,
    /// The file that defines it.
    pub file: PathBuf,
}

impl ScriptTool {
    /// `checkout(item, qty)`.
    pub fn signature(&self) -> String {
        format!("{}({})", self.name, self.params.join(", "))
    }
}

/// The tools files of a session, read and checked: the tools and each file's source.
#[derive(Debug, Clone, Default)]
pub struct ScriptTools {
    pub tools: Vec<ScriptTool>,
    /// (file name as given, source), in the order given.
    pub sources: Vec<(String, String)>,
}

impl ScriptTools {
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Whether `name` is one of these tools.
    pub fn has(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t.name == name)
    }

    /// The tools as the prompt lists them: `- name(a, b): doc`.
    pub fn describe(&self) -> String {
        self.tools.iter().map(|t| format!("- {}: {}\n", t.signature(), t.doc)).collect()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ScriptToolError {
    #[error("cannot read the tools file {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the tools file {path} does not parse: {message}")]
    Syntax { path: PathBuf, message: String },
    #[error(
        "{path}: fn {name} has no /// doc comment: document it to make it a tool (the doc is what the model reads), or declare it `private fn {name}` to keep it a helper"
    )]
    Undocumented { path: PathBuf, name: String },
    #[error("{path}: fn {name} would replace the built-in tool {name}(); give it another name")]
    BuiltIn { path: PathBuf, name: String },
    #[error("{path}: the tool {name} is defined in {other} too; keep one")]
    Twice { path: PathBuf, name: String, other: PathBuf },
    #[error("{path}: fn {name} is defined twice in the file; Rhai tools have one form each")]
    Overloaded { path: PathBuf, name: String },
    #[error("the tools files define more than {MAX_SCRIPT_TOOLS} tools; split them across personas")]
    TooMany,
}

/// The doc comment's text: `///` lines without their marks, joined into one line.
fn doc_text(comments: &[&str]) -> String {
    // Rhai hands consecutive `///` lines over as one comment.
    let lines: Vec<&str> = comments
        .iter()
        .flat_map(|c| c.lines())
        .filter_map(|c| c.trim_start().strip_prefix("///"))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines.join(" ")
}

/// Where `fn name(` first stands in `source` (the end when it cannot be found).
fn defined_at(source: &str, name: &str) -> usize {
    let pattern = format!(r"\bfn\s+{}\s*\(", regex::escape(name));
    regex::Regex::new(&pattern).ok().and_then(|re| re.find(source)).map_or(source.len(), |m| m.start())
}

/// Reads the files at `paths` (each relative to `base` when not absolute).
pub fn load(paths: &[String], base: Option<&Path>) -> Result<ScriptTools, ScriptToolError> {
    let mut out = ScriptTools::default();
    let engine = rhai::Engine::new_raw();
    for given in paths {
        let path = match base {
            Some(base) if Path::new(given).is_relative() => base.join(given),
            _ => PathBuf::from(given),
        };
        let source = codeact_base::files::read_text(&path, MAX_TOOLS_FILE)
            .map_err(|source| ScriptToolError::Read { path: path.clone(), source })?;
        let ast = engine
            .compile(&source)
            .map_err(|e| ScriptToolError::Syntax { path: path.clone(), message: e.to_string() })?;
        let mut names_here: Vec<String> = Vec::new();
        // Rhai keeps a file's functions unordered: they are listed as the file has them.
        let mut functions: Vec<_> = ast.iter_functions().collect();
        functions.sort_by_key(|f| defined_at(&source, f.name));
        for f in functions {
            if f.access == rhai::FnAccess::Private {
                continue;
            }
            let name = f.name.to_string();
            let doc = doc_text(&f.comments);
            if doc.is_empty() {
                return Err(ScriptToolError::Undocumented { path, name });
            }
            if CATALOG.iter().any(|t| t.name == name) || name == "sleep" {
                return Err(ScriptToolError::BuiltIn { path, name });
            }
            if names_here.contains(&name) {
                return Err(ScriptToolError::Overloaded { path, name });
            }
            if let Some(other) = out.tools.iter().find(|t| t.name == name) {
                return Err(ScriptToolError::Twice { path, name, other: other.file.clone() });
            }
            names_here.push(name.clone());
            let params = f.params.iter().map(|p| p.to_string()).collect();
            out.tools.push(ScriptTool { name, params, doc, file: path.clone() });
            if out.tools.len() > MAX_SCRIPT_TOOLS {
                return Err(ScriptToolError::TooMany);
            }
        }
        out.sources.push((given.clone(), source));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("codeact-script-tools-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn documented_public_functions_are_tools_and_private_ones_helpers() {
        let path = file(
            "ok.rhai",
            "/// Turns Wi-Fi off\n/// and checks it.\nfn wifi_off() { helper(1) }\n\n\
             /// Adds a note.\nfn add_note(title, body) { title + body }\n\nprivate fn helper(x) { x }\n",
        );
        let tools = load(&[path.display().to_string()], None).unwrap();
        let names: Vec<String> = tools.tools.iter().map(ScriptTool::signature).collect();
        assert_eq!(names, ["wifi_off()", "add_note(title, body)"]);
        assert_eq!(tools.tools[0].doc, "Turns Wi-Fi off and checks it.");
        // However Rhai keeps them, tools are listed in the file's order.
        let many: String = (0..12).rev().map(|i| format!("/// Tool {i}.\nfn t{i}() {{ {i} }}\n")).collect();
        let path = file("many.rhai", &many);
        let names: Vec<String> =
            load(&[path.display().to_string()], None).unwrap().tools.into_iter().map(|t| t.name).collect();
        let want: Vec<String> = (0..12).rev().map(|i| format!("t{i}")).collect();
        assert_eq!(names, want);
        assert!(tools.describe().contains("- add_note(title, body): Adds a note.\n"));
    }

    #[test]
    fn what_cannot_be_a_tool_is_refused_with_the_fix() {
        let cases = [
            ("undoc.rhai", "fn helper() { 1 }", "no /// doc comment"),
            ("builtin.rhai", "/// Taps.\nfn tap(x) { x }", "built-in tool tap()"),
            ("twice.rhai", "/// A.\nfn a() { 1 }\n/// A again.\nfn a(x) { x }", "defined twice"),
            ("syntax.rhai", "/// Broken.\nfn a( { ", "does not parse"),
        ];
        for (name, text, says) in cases {
            let path = file(name, text);
            let e = load(&[path.display().to_string()], None).unwrap_err().to_string();
            assert!(e.contains(says), "{name}: {e}");
        }
        let e = load(&["no/such/file.rhai".into()], None).unwrap_err();
        assert!(matches!(e, ScriptToolError::Read { .. }));
    }
}
