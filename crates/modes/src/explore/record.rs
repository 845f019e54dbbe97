//! An exploration's folder, written as it goes: `events.jsonl` (one line per
//! action, new screen, activity, finding and restart, appended at once, so a
//! killed run loses at most the action in flight), the screenshots of new screens,
//! and at the end the summary, the graph, the findings, the tests and the report.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// Why the folder or one of its files could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {path}")]
pub struct RecordError {
    pub path: String,
    #[source]
    pub source: std::io::Error,
}

/// One line of `events.jsonl`.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ExploreEvent<'a> {
    Start {
        app: &'a str,
        strategy: &'a str,
        budget: String,
        declared: usize,
        user: &'a str,
    },
    Action {
        n: usize,
        screen: &'a str,
        code: &'a str,
        label: &'a str,
        ms: f64,
        result: &'a str,
    },
    Screen {
        n: usize,
        screen: &'a str,
        activity: &'a str,
        screenshot: Option<&'a str>,
    },
    Activity {
        n: usize,
        activity: &'a str,
        reached: usize,
        declared: usize,
    },
    Restart {
        n: usize,
        reason: &'a str,
    },
    Finding {
        n: usize,
        kind: &'a str,
        title: &'a str,
        script: &'a str,
    },
    /// The planner set a task (`--strategy llm`).
    Planned {
        n: usize,
        task: usize,
        goal: &'a str,
    },
    /// The agent finished it: its run folder (relative), and what the observer saw.
    Task {
        n: usize,
        task: usize,
        goal: &'a str,
        success: bool,
        steps: usize,
        run: &'a str,
        effects: &'a [String],
    },
    /// The reflector's note.
    Reflection {
        n: usize,
        after_tasks: usize,
        note: &'a str,
    },
    End {
        actions: usize,
        seconds: f64,
        stopped: &'a str,
    },
}

pub struct RunFolder {
    dir: PathBuf,
    events: std::fs::File,
}

fn fail(path: &Path) -> impl FnOnce(std::io::Error) -> RecordError + '_ {
    move |source| RecordError { path: path.display().to_string(), source }
}

impl RunFolder {
    /// Writes `finding`'s reproduction (`finding.script`, emptied when it cannot
    /// be written) and its event, after `actions` actions.
    pub fn keep_finding(&mut self, finding: &mut super::Finding, app: &str, clean: bool, actions: usize) {
        let script = super::findings::reproduction_script(app, finding, clean);
        if let Err(e) = self.write(&finding.script, script.as_bytes()) {
            finding.script = String::new();
            tracing::warn!("{e}");
        }
        self.event(&ExploreEvent::Finding {
            n: actions,
            kind: finding.kind.word(),
            title: &finding.title,
            script: &finding.script,
        });
    }

    /// A new folder under `out` named for the time and the app.
    pub fn create(out: &Path, app: &str) -> Result<Self, RecordError> {
        let dir = codeact_record::trajectory::new_run_dir(out, &format!("explore {app}"));
        codeact_base::files::create_run_folder(&dir).map_err(fail(&dir))?;
        let path = dir.join("events.jsonl");
        let events = std::fs::OpenOptions::new()
            .append(true)
            .create_new(true)
            .custom_flags_nofollow()
            .open(&path)
            .map_err(fail(&path))?;
        Ok(Self { dir, events })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Appends one event line now. A failed write is reported once per run by the
    /// caller's end, not here: exploring goes on.
    pub fn event(&mut self, event: &ExploreEvent<'_>) {
        if let Ok(mut value) = serde_json::to_value(event) {
            codeact_base::secrets::redact_json(&mut value);
            let _ = writeln!(self.events, "{value}");
        }
    }

    /// Writes `name` (a path below the folder; its folders are made).
    pub fn write(&self, name: &str, bytes: &[u8]) -> Result<(), RecordError> {
        let path = self.dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(fail(parent))?;
        }
        codeact_base::files::write_replacing(&path, bytes).map_err(fail(&path))
    }
}

/// `O_NOFOLLOW` on the options (a link planted at the name is refused).
trait NoFollow {
    fn custom_flags_nofollow(&mut self) -> &mut Self;
}

impl NoFollow for std::fs::OpenOptions {
    fn custom_flags_nofollow(&mut self) -> &mut Self {
        use std::os::unix::fs::OpenOptionsExt;
        self.custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
    }
}
