//! `codeact repl`: an interactive Rhai prompt bound to a device. Variables and `fn`s
//! persist, `ui_state` is always fresh, input continues over several lines while it
//! does not parse yet, Tab completes tools and variables, and meta-commands start
//! with `:`. Line editing and history are rustyline's; this module decides what a line
//! means and how results are shown.

use std::borrow::Cow;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Editor, Helper, history::DefaultHistory};

use crate::sandbox::{self, RunResult};
use crate::session::Session;

/// The meta-commands, with what they do (`:help` prints this).
pub const META: &[(&str, &str)] = &[
    (":help", "this help: meta-commands and the session's tools"),
    (":tools", "the tools this session has, with their docs"),
    (":state", "read the screen and show it as the LLM sees it (indices match ui_state)"),
    (":screenshot [FILE]", "save a screenshot as PNG (default screenshot-N.png)"),
    (":vars", "the variables this session holds"),
    (":reset", "forget variables, functions and remembered facts"),
    (":quit", "leave (also Ctrl-D)"),
];

const KEYWORDS: &[&str] = &[
    "let",
    "const",
    "fn",
    "if",
    "else",
    "while",
    "loop",
    "for",
    "in",
    "break",
    "continue",
    "return",
    "throw",
    "try",
    "catch",
    "true",
    "false",
    "print",
    "debug",
    "ui_state",
    "phone_state",
];

/// Completion, and multi-line input while a snippet does not parse yet.
struct ReplHelper {
    /// Tools, then the session's variables (refreshed after every snippet).
    words: Arc<Mutex<Vec<String>>>,
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        if before.starts_with(':') && !before.contains(' ') {
            let found = META
                .iter()
                .map(|(m, _)| m.split(' ').next().unwrap_or(m))
                .filter(|m| m.starts_with(before))
                .map(|m| Pair { display: m.to_string(), replacement: m.to_string() })
                .collect();
            return Ok((0, found));
        }
        let start = before.rfind(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
        let word = &before[start..];
        if word.is_empty() {
            return Ok((pos, Vec::new()));
        }
        let words = self.words.lock().unwrap_or_else(|e| e.into_inner());
        let mut found: Vec<Pair> = words
            .iter()
            .map(String::as_str)
            .chain(KEYWORDS.iter().copied())
            .filter(|w| w.starts_with(word))
            .map(|w| Pair { display: w.to_string(), replacement: w.to_string() })
            .collect();
        found.sort_by(|a, b| a.display.cmp(&b.display));
        found.dedup_by(|a, b| a.display == b.display);
        Ok((start, found))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
}

impl Highlighter for ReplHelper {
    fn highlight_prompt<'b, 's: 'b, 'p: 'b>(&'s self, prompt: &'p str, _default: bool) -> Cow<'b, str> {
        Cow::Borrowed(prompt)
    }
}

impl Validator for ReplHelper {
    fn validate(&self, ctx: &mut ValidationContext<'_>) -> rustyline::Result<ValidationResult> {
        let input = ctx.input();
        // A blank line ends a multi-line snippet whatever its state (the parse error
        // then shows what is missing).
        if input.trim_start().starts_with(':') || input.ends_with("\n") || input.trim().is_empty() {
            return Ok(ValidationResult::Valid(None));
        }
        Ok(if sandbox::is_incomplete(input) { ValidationResult::Incomplete } else { ValidationResult::Valid(None) })
    }
}

impl Helper for ReplHelper {}

/// Where history is kept: `$CODEACT_HISTORY`, else the user's state directory.
pub fn default_history_file() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CODEACT_HISTORY").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let state = std::env::var_os("XDG_STATE_HOME").filter(|p| !p.is_empty()).map(PathBuf::from).or_else(|| {
        std::env::var_os("HOME").filter(|p| !p.is_empty()).map(|h| PathBuf::from(h).join(".local/state"))
    })?;
    Some(state.join("codeact").join("history"))
}

/// Shows a snippet's result the way a person at a prompt wants it.
pub fn show(result: &RunResult, out: &mut impl Write) -> std::io::Result<()> {
    out.write_all(result.output.as_bytes())?;
    for a in &result.actions {
        let args = a.args.join(", ");
        writeln!(
            out,
            "  · {}({args}) {} ({:.0} ms)",
            a.tool,
            if a.result == "ok" { "ok" } else { "failed" },
            a.duration_ms
        )?;
    }
    if let Some(v) = &result.value {
        writeln!(out, "{v}")?;
    }
    if let Some(e) = &result.error {
        writeln!(out, "error: {e}")?;
    }
    if let Some(c) = &result.completion {
        let how = if c.success { "success" } else { "failure" };
        writeln!(
            out,
            "completed ({how}){}",
            if c.reason.is_empty() { String::new() } else { format!(": {}", c.reason) }
        )?;
    }
    Ok(())
}

/// The interactive loop. Returns when the user quits or input ends.
pub fn run(mut session: Session, device_name: &str, history: Option<PathBuf>) -> Result<(), ReadlineError> {
    let words = Arc::new(Mutex::new(Vec::new()));
    let refresh_words = |session: &Session, words: &Arc<Mutex<Vec<String>>>| {
        let mut w: Vec<String> = session.tool_names().iter().map(|t| t.to_string()).collect();
        w.extend(session.sandbox.vars());
        *words.lock().unwrap_or_else(|e| e.into_inner()) = w;
    };
    refresh_words(&session, &words);
    let mut editor: Editor<ReplHelper, DefaultHistory> = Editor::new()?;
    editor.set_helper(Some(ReplHelper { words: words.clone() }));
    if let Some(path) = &history {
        // No history yet is normal; anything else is worth one line.
        if let Err(e) = editor.load_history(path)
            && path.exists()
        {
            eprintln!("(history {} not loaded: {e})", path.display());
        }
    }
    cancel_on_ctrl_c(&session);

    let mut out = std::io::stdout();
    let _ = writeln!(
        out,
        "codeact repl on {device_name}: {} tools; ui_state and phone_state are always fresh.\n\
         :help for help, Tab completes, a blank line ends a multi-line snippet, :quit or Ctrl-D leaves.",
        session.tool_names().len()
    );
    let mut shots = 0;
    loop {
        let line = match editor.readline("rhai> ") {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e),
        };
        let code = line.trim();
        if code.is_empty() {
            continue;
        }
        let _ = editor.add_history_entry(code);
        if let Some(meta) = code.strip_prefix(':') {
            let mut words_in = meta.split_whitespace();
            let command = words_in.next().unwrap_or("");
            let arg = words_in.next();
            match command {
                "q" | "quit" | "exit" => break,
                "h" | "help" => {
                    let _ = writeln!(out, "Meta-commands:");
                    for (m, doc) in META {
                        let _ = writeln!(out, "  {m:<20} {doc}");
                    }
                    let _ = writeln!(out, "Tools (and print, debug, sleep):\n{}", session.describe_tools());
                }
                "tools" => {
                    let _ = write!(out, "{}", session.describe_tools());
                }
                "state" => {
                    let mut c = session.tools.lock().unwrap_or_else(|e| e.into_inner());
                    match c.refresh() {
                        Ok(obs) => {
                            let _ = write!(out, "{}", obs.screen_text());
                        }
                        Err(e) => {
                            let _ = writeln!(out, "error: {e}");
                        }
                    }
                }
                "screenshot" => {
                    shots += 1;
                    let path = arg.map_or_else(|| PathBuf::from(format!("screenshot-{shots}.png")), PathBuf::from);
                    let mut c = session.tools.lock().unwrap_or_else(|e| e.into_inner());
                    let saved = c
                        .device
                        .screenshot()
                        .map_err(|e| e.to_string())
                        .and_then(|png| std::fs::write(&path, &png).map(|()| png.len()).map_err(|e| e.to_string()));
                    let _ = match saved {
                        Ok(n) => writeln!(out, "saved {} ({n} bytes)", path.display()),
                        Err(e) => writeln!(out, "error: cannot save {}: {e}", path.display()),
                    };
                }
                "vars" => {
                    let vars = session.sandbox.var_summaries(60);
                    if vars.is_empty() {
                        let _ = writeln!(out, "(no variables; ui_state and phone_state are always there)");
                    }
                    for (name, value) in vars {
                        let _ = writeln!(out, "  {name} = {value}");
                    }
                }
                "reset" => {
                    session.reset();
                    let _ = writeln!(out, "forgot every variable, function and remembered fact");
                }
                other => {
                    let _ = writeln!(out, "unknown command :{other}; :help lists them");
                }
            }
            continue;
        }
        let result = session.run(&line);
        let _ = show(&result, &mut out);
        let _ = out.flush();
        refresh_words(&session, &words);
    }
    if let Some(path) = &history {
        let saved = path.parent().map_or(Ok(()), std::fs::create_dir_all).map_err(ReadlineError::from);
        if let Err(e) = saved.and_then(|()| editor.save_history(path)) {
            eprintln!("(history not saved to {}: {e})", path.display());
        }
    }
    Ok(())
}

/// Ctrl-C while a snippet runs stops that snippet, not the REPL (at the prompt the
/// line editor reads it as a key).
fn cancel_on_ctrl_c(session: &Session) {
    let shared = session.sandbox.shared();
    let _ = std::thread::Builder::new().name("codeact-ctrl-c".into()).spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
        rt.block_on(async {
            while tokio::signal::ctrl_c().await.is_ok() {
                shared.cancel();
            }
        });
    });
}
