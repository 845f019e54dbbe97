//! Maestro flows in codeact: a flow file (`appId`, `name`, `tags`, `env`,
//! `onFlowStart`/`onFlowComplete`, `---`, then its commands) translated into a Rhai
//! script that `codeact exec` runs like any other, in the same sandbox
//! (`codeact convert flow.yaml` prints it); `runFlow` files are read from the
//! flow's folder tree or the working directory, and inlined. A command or key
//! codeact cannot honour is an error naming it and its line, never skipped. The
//! way back, a run's actions as a flow, is `export.rs`. Not a Maestro runtime.

mod budget;
mod commands;
mod error;
pub mod export;
mod selectors;
mod yaml;

use std::path::{Path, PathBuf};

use commands::{Context, FlowFiles, flow_body};
pub use error::FlowError;
use yaml::{FlowFile, Node, Value};

/// The most a flow file may hold.
const FLOW_BYTES: usize = 1024 * 1024;

/// A flow as a script.
#[derive(Debug, Clone)]
pub struct Converted {
    pub script: String,
    /// The config's `tags`.
    pub tags: Vec<String>,
    /// The config's `name`.
    pub name: Option<String>,
    /// The files `takeScreenshot` writes, by the name its `screenshot` call takes.
    pub screenshots: Vec<(String, String)>,
}

/// Whether `path` names a flow (`.yaml` or `.yml`).
pub fn is_flow(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"))
}

/// Flows read from disk, below the roots only.
struct Disk {
    roots: Vec<PathBuf>,
}

impl FlowFiles for Disk {
    fn read(&self, from: &Path, name: &str, line: usize) -> Result<(PathBuf, FlowFile), FlowError> {
        let outside = || FlowError::Outside { line, name: name.to_string() };
        if Path::new(name).is_absolute() || name.contains('\\') {
            return Err(outside());
        }
        let path = from.join(name);
        let real = path.canonicalize().map_err(|source| FlowError::Read {
            line,
            name: name.to_string(),
            path: path.clone(),
            source,
        })?;
        if !self.roots.iter().any(|r| real.starts_with(r)) {
            return Err(outside());
        }
        let text = codeact_base::files::read_text(&real, FLOW_BYTES).map_err(|source| FlowError::Read {
            line,
            name: name.to_string(),
            path: path.clone(),
            source,
        })?;
        let flow =
            yaml::read_flow(&text).map_err(|e| FlowError::InFlow { path: path.clone(), line, inner: Box::new(e) })?;
        Ok((real, flow))
    }
}

/// The tags of a config: a list, or one text.
fn tags(config: Option<&Node>) -> Vec<String> {
    match config.and_then(|c| c.get("tags")).map(|t| &t.value) {
        Some(Value::List(items)) => items.iter().filter_map(Node::text).map(str::to_lowercase).collect(),
        Some(Value::Text(one)) => one.split(',').map(|t| t.trim().to_lowercase()).filter(|t| !t.is_empty()).collect(),
        _ => Vec::new(),
    }
}

/// Translates the flow in `text` (read from `path`) into a Rhai script.
pub fn convert(path: &Path, text: &str) -> Result<Converted, FlowError> {
    let flow = yaml::read_flow(text)?;
    if flow.commands.is_empty() {
        return Err(FlowError::NoCommands);
    }
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let dir = folder.canonicalize().unwrap_or_else(|_| folder.to_path_buf());
    let mut roots = vec![dir.clone()];
    if let Ok(cwd) = std::env::current_dir().and_then(|d| d.canonicalize()) {
        roots.push(cwd);
    }
    let files = Disk { roots };
    let config = flow.config.as_ref();
    let app_id = config.and_then(|c| c.get("appId")).and_then(Node::text).map(str::to_string);
    let name = config.and_then(|c| c.get("name")).and_then(Node::text).map(str::to_string);
    let tags = tags(config);
    let mut names = Vec::new();
    let budget = commands::Budget::default();
    let mut cx = Context { app_id: app_id.clone(), names: &mut names, files: &files, dir, budget: &budget, file: None };
    let body = flow_body(&flow, &mut cx, "", 0)?;
    names.sort_unstable();
    names.dedup();
    let defined = defined_names(&body);
    use codeact_engine::emit::rhai::{comment, string};
    let mut script =
        comment(&format!("A Maestro flow, as codeact runs it (`codeact convert` prints this): {}", path.display()));
    script.push('\n');
    if let Some(name) = &name {
        script.push_str(&comment(&format!("name: {name}")));
        script.push('\n');
    }
    if let Some(app) = &app_id {
        script.push_str(&comment(&format!("appId: {app}")));
        script.push('\n');
    }
    if !tags.is_empty() {
        script.push_str(&codeact_engine::emit::rhai::tags_comment(&tags));
    }
    script.push('\n');
    // A variable no env defines must come from the command line.
    for needed in names.iter().filter(|n| !defined.contains(n.as_str())) {
        let why = format!("the flow reads ${{{needed}}}: give it with --var {needed}=VALUE or under env:");
        script.push_str(&format!("if !is_def_var({}) {{ throw {}; }}\n", string(needed), string(&why)));
    }
    script.push_str(&body);
    let screenshots = budget.screenshots.take();
    Ok(Converted { script, tags, name, screenshots })
}

/// The variables `body` defines at the start of a line (`let NAME = `), read once.
fn defined_names(body: &str) -> std::collections::HashSet<&str> {
    body.lines()
        .filter_map(|l| l.trim_start().strip_prefix("let "))
        .filter_map(|rest| rest.split_once(" = ").map(|(name, _)| name))
        .collect()
}

/// A command marker the translation writes (`// line N: tapOn`, `// line N of
/// FILE: tapOn` for an inlined flow's): its file, its line.
fn marker(line: &str) -> Option<(Option<String>, usize)> {
    let marker = line.trim_start().strip_prefix("// line ")?;
    let (place, _command) = marker.rsplit_once(": ")?;
    match place.split_once(" of ") {
        Some((n, file)) => Some((Some(file.to_string()), n.parse().ok()?)),
        None => Some((None, place.parse().ok()?)),
    }
}

/// Where line `line` of a translated flow comes from, innermost first: the flow
/// file's line (`None`: the flow itself), then the `runFlow` lines that inlined it
/// — read from the command markers, each the nearest above at its depth or less.
pub fn origin(script: &str, line: usize) -> Vec<(Option<String>, usize)> {
    let lines: Vec<&str> = script.lines().take(line).collect();
    let depth = |l: &str| l.len() - l.trim_start().len();
    let mut found = Vec::new();
    let mut within = match lines.last() {
        Some(l) => depth(l),
        None => return found,
    };
    for l in lines.iter().rev() {
        if depth(l) > within {
            continue;
        }
        if let Some(m) = marker(l) {
            let top = m.0.is_none();
            found.push(m);
            if top {
                break;
            }
            // The runFlow that inlined it is further out.
            within = depth(l).saturating_sub(1);
        }
    }
    found
}

/// A failure of a translated flow, told at the flow's line rather than the
/// translation's (a person reads the YAML); in a flow it inlined, that file's line
/// too.
pub fn relocate(error: &mut codeact_engine::sandbox::RunError, script: &str) {
    let Some(at) = error.line else { return };
    let chain = origin(script, at);
    let Some((_, top)) = chain.iter().find(|(file, _)| file.is_none()) else { return };
    error.line = Some(*top);
    error.column = None;
    error.source_line = None;
    if let Some((Some(file), line)) = chain.first() {
        error.message = format!("{file} line {line} (which this line's runFlow runs): {}", error.message);
    }
}

/// Reads and translates the flow at `path`.
pub fn convert_file(path: &Path) -> Result<Converted, FlowError> {
    let text = codeact_base::files::read_text(path, FLOW_BYTES)
        .map_err(|source| FlowError::ReadFlow { path: path.to_path_buf(), source })?;
    convert(path, &text)
}

/// The flows a flow file runs (`runFlow: x.yaml`, `file: x.yaml`), as real paths:
/// in a folder of flows they are parts, not tests.
pub fn flows_run_by(path: &Path, text: &str) -> Vec<PathBuf> {
    static RUNS: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| regex::Regex::new(r#"(?m)(?:runFlow|file):\s*["']?([^\s"'#]+\.ya?ml)"#).ok());
    let folder = path.parent().unwrap_or(Path::new("."));
    let Some(re) = RUNS.as_ref() else { return Vec::new() };
    re.captures_iter(text).filter_map(|c| folder.join(&c[1]).canonicalize().ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flow_becomes_a_script_and_unknown_commands_are_named() {
        let flow = "appId: com.android.settings\ntags: [smoke, Settings]\nenv:\n  WHO: me\n---\n- launchApp\n- tapOn: \"Wi-Fi\"\n- inputText: \"hi ${WHO} ${OTHER}\"\n- assertVisible:\n    id: wifi_switch\n    checked: false\n- back\n";
        let c = convert(Path::new("f.yaml"), flow).unwrap();
        assert_eq!(c.tags, ["smoke", "settings"]);
        let s = &c.script;
        assert!(
            s.contains(
                "// line 6: launchApp\nstop_app(\"com.android.settings\");\nstart_app(\"com.android.settings\");"
            ),
            "{s}"
        );
        assert!(s.contains("wait_for(\"Wi-Fi\", 17000);\ntap(\"Wi-Fi\");"), "{s}");
        assert!(s.contains("let WHO = if is_def_var(\"WHO\") { WHO } else { \"me\" };"), "{s}");
        assert!(s.contains("input_text(\"hi \" + WHO + \" \" + OTHER);"), "{s}");
        assert!(s.contains("if !is_def_var(\"OTHER\")") && !s.contains("if !is_def_var(\"WHO\")"), "{s}");
        assert!(s.contains("assert_visible(#{id: \"wifi_switch\", checked: false}, 17000);"), "{s}");
        let e = convert(Path::new("f.yaml"), "- tapOn: x\n- evalScript: ${1+1}\n").unwrap_err().to_string();
        assert!(e.starts_with("line 2: evalScript is not supported"), "{e}");
        let e = convert(Path::new("f.yaml"), "- tapOn: x\n- frobnicate\n").unwrap_err().to_string();
        assert!(e.starts_with("line 2: `frobnicate` is not a Maestro command"), "{e}");
        let e = convert(Path::new("f.yaml"), "- runFlow: /etc/passwd.yaml\n").unwrap_err().to_string();
        assert!(e.contains("outside the flow's folder"), "{e}");
    }

    #[test]
    fn flows_that_run_themselves_many_times_over_are_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let flow = dir.path().join("a.yaml");
        std::fs::write(&flow, "- runFlow: a.yaml\n").unwrap();
        let e = convert_file(&flow).unwrap_err().to_string();
        assert!(e.contains("more than 16 deep"), "{e}");
        // Shallow, but ten times over at each level: 1,000 files.
        for (name, next) in [("b", "c"), ("c", "d"), ("d", "e")] {
            std::fs::write(dir.path().join(format!("{name}.yaml")), format!("- runFlow: {next}.yaml\n").repeat(10))
                .unwrap();
        }
        std::fs::write(dir.path().join("e.yaml"), "- back\n").unwrap();
        let e = convert_file(&dir.path().join("b.yaml")).unwrap_err().to_string();
        assert!(e.contains("more than 256 flow files"), "{e}");
        let e = convert_file(&dir.path().join("missing.yaml")).unwrap_err().to_string();
        assert!(e.starts_with("cannot read the flow "), "{e}");
    }
}
