//! The simulated device's `/system/bin/sh`: runs the command lines that `adb shell ...` and
//! `adb exec-out ...` send, mksh-style, on top of an in-memory file system.
//!
//! This module holds the executor (expansion, globbing, redirection, pipelines, `sh -c`,
//! `timeout`, `exit`); `parse` holds the grammar, `builtins` the toybox tools and `fs` the
//! files. It is not a full mksh: no control flow, functions, variable assignment, job control
//! or real concurrency (pipeline stages run one after another, each on the previous stage's
//! complete output). Android tools (`input`, `am`, ...) come from the caller's [`Commands`].

pub mod builtins;
pub mod fs;
pub mod parse;

pub use fs::{FsError, MemFs, Meta};

use parse::{Command, Op, Part, Pipeline, RedirKind, Word};
use std::time::{Duration, Instant};

const SH: &str = "/system/bin/sh";
const MAX_DEPTH: usize = 8;

/// What a command (or a whole script) produced.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Output {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub code: i32,
}

impl Output {
    /// An error result: `msg` plus a newline on stderr.
    pub fn error(msg: &str, code: i32) -> Output {
        Output { stdout: Vec::new(), stderr: format!("{msg}\n").into_bytes(), code }
    }
}

/// Commands the shell does not implement itself (the Android tools: input, am, dumpsys, ...).
pub trait Commands: Sync {
    /// Runs `argv[0]` with its arguments (argv is non-empty); `None` = no such command.
    fn run(&self, argv: &[String], stdin: &[u8], env: &ShellEnv) -> Option<Output>;
}

pub struct ShellEnv<'a> {
    pub fs: &'a MemFs,
    pub commands: &'a dyn Commands,
    /// Commands past this instant are cut short (set by `timeout N ...`).
    pub deadline: Option<Instant>,
}

impl ShellEnv<'_> {
    /// Sleeps for `d`, cut at the deadline; returns false when the deadline cut it.
    pub fn sleep(&self, d: Duration) -> bool {
        let now = Instant::now();
        match (self.deadline, now.checked_add(d)) {
            (Some(dl), end) if end.is_none_or(|e| dl < e) => {
                std::thread::sleep(dl.saturating_duration_since(now));
                false
            }
            _ => {
                std::thread::sleep(d);
                true
            }
        }
    }

    fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// Parses and runs a whole command line; a parse error gives code 2 or 1 with
/// `/system/bin/sh: <msg>` on stderr, like mksh.
pub fn run_script(script: &str, env: &ShellEnv) -> Output {
    run_nested(script, env, 0, &[])
}

/// Per-script execution state.
struct State {
    last: i32,
    depth: usize,
    exited: bool,
}

fn run_nested(script: &str, env: &ShellEnv, depth: usize, stdin: &[u8]) -> Output {
    let parsed = match parse::parse(script) {
        Ok(s) => s,
        Err(e) => return Output::error(&format!("{SH}: {e}"), 1),
    };
    let mut st = State { last: 0, depth, exited: false };
    let mut out = Output::default();
    for (op, pl) in &parsed.items {
        if st.exited || env.expired() {
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
        // Only a lone command can end the script with `exit`; pipeline stages are subshells.
        let exited = st.exited;
        let r = exec_command(cmd, &input, env, st);
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

fn exec_command(cmd: &Command, stdin: &[u8], env: &ShellEnv, st: &mut State) -> Output {
    let mut res = Output::default();
    let mut argv = Vec::new();
    for w in &cmd.words {
        argv.extend(expand(w, env, st, &mut res.stderr));
    }
    let mut input: Option<Vec<u8>> = None;
    let mut targets = [Target::Stdout, Target::Stderr];
    for r in &cmd.redirs {
        let path = expand(&r.target, env, st, &mut res.stderr).join(" ");
        if let Err(msg) = redirect(r.fd, r.kind, &path, env, &mut targets, &mut input) {
            res.stderr.extend(format!("{SH}: {msg}\n").bytes());
            res.code = 1;
            return res;
        }
    }
    let out =
        if argv.is_empty() { Output::default() } else { run_argv(&argv, input.as_deref().unwrap_or(stdin), env, st) };
    for (data, target) in [(out.stdout, &targets[0]), (out.stderr, &targets[1])] {
        match target {
            Target::Stdout => res.stdout.extend(data),
            Target::Stderr => res.stderr.extend(data),
            Target::File(p) => {
                // The file was validated when the redirection was set up.
                let _ = env.fs.append(p, &data);
            }
        }
    }
    res.code = out.code;
    res
}

fn redirect(
    fd: u32,
    kind: RedirKind,
    path: &str,
    env: &ShellEnv,
    targets: &mut [Target; 2],
    input: &mut Option<Vec<u8>>,
) -> Result<(), String> {
    let slot = match fd {
        1 => Some(0),
        2 => Some(1),
        _ => None,
    };
    let file = |append: bool| -> Result<Target, String> {
        match path {
            "/dev/stdout" | "/dev/tty" => return Ok(Target::Stdout),
            "/dev/stderr" => return Ok(Target::Stderr),
            _ => {}
        }
        let abs = MemFs::normalize(path, "/");
        let r = if append { env.fs.append(&abs, b"") } else { env.fs.write(&abs, b"") };
        r.map_err(|e| format!("can't create {path}: {e}"))?;
        Ok(Target::File(abs))
    };
    match kind {
        RedirKind::In => {
            if fd == 0 {
                let data = env.fs.read(path).map_err(|e| format!("can't open {path}: {e}"))?;
                *input = Some(data);
            }
        }
        RedirKind::Out | RedirKind::Append => {
            let t = file(kind == RedirKind::Append)?;
            if let Some(s) = slot {
                targets[s] = t;
            }
        }
        RedirKind::Both => {
            let t = file(false)?;
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
                _ => return Err(format!("{path}: illegal file descriptor name")),
            };
            if let Some(s) = slot {
                targets[s] = t;
            }
        }
    }
    Ok(())
}

fn var(name: &str, st: &State) -> String {
    match name {
        "?" => st.last.to_string(),
        "$" => "4242".into(),
        "#" => "0".into(),
        "0" => SH.into(),
        "HOME" | "PWD" => "/".into(),
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

/// Expands one word into fields: variables, command substitution, field splitting of
/// unquoted expansions, and globbing of unquoted `* ? [`.
fn expand(word: &Word, env: &ShellEnv, st: &State, stderr: &mut Vec<u8>) -> Vec<String> {
    // Characters with their "quoted" flag; a field exists once it has any quoted part.
    let mut fields: Vec<Vec<(char, bool)>> = Vec::new();
    let mut cur: Vec<(char, bool)> = Vec::new();
    let mut has = false;
    for part in &word.parts {
        let (value, quoted) = match part {
            Part::Lit { text, quoted } => {
                cur.extend(text.chars().map(|c| (c, *quoted)));
                has |= *quoted || !text.is_empty();
                continue;
            }
            Part::Var { name, quoted } => (var(name, st), *quoted),
            Part::Subst { script, quoted } => {
                let out = if st.depth >= MAX_DEPTH {
                    Output::error(&format!("{SH}: too many nested shells"), 1)
                } else {
                    run_nested(script, env, st.depth + 1, &[])
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
            if c.is_whitespace() {
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
        let matches =
            if f.iter().any(|&(c, q)| !q && matches!(c, '*' | '?' | '[')) { glob(&f, env.fs) } else { Vec::new() };
        if matches.is_empty() {
            out.push(f.iter().map(|&(c, _)| c).collect());
        } else {
            out.extend(matches);
        }
    }
    out
}

/// Turns one path component of a glob pattern into an anchored regex.
fn glob_regex(comp: &[(char, bool)]) -> Option<regex::Regex> {
    let mut re = String::from("^");
    let mut i = 0;
    while let Some(&(c, q)) = comp.get(i) {
        i += 1;
        match (c, q) {
            ('*', false) => re.push_str(".*"),
            ('?', false) => re.push('.'),
            ('[', false) => {
                let close = comp.iter().skip(i + 1).position(|&(c, _)| c == ']').map(|p| p + i + 1);
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

/// Expands a glob field against the file system; sorted matches (empty when none).
fn glob(field: &[(char, bool)], fs: &MemFs) -> Vec<String> {
    let absolute = field.first().is_some_and(|&(c, _)| c == '/');
    // Each candidate: (path as shown, absolute path).
    let mut cands: Vec<(String, String)> = vec![(if absolute { "/".into() } else { String::new() }, "/".into())];
    for comp in field.split(|&(c, _)| c == '/').filter(|c| !c.is_empty()) {
        let literal = !comp.iter().any(|&(c, q)| !q && matches!(c, '*' | '?' | '['));
        let join = |base: &str, name: &str| {
            if base.is_empty() || base.ends_with('/') { format!("{base}{name}") } else { format!("{base}/{name}") }
        };
        let mut next = Vec::new();
        for (shown, abs) in &cands {
            if literal {
                let name: String = comp.iter().map(|&(c, _)| c).collect();
                let a = MemFs::normalize(&name, abs);
                if fs.stat(&a).is_some() {
                    next.push((join(shown, &name), a));
                }
                continue;
            }
            let Some(re) = glob_regex(comp) else {
                return Vec::new();
            };
            let dot_ok = comp.first().is_some_and(|&(c, _)| c == '.');
            for (name, _) in fs.list(abs).unwrap_or_default() {
                if (dot_ok || !name.starts_with('.')) && re.is_match(&name) {
                    next.push((join(shown, &name), MemFs::normalize(&name, abs)));
                }
            }
        }
        cands = next;
    }
    let mut out: Vec<String> = cands.into_iter().map(|c| c.0).collect();
    if field.last().is_some_and(|&(c, _)| c == '/') {
        out.retain(|p| fs.stat(p).is_some_and(|m| m.is_dir));
        for p in &mut out {
            if !p.ends_with('/') {
                p.push('/');
            }
        }
    }
    out.sort();
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
        "sh" | "mksh" => return sh(args, stdin, env, st),
        "timeout" => return timeout(args, stdin, env, st),
        _ => {}
    }
    if let Some(f) = builtins::lookup(name) {
        return f(args, stdin, env);
    }
    let mut full = argv.to_vec();
    if let Some(first) = full.first_mut() {
        *first = name.to_string();
    }
    env.commands
        .run(&full, stdin, env)
        .unwrap_or_else(|| Output::error(&format!("{SH}: {arg0}: inaccessible or not found"), 127))
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

fn sh(args: &[String], stdin: &[u8], env: &ShellEnv, st: &mut State) -> Output {
    if st.depth >= MAX_DEPTH {
        return Output::error(&format!("{SH}: too many nested shells"), 1);
    }
    let depth = st.depth + 1;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a.starts_with('-') && a.len() > 1 {
            if a.contains('c') && !a.starts_with("--") {
                return match it.next() {
                    Some(script) => run_nested(script, env, depth, stdin),
                    None => Output::error(&format!("{SH}: -c: option requires an argument"), 1),
                };
            }
            continue;
        }
        return match env.fs.read(a) {
            Ok(data) => run_nested(&String::from_utf8_lossy(&data), env, depth, &[]),
            Err(e) => Output::error(&format!("{SH}: {a}: {e}"), 127),
        };
    }
    run_nested(&String::from_utf8_lossy(stdin), env, depth, &[])
}

fn timeout(args: &[String], stdin: &[u8], env: &ShellEnv, st: &mut State) -> Output {
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
        return Output::error("timeout: Needs 2 arguments", 125);
    };
    let Some(d) = builtins::parse_duration(dur) else {
        return Output::error(&format!("timeout: invalid duration '{dur}'"), 125);
    };
    let new_deadline = if d.is_zero() {
        env.deadline
    } else {
        let mine = Instant::now().checked_add(d);
        match (env.deadline, mine) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    };
    let inner = ShellEnv { fs: env.fs, commands: env.commands, deadline: new_deadline };
    let exited = st.exited;
    let mut out = run_argv(cmd, stdin, &inner, st);
    st.exited = exited;
    if inner.expired() {
        out.code = code_on_timeout;
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
        fn run(&self, argv: &[String], stdin: &[u8], _env: &ShellEnv) -> Option<Output> {
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
        let env = ShellEnv { fs, commands: cmds, deadline: None };
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
}
