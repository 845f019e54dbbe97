//! One exploration's row of the benchmark: the numbers it reached and the planted
//! crashes it found, as the tables and `bench.json` hold them. Only the shape; how
//! a row is filled from a summary is `mod.rs`, how rows are shown is `table.rs`.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// A planted crash an exploration found.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CrashFound {
    /// The widget it was planted on.
    pub widget: String,
    pub at_seconds: f64,
    pub at_action: usize,
}

/// One exploration's numbers.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchRow {
    pub app: String,
    pub strategy: String,
    pub budget: usize,
    pub actions: usize,
    pub seconds: f64,
    pub activities: usize,
    pub declared: usize,
    pub screens: usize,
    pub widgets: usize,
    pub planted: usize,
    pub crashes: Vec<CrashFound>,
    /// Why the exploration could not run or stopped early.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Its run folder (report.html, events.jsonl, findings/).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
}
