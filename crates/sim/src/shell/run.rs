//! The executor proper: a script's `&&`/`||` lists, its pipelines (stages one after another,
//! each on the previous one's complete output) and simple commands, with the per-script state.
//! Not word expansion (`expand`), redirections (`redirect`), `exit`/`cd`/`sh`/`timeout`
//! (`special`, handed this runner) or the state it carries (`state`).

use std::rc::Rc;

use super::budget::TOO_MANY;
use super::builtins;
use super::env::{Cx, SH, ShellEnv};
use super::expand::expand;
use super::output::Output;
use super::parse::{self, Command, Op, Part, Pipeline, Word};
use super::redirect::{Target, redirect};
use super::special::{cd, exit, sh, timeout};
use super::state::{State, Var, command_name};

pub(super) fn run_nested(script: &str, env: &ShellEnv, stdin: &[u8], mut st: State) -> Output {
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
        argv.extend(expand(w, env, st, &mut res.stderr, run_nested));
    }
    // Assignments apply left to right (`A=1 B=$A`); with a command they are exported to it
    // and undone afterwards, as they are in a pipeline stage.
    let saved = (!assigns.is_empty() && (!argv.is_empty() || st.subshell)).then(|| st.vars.clone());
    for (name, w) in &assigns {
        let value = expand(w, env, st, &mut res.stderr, run_nested).join("");
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
        let path = expand(&r.target, env, st, &mut res.stderr, run_nested).join(" ");
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

pub(super) fn run_argv(argv: &[String], stdin: &[u8], env: &ShellEnv, st: &mut State) -> Output {
    let Some((arg0, args)) = argv.split_first() else {
        return Output::default();
    };
    let name = command_name(arg0);
    match name {
        "exit" => return exit(args, st),
        "cd" => return cd(args, env, st),
        "sh" | "mksh" => return sh(args, stdin, env, st, run_nested),
        "timeout" => return timeout(args, stdin, env, st, run_argv),
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
