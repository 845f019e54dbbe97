//! How tools behave, set from the CLI, `codeact.toml` or a persona: settling after
//! actions, the coordinate scale, what each action records, the app names
//! `open_app` knows, and the blocker watchers that are on. Plain data; the tools
//! read it.

use std::time::Duration;

use super::app_names::AppDirectory;
use super::guard::watchers::Watchers;

/// After an action, wait until two consecutive observations agree (bounded).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settle {
    pub enabled: bool,
    pub timeout: Duration,
}

impl Default for Settle {
    fn default() -> Self {
        Self { enabled: true, timeout: Duration::from_secs(3) }
    }
}

/// What each action keeps for the trajectory, besides its name, arguments and timing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Recording {
    /// Nothing more (the fastest).
    #[default]
    None,
    /// The UI dump after each action.
    Ui,
    /// The UI dump and a screenshot after each action.
    All,
}

/// How tools behave in one session.
#[derive(Debug, Clone, Default)]
pub struct ToolOptions {
    pub settle: Settle,
    /// When set to N, integer coordinates are 0..=N across the screen (1000 for vision
    /// models that answer in per-mille); otherwise they are pixels.
    pub coordinate_scale: Option<u32>,
    pub record: Recording,
    pub apps: AppDirectory,
    /// The built-in blocker watchers that are on.
    pub watchers: Watchers,
    /// When they act: ahead of every action (the agent) or when an action is
    /// blocked (scripts).
    pub watch_mode: super::guard::watchers::WatchMode,
    /// Which actions need a person's yes, and what happens when nobody answers.
    pub sensitive: super::sensitive::Sensitive,
    /// The secrets `type_secret(name)` may type.
    pub secrets: codeact_base::secrets::SecretStore,
    /// The reference pictures' gallery (`#{image: "NAME"}`).
    pub assets: std::path::PathBuf,
}
