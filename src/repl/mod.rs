//! `codeact repl`: an interactive Rhai prompt bound to a device. Variables and `fn`s
//! persist, `ui_state` is always fresh, input continues over several lines while it
//! does not parse yet, Tab completes tools and variables (`helper.rs`), and
//! meta-commands start with `:`. Line editing and history are rustyline's; this
//! module decides what a line means and how results are shown.

mod helper;

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rustyline::error::ReadlineError;
use rustyline::{Editor, history::DefaultHistory};

use crate::error_text::full_message;
use crate::sandbox::{self, LISTED_ACTIONS, RunResult};
use crate::session::Session;
use crate::terminal::clean;
use helper::ReplHelper;

/// The meta-commands, with what they do (`:help` prints this).
pub const META: &[(&str, &str)] = &[
    (":help", "this help: meta-commands and the session's tools"),
    (":tools", "the tools this session has, with their docs"),
    (":state", "read the screen and show it as the LLM sees it (indices match ui_state)"),
    (":screenshot [FILE]", "save a screenshot as PNG (default screenshot-N.png)"),
    (":vars", "the variables this session holds"),
    (":reset", "forget variables, functions and remembered facts"),
    (":load FILE", "run a script file here (its functions and variables stay; its imports come from its folder)"),
    (":quit", "leave (also Ctrl-D)"),
];

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
    out.write_all(clean(&result.output).as_bytes())?;
    let (listed, more) = result.listed_actions(LISTED_ACTIONS);
    for a in listed {
        writeln!(out, "{}", action_line(a))?;
    }
    if let Some(more) = more {
        writeln!(out, "  · {more}")?;
    }
    show_end(result, out)
}

/// `  · tap(540, 1200) ok (5 ms): opened .SubSettings`: one action as the REPL
/// echoes it, with what it changed.
fn action_line(a: &crate::sandbox::Action) -> String {
    let args = clean(&a.args.join(", ")).into_owned();
    let how = if a.succeeded() { "ok" } else { "failed" };
    let effect = a.capture.effect.as_deref().map(|e| format!(": {}", clean(e))).unwrap_or_default();
    format!("  · {}({args}) {how} ({:.0} ms){effect}", a.tool, a.duration_ms)
}

/// After a snippet whose prints and actions were echoed as they happened: how many
/// calls were not echoed, then the end.
fn show_streamed_end(result: &RunResult, out: &mut impl Write) -> std::io::Result<()> {
    let (_, more) = result.listed_actions(LISTED_ACTIONS);
    if let Some(more) = more {
        writeln!(out, "  · {more}")?;
    }
    if result.output.contains("\n[output cut at ") {
        writeln!(out, "[output cut at the snippet's limit]")?;
    }
    show_end(result, out)
}

/// What follows the printed lines and the actions: the count of calls not echoed,
/// the value, the error, the completion.
fn show_end(result: &RunResult, out: &mut impl Write) -> std::io::Result<()> {
    if let Some(v) = &result.value {
        writeln!(out, "{}", clean(v))?;
    }
    if let Some(e) = &result.error {
        writeln!(out, "error: {}", clean(&e.to_string()))?;
    }
    if let Some(c) = &result.completion {
        let how = if c.success { "success" } else { "failure" };
        writeln!(
            out,
            "completed ({how}){}",
            if c.reason.is_empty() { String::new() } else { format!(": {}", clean(&c.reason)) }
        )?;
    }
    Ok(())
}

/// The prompt for a new snippet, and for each further line of an unfinished one.
const PROMPT: &str = "rhai> ";
const CONTINUED: &str = "  ... ";

/// The interactive loop. Returns when the user quits or input ends. Stopping a
/// snippet that runs is the caller's: `session.cancel_handle()` before the call
/// (the CLI cancels it on each Ctrl-C).
pub fn run_repl(mut session: Session, history: Option<PathBuf>) -> Result<(), ReadlineError> {
    let device_name = session.device_name();
    let words = Arc::new(Mutex::new(Vec::new()));
    let refresh_words = |session: &mut Session, words: &Arc<Mutex<Vec<String>>>| {
        let mut w: Vec<String> = session.tool_names().iter().map(|t| t.to_string()).collect();
        w.extend(session.var_names());
        *words.lock().unwrap_or_else(|e| e.into_inner()) = w;
    };
    refresh_words(&mut session, &words);
    let mut editor: Editor<ReplHelper, DefaultHistory> = Editor::new()?;
    editor.set_helper(Some(ReplHelper::new(words.clone())));
    if let Some(path) = &history {
        // No history yet is normal; anything else is worth one line.
        if let Err(e) = editor.load_history(path)
            && path.exists()
        {
            crate::errln!("(history {} not loaded: {e})", path.display());
        }
    }
    // Prints and actions appear as they happen, in the order they happen; a loop's
    // actions stop being echoed after the first LISTED_ACTIONS (a count follows).
    let echoed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let streamed = session
        .set_print_sink(Some(Box::new(|text: &str| {
            crate::outln!("{}", clean(text));
        })))
        .is_ok();
    if streamed {
        let counter = echoed.clone();
        session.set_action_sink(Some(Box::new(move |a| {
            if counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < LISTED_ACTIONS {
                crate::outln!("{}", action_line(a));
            }
        })));
    }

    let echo = Echo { streamed, echoed };
    let mut out = std::io::stdout();
    let _ = writeln!(
        out,
        "codeact repl on {device_name}: {} tools; ui_state and phone_state are always fresh.\n\
         :help for help, Tab completes, a blank line ends a multi-line snippet, :quit or Ctrl-D leaves.",
        session.tool_names().len()
    );
    let mut shots = 0;
    // A snippet that does not parse yet goes on over more lines, each with the
    // continuation prompt; a blank line ends it whatever its state.
    let mut pending = String::new();
    loop {
        let prompt = if pending.is_empty() { PROMPT } else { CONTINUED };
        let line = match editor.readline(prompt) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => {
                pending.clear();
                continue;
            }
            Err(ReadlineError::Eof) if pending.is_empty() => break,
            Err(ReadlineError::Eof) => String::new(),
            Err(e) => return Err(e),
        };
        let code = line.trim();
        if pending.is_empty() {
            if code.is_empty() {
                continue;
            }
            if let Some(meta) = code.strip_prefix(':') {
                let _ = editor.add_history_entry(code);
                let mut words_in = meta.split_whitespace();
                match words_in.next().unwrap_or("") {
                    "q" | "quit" | "exit" => break,
                    command => {
                        let arg = words_in.next();
                        meta_command(&mut session, &echo, command, arg, &mut shots, &mut out)
                    }
                }
                continue;
            }
        }
        if !code.is_empty() {
            pending.push_str(&line);
            pending.push('\n');
            if sandbox::is_incomplete(&pending) {
                continue;
            }
        }
        let snippet = std::mem::take(&mut pending);
        let _ = editor.add_history_entry(snippet.trim_end());
        let _ = echo.run(&mut session, &snippet, &mut out);
        let _ = out.flush();
        refresh_words(&mut session, &words);
    }
    if let Some(path) = &history {
        let saved = path.parent().map_or(Ok(()), std::fs::create_dir_all).map_err(ReadlineError::from);
        if let Err(e) = saved.and_then(|()| editor.save_history(path)) {
            crate::errln!("(history not saved to {}: {e})", path.display());
        }
    }
    Ok(())
}

/// How a snippet's prints and actions reach the person: as they happen (then only
/// the end is shown after), or all at the end.
struct Echo {
    streamed: bool,
    /// Actions echoed so far in the running snippet.
    echoed: Arc<std::sync::atomic::AtomicUsize>,
}

impl Echo {
    /// Runs `code` in the session and shows what it did, each line once.
    fn run(&self, session: &mut Session, code: &str, out: &mut impl Write) -> std::io::Result<()> {
        self.echoed.store(0, std::sync::atomic::Ordering::Relaxed);
        let result = session.eval(code);
        if self.streamed { show_streamed_end(&result, out) } else { show(&result, out) }
    }
}

/// `:load FILE`: the file's imports, then its code, run in this session.
fn load_file(session: &mut Session, echo: &Echo, path: &std::path::Path, out: &mut impl Write) -> std::io::Result<()> {
    let code = match crate::files::read_text(path, crate::files::TEXT_BYTES) {
        Ok(code) => code,
        Err(e) => return writeln!(out, "error: cannot read {}: {e}", path.display()),
    };
    match crate::script::modules_imported_by(path, &code) {
        Ok(modules) if modules.is_empty() => {}
        Ok(modules) => {
            if let Err(e) = session.set_modules(modules) {
                return writeln!(out, "error: {}", clean(&full_message(&e)));
            }
        }
        Err(e) => return writeln!(out, "error: {}", clean(&full_message(&e))),
    }
    echo.run(session, &code, out)
}

/// Runs one `:command` (all but `:quit`).
fn meta_command(
    session: &mut Session,
    echo: &Echo,
    command: &str,
    arg: Option<&str>,
    shots: &mut usize,
    out: &mut impl Write,
) {
    let _ = match command {
        "h" | "help" => {
            let _ = writeln!(out, "Meta-commands:");
            for (m, doc) in META {
                let _ = writeln!(out, "  {m:<20} {doc}");
            }
            writeln!(out, "Tools (and print, debug, sleep):\n{}", session.describe_tools())
        }
        "tools" => write!(out, "{}", session.describe_tools()),
        "state" => match session.observe(false) {
            Ok(obs) => write!(out, "{}", clean(&obs.screen_text())),
            Err(e) => writeln!(out, "error: {}", clean(&full_message(&e))),
        },
        "screenshot" => {
            *shots += 1;
            let path = arg.map_or_else(|| PathBuf::from(format!("screenshot-{shots}.png")), PathBuf::from);
            // A path the person names is written as named; a numbered default is
            // renamed into place (never written through a link waiting there).
            let write = |png: &[u8]| match arg {
                Some(_) => std::fs::write(&path, png),
                None => crate::files::write_replacing(&path, png),
            };
            let saved = session.screenshot().map(|png| (write(&png), png.len()));
            match saved {
                Ok((Ok(()), n)) => writeln!(out, "saved {} ({n} bytes)", path.display()),
                Ok((Err(e), _)) => writeln!(out, "error: cannot save {}: {e}", path.display()),
                Err(e) => writeln!(out, "error: cannot save {}: {}", path.display(), full_message(&e)),
            }
        }
        "vars" => {
            let vars = session.var_summaries(60);
            if vars.is_empty() {
                let _ = writeln!(out, "(no variables; ui_state and phone_state are always there)");
            }
            for (name, value) in vars {
                let _ = writeln!(out, "  {name} = {}", clean(&value));
            }
            Ok(())
        }
        "reset" => match session.reset() {
            Ok(()) => writeln!(out, "forgot every variable, function and remembered fact"),
            Err(e) => writeln!(out, "error: {e}"),
        },
        "load" => match arg {
            None => writeln!(out, "error: name the file: :load scripts/helpers.rhai"),
            Some(file) => load_file(session, echo, std::path::Path::new(file), out),
        },
        other => writeln!(out, "unknown command :{other}; :help lists them"),
    };
}
