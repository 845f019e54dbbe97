//! A script's state as the executor carries it (its variables, its working folder,
//! the last status, how deep it is nested, the budget it spends) and the plain
//! lookups every part of the shell shares: a variable's value with the phone's
//! default environment, and a command's name without the folder it was called
//! through. It runs nothing: the runner is handed to those that need one
//! ([`Nested`], [`Argv`]), so the shell's files point one way.

use std::collections::BTreeMap;
use std::rc::Rc;

use super::budget::Budget;
use super::env::{SH, ShellEnv};
use super::output::Output;

/// Runs a script in a nested shell: `$(...)`, `sh -c`.
pub(super) type Nested = fn(&str, &ShellEnv, &[u8], State) -> Output;

/// Runs one command line already split into words: `timeout`'s command.
pub(super) type Argv = fn(&[String], &[u8], &ShellEnv, &mut State) -> Output;

/// A shell variable: value and whether child shells (`sh ...`) see it.
#[derive(Clone)]
pub(super) struct Var {
    pub(super) value: String,
    pub(super) exported: bool,
}

/// Per-script execution state.
pub(super) struct State<'b> {
    pub(super) last: i32,
    pub(super) depth: usize,
    pub(super) exited: bool,
    /// In a pipeline stage: `cd` and assignments do not outlive the command.
    pub(super) subshell: bool,
    pub(super) cwd: String,
    pub(super) vars: Rc<BTreeMap<String, Var>>,
    pub(super) budget: &'b Budget,
}

impl<'b> State<'b> {
    /// The state a nested shell starts with: `$(...)` (`all_vars`) sees every variable,
    /// `sh` only the exported ones.
    pub(super) fn child(&self, all_vars: bool) -> State<'b> {
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

/// A variable's value: the script's own, else the phone's default environment.
pub(super) fn var(name: &str, st: &State) -> String {
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

/// Strips the directories commands may be called through.
pub(super) fn command_name(arg0: &str) -> &str {
    ["/system/bin/", "/system/xbin/", "/bin/"]
        .iter()
        .find_map(|p| arg0.strip_prefix(p))
        .filter(|n| !n.is_empty())
        .unwrap_or(arg0)
}
