//! Why a configuration cannot be used ([`ConfigError`]): which layer, which key,
//! and how to fix it. Not reading or merging (`file.rs`, `mod.rs`).

use std::path::PathBuf;

use crate::persona::PersonaError;
use codeact_base::secrets::SecretStoreError;
use codeact_base::toml_error::TomlError;
use codeact_engine::sandbox::LimitError;
use codeact_tools::{SensitiveRuleError, WatcherSpecError};

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not a valid codeact.toml")]
    Invalid {
        path: PathBuf,
        #[source]
        source: TomlError,
    },
    #[error("{path}: bad [limits]")]
    FileLimits {
        path: PathBuf,
        #[source]
        source: LimitError,
    },
    #[error("bad limits (they come from the persona{}, and --limit)", .file.as_ref().map(|p| format!(", {}", p.display())).unwrap_or_default())]
    Limits {
        file: Option<PathBuf>,
        #[source]
        source: LimitError,
    },
    #[error("--limit {0:?} is not KEY=VALUE, e.g. --limit timeout_ms=5000")]
    LimitFlag(String),
    #[error("--limit {0:?}: the value must be a whole number")]
    LimitFlagValue(String),
    #[error(transparent)]
    Persona(#[from] PersonaError),
    #[error(transparent)]
    ScriptTools(#[from] codeact_tools::script_tools::ScriptToolError),
    #[error("coordinate_scale must be above 0, e.g. 1000")]
    ZeroScale,
    #[error("{origin}")]
    Watchers {
        origin: &'static str,
        #[source]
        source: WatcherSpecError,
    },
    #[error("the device timeout {0} s must be between 0 and 3600 seconds")]
    DeviceTimeout(f64),
    #[error("[sensitive] in {}", .file.as_ref().map_or("codeact.toml".to_string(), |p| p.display().to_string()))]
    Sensitive {
        file: Option<PathBuf>,
        #[source]
        source: SensitiveRuleError,
    },
    #[error(transparent)]
    Secrets(#[from] SecretStoreError),
    #[error("the capabilities {} are not a JSON object: {why}", .path.display())]
    AppiumCaps { path: PathBuf, why: String },
}
