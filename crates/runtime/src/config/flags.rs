//! What the command line says to the configuration ([`Flags`]): the top layer, each
//! field `None` when the layers below decide. Not the merge (`mod.rs`).

use std::path::PathBuf;

use codeact_tools::{Recording, SensitivePolicy};

/// What the command line says; `None` leaves the decision to the layers below.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    pub device: Option<String>,
    pub device_timeout_s: Option<f64>,
    /// `--observe`: how an Android phone is observed.
    pub observe: Option<codeact_platform::device::ObserveWith>,
    /// `--caps FILE.json`: the capabilities of a session created on `appium:URL`.
    pub appium_caps: Option<PathBuf>,
    pub persona: Option<String>,
    /// Whether the default persona stands in when neither flag, `$CODEACT_PERSONA`
    /// nor the file names one (an agent needs one; `exec` and `repl` default to every
    /// tool).
    pub default_persona: bool,
    /// `--limit KEY=VALUE`, in order.
    pub limits: Vec<String>,
    pub settle_ms: Option<u64>,
    pub coordinate_scale: Option<u32>,
    pub record: Option<Recording>,
    /// `--watchers SPEC`, laid over the persona's and the file's.
    pub watchers: Option<String>,
    /// What actions record when neither flag nor file says (trajectories want all).
    pub default_record: Option<Recording>,
    /// `--sensitive`: what happens to an action a sensitive rule matches.
    pub sensitive: Option<SensitivePolicy>,
    /// The policy when neither flag nor file says (the agent asks; a person's own
    /// scripts are let through).
    pub default_sensitive: Option<SensitivePolicy>,
    /// `--secrets FILE`: where `type_secret` reads secrets.
    pub secrets: Option<PathBuf>,
    /// `--assets DIR`: the reference pictures' gallery.
    pub assets: Option<PathBuf>,
    /// Where `codeact.toml` is looked for, then each folder above (default: the
    /// current folder; `exec` looks from its scripts' folder).
    pub config_from: Option<PathBuf>,
}
