//! Task files: what a template is (goal, parameters, set-up, judge, reference
//! solution), how the files are read and checked, and how `{param}` templates fill in.
//! Not how tasks run (`runner.rs`) or are judged (`judge.rs`).
//!
//! ```toml
//! [[task]]
//! id = "wifi_turn_off"                  # letters, digits and _; unique in the suite
//! apps = ["settings"]                   # the first app is the one results group by
//! kind = "operation"                    # or "question": answered with answer(text)
//! category = "settings"                 # optional: the kind of work (tags.rs)
//! difficulty = "easy"                   # optional: easy|medium|hard by the oracle's actions
//! goal = "Turn off Wi-Fi."              # {name} fills in a parameter, {name.field} a field
//! max_steps = 8                         # the agent's step budget (default 10)
//! params = [{ name = "host", gen = "hostname" }]
//! setup = [{ set = "settings.wifi", to = true }, { launch = "com.android.settings" }]
//! judge = "!state.settings.wifi"        # Rhai: state, initial, params, answer, done, screen
//! oracle = '''
//! start_app("com.android.settings");
//! tap(#{id: "wifi_switch"});
//! complete(true, "Wi-Fi is off");
//! '''
//! ```

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::fill::placeholders;
pub use super::fill::{lookup, render, render_value, text_of};
pub use super::tags::Difficulty;

/// The suite shipped with codeact (`eval/tasks/`), one file per app.
const BUILT_IN: &[(&str, &str)] = &[
    ("settings.toml", include_str!("../../../../eval/tasks/settings.toml")),
    ("clock.toml", include_str!("../../../../eval/tasks/clock.toml")),
    ("contacts.toml", include_str!("../../../../eval/tasks/contacts.toml")),
    ("messages.toml", include_str!("../../../../eval/tasks/messages.toml")),
    ("notes.toml", include_str!("../../../../eval/tasks/notes.toml")),
    ("calendar.toml", include_str!("../../../../eval/tasks/calendar.toml")),
    ("expenses.toml", include_str!("../../../../eval/tasks/expenses.toml")),
    ("files.toml", include_str!("../../../../eval/tasks/files.toml")),
    ("cross_app.toml", include_str!("../../../../eval/tasks/cross_app.toml")),
    ("arcade.toml", include_str!("../../../../eval/tasks/arcade.toml")),
    ("shop.toml", include_str!("../../../../eval/tasks/shop.toml")),
    ("reader.toml", include_str!("../../../../eval/tasks/reader.toml")),
    ("music.toml", include_str!("../../../../eval/tasks/music.toml")),
    ("maps.toml", include_str!("../../../../eval/tasks/maps.toml")),
    ("forms.toml", include_str!("../../../../eval/tasks/forms.toml")),
    ("control_flow.toml", include_str!("../../../../eval/tasks/control_flow.toml")),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Change the phone; judged on its state.
    Operation,
    /// Find something out; judged on `answer(text)`.
    Question,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Operation => "operation",
            Kind::Question => "question",
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskFile {
    #[serde(default, rename = "task")]
    tasks: Vec<TaskSpec>,
}

/// One template of the suite.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskSpec {
    pub id: String,
    pub apps: Vec<String>,
    pub kind: Kind,
    /// The kind of work (`data_entry`, `search`…: `tags::CATEGORIES`); optional in a
    /// suite of one's own, where results group it as "-".
    #[serde(default)]
    pub category: Option<String>,
    /// easy, medium or hard by the oracle's device actions (`tags::Difficulty`).
    #[serde(default)]
    pub difficulty: Option<Difficulty>,
    pub goal: String,
    #[serde(default = "default_steps")]
    pub max_steps: usize,
    #[serde(default)]
    pub params: Vec<ParamSpec>,
    #[serde(default)]
    pub setup: Vec<SetupStep>,
    pub judge: String,
    pub oracle: String,
    /// Why the template cannot run on iOS (its set-up writes files with a shell, its
    /// oracle opens a screen by its activity...): `eval --platform ios` leaves it out
    /// and says why. (HarmonyOS has a shell and abilities: it runs them all.)
    #[serde(default)]
    pub not_on_ios: Option<String>,
    /// The file it came from (for messages).
    #[serde(skip)]
    pub file: String,
}

fn default_steps() -> usize {
    10
}

/// How one parameter is drawn: exactly one of `choice`, `int`, `gen`, `expr`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParamSpec {
    pub name: String,
    #[serde(default)]
    pub choice: Option<Vec<Value>>,
    #[serde(default)]
    pub int: Option<[i64; 2]>,
    #[serde(default)]
    #[serde(rename = "gen")]
    pub generator: Option<String>,
    /// A Rhai expression over the parameters drawn before it (`params.who.phone`).
    #[serde(default)]
    pub expr: Option<String>,
    /// Draw a list of this many values (all different).
    #[serde(default)]
    pub count: Option<[i64; 2]>,
    /// Never the same value as these parameters.
    #[serde(default)]
    pub distinct_from: Vec<String>,
}

/// One set-up step; exactly one of its verbs is given.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupStep {
    /// `simctl set KEY VALUE` with `to`.
    #[serde(default)]
    pub set: Option<String>,
    #[serde(default)]
    pub to: Option<Value>,
    /// `simctl add COLLECTION RECORD` with `record` (once per item of `each`).
    #[serde(default)]
    pub add: Option<String>,
    #[serde(default)]
    pub record: Option<BTreeMap<String, Value>>,
    /// A list parameter: the step runs once per item, `{item}` / `{item.field}` in it.
    #[serde(default)]
    pub each: Option<String>,
    /// `simctl empty COLLECTION`.
    #[serde(default)]
    pub empty: Option<String>,
    /// `simctl launch PACKAGE`.
    #[serde(default)]
    pub launch: Option<String>,
    /// A shell command line; every `{param}` in it is quoted for the shell.
    #[serde(default)]
    pub shell: Option<String>,
    /// `simctl clipboard set TEXT`.
    #[serde(default)]
    pub clipboard: Option<String>,
    /// `simctl file PATH TEXT`: a file with `text` (and a newline) in it, its
    /// folders made; reaches the phone on every platform, unlike `shell`.
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub text: Option<String>,
    /// `simctl mkdir PATH`: a folder and its parents.
    #[serde(default)]
    pub folder: Option<String>,
}

/// What is wrong with a task file.
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    #[error("cannot read {path}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{file}: {message}")]
    Parse { file: String, message: String },
    #[error("{file}: task {id}: {message}")]
    Invalid { file: String, id: String, message: String },
    #[error("no task files (*.toml) in {0}")]
    Empty(PathBuf),
    #[error("no task matches {0:?}; `codeact eval --list` shows the ids")]
    NoMatch(String),
}

/// The built-in suite, or every `*.toml` in `dir`; checked.
pub fn load(dir: Option<&Path>) -> Result<Vec<TaskSpec>, TaskError> {
    let files: Vec<(String, String)> = match dir {
        None => BUILT_IN.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect(),
        Some(dir) => {
            let read_err = |source| TaskError::Read { path: dir.to_path_buf(), source };
            let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
                .map_err(read_err)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "toml"))
                .collect();
            paths.sort();
            if paths.is_empty() {
                return Err(TaskError::Empty(dir.to_path_buf()));
            }
            let mut files = Vec::new();
            for p in paths {
                let text = codeact_base::files::read_text(&p, codeact_base::files::TEXT_BYTES)
                    .map_err(|source| TaskError::Read { path: p.clone(), source })?;
                files.push((p.display().to_string(), text));
            }
            files
        }
    };
    let mut tasks = Vec::new();
    let mut ids = HashSet::new();
    for (file, text) in files {
        let parsed: TaskFile = toml::from_str(&text).map_err(|e| TaskError::Parse {
            file: file.clone(),
            message: codeact_base::toml_error::TomlError::new(&e, &text).to_string(),
        })?;
        for mut task in parsed.tasks {
            task.file = file.clone();
            task.check()?;
            if !ids.insert(task.id.clone()) {
                return Err(task.invalid("the id is used twice in the suite"));
            }
            tasks.push(task);
        }
    }
    Ok(tasks)
}

/// The tasks whose id matches one of the comma-separated patterns (`*` any run of
/// characters, `?` one): `clock_*,wifi_*`.
pub fn select(tasks: Vec<TaskSpec>, patterns: Option<&str>) -> Result<Vec<TaskSpec>, TaskError> {
    let Some(patterns) = patterns else { return Ok(tasks) };
    if patterns.len() > MAX_PATTERN_BYTES {
        return Err(TaskError::NoMatch(format!(
            "{} (the patterns are {} bytes; give at most {MAX_PATTERN_BYTES})",
            codeact_base::clip::clip(patterns, 200),
            patterns.len()
        )));
    }
    // Each pattern once, its characters read once: the work is patterns × templates.
    let mut wanted: Vec<&str> = patterns.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let wanted: Vec<Vec<char>> = wanted.iter().map(|p| p.chars().collect()).collect();
    let matches = |p: &[char], text: &str| wildcard(p, &text.chars().collect::<Vec<_>>());
    let chosen: Vec<TaskSpec> = tasks
        .into_iter()
        .filter(|t| wanted.iter().any(|p| matches(p, &t.id) || t.apps.first().is_some_and(|a| matches(p, a))))
        .collect();
    if chosen.is_empty() {
        return Err(TaskError::NoMatch(codeact_base::clip::clip(patterns, 200).into_owned()));
    }
    Ok(chosen)
}

/// The longest list of patterns taken (a few dozen template ids).
const MAX_PATTERN_BYTES: usize = 4096;

/// `*` and `?` matching, whole string.
fn wildcard(p: &[char], t: &[char]) -> bool {
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

impl TaskSpec {
    fn invalid(&self, message: impl Into<String>) -> TaskError {
        TaskError::Invalid { file: self.file.clone(), id: self.id.clone(), message: message.into() }
    }

    /// What serde cannot check: names, one verb per step, templates naming declared
    /// parameters, a judge and an oracle that parse.
    fn check(&self) -> Result<(), TaskError> {
        if self.id.is_empty() || !self.id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') {
            return Err(self.invalid("an id is lowercase letters, digits and _"));
        }
        if let Some(category) = self.category.as_deref().filter(|c| !super::tags::is_category(c)) {
            return Err(self.invalid(format!("category {category:?}: lowercase letters and _ (e.g. data_entry)")));
        }
        if self.apps.is_empty() {
            return Err(self.invalid("apps needs at least one app"));
        }
        if !(1..=100).contains(&self.max_steps) {
            return Err(self.invalid("max_steps must be between 1 and 100"));
        }
        let mut names: Vec<&str> = Vec::new();
        for p in &self.params {
            let ways = [p.choice.is_some(), p.int.is_some(), p.generator.is_some(), p.expr.is_some()];
            if ways.iter().filter(|w| **w).count() != 1 {
                return Err(self.invalid(format!("parameter {}: give exactly one of choice, int, gen, expr", p.name)));
            }
            if p.name == "item" || !p.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(
                    self.invalid(format!("parameter name {:?} must be letters, digits and _ (not item)", p.name))
                );
            }
            if let Some(unknown) = p.distinct_from.iter().find(|d| !names.contains(&d.as_str())) {
                return Err(
                    self.invalid(format!("parameter {}: distinct_from {unknown} is not declared before it", p.name))
                );
            }
            names.push(&p.name);
        }
        let known = |name: &str| name == "item" || names.contains(&name);
        let check_template = |text: &str| -> Result<(), TaskError> {
            for name in placeholders(text) {
                if !known(name) {
                    return Err(self.invalid(format!("{{{name}}} names no parameter (declared: {})", names.join(", "))));
                }
            }
            Ok(())
        };
        check_template(&self.goal)?;
        for step in &self.setup {
            let verbs = [
                step.set.is_some(),
                step.add.is_some(),
                step.empty.is_some(),
                step.launch.is_some(),
                step.shell.is_some(),
                step.clipboard.is_some(),
                step.file.is_some(),
                step.folder.is_some(),
            ];
            if verbs.iter().filter(|v| **v).count() != 1 {
                return Err(self.invalid(
                    "each setup step has exactly one of set, add, empty, launch, shell, clipboard, file, folder",
                ));
            }
            if step.set.is_some() != step.to.is_some()
                || step.add.is_some() != step.record.is_some()
                || step.file.is_some() != step.text.is_some()
            {
                return Err(self.invalid("set needs to, add needs record, file needs text (and only they)"));
            }
            // A collection's name is a word of the world's: it reaches the phone's
            // shell, so nothing but a word is taken (quoted there too).
            for name in step.add.iter().chain(&step.empty) {
                if name.is_empty()
                    || name.len() > 64
                    || !name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                {
                    return Err(self.invalid(format!(
                        "add/empty {:?}: a collection is named by lowercase letters, digits and _ (contacts, notes...)",
                        codeact_base::clip::clip(name, 80)
                    )));
                }
            }
            let texts = [&step.shell, &step.clipboard, &step.launch, &step.file, &step.text, &step.folder, &step.set];
            for text in texts.into_iter().flatten() {
                check_template(text)?;
            }
            for value in step.to.iter().chain(step.record.iter().flat_map(|r| r.values())) {
                if let Value::String(s) = value {
                    check_template(s)?;
                }
            }
            if let Some(each) = &step.each
                && !names.contains(&each.as_str())
            {
                return Err(self.invalid(format!("setup each = {each:?} names no parameter")));
            }
        }
        super::judge::check(&self.judge).map_err(|e| self.invalid(format!("judge: {e}")))?;
        for p in &self.params {
            if let Some(expr) = &p.expr {
                super::judge::check(expr).map_err(|e| self.invalid(format!("parameter {}: {e}", p.name)))?;
            }
        }
        rhai::Engine::new_raw()
            .compile(&self.oracle)
            .map_err(|e| self.invalid(format!("oracle does not parse: {e}")))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_suite_loads_and_ids_select() {
        let tasks = load(None).unwrap();
        assert!(tasks.len() >= 116, "{} templates", tasks.len());
        let apps: HashSet<&str> = tasks.iter().map(|t| t.apps[0].as_str()).collect();
        assert!(apps.len() >= 14, "{apps:?}");
        for t in &tasks {
            let category = t.category.as_deref().unwrap_or_default();
            assert!(super::super::tags::CATEGORIES.iter().any(|(c, _)| *c == category), "{}: {category:?}", t.id);
            assert!(t.difficulty.is_some(), "{}: no difficulty", t.id);
        }
        let clock = select(tasks.clone(), Some("clock_*")).unwrap();
        assert!(!clock.is_empty() && clock.iter().all(|t| t.id.starts_with("clock_")));
        assert!(matches!(select(tasks, Some("nothing_like_this")), Err(TaskError::NoMatch(_))));
        let w = |p: &str, t: &str| wildcard(&p.chars().collect::<Vec<_>>(), &t.chars().collect::<Vec<_>>());
        assert!(w("a*c", "abbc") && w("a?c", "abc") && !w("a*d", "abc"));
    }

    #[test]
    fn a_collection_name_that_is_not_a_word_never_reaches_the_shell() {
        let dir = tempfile::tempdir().unwrap();
        let task = |verb: &str| {
            format!(
                r#"[[task]]
id = "hostile"
apps = ["contacts"]
kind = "operation"
goal = "Nothing."
setup = [{verb}]
judge = "true"
oracle = 'complete(true, "done");'
"#
            )
        };
        for verb in [
            r#"{ empty = "contacts; simctl reset" }"#,
            r#"{ empty = "$(reboot)" }"#,
            r#"{ add = "notes `id`", record = { title = "x" } }"#,
            r#"{ empty = "" }"#,
        ] {
            std::fs::write(dir.path().join("mine.toml"), task(verb)).unwrap();
            let error = load(Some(dir.path())).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(error.contains("a collection is named by lowercase letters"), "{verb}: {error}");
        }
        std::fs::write(dir.path().join("mine.toml"), task(r#"{ empty = "contacts" }"#)).unwrap();
        assert!(load(Some(dir.path())).is_ok());
    }
}
