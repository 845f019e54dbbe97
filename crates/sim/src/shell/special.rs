//! The commands the executor runs itself because they need its state, not just a builtin's
//! `Cx`: `exit`, `cd`, `sh`/`mksh` (a nested shell) and `timeout` (a deadline for a command).
//! Not the toybox tools (`builtins`) nor running a command line (`run`).

use std::rc::Rc;
use std::time::Instant;

use super::builtins;
use super::env::{MAX_DEPTH, SH, ShellEnv, path_for_fs};
use super::fs::{self, FsError, MemFs};
use super::output::Output;
use super::state::{Argv, Nested, State, Var, command_name, var};

pub(super) fn exit(args: &[String], st: &mut State) -> Output {
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
pub(super) fn cd(args: &[String], env: &ShellEnv, st: &mut State) -> Output {
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

pub(super) fn sh(args: &[String], stdin: &[u8], env: &ShellEnv, st: &mut State, run_nested: Nested) -> Output {
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
pub(super) fn timeout(args: &[String], stdin: &[u8], env: &ShellEnv, st: &mut State, run_argv: Argv) -> Output {
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
