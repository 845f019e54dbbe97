//! What a walk says as it goes ([`Progress`]), why it ended ([`StopReason`]), and
//! what it leaves for the summary (`Explored`, whichever strategy walked). Only
//! these shapes; the walks themselves are `random.rs`, `systematic.rs` and `llm/`.

use serde::Serialize;

use super::coverage::Coverage;
use super::export::TestFound;
use super::findings::Finding;
use super::graph::Graph;
use super::report::TaskView;

/// What the explorer says as it goes.
#[derive(Debug, Clone, Copy)]
pub enum Progress<'a> {
    Action {
        n: usize,
        label: &'a str,
        ok: bool,
    },
    Screen {
        name: &'a str,
        activity: &'a str,
    },
    Activity {
        activity: &'a str,
        reached: usize,
        declared: usize,
    },
    Finding(&'a Finding),
    Note(&'a str),
    /// The planner set task number `task`.
    Planned {
        task: usize,
        goal: &'a str,
    },
    /// The agent finished it.
    Task {
        task: usize,
        goal: &'a str,
        success: bool,
        steps: usize,
        reason: &'a str,
    },
    /// The reflector's note.
    Reflected(&'a str),
}

/// Why the walk ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    Budget,
    /// Every action of every screen it could reach again was tried.
    Exhausted,
    Interrupted,
    /// The phone stopped answering (the summary's `error` says how).
    DeviceFailed,
    /// The planner had nothing new to try (`--strategy llm`).
    NothingLeft,
    /// The model stopped answering (the summary's `error` says how).
    ModelFailed,
    /// A task's records could not be written (the summary's `error` says why).
    RecordFailed,
}

impl StopReason {
    pub fn words(self) -> &'static str {
        match self {
            StopReason::Budget => "the budget was spent",
            StopReason::Exhausted => "every reachable action was tried",
            StopReason::Interrupted => "interrupted",
            StopReason::DeviceFailed => "the phone stopped answering",
            StopReason::NothingLeft => "the planner had nothing new to try",
            StopReason::ModelFailed => "the model failed",
            StopReason::RecordFailed => "a task's records could not be written",
        }
    }
}

/// What the cycle leaves for the summary.
pub(super) struct Explored {
    pub graph: Graph,
    pub coverage: Coverage,
    pub findings: Vec<Finding>,
    pub tests: Vec<TestFound>,
    pub tasks: Vec<TaskView>,
    pub actions: usize,
    pub seconds: f64,
    pub stopped: StopReason,
    pub error: Option<String>,
}
