//! Why a run could not be carried out at all ([`AgentError`]): everything else
//! ends a run with an outcome and its directory complete.

/// Why a run could not be carried out at all (everything else ends it with an
/// outcome, its directory complete).
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error(transparent)]
    Trajectory(#[from] codeact_record::trajectory::TrajectoryError),
    #[error("the agent loop needs a multi-threaded tokio runtime")]
    Runtime,
    #[error(transparent)]
    Persona(#[from] codeact_runtime::persona::PersonaError),
}
