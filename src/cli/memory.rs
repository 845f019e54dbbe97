//! `codeact memory`: what the memory database holds — list, show, forget, and
//! export / import (JSON lines, one experience each) to move it between machines.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use codeact::memory::{Store, default_path};
use codeact::terminal::clean;

/// What `codeact run` remembers: successful runs, replayed the next time the same
/// task comes.
///
///   codeact memory list
///   codeact memory show 3
///   codeact memory accept 7     # a heal kept unverified replaces its experience's steps
///   codeact memory forget 3
///   codeact memory export memory.jsonl ; codeact memory import memory.jsonl
///   codeact memory card com.example.notes --edit   # notes the agent reads in that app
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct MemoryArgs {
    #[command(subcommand)]
    action: Action,
    /// The memory database (default: $XDG_DATA_HOME/codeact/memory.sqlite, as
    /// `codeact run` uses).
    #[arg(long, value_name = "PATH", global = true)]
    memory: Option<PathBuf>,
}

#[derive(clap::Subcommand, Debug)]
enum Action {
    /// One line per experience: id, task, apps, steps, replays.
    List {
        /// One JSON object per experience and line: id, task, apps, steps (how
        /// many), replays, healed, unverified heals, when it was kept.
        #[arg(long)]
        json: bool,
    },
    /// An experience's steps (intent, precondition and code), what it left changed,
    /// and the heals kept unverified because they did not end the same way.
    Show { id: i64 },
    /// Accept a heal kept unverified (a candidate `show` lists): it replaces its
    /// experience's steps, and replays are held to what it ended with.
    Accept { candidate: i64 },
    /// Remove an experience (the next run of its task asks the model again).
    Forget { id: i64 },
    /// Write every experience to FILE as JSON lines.
    Export { file: PathBuf },
    /// Add the experiences of a FILE written by `export`.
    Import { file: PathBuf },
    /// An app card: Markdown notes on an app (how its screens work, what to avoid)
    /// that the agent reads whenever that app is in front. Shows it; without a
    /// package, lists the apps that have one.
    Card {
        package: Option<String>,
        /// Edit it in $VISUAL or $EDITOR.
        #[arg(long, conflicts_with_all = ["set", "clear"], requires = "package")]
        edit: bool,
        /// Set it from a Markdown file (`-` for standard input).
        #[arg(long, value_name = "FILE", conflicts_with = "clear", requires = "package")]
        set: Option<PathBuf>,
        /// Remove it.
        #[arg(long, requires = "package")]
        clear: bool,
    },
}

/// `text` after the person edits it in $VISUAL or $EDITOR.
fn edit_text(text: &str) -> anyhow::Result<String> {
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|e| !e.trim().is_empty()))
        .context("set $EDITOR (or $VISUAL) to edit a card, or give it with --set FILE")?;
    // A private file of a random name (0600, created exclusively), removed when dropped.
    let mut file = tempfile::Builder::new()
        .prefix("codeact-card-")
        .suffix(".md")
        .tempfile()
        .context("cannot create a temporary file for the card")?;
    file.write_all(text.as_bytes()).context("cannot write the card's temporary file")?;
    let path = file.path().to_path_buf();
    let mut words = editor.split_whitespace();
    let program = words.next().unwrap_or("vi");
    let status = std::process::Command::new(program)
        .args(words)
        .arg(&path)
        .status()
        .with_context(|| format!("cannot start the editor {program:?}"))?;
    let edited = codeact::files::read_text(&path, codeact::files::TEXT_BYTES)
        .with_context(|| format!("cannot read {}", path.display()));
    drop(file);
    anyhow::ensure!(status.success(), "the editor {program:?} failed; the card is unchanged");
    edited
}

/// Replay steps as `memory show` prints them, each line after `indent`.
fn show_steps(steps: &[codeact::memory::ReplayStep], indent: &str) {
    for (n, s) in steps.iter().enumerate() {
        codeact::outln!("\n{indent}step {}: {}", n + 1, codeact::terminal::one_line(&s.intent));
        let anchor = s.anchor.as_deref().map(|a| format!(", {a} visible")).unwrap_or_default();
        let app = if s.app.is_empty() { "any app".to_string() } else { s.app.clone() };
        codeact::outln!("{indent}  when: {app} in front{}", codeact::terminal::one_line(&anchor));
        for line in s.code.lines() {
            codeact::outln!("{indent}  | {}", clean(line));
        }
    }
}

impl MemoryArgs {
    pub fn manage(self) -> anyhow::Result<ExitCode> {
        let path = self
            .memory
            .clone()
            .or_else(default_path)
            .context("no home directory for the memory database; give one with --memory PATH")?;
        let store = Store::open(&path)?;
        match self.action {
            Action::List { json } => {
                let rows = store.list()?;
                if rows.is_empty() {
                    codeact::errln!("memory {} holds no experience yet", codeact::terminal::path(&path));
                }
                for r in rows {
                    if json {
                        let line = serde_json::json!({
                            "id": r.id,
                            "task": r.experience.task,
                            "apps": r.experience.apps,
                            "steps": r.experience.steps.len(),
                            "replays": r.replays,
                            "healed": r.healed,
                            "unverified_heals": r.unverified,
                            "created": r.created,
                        });
                        codeact::outln!("{line}");
                        continue;
                    }
                    let unverified = match r.unverified {
                        0 => String::new(),
                        n => format!(", {n} unverified heal{}", if n == 1 { "" } else { "s" }),
                    };
                    codeact::outln!(
                        "{:>4}  {}  [{}] {} steps, replayed {}{}{unverified}",
                        r.id,
                        codeact::terminal::one_line(&r.experience.task),
                        r.experience.apps.join(", "),
                        r.experience.steps.len(),
                        r.replays,
                        if r.healed { ", healed" } else { "" }
                    );
                }
            }
            Action::Show { id } => {
                let r = store.get(id)?;
                codeact::outln!("{}: {} (kept {})", r.id, codeact::terminal::one_line(&r.experience.task), r.created);
                let effects = r.experience.effects.as_ref().map(|e| e.describe());
                let effects = effects.unwrap_or_else(|| "not recorded (kept before effects were)".into());
                codeact::outln!("what it did: {}", codeact::terminal::one_line(&effects));
                show_steps(&r.experience.steps, "");
                for c in store.candidates(id)? {
                    codeact::outln!(
                        "\nunverified heal, candidate {} (kept {}): it did not end with {}",
                        c.id,
                        c.created,
                        codeact::terminal::one_line(&c.missing.join("; "))
                    );
                    if let Some(effects) = &c.effects {
                        codeact::outln!("  what it did: {}", codeact::terminal::one_line(&effects.describe()));
                    }
                    show_steps(&c.steps, "  ");
                    codeact::outln!("  `codeact memory accept {}` makes it the experience's steps", c.id);
                }
            }
            Action::Accept { candidate } => {
                let id = store.accept_candidate(candidate)?;
                codeact::outln!("experience {id} now has the steps of heal {candidate}");
            }
            Action::Forget { id } => {
                store.forget(id)?;
                codeact::outln!("forgot experience {id}");
            }
            Action::Export { file } => {
                let mut out =
                    std::fs::File::create(&file).with_context(|| format!("cannot create {}", file.display()))?;
                let rows = store.list()?;
                for r in rows.iter().rev() {
                    writeln!(out, "{}", serde_json::to_string(&r.experience)?)
                        .with_context(|| format!("cannot write {}", file.display()))?;
                }
                codeact::outln!("exported {} experiences to {}", rows.len(), codeact::terminal::path(&file));
            }
            Action::Import { file } => {
                let text = codeact::files::read_text(&file, codeact::files::DATA_BYTES)
                    .with_context(|| format!("cannot read {}", file.display()))?;
                let experiences = codeact::memory::parse_export(&text)
                    .with_context(|| format!("cannot import {}", file.display()))?;
                let (added, present) = store.import(&experiences)?;
                let already = match present {
                    0 => String::new(),
                    n => format!(" ({n} already there, not added again)"),
                };
                codeact::outln!("imported {added} experiences into {}{already}", codeact::terminal::path(&path));
            }
            Action::Card { package: None, .. } => {
                for (package, markdown) in store.cards()? {
                    codeact::outln!("{package}: {} lines", markdown.lines().count());
                }
            }
            Action::Card { package: Some(package), edit, set, clear } => {
                if clear {
                    store.set_card(&package, "")?;
                    codeact::outln!("removed the card of {package}");
                } else if let Some(file) = set {
                    let text = if file.as_os_str() == "-" {
                        codeact::files::read_text_from(std::io::stdin(), codeact::files::TEXT_BYTES)
                            .context("cannot read standard input")?
                    } else {
                        codeact::files::read_text(&file, codeact::files::TEXT_BYTES)
                            .with_context(|| format!("cannot read {}", file.display()))?
                    };
                    store.set_card(&package, &text)?;
                    codeact::outln!("set the card of {package} ({} lines)", text.lines().count());
                } else if edit {
                    let text = edit_text(&store.card(&package)?.unwrap_or_default())?;
                    store.set_card(&package, &text)?;
                    codeact::outln!("saved the card of {package} ({} lines)", text.lines().count());
                } else {
                    match store.card(&package)? {
                        Some(markdown) => codeact::outln!("{}", clean(&markdown)),
                        None => codeact::errln!(
                            "{package} has no card; write one with `codeact memory card {package} --edit` or --set FILE"
                        ),
                    }
                }
            }
        }
        let _ = std::io::stdout().flush();
        Ok(ExitCode::SUCCESS)
    }
}
