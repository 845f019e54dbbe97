//! The simulated device's `/system/bin/sh`: runs the command lines that `adb shell ...` and
//! `adb exec-out ...` send, mksh-style, on top of an in-memory file system.
//!
//! This module holds the executor (expansion, globbing, redirection, pipelines, `sh -c`,
//! `timeout`, `exit`); `parse` holds the grammar, `builtins` the toybox tools and `fs` the
//! files. It is not a full mksh: no control flow, functions, variable assignment, job control
//! or real concurrency (pipeline stages run one after another, each on the previous stage's
//! complete output). Android tools (`input`, `am`, ...) come from the caller's [`Commands`].

pub(crate) mod builtins;
pub(crate) mod fs;
pub(crate) mod parse;
mod patterns;

pub(crate) use fs::{FsError, MemFs, Meta};

use parse::{Command, Op, Part, Pipeline, RedirKind, Word};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const SH: &str = "/system/bin/sh";
const MAX_DEPTH: usize = 8;
/// Bytes a whole `run_script` may produce (stdout, stderr, pipes, `$(...)`, expansions).
const OUTPUT_LIMIT: usize = 64 << 20;
/// Simple commands a whole `run_script` may run (nested shells included).
const COMMAND_LIMIT: usize = 100_000;
/// Most glob candidates kept per pattern.
const GLOB_LIMIT: usize = 100_000;
/// Longest slice `ShellEnv::sleep` sleeps before looking at `cancel` again.
const SLEEP_SLICE: Duration = Duration::from_millis(50);

/// What a command (or a whole script) produced.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Output {
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: Vec<u8>,
    pub(crate) code: i32,
}

impl Output {
    /// An error result: `msg` plus a newline on stderr.
    pub(crate) fn error(msg: &str, code: i32) -> Output {
        Output { stdout: Vec::new(), stderr: format!("{msg}\n").into_bytes(), code }
    }
}

/// Commands the shell does not implement itself (the Android tools: input, am, dumpsys, ...).
pub(crate) trait Commands: Sync {
    /// Runs `argv[0]` with its arguments (argv is non-empty); `None` = no such command.
    fn run_command(&self, argv: &[String], stdin: &[u8], env: &ShellEnv) -> Option<Output>;
    /// The device clock (`date`), in seconds since the Unix epoch; the host's by default.
    fn now_secs(&self) -> i64 {
        builtins::host_now_secs()
    }
}

pub(crate) struct ShellEnv<'a> {
    pub(crate) fs: &'a MemFs,
    pub(crate) commands: &'a dyn Commands,
    /// Commands past this instant are cut short (set by `timeout N ...`).
    pub(crate) deadline: Option<Instant>,
    /// Set (by the host side) when the client closed the stream, like SIGHUP: sleeps stop
    /// within 50 ms and no further command starts, as if the deadline had passed.
    pub(crate) cancel: Option<Arc<AtomicBool>>,
}

impl ShellEnv<'_> {
    /// Sleeps for `d` in slices of at most 50 ms, cut at the deadline or when `cancel` is
    /// set; returns false when it was cut.
    pub(crate) fn sleep(&self, d: Duration) -> bool {
        let end = Instant::now().checked_add(d);
        // The instant to wake at, and whether reaching it means "cut".
        let (target, cut) = match (end, self.deadline) {
            (Some(e), Some(dl)) if dl < e => (Some(dl), true),
            (None, Some(dl)) => (Some(dl), true),
            (e, _) => (e, false),
        };
        loop {
            if self.cancelled() {
                return false;
            }
            let now = Instant::now();
            let slice = match target {
                Some(t) if now >= t => return !cut,
                Some(t) => t.saturating_duration_since(now).min(SLEEP_SLICE),
                None => SLEEP_SLICE,
            };
            std::thread::sleep(slice);
        }
    }

    fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// The deadline has passed or the host cancelled the script.
    fn expired(&self) -> bool {
        self.cancelled() || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// Per-`run_script` limits, shared by every nested shell; once one runs out, nothing more runs.
struct Budget {
    /// Output bytes still allowed.
    output: Cell<usize>,
    /// Commands still allowed.
    commands: Cell<usize>,
    /// Why the script was stopped.
    stop: Cell<Option<&'static str>>,
}

const TOO_LARGE: &str = "output too large";
const TOO_MANY: &str = "too many commands";

impl Budget {
    fn new(output: usize, commands: usize) -> Budget {
        Budget { output: Cell::new(output), commands: Cell::new(commands), stop: Cell::new(None) }
    }

    /// Counts `n` output bytes; false (and the script stops) when they do not fit.
    fn charge(&self, n: usize) -> bool {
        match self.output.get().checked_sub(n) {
            Some(left) => {
                self.output.set(left);
                true
            }
            None => {
                self.output.set(0);
                self.stop.set(Some(TOO_LARGE));
                false
            }
        }
    }

    fn stopped(&self) -> bool {
        self.stop.get().is_some()
    }
}

/// What builtins see: the environment, the current directory and the output budget.
pub(crate) struct Cx<'e, 'a> {
    pub(crate) env: &'e ShellEnv<'a>,
    /// The script's current directory (absolute).
    pub(crate) cwd: &'e str,
    budget: &'e Budget,
}

impl Cx<'_, '_> {
    /// `p` made absolute against the current directory.
    pub(crate) fn abs(&self, p: &str) -> String {
        MemFs::normalize(p, self.cwd)
    }

    /// The path to hand to [`MemFs`] for operand `p`: relative ones resolved against the
    /// current directory, absolute ones as given (so over-long names are reported).
    pub(crate) fn path(&self, p: &str) -> String {
        path_for_fs(p, &self.abs(p)).to_string()
    }

    /// Whether `o` may grow by `extra` more bytes within the output budget.
    pub(crate) fn room(&self, o: &Output, extra: usize) -> bool {
        o.stdout.len().saturating_add(o.stderr.len()).saturating_add(extra) <= self.budget.output.get()
    }

    /// Ends a builtin that ran out of output budget: drops its output and stops the script.
    pub(crate) fn too_large(&self) -> Output {
        self.budget.stop.set(Some(TOO_LARGE));
        Output { code: 1, ..Output::default() }
    }
}

/// Parses and runs a whole command line; a parse error gives code 2 or 1 with
/// `/system/bin/sh: <msg>` on stderr, like mksh.
pub(crate) fn run_script(script: &str, env: &ShellEnv) -> Output {
    run_limited(script, env, OUTPUT_LIMIT, COMMAND_LIMIT)
}

fn run_limited(script: &str, env: &ShellEnv, output: usize, commands: usize) -> Output {
    let budget = Budget::new(output, commands);
    let st = State {
        last: 0,
        depth: 0,
        exited: false,
        subshell: false,
        cwd: "/".into(),
        vars: Rc::default(),
        budget: &budget,
    };
    let mut out = run_nested(script, env, &[], st);
    if let Some(why) = budget.stop.get() {
        out.stderr.extend(format!("{SH}: {why}\n").bytes());
        out.code = 1;
    }
    out
}

/// A shell variable: value and whether child shells (`sh ...`) see it.
#[derive(Clone)]
struct Var {
    value: String,
    exported: bool,
}

/// Per-script execution state.
struct State<'b> {
    last: i32,
    depth: usize,
    exited: bool,
    /// In a pipeline stage: `cd` and assignments do not outlive the command.
    subshell: bool,
    cwd: String,
    vars: Rc<BTreeMap<String, Var>>,
    budget: &'b Budget,
}

impl<'b> State<'b> {
    /// The state a nested shell starts with: `$(...)` (`all_vars`) sees every variable,
    /// `sh` only the exported ones.
    fn child(&self, all_vars: bool) -> State<'b> {
        let vars = if all_vars {
            self.vars.clone()
        } else {
            Rc::new(self.vars.iter().filter(|(_, v)| v.exported).map(|(k, v)| (k.clone(), v.clone())).collect())
        };
        State {
            last: if all_vars { self.last } else { 0 },
            depth: self.depth + 1,
            exited: false,
            subshell: false,
            cwd: self.cwd.clone(),
            vars,
            budget: self.budget,
        }
    }
}

fn run_nested(script: &str, env: &ShellEnv, stdin: &[u8], mut st: State) -> Output {
    let parsed = match parse::parse(script) {
        Ok(s) => s,
        Err(e) => return Output::error(&format!("{SH}: {e}"), 1),
    };
    let mut out = Output::default();
    for (op, pl) in &parsed.items {
        if st.exited || env.expired() || st.budget.stopped() {
            break;
        }
        match op {
            Op::And if st.last != 0 => continue,
            Op::Or if st.last == 0 => continue,
            _ => {}
        }
        let r = exec_pipeline(pl, stdin, env, &mut st);
        out.stdout.extend(r.stdout);
        out.stderr.extend(r.stderr);
        st.last = r.code;
    }
    out.code = st.last;
    out
}

fn exec_pipeline(pl: &Pipeline, stdin: &[u8], env: &ShellEnv, st: &mut State) -> Output {
    let mut out = Output::default();
    let mut input = stdin.to_vec();
    let n = pl.commands.len();
    for (i, cmd) in pl.commands.iter().enumerate() {
        if i > 0 && (st.budget.stopped() || env.expired()) {
            break;
        }
        // Only a lone command can end the script with `exit` (or `cd`, or assign);
        // pipeline stages are subshells.
        let exited = st.exited;
        st.subshell = n > 1;
        let r = exec_command(cmd, &input, env, st);
        st.subshell = false;
        if n > 1 {
            st.exited = exited;
        }
        out.stderr.extend(r.stderr);
        if i + 1 == n {
            out.stdout = r.stdout;
            out.code = r.code;
        } else {
            input = r.stdout;
        }
    }
    if pl.negate {
        out.code = i32::from(out.code == 0);
    }
    out
}

/// Where a descriptor of a simple command goes.
#[derive(Clone)]
enum Target {
    Stdout,
    Stderr,
    File(String),
}

/// `NAME=value` at the start of a command: the name and the value as a word.
fn assignment(w: &Word) -> Option<(String, Word)> {
    let (first, rest) = w.parts.split_first()?;
    let Part::Lit { text, quoted: false } = first else {
        return None;
    };
    let (name, value) = text.split_once('=')?;
    let mut chars = name.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return None;
    }
    // The value is neither field-split nor globbed: treat all of it as quoted.
    let mut parts = vec![Part::Lit { text: value.to_string(), quoted: true }];
    parts.extend(rest.iter().cloned());
    for p in &mut parts {
        match p {
            Part::Lit { quoted, .. }
            | Part::Var { quoted, .. }
            | Part::Subst { quoted, .. }
            | Part::Arith { quoted, .. } => *quoted = true,
        }
    }
    Some((name.to_string(), Word { parts }))
}

fn exec_command(cmd: &Command, stdin: &[u8], env: &ShellEnv, st: &mut State) -> Output {
    let mut res = Output::default();
    match st.budget.commands.get().checked_sub(1) {
        Some(left) => st.budget.commands.set(left),
        None => {
            st.budget.stop.set(Some(TOO_MANY));
            res.code = 1;
            return res;
        }
    }
    let mut words = cmd.words.as_slice();
    let mut assigns = Vec::new();
    while let Some((w, rest)) = words.split_first() {
        let Some(a) = assignment(w) else { break };
        assigns.push(a);
        words = rest;
    }
    let mut argv = Vec::new();
    for w in words {
        argv.extend(expand(w, env, st, &mut res.stderr));
    }
    // Assignments apply left to right (`A=1 B=$A`); with a command they are exported to it
    // and undone afterwards, as they are in a pipeline stage.
    let saved = (!assigns.is_empty() && (!argv.is_empty() || st.subshell)).then(|| st.vars.clone());
    for (name, w) in &assigns {
        let value = expand(w, env, st, &mut res.stderr).join("");
        let vars = Rc::make_mut(&mut st.vars);
        let exported = saved.is_some() && !argv.is_empty() || vars.get(name).is_some_and(|v| v.exported);
        vars.insert(name.clone(), Var { value, exported });
    }
    let mut input: Option<Vec<u8>> = None;
    let mut targets = [Target::Stdout, Target::Stderr];
    let mut ok = !st.budget.stopped();
    for r in &cmd.redirs {
        if !ok {
            break;
        }
        let path = expand(&r.target, env, st, &mut res.stderr).join(" ");
        if let Err(msg) = redirect(r.fd, r.kind, &path, env, &st.cwd, &mut targets, &mut input) {
            res.stderr.extend(format!("{SH}: {msg}\n").bytes());
            ok = false;
        }
    }
    let out = if !ok {
        targets = [Target::Stdout, Target::Stderr];
        Output { code: 1, ..Output::default() }
    } else if argv.is_empty() {
        Output::default()
    } else {
        run_argv(&argv, input.as_deref().unwrap_or(stdin), env, st)
    };
    if let Some(vars) = saved {
        st.vars = vars;
    }
    for (data, target) in [(out.stdout, &targets[0]), (out.stderr, &targets[1])] {
        match target {
            Target::Stdout => res.stdout.extend(data),
            Target::Stderr => res.stderr.extend(data),
            Target::File(p) => {
                if let Err(e) = env.fs.append(p, &data) {
                    res.stderr.extend(format!("{SH}: write error: {e}\n").bytes());
                }
            }
        }
    }
    res.code = out.code;
    res
}

/// Why a redirection cannot be set up, in mksh's words.
#[derive(Debug, thiserror::Error)]
enum RedirectError {
    #[error("can't create {path}: {reason}")]
    Create { path: String, reason: FsError },
    #[error("can't open {path}: {reason}")]
    Open { path: String, reason: FsError },
    #[error("{0}: illegal file descriptor name")]
    BadDescriptor(String),
}

/// Points `fd` (or stdin) at `path` as `kind` says.
fn redirect(
    fd: u32,
    kind: RedirKind,
    path: &str,
    env: &ShellEnv,
    cwd: &str,
    targets: &mut [Target; 2],
    input: &mut Option<Vec<u8>>,
) -> Result<(), RedirectError> {
    let slot = match fd {
        1 => Some(0),
        2 => Some(1),
        _ => None,
    };
    let file = |append: bool| -> Result<Target, RedirectError> {
        match path {
            "/dev/stdout" | "/dev/tty" => return Ok(Target::Stdout),
            "/dev/stderr" => return Ok(Target::Stderr),
            _ => {}
        }
        let abs = MemFs::normalize(path, cwd);
        let r = if append {
            env.fs.append(path_for_fs(path, &abs), b"")
        } else {
            env.fs.write(path_for_fs(path, &abs), b"")
        };
        r.map_err(|reason| RedirectError::Create { path: path.to_string(), reason })?;
        Ok(Target::File(abs))
    };
    match kind {
        RedirKind::In => {
            if fd == 0 {
                let abs = MemFs::normalize(path, cwd);
                let data = env
                    .fs
                    .read(path_for_fs(path, &abs))
                    .map_err(|reason| RedirectError::Open { path: path.to_string(), reason })?;
                *input = Some(data);
            }
        }
        RedirKind::Out | RedirKind::Append => {
            let t = file(kind == RedirKind::Append)?;
            if let Some(s) = slot {
                targets[s] = t;
            }
        }
        RedirKind::Both | RedirKind::BothAppend => {
            let t = file(kind == RedirKind::BothAppend)?;
            targets[0] = t.clone();
            targets[1] = t;
        }
        RedirKind::Dup => {
            let t = match path {
                "1" => targets[0].clone(),
                "2" => targets[1].clone(),
                "-" => Target::File("/dev/null".into()),
                "0" => return Ok(()),
                _ if fd == 1 => {
                    // `>&file` is `&>file` in mksh.
                    let t = file(false)?;
                    targets[1] = t.clone();
                    t
                }
                _ => return Err(RedirectError::BadDescriptor(path.to_string())),
            };
            if let Some(s) = slot {
                targets[s] = t;
            }
        }
    }
    Ok(())
}

/// What to hand the file system for `path` (made absolute as `abs`): the path as given
/// when it is already absolute, so that over-long names are still reported as such.
pub(crate) fn path_for_fs<'p>(path: &'p str, abs: &'p str) -> &'p str {
    if path.starts_with('/') { path } else { abs }
}

fn var(name: &str, st: &State) -> String {
    if let Some(v) = st.vars.get(name) {
        return v.value.clone();
    }
    match name {
        "?" => st.last.to_string(),
        "$" => "4242".into(),
        "#" => "0".into(),
        "0" => SH.into(),
        "PWD" => st.cwd.clone(),
        "HOME" => "/".into(),
        "PATH" => "/product/bin:/apex/com.android.runtime/bin:/apex/com.android.art/bin:/system_ext/bin:/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin".into(),
        "USER" | "LOGNAME" => "shell".into(),
        "HOSTNAME" => "localhost".into(),
        "SHELL" => SH.into(),
        "TMPDIR" => "/data/local/tmp".into(),
        "EXTERNAL_STORAGE" => "/sdcard".into(),
        "ANDROID_DATA" => "/data".into(),
        "ANDROID_ROOT" => "/system".into(),
        _ => String::new(),
    }
}

mod arith;

/// Field separators for unquoted expansions (the default `IFS`).
fn is_ifs(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n')
}

/// Expands one word into fields: variables, command substitution, field splitting of
/// unquoted expansions, and globbing of unquoted `* ? [`.
fn expand(word: &Word, env: &ShellEnv, st: &State, stderr: &mut Vec<u8>) -> Vec<String> {
    // Characters with their "quoted" flag; a field exists once it has any quoted part.
    let mut fields: Vec<Vec<(char, bool)>> = Vec::new();
    let mut cur: Vec<(char, bool)> = Vec::new();
    let mut has = false;
    for part in &word.parts {
        if st.budget.stopped() {
            return Vec::new();
        }
        let (value, quoted) = match part {
            Part::Lit { text, quoted } => {
                cur.extend(text.chars().map(|c| (c, *quoted)));
                has |= *quoted || !text.is_empty();
                continue;
            }
            Part::Var { name, quoted } => {
                let v = var(name, st);
                // `$A$A$A...` can repeat one large value many times: count it as output.
                if !st.budget.charge(v.len()) {
                    return Vec::new();
                }
                (v, *quoted)
            }
            Part::Arith { expr, quoted } => match arith::evaluate(expr, &|name| var(name, st)) {
                Ok(n) => (n.to_string(), *quoted),
                Err(why) => {
                    stderr.extend(format!("{SH}: {expr}: {why}\n").into_bytes());
                    (String::new(), *quoted)
                }
            },
            Part::Subst { script, quoted } => {
                let out = if st.depth >= MAX_DEPTH {
                    Output::error(&format!("{SH}: too many nested shells"), 1)
                } else {
                    run_nested(script, env, &[], st.child(true))
                };
                stderr.extend(out.stderr);
                let s = String::from_utf8_lossy(&out.stdout);
                (s.trim_end_matches('\n').to_string(), *quoted)
            }
        };
        if quoted {
            cur.extend(value.chars().map(|c| (c, true)));
            has = true;
            continue;
        }
        for c in value.chars() {
            if is_ifs(c) {
                if has {
                    fields.push(std::mem::take(&mut cur));
                    has = false;
                }
            } else {
                cur.push((c, true));
                has = true;
            }
        }
    }
    if has {
        fields.push(cur);
    }
    let mut out = Vec::new();
    for f in fields {
        let matches = if f.iter().any(|&(c, q)| !q && matches!(c, '*' | '?' | '[')) {
            glob(&f, env.fs, &st.cwd)
        } else {
            Vec::new()
        };
        if matches.is_empty() {
            out.push(f.iter().map(|&(c, _)| c).collect());
        } else {
            out.extend(matches);
        }
    }
    out
}

/// Turns one path component of a glob pattern into an anchored regex (linear in its length).
fn glob_regex(comp: &[(char, bool)]) -> Option<regex::Regex> {
    // next_close[k]: index of the first unquoted-or-not `]` at or after k.
    let mut next_close = vec![usize::MAX; comp.len() + 1];
    for k in (0..comp.len()).rev() {
        next_close[k] = if comp.get(k).is_some_and(|&(c, _)| c == ']') { k } else { next_close[k + 1] };
    }
    let mut re = String::from("^");
    let mut i = 0;
    while let Some(&(c, q)) = comp.get(i) {
        i += 1;
        match (c, q) {
            ('*', false) => re.push_str(".*"),
            ('?', false) => re.push('.'),
            ('[', false) => {
                // A `]` right after `[` (or `[!`) is part of the set.
                let close = next_close.get(i + 1).copied().filter(|&e| e != usize::MAX);
                let Some(end) = close else {
                    re.push_str("\\[");
                    continue;
                };
                re.push('[');
                for (k, &(c, _)) in comp.get(i..end).unwrap_or_default().iter().enumerate() {
                    match c {
                        '!' | '^' if k == 0 => re.push('^'),
                        '-' => re.push('-'),
                        c => re.push_str(&regex::escape(&c.to_string())),
                    }
                }
                re.push(']');
                i = end + 1;
            }
            (c, _) => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    regex::Regex::new(&re).ok()
}

/// Expands a glob field against the file system (relative patterns against `cwd`);
/// sorted, deduplicated matches (empty when none). Only directories are descended into
/// and at most [`GLOB_LIMIT`] candidates are kept.
fn glob(field: &[(char, bool)], fs: &MemFs, cwd: &str) -> Vec<String> {
    let absolute = field.first().is_some_and(|&(c, _)| c == '/');
    // Each candidate: (path as shown, absolute path).
    let start = if absolute { "/".to_string() } else { String::new() };
    let mut cands: Vec<(String, String)> = vec![(start, MemFs::normalize(cwd, "/"))];
    let join = |base: &str, name: &str| {
        if base.is_empty() || base.ends_with('/') { format!("{base}{name}") } else { format!("{base}/{name}") }
    };
    for (k, comp) in field.split(|&(c, _)| c == '/').filter(|c| !c.is_empty()).enumerate() {
        if k > 0 {
            cands.retain(|(_, abs)| fs.stat(abs).is_some_and(|m| m.is_dir));
        }
        let literal = !comp.iter().any(|&(c, q)| !q && matches!(c, '*' | '?' | '['));
        let mut next = Vec::new();
        if literal {
            let name: String = comp.iter().map(|&(c, _)| c).collect();
            for (shown, abs) in &cands {
                let a = MemFs::normalize(&name, abs);
                if fs.stat(&a).is_some() {
                    next.push((join(shown, &name), a));
                }
            }
        } else {
            let Some(re) = glob_regex(comp) else {
                return Vec::new();
            };
            let dot_ok = comp.first().is_some_and(|&(c, _)| c == '.');
            'outer: for (shown, abs) in &cands {
                for (name, _) in fs.list(abs).unwrap_or_default() {
                    if (dot_ok || !name.starts_with('.')) && re.is_match(&name) {
                        if next.len() >= GLOB_LIMIT {
                            break 'outer;
                        }
                        next.push((join(shown, &name), MemFs::normalize(&name, abs)));
                    }
                }
            }
        }
        next.truncate(GLOB_LIMIT);
        cands = next;
        if cands.is_empty() {
            return Vec::new();
        }
    }
    let dir_only = field.last().is_some_and(|&(c, _)| c == '/');
    let mut out: Vec<String> = Vec::new();
    for (mut shown, abs) in cands {
        if dir_only {
            if !fs.stat(&abs).is_some_and(|m| m.is_dir) {
                continue;
            }
            if !shown.ends_with('/') {
                shown.push('/');
            }
        }
        out.push(shown);
    }
    out.sort();
    out.dedup();
    out
}

/// Strips the directories commands may be called through.
fn command_name(arg0: &str) -> &str {
    ["/system/bin/", "/system/xbin/", "/bin/"]
        .iter()
        .find_map(|p| arg0.strip_prefix(p))
        .filter(|n| !n.is_empty())
        .unwrap_or(arg0)
}

fn run_argv(argv: &[String], stdin: &[u8], env: &ShellEnv, st: &mut State) -> Output {
    let Some((arg0, args)) = argv.split_first() else {
        return Output::default();
    };
    let name = command_name(arg0);
    match name {
        "exit" => return exit(args, st),
        "cd" => return cd(args, env, st),
        "sh" | "mksh" => return sh(args, stdin, env, st),
        "timeout" => return timeout(args, stdin, env, st),
        _ => {}
    }
    let mut out = if let Some(f) = builtins::lookup(name) {
        f(args, stdin, &Cx { env, cwd: &st.cwd, budget: st.budget })
    } else {
        let mut full = argv.to_vec();
        if let Some(first) = full.first_mut() {
            *first = name.to_string();
        }
        env.commands
            .run_command(&full, stdin, env)
            .unwrap_or_else(|| Output::error(&format!("{SH}: {arg0}: inaccessible or not found"), 127))
    };
    if !st.budget.charge(out.stdout.len().saturating_add(out.stderr.len())) {
        out = Output { code: 1, ..Output::default() };
    }
    out
}

fn exit(args: &[String], st: &mut State) -> Output {
    st.exited = true;
    let code = match args.first() {
        None => st.last,
        Some(a) => match a.parse::<i64>() {
            Ok(n) => (n & 0xff) as i32,
            Err(_) => {
                st.last = 1;
                return Output::error(&format!("{SH}: exit: {a}: bad number"), 1);
            }
        },
    };
    st.last = code;
    Output { code, ..Output::default() }
}

/// `cd [DIR]` (no DIR: `$HOME`); mksh's messages, code 2 on failure.
fn cd(args: &[String], env: &ShellEnv, st: &mut State) -> Output {
    let dir = match args.iter().find(|a| !matches!(a.as_str(), "-L" | "-P")) {
        Some(d) if d == "-" => var("OLDPWD", st),
        Some(d) => d.clone(),
        None => var("HOME", st),
    };
    let abs = MemFs::normalize(&dir, &st.cwd);
    let err = match env.fs.stat(path_for_fs(&dir, &abs)) {
        Some(m) if m.is_dir => None,
        Some(_) => Some(FsError::NotADirectory),
        None if dir.len() > fs::PATH_MAX || dir.split('/').any(|c| c.len() > fs::NAME_MAX) => {
            Some(FsError::NameTooLong)
        }
        None => Some(FsError::NotFound),
    };
    if let Some(e) = err {
        return Output::error(&format!("{SH}: cd: {dir}: {e}"), 2);
    }
    if !st.subshell {
        let old = std::mem::replace(&mut st.cwd, abs);
        Rc::make_mut(&mut st.vars).insert("OLDPWD".into(), Var { value: old, exported: false });
    }
    Output::default()
}

fn sh(args: &[String], stdin: &[u8], env: &ShellEnv, st: &mut State) -> Output {
    if st.depth >= MAX_DEPTH {
        return Output::error(&format!("{SH}: too many nested shells"), 1);
    }
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a.starts_with('-') && a.len() > 1 {
            if a.contains('c') && !a.starts_with("--") {
                return match it.next() {
                    Some(script) => run_nested(script, env, stdin, st.child(false)),
                    None => Output::error(&format!("{SH}: -c: option requires an argument"), 1),
                };
            }
            continue;
        }
        let abs = MemFs::normalize(a, &st.cwd);
        return match env.fs.read(path_for_fs(a, &abs)) {
            Ok(data) => run_nested(&String::from_utf8_lossy(&data), env, &[], st.child(false)),
            Err(e) => Output::error(&format!("{SH}: {a}: {e}"), 127),
        };
    }
    run_nested(&String::from_utf8_lossy(stdin), env, &[], st.child(false))
}

/// `timeout [-s SIG] [-k D] DURATION CMD...`. Directly nested `timeout`s are handled in one
/// loop (deadlines combined), so `timeout 1 timeout 1 ... true` cannot recurse deeply.
fn timeout(args: &[String], stdin: &[u8], env: &ShellEnv, st: &mut State) -> Output {
    // Per level, outermost first: (its combined deadline, its code on timeout).
    let mut levels: Vec<(Option<Instant>, i32)> = Vec::new();
    let mut deadline = env.deadline;
    let mut args = args;
    let cmd = loop {
        let mut i = 0;
        let mut code_on_timeout = 124;
        let is_kill = |s: Option<&str>| matches!(s, Some("KILL" | "SIGKILL" | "9"));
        while let Some(a) = args.get(i) {
            i += 1;
            match a.as_str() {
                "--" => break,
                "-s" => {
                    if is_kill(args.get(i).map(String::as_str)) {
                        code_on_timeout = 137;
                    }
                    i += 1;
                }
                "-k" => i += 1,
                s if s.starts_with("-s") => {
                    if is_kill(s.get(2..)) {
                        code_on_timeout = 137;
                    }
                }
                s if s.starts_with("-k") || s.starts_with("--") || s == "-v" => {}
                _ => {
                    i -= 1;
                    break;
                }
            }
        }
        let (Some(dur), Some(cmd)) = (args.get(i), args.get(i + 1..).filter(|c| !c.is_empty())) else {
            return finish_timeout(Output::error("timeout: Needs 2 arguments", 125), &levels, env);
        };
        let Some(d) = builtins::parse_duration(dur) else {
            return finish_timeout(Output::error(&format!("timeout: invalid duration '{dur}'"), 125), &levels, env);
        };
        if !d.is_zero() {
            let mine = Instant::now().checked_add(d);
            deadline = match (deadline, mine) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        levels.push((deadline, code_on_timeout));
        match cmd.split_first() {
            Some((first, rest)) if command_name(first) == "timeout" => args = rest,
            _ => break cmd,
        }
    };
    let inner = ShellEnv { fs: env.fs, commands: env.commands, deadline, cancel: env.cancel.clone() };
    let exited = st.exited;
    let out = run_argv(cmd, stdin, &inner, st);
    st.exited = exited;
    finish_timeout(out, &levels, env)
}

/// The outermost timeout level whose deadline passed decides the code (as each level
/// overrides what the inner ones reported).
fn finish_timeout(mut out: Output, levels: &[(Option<Instant>, i32)], env: &ShellEnv) -> Output {
    let now = Instant::now();
    if let Some(&(_, code)) = levels.iter().find(|(d, _)| d.is_some_and(|d| now >= d)) {
        out.code = code;
    } else if env.cancelled() && !levels.is_empty() {
        out.code = levels.first().map_or(124, |l| l.1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Records calls; knows `input` (echoes argv and stdin) and `dumpsys` (prints a line).
    #[derive(Default)]
    struct Fake {
        calls: Mutex<Vec<(Vec<String>, Vec<u8>)>>,
    }

    impl Commands for Fake {
        fn run_command(&self, argv: &[String], stdin: &[u8], _env: &ShellEnv) -> Option<Output> {
            if let Ok(mut c) = self.calls.lock() {
                c.push((argv.to_vec(), stdin.to_vec()));
            }
            match argv[0].as_str() {
                "input" => Some(Output {
                    stdout: format!("{}|{}", argv.join(","), String::from_utf8_lossy(stdin)).into_bytes(),
                    ..Output::default()
                }),
                "dumpsys" => Some(Output {
                    stdout: b"mCurrentFocus=Window{1 u0 com.example/.Main}\nother\n".to_vec(),
                    ..Output::default()
                }),
                _ => None,
            }
        }
    }

    fn run_with(fs: &MemFs, cmds: &Fake, script: &str) -> Output {
        let env = ShellEnv { fs, commands: cmds, deadline: None, cancel: None };
        run_script(script, &env)
    }

    /// Quotes like `adb exec-out` does: `'...'` with `'` sent as `'\\''`.
    fn shell_quote(s: &str) -> String {
        format!("'{}'", s.replace('\'', "'\\''"))
    }

    fn run(script: &str) -> Output {
        run_with(&MemFs::new(), &Fake::default(), script)
    }

    fn out(script: &str) -> String {
        String::from_utf8_lossy(&run(script).stdout).into_owned()
    }

    #[test]
    fn exec_out_quoting_round_trip() {
        assert_eq!(out(r#"echo 'it'\''s' "a  b""#), "it's a  b\n");
        assert_eq!(out(r#"echo 'a'"b"c '' d"#), "abc  d\n");
        assert_eq!(out(r#"printf '%s|' 'x y' '' "\$HOME" "$HOME""#), "x y||$HOME|/|");
    }

    #[test]
    fn status_and_operators() {
        assert_eq!(out("false && echo no; echo $?"), "1\n");
        assert_eq!(out("false || echo yes"), "yes\n");
        assert_eq!(out("true && echo a || echo b"), "a\n");
        assert_eq!(out("false && echo a || echo b"), "b\n");
        assert_eq!(out("! false && echo neg"), "neg\n");
        assert_eq!(run("true; false").code, 1);
        assert_eq!(out("echo a # comment\necho b"), "a\nb\n");
        let r = run("echo a; exit 3; echo b");
        assert_eq!((r.stdout.as_slice(), r.code), (&b"a\n"[..], 3));
        assert_eq!(out("sh -c 'exit 4'; echo $?"), "4\n");
    }

    #[test]
    fn pipes() {
        assert_eq!(out("echo hi | grep -E 'h+'"), "hi\n");
        assert_eq!(run("echo hi | grep x").code, 1);
        assert_eq!(out("printf 'a\\nb\\nc\\n' | tail -n 2 | head -1"), "b\n");
        assert_eq!(out("echo $(echo a   b) \"$(echo c)\""), "a b c\n");
    }

    #[test]
    fn unknown_command() {
        let r = run("nosuch arg");
        assert_eq!(r.code, 127);
        assert_eq!(r.stderr, b"/system/bin/sh: nosuch: inaccessible or not found\n");
        assert!(r.stdout.is_empty());
        let r = run("/system/bin/nosuch");
        assert_eq!(r.stderr, b"/system/bin/sh: /system/bin/nosuch: inaccessible or not found\n");
    }

    #[test]
    fn syntax_errors() {
        let r = run("echo 'abc; echo ran");
        assert_eq!(r.stderr, b"/system/bin/sh: syntax error: unterminated quoted string\n");
        assert_eq!(r.code, 1);
        assert!(r.stdout.is_empty());
        let r = run("echo a |");
        assert_eq!(r.code, 1);
        assert!(r.stdout.is_empty());
        assert!(r.stderr.starts_with(b"/system/bin/sh: syntax error"));
    }

    #[test]
    fn redirections() {
        let fs = MemFs::new();
        let f = Fake::default();
        let r = run_with(&fs, &f, "echo hello > /sdcard/x; cat /sdcard/x; echo more >> /sdcard/x");
        assert_eq!(r.stdout, b"hello\n");
        assert_eq!(fs.read("/sdcard/x").unwrap(), b"hello\nmore\n");
        let r = run_with(&fs, &f, "cat /nope 2> /sdcard/err; cat < /sdcard/err");
        assert_eq!(r.stdout, b"cat: /nope: No such file or directory\n");
        let r = run_with(&fs, &f, "cat /nope /sdcard/x > /sdcard/both 2>&1");
        assert!(r.stdout.is_empty() && r.stderr.is_empty());
        assert_eq!(fs.read("/sdcard/both").unwrap(), b"hello\nmore\ncat: /nope: No such file or directory\n");
        let r = run_with(&fs, &f, "cat /nope 2>&1 >/dev/null");
        assert_eq!(r.stdout, b"cat: /nope: No such file or directory\n");
        let r = run_with(&fs, &f, "echo x &> /sdcard/amp; ls /nope &>/dev/null; echo $?");
        assert_eq!(r.stdout, b"1\n");
        assert_eq!(fs.read("/sdcard/amp").unwrap(), b"x\n");
        let r = run_with(&fs, &f, "echo x > /system/y");
        assert_eq!(r.code, 1);
        assert_eq!(r.stderr, b"/system/bin/sh: can't create /system/y: Read-only file system\n");
        let r = run_with(&fs, &f, "cat < /sdcard/none");
        assert_eq!(r.code, 1);
        assert_eq!(r.stderr, b"/system/bin/sh: can't open /sdcard/none: No such file or directory\n");
    }

    #[test]
    fn files_through_shell() {
        let fs = MemFs::new();
        let f = Fake::default();
        run_with(&fs, &f, "echo 1 > /sdcard/b.txt; touch /sdcard/a.png; mkdir /sdcard/d");
        assert_eq!(run_with(&fs, &f, "ls /sdcard").stdout, b"DCIM\nDownload\nPictures\na.png\nb.txt\nd\n");
        assert_eq!(run_with(&fs, &f, "ls /storage/emulated/0/*.txt").stdout, b"/storage/emulated/0/b.txt\n");
        assert_eq!(run_with(&fs, &f, "echo /sdcard/*.zip").stdout, b"/sdcard/*.zip\n");
        assert_eq!(run_with(&fs, &f, "echo '/sdcard/*.txt'").stdout, b"/sdcard/*.txt\n");
        let r = run_with(&fs, &f, "rm /sdcard/b.txt; ls /sdcard/b.txt");
        assert_eq!(r.code, 1);
        assert_eq!(r.stderr, b"ls: /sdcard/b.txt: No such file or directory\n");
        let r = run_with(&fs, &f, "echo x > /system/z; touch /system/z");
        assert_eq!(r.code, 1);
        assert!(fs.stat("/system/z").is_none());
        run_with(&fs, &f, "echo same > /storage/emulated/0/a");
        assert_eq!(fs.read("/sdcard/a").unwrap(), b"same\n");
    }

    #[test]
    fn external_commands() {
        let fs = MemFs::new();
        let f = Fake::default();
        let r = run_with(&fs, &f, "echo data | /system/bin/input tap 1 2");
        assert_eq!(r.stdout, b"input,tap,1,2|data\n");
        let r = run_with(&fs, &f, "dumpsys window | grep mCurrentFocus");
        assert_eq!(r.stdout, b"mCurrentFocus=Window{1 u0 com.example/.Main}\n");
        let r = run_with(&fs, &f, "sh -c 'input text \"a b\"'");
        assert_eq!(r.stdout, b"input,text,a b|");
        let calls = f.calls.lock().unwrap();
        assert_eq!(calls[0].0, ["input", "tap", "1", "2"]);
        assert_eq!(calls[0].1, b"data\n");
    }

    #[test]
    fn timeouts() {
        let start = Instant::now();
        let r = run("timeout 0.05 sleep 5");
        assert_eq!(r.code, 124);
        assert!(start.elapsed() < Duration::from_secs(2));
        assert_eq!(run("timeout 5 true").code, 0);
        assert_eq!(run("timeout 5 false").code, 1);
        assert_eq!(run("timeout -s KILL 0.01 sleep 1").code, 137);
        let start = Instant::now();
        let r = run("timeout 0.03 sh -c 'sleep 1; echo late'; echo $?");
        assert_eq!(r.stdout, b"124\n");
        assert!(start.elapsed() < Duration::from_secs(1));
        assert_eq!(run("timeout").code, 125);
    }

    #[test]
    fn nesting_is_bounded() {
        let mut s = String::from("echo deep");
        for _ in 0..12 {
            s = format!("sh -c {}", shell_quote(&s));
        }
        let r = run(&s);
        assert_eq!(r.code, 1);
        assert!(String::from_utf8_lossy(&r.stderr).contains("too many nested shells"));
        assert_eq!(out("echo 'echo from stdin' | sh"), "from stdin\n");
    }

    #[test]
    fn odd_input_never_panics() {
        let cases = [
            "",
            "'",
            "\\",
            "$",
            "${",
            "$(",
            "`",
            "2>",
            ">&",
            "a[",
            "echo [",
            "ls /sdcard/[",
            "grep '['",
            "printf %",
            "printf '\\'",
            "echo -e '\\x'",
            "head -n",
            "tail -c +0",
            "echo *",
            "ls ../..",
            "é ü",
            "echo 😀* [!a]*",
            "echo ${}",
            "exit 99999999999999999999",
            "sleep 1e400 &",
            "timeout 1e30 true",
            "echo a 3>&1 9<x",
            "cat <&0",
            "!",
            "! ",
            "base64 -w 0",
            "printf '%.999999999999s' x",
            "grep -e",
            "grep -E '*'",
            "grep -E '+a|?'",
            "a && ",
            "&& a",
            "echo $((1+2))",
            ";",
            "\n",
            "echo \"\\\"",
            "mv",
            "cp a",
            "stat -c",
            "ls -",
            "rm -",
            "wc -l -",
            "date +%",
            "echo ok",
        ];
        let fs = MemFs::new();
        let f = Fake::default();
        for c in cases {
            let r = run_with(&fs, &f, c);
            assert!(r.code >= 0, "{c}");
        }
        assert_eq!(run_with(&fs, &f, "echo ok").stdout, b"ok\n");
        assert_eq!(run_with(&fs, &f, "echo \"\\\"\"").stdout, b"\"\n");
    }

    #[test]
    fn nested_timeouts_do_not_recurse() {
        let s = format!("{}true", "timeout 1 ".repeat(10_000));
        assert_eq!(run(&s).code, 0);
        let s = format!("{}false", "timeout -s KILL 5 ".repeat(10_000));
        assert_eq!(run(&s).code, 1);
        let start = Instant::now();
        assert_eq!(run("timeout 5 timeout 0.02 sleep 1").code, 124);
        assert_eq!(run("timeout -s KILL 0.02 timeout 5 sleep 1").code, 137);
        assert_eq!(run("timeout 0.02 timeout -s 9 5 sleep 1").code, 124);
        assert!(start.elapsed() < Duration::from_secs(2));
        assert_eq!(run("timeout 1 timeout x true").code, 125);
        assert_eq!(run("timeout 1 timeout 1").code, 125);
    }

    fn limited(fs: &MemFs, script: &str, output: usize, commands: usize) -> Output {
        let f = Fake::default();
        let env = ShellEnv { fs, commands: &f, deadline: None, cancel: None };
        run_limited(script, &env, output, commands)
    }

    #[test]
    fn output_budget() {
        let fs = MemFs::new();
        fs.write("/sdcard/big", &vec![b'x'; 8 << 20]).unwrap();
        let r = run_with(&fs, &Fake::default(), &format!("cat{}; echo after", " /sdcard/big".repeat(9)));
        assert_eq!(r.code, 1);
        assert!(r.stderr.ends_with(b"/system/bin/sh: output too large\n"));
        assert!(!r.stdout.ends_with(b"after\n"));
        assert!(r.stdout.len() <= OUTPUT_LIMIT);
        assert_eq!(run_with(&fs, &Fake::default(), "cat /sdcard/big | wc -c").stdout, b"8388608\n");
        // Pipes, substitutions and variables all count.
        let r = limited(&fs, "printf '%1000s' | printf '%1000s' | wc -c", 1500, 100);
        assert_eq!((r.code, r.stdout.is_empty()), (1, true));
        let r = limited(&fs, "echo $(printf '%1000s') $(printf '%1000s')", 1500, 100);
        assert!(r.stderr.ends_with(b"output too large\n"));
        let doubling = format!("A=xxxxxxxxxxxxxxxx{}; echo done", "; A=$A$A".repeat(40));
        let r = limited(&fs, &doubling, 1 << 20, 100);
        assert_eq!((r.code, r.stdout.is_empty()), (1, true));
        assert!(r.stderr.ends_with(b"output too large\n"));
        let r = limited(&fs, "printf '%1000s' x; echo ok", 1500, 100);
        assert_eq!((r.code, r.stdout.len()), (0, 1003));
    }

    #[test]
    fn command_budget() {
        let r = run(&"true;".repeat(COMMAND_LIMIT + 1));
        assert_eq!(r.code, 1);
        assert_eq!(r.stderr, b"/system/bin/sh: too many commands\n");
        assert_eq!(run(&"true;".repeat(1000)).code, 0);
        let fs = MemFs::new();
        let r = limited(&fs, "echo a; sh -c 'true; true; true'; echo $(true; true); echo b", usize::MAX, 6);
        assert_eq!((r.code, r.stdout.as_slice()), (1, &b"a\n"[..]));
        assert!(r.stderr.ends_with(b"too many commands\n"));
        let r = limited(&fs, "echo a; sh -c 'true; true; true'; echo b", usize::MAX, 6);
        assert_eq!((r.code, r.stdout.as_slice()), (0, &b"a\nb\n"[..]));
    }

    #[test]
    fn cancel_stops_sleep_and_script() {
        let fs = MemFs::new();
        let f = Fake::default();
        let cancel = Arc::new(AtomicBool::new(false));
        let env = ShellEnv { fs: &fs, commands: &f, deadline: None, cancel: Some(cancel.clone()) };
        let setter = {
            let c = cancel.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(30));
                c.store(true, Ordering::Relaxed);
            })
        };
        let start = Instant::now();
        let r = run_script("echo before; sleep 10; echo after", &env);
        let _ = setter.join();
        assert!(start.elapsed() < Duration::from_secs(1));
        assert_eq!(r.stdout, b"before\n");
        assert!(!env.sleep(Duration::from_secs(10)));
        assert!(run_script("echo x", &env).stdout.is_empty());
        let env = ShellEnv { fs: &fs, commands: &f, deadline: None, cancel: Some(Arc::new(AtomicBool::new(false))) };
        assert!(env.sleep(Duration::from_millis(20)));
        assert_eq!(run_script("echo x", &env).stdout, b"x\n");
    }

    #[test]
    fn both_append() {
        let fs = MemFs::new();
        let f = Fake::default();
        run_with(&fs, &f, "echo a &> /sdcard/log; echo b &>> /sdcard/log; cat /nope &>>/sdcard/log");
        assert_eq!(fs.read("/sdcard/log").unwrap(), b"a\nb\ncat: /nope: No such file or directory\n");
        run_with(&fs, &f, "echo c &> /sdcard/log");
        assert_eq!(fs.read("/sdcard/log").unwrap(), b"c\n");
    }

    #[test]
    fn cd_and_pwd() {
        let fs = MemFs::new();
        let f = Fake::default();
        let r =
            run_with(&fs, &f, "cd /sdcard; pwd; echo $PWD; echo hi > f; cat f; mkdir d; cd d; pwd; cd ..; ls; echo *");
        assert_eq!(
            String::from_utf8_lossy(&r.stdout),
            "/sdcard\n/sdcard\nhi\n/sdcard/d\nDCIM\nDownload\nPictures\nd\nf\nDCIM Download Pictures d f\n"
        );
        assert_eq!(fs.read("/sdcard/f").unwrap(), b"hi\n");
        let r = run_with(&fs, &f, "cd /x; echo $?; pwd");
        assert_eq!(r.stdout, b"2\n/\n");
        assert_eq!(r.stderr, b"/system/bin/sh: cd: /x: No such file or directory\n");
        let r = run_with(&fs, &f, "cd /sdcard/f");
        assert_eq!((r.code, r.stderr.as_slice()), (2, &b"/system/bin/sh: cd: /sdcard/f: Not a directory\n"[..]));
        // Nested shells inherit the directory; pipeline stages and children do not leak it.
        assert_eq!(
            run_with(&fs, &f, "cd /sdcard; sh -c 'cd d; pwd'; pwd; echo $(cd d; pwd)").stdout,
            b"/sdcard/d\n/sdcard\n/sdcard/d\n"
        );
        assert_eq!(run_with(&fs, &f, "cd /sdcard | true; pwd").stdout, b"/\n");
        assert_eq!(run_with(&fs, &f, "cd /sdcard; cd; pwd; cd -; pwd").stdout, b"/\n/sdcard\n");
        assert_eq!(run_with(&fs, &f, "cd /sdcard && cat < f && sh f").stdout, b"hi\n");
        assert_eq!(run_with(&fs, &f, "pwd").stdout, b"/\n");
    }

    #[test]
    fn assignments() {
        let fs = MemFs::new();
        let f = Fake::default();
        assert_eq!(run_with(&fs, &f, "A=1; echo $A; A='x  y' B=$A; echo \"$B\" $A").stdout, b"1\nx  y x y\n");
        assert_eq!(run_with(&fs, &f, "FOO=1 sh -c 'echo $FOO'; echo \"[$FOO]\"").stdout, b"1\n[]\n");
        assert_eq!(run_with(&fs, &f, "FOO=1; sh -c 'echo \"[$FOO]\"'; echo $(echo $FOO)").stdout, b"[]\n1\n");
        assert_eq!(run_with(&fs, &f, "A=1 | true; echo \"[$A]\"").stdout, b"[]\n");
        assert_eq!(run_with(&fs, &f, "HOME=/sdcard; cd; pwd").stdout, b"/sdcard\n");
        assert_eq!(run_with(&fs, &f, "A=*; echo \"$A\"").stdout, b"*\n");
        assert_eq!(run_with(&fs, &f, "1A=x").code, 127);
        assert_eq!(run_with(&fs, &f, "echo A=b").stdout, b"A=b\n");
        assert_eq!(run_with(&fs, &f, "A=$(echo x) > /sdcard/o; echo $A").stdout, b"x\n");
    }

    #[test]
    fn splits_only_on_ascii_ifs() {
        let fs = MemFs::new();
        let f = Fake::default();
        let r = run_with(&fs, &f, "printf '[%s]' $(printf 'a\u{a0}b\u{3000}c d\te\nf')");
        assert_eq!(String::from_utf8_lossy(&r.stdout), "[a\u{a0}b\u{3000}c][d][e][f]");
    }

    #[test]
    fn subst_backslashes() {
        assert_eq!(out(r"echo $(echo \))"), ")\n");
        assert_eq!(out(r#"echo "$(echo "a\"b")""#), "a\"b\n");
        assert_eq!(out(r"echo $(echo '\')"), "\\\n");
    }

    #[test]
    fn glob_limits() {
        let fs = MemFs::new();
        let f = Fake::default();
        run_with(&fs, &f, "touch /sdcard/file; mkdir /sdcard/e");
        // Only directories are descended into (`file/..` is not a match).
        assert_eq!(
            run_with(&fs, &f, "echo /sdcard/*/..").stdout,
            b"/sdcard/DCIM/.. /sdcard/Download/.. /sdcard/Pictures/.. /sdcard/e/..\n"
        );
        assert_eq!(
            run_with(&fs, &f, "echo /sdcard/*/").stdout,
            b"/sdcard/DCIM/ /sdcard/Download/ /sdcard/Pictures/ /sdcard/e/\n"
        );
        for k in 0..16 {
            fs.mkdir(&format!("/sdcard/e/{k:02}"), false).unwrap();
        }
        // 16^5 candidates would be over a million: capped.
        let r = run_with(&fs, &f, "echo /sdcard/e/*/../*/../*/../*/../* | wc -w");
        assert_eq!(r.stdout, format!("{GLOB_LIMIT}\n").into_bytes());
        let start = Instant::now();
        let r = run_with(&fs, &f, &format!("echo /sdcard/{}*", "[".repeat(200_000)));
        assert_eq!(r.stdout.len(), 200_000 + 10);
        assert!(start.elapsed() < Duration::from_secs(10));
        assert_eq!(
            glob_regex(&[('[', false), (']', false), ('a', false), (']', false)]).map(|r| r.is_match("]")),
            Some(true)
        );
    }
}
