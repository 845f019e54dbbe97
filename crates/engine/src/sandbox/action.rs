//! What a snippet did, one record per host call (a tool): its name, arguments, result,
//! timing and what it captured. The tools write these through
//! [`Shared::record`](super::Shared::record); a sink can take each one the moment it
//! is recorded (a trajectory writing as it goes). This module only holds the data.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::error::{FailureKind, RunError};

/// What a tool captured after acting, when recording is on: opaque bytes to the
/// sandbox, files in a trajectory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Capture {
    /// A PNG screenshot.
    pub screenshot: Option<Arc<[u8]>>,
    /// The UI hierarchy dump (XML).
    pub ui_xml: Option<Arc<str>>,
    /// What an index-based action acted on, as a selector (Rhai source) that finds the
    /// same element without its index: exported replays use it.
    pub target: Option<String>,
    /// A name the script gave the screenshot (`screenshot("login")`): a trajectory
    /// keeps it under that name, whatever it records otherwise.
    pub name: Option<String>,
    /// What the action visibly changed ("opened .SubSettings", "no visible change"),
    /// or what a watcher did.
    pub effect: Option<String>,
    /// Where the element an action acted on was: its `ui_state` index and centre on
    /// the screen the action saw. Replays that record taps by index or by point (as
    /// macro recorders do) are made from it.
    pub resolved: Option<Resolved>,
    /// The toggles the action flipped, with their new state: what a replay must
    /// reproduce, and what an exported script asserts.
    pub toggled: Vec<Toggled>,
    /// The app and activity the action left in front (when the screen was read after it).
    pub screen: Option<Screen>,
    /// Why that look is not from the observer asked for (an agent's stale or empty
    /// tree, an agent set aside): the dump stood in.
    pub fallback: Option<String>,
    /// How a selector naming a picture or a description found what the call acted
    /// on: the way that answered, and what a replay passes instead.
    pub located: Option<Located>,
}

/// The way of a locating chain that answered (`tree`, `picture` or `model`) and
/// the arguments a replay passes in place of the selector — the element's own
/// selector, the picture alone, or a point as fractions of the screen for a tap on
/// a canvas — so that it needs no model; `None` when nothing can stand in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Located {
    pub way: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<String>,
}

/// A toggle an action flipped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Toggled {
    /// A selector (Rhai source) that finds it whatever its state.
    pub selector: String,
    /// What it is, for people: `Switch (id wifi_switch)`.
    pub name: String,
    /// What its row calls it ("Wi-Fi"; empty when nothing does): the same toggle
    /// on a screen whose ids were renamed has the same label.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Its state after the action.
    pub checked: bool,
}

impl Toggled {
    /// Whether `other` is the same toggle: by label when both have one, else by selector.
    pub fn same_as(&self, other: &Toggled) -> bool {
        match (self.label.is_empty(), other.label.is_empty()) {
            (false, false) => self.label.to_lowercase() == other.label.to_lowercase(),
            _ => self.selector == other.selector,
        }
    }
}

/// The app and activity in front.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Screen {
    pub app: String,
    pub activity: String,
}

impl std::fmt::Display for Screen {
    /// `com.android.settings/.WifiSettings`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.activity.strip_prefix(self.app.as_str()) {
            Some(rest) if rest.starts_with('.') => write!(f, "{}/{rest}", self.app),
            _ if self.activity.is_empty() => write!(f, "{}", self.app),
            _ => write!(f, "{}/{}", self.app, self.activity),
        }
    }
}

/// The element an action acted on, as an index and a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolved {
    /// Its `ui_state` index (`None`: `ui_state` does not list it).
    pub index: Option<i64>,
    pub center: (i32, i32),
}

/// How the effect of a call a blocker watcher had already answered begins.
pub const ALREADY_DONE: &str = "already done: ";

/// The most of one argument an action keeps: a script can hand a tool a megabyte,
/// and every action goes to the trajectory, the report and the model's feedback.
/// A longer one is kept cut, saying its size ([`codeact_base::clip`]).
pub const ARG_BYTES: usize = 2048;

/// How the arguments an action could not keep read.
pub const ARGS_NOT_KEPT: &str = "[arguments not kept: ";

/// One tool call, as recorded by the tool that made it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Action {
    pub tool: String,
    /// The arguments as Rhai literals.
    pub args: Vec<String>,
    /// `ok`, or the error the call ended with.
    pub result: String,
    /// How the call failed; `None` when it succeeded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureKind>,
    /// Milliseconds since the snippet started.
    pub started_ms: f64,
    pub duration_ms: f64,
    #[serde(skip)]
    pub capture: Capture,
}

impl Action {
    pub fn succeeded(&self) -> bool {
        self.failure.is_none()
    }

    /// [`summary`](Self::summary) for a listing that ends with `error`: when this
    /// call's failure is that error (printed after the listing), the listing says so
    /// instead of repeating it.
    pub fn summary_before(&self, error: Option<&RunError>) -> String {
        let ended_it = !self.succeeded()
            && error.is_some_and(|e| e.failed_tool() == Some(self.tool.as_str()) && e.message.contains(&self.result));
        match ended_it {
            true => format!("{}({}) -> failed (the error below)", self.tool, self.args.join(", ")),
            false => self.summary(),
        }
    }

    /// `tap(540, 1200) -> ok; opened .SubSettings`, as progress lines and the
    /// model's feedback show it.
    pub fn summary(&self) -> String {
        match &self.capture.effect {
            Some(effect) => format!("{}({}) -> {}; {effect}", self.tool, self.args.join(", "), self.result),
            None => format!("{}({}) -> {}", self.tool, self.args.join(", "), self.result),
        }
    }

    /// Whether the arguments were kept whole (a replay can repeat the call):
    /// not cut at [`ARG_BYTES`], not past the snippet's allowance.
    pub fn args_whole(&self) -> bool {
        !self.args.iter().any(|a| codeact_base::clip::was_clipped(a) || a.starts_with(ARGS_NOT_KEPT))
    }

    /// True for a blocker watcher's own firing (not a call the script made).
    pub fn is_watcher(&self) -> bool {
        self.tool == "watcher"
    }

    /// True when a blocker watcher had already pressed the button this call
    /// named: a replay leaves the call to the watcher.
    pub fn done_by_watcher(&self) -> bool {
        self.capture.effect.as_deref().is_some_and(|e| e.starts_with(ALREADY_DONE))
    }
}

/// Receives each action the moment it is recorded.
pub type ActionSink = Box<dyn FnMut(&Action) + Send>;

impl Action {
    /// An action of `tool` on `args` that succeeded and did `effect` (the upper
    /// layers' tests build their records from these).
    #[doc(hidden)]
    pub fn with_effect(tool: &str, args: &[&str], effect: &str) -> Self {
        Action {
            tool: tool.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            result: "ok".into(),
            failure: None,
            started_ms: 0.0,
            duration_ms: 0.0,
            capture: Capture { effect: Some(effect.into()), ..Capture::default() },
        }
    }
}
