//! Replaying run folders in the studio: the run folders below the studio's runs
//! folder (any mode's: `run`, `exec --trajectory`, `eval`, `explore`, `mcp`), and a
//! run step by step as its report reads it — the screen seen, the model's reply,
//! the code, what it printed, each action with its effect, errors and notes — with
//! its pictures served from inside that folder only — links resolved, so a run
//! folder, a picture or a run's file that is a link leading out is not served.
//! Reads; never writes.

use std::path::{Path, PathBuf};

use codeact_base::files::existing_below;

use axum::http::StatusCode;
use codeact_record::report::RunView;
use serde_json::{Value, json};

use super::state::CallResult;
use super::state::Studio;

/// How deep below the runs folder run folders are looked for (eval puts its runs
/// two levels down).
const MOST_DEPTH: usize = 3;
/// The most run folders listed.
const MOST_RUNS: usize = 500;
/// The largest picture served.
const MOST_PICTURE: usize = 32 << 20;

/// The files of a run folder the replay reads.
const READ_FILES: [&str; 3] = ["events.jsonl", "summary.json", "script.rhai"];

/// The run folder `name` below the runs folder, links resolved: itself and every
/// file the replay reads inside the runs folder (a planted link leads nowhere).
fn run_dir(studio: &Studio, name: &str) -> Option<PathBuf> {
    let root = &studio.options.runs_dir;
    let dir = existing_below(root, name).filter(|d| d.is_dir())?;
    for file in READ_FILES {
        let present = std::fs::symlink_metadata(dir.join(file)).is_ok();
        if present && existing_below(root, &format!("{name}/{file}")).is_none_or(|f| !f.starts_with(&dir)) {
            return None;
        }
    }
    dir.join("events.jsonl").is_file().then_some(dir)
}

fn find_runs(dir: &Path, root: &Path, depth: usize, out: &mut Vec<(PathBuf, std::time::SystemTime)>) {
    if depth > MOST_DEPTH || out.len() >= MOST_RUNS {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten().take(10_000) {
        let Ok(kind) = entry.file_type() else { continue };
        // Links are not followed: the listing stays inside the folder.
        if !kind.is_dir() {
            continue;
        }
        let path = entry.path();
        // A linked events file is not a run of this folder's.
        match std::fs::symlink_metadata(path.join("events.jsonl")) {
            Ok(meta) if meta.is_file() => {
                let when = meta.modified().unwrap_or(std::time::UNIX_EPOCH);
                if let Ok(relative) = path.strip_prefix(root) {
                    out.push((relative.to_path_buf(), when));
                }
            }
            _ => find_runs(&path, root, depth + 1, out),
        }
    }
}

/// The run folders, newest first.
pub fn list(studio: &Studio) -> Value {
    let root = &studio.options.runs_dir;
    let mut runs = Vec::new();
    find_runs(root, root, 0, &mut runs);
    runs.sort_by_key(|r| std::cmp::Reverse(r.1));
    let runs: Vec<Value> = runs
        .into_iter()
        .map(|(path, when)| {
            let secs = when.duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
            json!({"name": path.to_string_lossy(), "modified": secs})
        })
        .collect();
    json!({"folder": root.display().to_string(), "runs": runs})
}

/// One run, step by step.
pub fn steps(studio: &Studio, name: &str) -> CallResult {
    let dir = run_dir(studio, name)
        .ok_or((StatusCode::NOT_FOUND, "no such run folder below the studio's runs folder".to_string()))?;
    let view = RunView::read(&dir);
    let steps: Vec<Value> = view
        .steps
        .iter()
        .map(|s| {
            let actions: Vec<Value> = s
                .actions
                .iter()
                .map(|a| {
                    json!({"tool": a.tool, "args": a.args, "result": a.result, "failed": a.failed,
                           "effect": a.effect, "ms": a.ms, "point": a.point.map(|(x, y)| [x, y]),
                           "screenshot": a.screenshot})
                })
                .collect();
            json!({"number": s.number, "seen": s.seen, "reply": s.reply, "code": s.code, "output": s.output,
                   "errors": s.errors, "notes": s.notes, "actions": actions, "wall_ms": s.wall_ms})
        })
        .collect();
    Ok(json!({
        "name": name, "title": view.title, "outcome": view.outcome, "reason": view.reason, "finished": view.finished,
        "facts": view.facts, "script": view.script, "steps": steps,
    }))
}

/// A picture of a run (`file` relative to its folder, a `.png`).
pub fn file(studio: &Studio, name: &str, file: &str) -> Result<Vec<u8>, String> {
    let dir = run_dir(studio, name).ok_or("no such run folder")?;
    // The picture's real path must lie inside the run's real folder (no link out of it).
    let path = Path::new(file)
        .extension()
        .is_some_and(|e| e == "png")
        .then(|| existing_below(&studio.options.runs_dir, &format!("{name}/{file}")))
        .flatten()
        .filter(|p| p.starts_with(&dir) && p.is_file())
        .ok_or("no such picture")?;
    codeact_base::files::read_bytes(&path, MOST_PICTURE).map_err(|_| "no such picture".to_string())
}
