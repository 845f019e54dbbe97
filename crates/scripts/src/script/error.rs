//! Why scripts could not be read, checked or run as a suite ([`ScriptError`]). A
//! script that runs and fails is not one of these: that is its report's verdict
//! (`vocab.rs`).

use std::path::PathBuf;

use codeact_engine::sandbox::{EngineThreadError, LimitError, SandboxError};
use codeact_record::trajectory::TrajectoryError;

#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot run the Maestro flow {} (`codeact convert` shows what codeact makes of it)", .path.display())]
    Flow {
        path: PathBuf,
        #[source]
        source: codeact_flows::maestro::FlowError,
    },
    #[error("--var {0:?} is not KEY=VALUE")]
    VarNotKeyValue(String),
    #[error(
        "--var {var:?}: {key:?} is not a variable name: use ASCII letters, digits and _ (not starting with a digit), and no keyword such as `let` or `fn`"
    )]
    VarName { var: String, key: String },
    #[error("{} holds no .rhai script to run{}", .dir.display(), if *.modules > 0 { " (only modules other scripts there import)" } else { "" })]
    NoScripts { dir: PathBuf, modules: usize },
    #[error("no script has the tags asked for ({asked}); the scripts' tags: {tags}")]
    NoneTagged { asked: String, tags: String },
    #[error("two scripts are named {stem:?}: give each its own name so --trajectory {} can hold both", .dir.display())]
    SameName { stem: String, dir: PathBuf },
    #[error(transparent)]
    Trajectory(#[from] TrajectoryError),
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    #[error(transparent)]
    Worker(#[from] EngineThreadError),
    #[error(transparent)]
    Isolation(#[from] codeact_engine::isolation::IsolationError),
    #[error(transparent)]
    Limits(#[from] LimitError),
    #[error("cannot open a phone for worker {worker}")]
    Open {
        worker: usize,
        #[source]
        source: Box<codeact_runtime::session::OpenError>,
    },
    #[error("cannot put the virtual phone back to its first state (pass --keep-state to run on as it is)")]
    WorldReset(#[source] codeact_platform::device::DeviceError),
    #[error("cannot write the JUnit report {}", .path.display())]
    Junit {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Report(#[from] codeact_record::report::ReportError),
}
