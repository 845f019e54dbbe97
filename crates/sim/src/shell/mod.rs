//! The simulated device's `/system/bin/sh`, mksh-style over an in-memory file system: the
//! entry point and the script-wide output and command limits; [`Output`] is `output`'s,
//! [`ShellEnv`], the builtins' [`Cx`] and the other limits `env`'s.
//! Not the executor (`run`, `expand`, `glob`, `redirect`, `special`), nor a full mksh (no
//! control flow, functions or job control); Android tools come from the caller's [`Commands`].

mod arith;
mod budget;
pub(crate) mod builtins;
mod env;
mod expand;
pub(crate) mod fs;
mod glob;
mod output;
pub(crate) mod parse;
mod patterns;
mod redirect;
mod run;
mod special;
mod state;

#[cfg(test)]
mod tests;

use env::SH;
pub(crate) use env::{Commands, ShellEnv};
pub(crate) use fs::{FsError, MemFs};
pub(crate) use output::{Output, fail, ok};

use budget::Budget;
use run::run_nested;
use state::State;
use std::rc::Rc;

/// Bytes a whole `run_script` may produce (stdout, stderr, pipes, `$(...)`, expansions).
const OUTPUT_LIMIT: usize = 64 << 20;
/// Simple commands a whole `run_script` may run (nested shells included).
const COMMAND_LIMIT: usize = 100_000;
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
