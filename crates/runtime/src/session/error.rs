//! Why a session could not be opened: the engine ([`SessionError`]) or, when the
//! session opens its own device, the phone too ([`OpenError`]). Not opening
//! (`open.rs`) nor the session (`mod.rs`).

use codeact_engine::isolation::IsolationError;
use codeact_engine::sandbox::SandboxError;
use codeact_platform::device::DeviceError;

/// Why a session could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    #[error(transparent)]
    Isolation(#[from] IsolationError),
}

/// Why a session could not be opened: the phone, or the engine.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error(transparent)]
    Session(#[from] SessionError),
}
