//! `codeact repl`: an interactive Rhai prompt bound to a device. Variables and `fn`s
//! persist, `ui_state` is always fresh, input continues over several lines while it
//! does not parse yet, Tab completes tools and variables (`helper.rs`), and
//! meta-commands start with `:`. Line editing and history are rustyline's; this
//! module decides what a line means and how results are shown.

mod helper;
mod meta;

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rustyline::error::ReadlineError;
use rustyline::{Editor, history::DefaultHistory};

use codeact_base::error_text::full_message;
use codeact_base::terminal::clean;
use codeact_engine::sandbox::{self, LISTED_ACTIONS, RunResult};
use codeact_runtime::session::Session;
use helper::ReplHelper;
pub use meta::META;

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
fn action_line(a: &codeact_engine::sandbox::Action) -> String {
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
/// (the CLI cancels it on each Ctrl-C, listening from `editor_ready`, which runs
/// once the line editor stands: it takes SIGINT for itself when it starts).
pub fn run_repl(
    mut session: Session,
    history: Option<PathBuf>,
    editor_ready: impl FnOnce(),
) -> Result<(), ReadlineError> {
    let device_name = session.device_name();
    let words = Arc::new(Mutex::new(Vec::new()));
    let refresh_words = |session: &mut Session, words: &Arc<Mutex<Vec<String>>>| {
        let mut w: Vec<String> = session.tool_names().iter().map(|t| t.to_string()).collect();
        w.extend(session.var_names());
        *words.lock().unwrap_or_else(|e| e.into_inner()) = w;
    };
    refresh_words(&mut session, &words);
    let mut editor: Editor<ReplHelper, DefaultHistory> = Editor::new()?;
    // The line editor takes SIGINT for itself when it starts; a listener set up
    // after it is called first and hands the signal on.
    editor_ready();
    editor.set_helper(Some(ReplHelper::new(words.clone())));
    if let Some(path) = &history {
        // No history yet is normal; anything else is worth one line.
        if let Err(e) = editor.load_history(path)
            && path.exists()
        {
            codeact_base::errln!("(history {} not loaded: {e})", path.display());
        }
    }
    // Prints and actions appear as they happen, in the order they happen; a loop's
    // actions stop being echoed after the first LISTED_ACTIONS (a count follows).
    let echoed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let streamed = session
        .set_print_sink(Some(Box::new(|text: &str| {
            codeact_base::outln!("{}", clean(text));
        })))
        .is_ok();
    if streamed {
        let counter = echoed.clone();
        session.set_action_sink(Some(Box::new(move |a| {
            if counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < LISTED_ACTIONS {
                codeact_base::outln!("{}", action_line(a));
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
    // The snippets that ran without an error, for :save.
    let mut kept: Vec<String> = Vec::new();
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
                        let args: Vec<&str> = words_in.collect();
                        let mut state = MetaState { shots: &mut shots, kept: &mut kept, device: &device_name };
                        meta_command(&mut session, &echo, command, &args, &mut state, &mut out)
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
        if echo.run(&mut session, &snippet, &mut out) {
            kept.push(snippet.trim_end().to_string());
        }
        let _ = out.flush();
        refresh_words(&mut session, &words);
    }
    if let Some(path) = &history {
        let saved = path.parent().map_or(Ok(()), std::fs::create_dir_all).map_err(ReadlineError::from);
        if let Err(e) = saved.and_then(|()| editor.save_history(path)) {
            codeact_base::errln!("(history not saved to {}: {e})", path.display());
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
    /// Runs `code` in the session and shows what it did, each line once; true
    /// when it ran without an error.
    fn run(&self, session: &mut Session, code: &str, out: &mut impl Write) -> bool {
        self.echoed.store(0, std::sync::atomic::Ordering::Relaxed);
        let result = session.eval(code);
        let _ = if self.streamed { show_streamed_end(&result, out) } else { show(&result, out) };
        result.error.is_none()
    }
}

/// `:load FILE`: the file's imports, then its code, run in this session; its code
/// when it ran without an error.
fn load_file(session: &mut Session, echo: &Echo, path: &std::path::Path, out: &mut impl Write) -> Option<String> {
    let code = match codeact_base::files::read_text(path, codeact_base::files::TEXT_BYTES) {
        Ok(code) => code,
        Err(e) => {
            let _ = writeln!(out, "error: cannot read {}: {e}", path.display());
            return None;
        }
    };
    let root = crate::script::suite::import_root(path, &[]);
    let refused = match crate::script::modules_imported_by(path, Some(&root), &code) {
        Ok(modules) if modules.is_empty() => None,
        Ok(modules) => session.set_modules(modules).err().map(|e| full_message(&e)),
        Err(e) => Some(full_message(&e)),
    };
    if let Some(why) = refused {
        let _ = writeln!(out, "error: {}", clean(&why));
        return None;
    }
    echo.run(session, &code, out).then_some(code)
}

/// What meta-commands keep between lines.
struct MetaState<'a> {
    shots: &'a mut usize,
    kept: &'a mut Vec<String>,
    device: &'a str,
}

/// `:inspect X Y` and `:pick N`: the element, and the selectors that find it.
fn inspect(session: &mut Session, command: &str, args: &[&str], out: &mut impl Write) -> std::io::Result<()> {
    let obs = match session.observe(false) {
        Ok(obs) => obs,
        Err(e) => return writeln!(out, "error: {}", clean(&full_message(&e))),
    };
    let tree = &obs.ui;
    let found = match (command, args) {
        ("inspect", [x, y]) => {
            let (w, h) = tree.elements.first().map_or((0, 0), |root| (root.bounds.right, root.bounds.bottom));
            let coord = |v: &str, size: i32| -> Option<i32> {
                match v.parse::<i32>() {
                    Ok(px) => Some(px),
                    Err(_) => {
                        v.parse::<f64>().ok().filter(|f| (0.0..=1.0).contains(f)).map(|f| (f * f64::from(size)) as i32)
                    }
                }
            };
            match (coord(x, w), coord(y, h)) {
                (Some(x), Some(y)) => {
                    codeact_tools::inspect::element_at(tree, x, y).ok_or(format!("nothing visible at ({x}, {y})"))
                }
                _ => Err("give a point: :inspect 540 1200 (pixels) or :inspect 0.5 0.5 (fractions)".to_string()),
            }
        }
        ("inspect", _) => Err("give a point: :inspect 540 1200 (pixels) or :inspect 0.5 0.5 (fractions)".into()),
        (_, [n]) => match n.parse::<usize>() {
            Ok(i) => codeact_tools::inspect::element_listed(tree, i)
                .ok_or(format!("ui_state has no element {i} on this screen (:state lists them)")),
            Err(_) => Err("give an index from :state: :pick 3".into()),
        },
        _ => Err("give an index from :state: :pick 3".into()),
    };
    match found {
        Ok(element) => write!(out, "{}", clean(&codeact_tools::inspect::describe(tree, element))),
        Err(why) => writeln!(out, "error: {why}"),
    }
}

/// `:save FILE`: the snippets that ran without an error, as a script.
fn save(state: &MetaState, file: Option<&str>, replace: bool, out: &mut impl Write) -> std::io::Result<()> {
    let Some(file) = file else { return writeln!(out, "error: name the file: :save my_test.rhai") };
    let path = std::path::Path::new(file);
    if path.exists() && !replace {
        return writeln!(out, "error: {file} exists: give another name, or :save! {file} to replace it");
    }
    let mut script = codeact_engine::emit::rhai::comment(&format!(
        "Written by codeact repl ({}) on {}: the snippets that ran without an error.",
        jiff::Timestamp::now().strftime("%Y-%m-%d %H:%M UTC"),
        state.device,
    ));
    script.push_str("\n\n");
    // A function defined again at the prompt goes by a new name from there on.
    let mut redefinitions = codeact_record::trajectory::redefined::Redefinitions::default();
    for snippet in state.kept.iter() {
        // Typed at a prompt, a statement needs no `;`; in a file the next one does.
        script.push_str(&codeact_engine::emit::rhai::terminated(&redefinitions.step(snippet)));
        script.push_str("\n\n");
    }
    match codeact_base::files::write_replacing(path, script.as_bytes()) {
        Ok(()) => writeln!(
            out,
            "saved {} snippet{} to {file}",
            state.kept.len(),
            if state.kept.len() == 1 { "" } else { "s" }
        ),
        Err(e) => writeln!(out, "error: cannot write {file}: {e}"),
    }
}

/// Runs one `:command` (all but `:quit`).
fn meta_command(
    session: &mut Session,
    echo: &Echo,
    command: &str,
    args: &[&str],
    state: &mut MetaState,
    out: &mut impl Write,
) {
    let arg = args.first().copied();
    let _ = match command {
        "inspect" | "pick" => inspect(session, command, args, out),
        "save" => save(state, arg, false, out),
        "save!" => save(state, arg, true, out),
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
            *state.shots += 1;
            let path = arg.map_or_else(|| PathBuf::from(format!("screenshot-{}.png", state.shots)), PathBuf::from);
            // A path the person names is written as named; a numbered default is
            // renamed into place (never written through a link waiting there).
            let write = |png: &[u8]| match arg {
                Some(_) => std::fs::write(&path, png),
                None => codeact_base::files::write_replacing(&path, png),
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
            Ok(()) => {
                // What ran before is gone from the session: a saved script starts here too.
                state.kept.clear();
                writeln!(out, "forgot every variable, function and remembered fact (:save starts from here)")
            }
            Err(e) => writeln!(out, "error: {e}"),
        },
        "load" => match arg {
            None => writeln!(out, "error: name the file: :load scripts/helpers.rhai"),
            Some(file) => {
                if let Some(code) = load_file(session, echo, std::path::Path::new(file), out) {
                    state.kept.push(code.trim_end().to_string());
                }
                Ok(())
            }
        },
        other => writeln!(out, "unknown command :{other}; :help lists them"),
    };
}
