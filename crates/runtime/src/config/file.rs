//! `codeact.toml`: where it is found and what it may hold. Every key is optional:
//!
//! ```toml
//! device = "sim"            # like --device
//! device_timeout_s = 20     # like --timeout
//! observe = "auto"          # like --observe: auto | dump | u2 | portal
//! persona = "ui_expert"     # like --persona
//!
//! [limits]                  # like --limit KEY=VALUE; see `codeact exec --help`
//! timeout_ms = 60000
//!
//! [tools]
//! settle_ms = 3000          # wait up to this long for the screen to settle; 0 = never
//! coordinate_scale = 1000   # integer coordinates are 0..1000 of the screen
//! record = "ui"             # none | ui | all: what each action keeps in a trajectory
//!
//! [watchers]                # blockers cleared between actions (all on by default)
//! permission = "allow"      # allow | deny | ask | off
//! anr = true                # "... isn't responding": Wait
//! crash = true              # "... keeps stopping": Close app
//! popups = true             # rate-this-app / update popups: Not now / Later
//! keyboard = true           # the keyboard over a target: hide it first
//!
//! [apps]                    # more names for open_app()
//! "My Bank" = "com.example.bank"
//!
//! [assets]                  # the reference pictures (like --assets)
//! dir = "assets"            # relative to this file
//!
//! [appium]                  # capabilities of a session on --device appium:URL (like --caps)
//! platformName = "Android"
//! "appium:automationName" = "UiAutomator2"
//! "appium:udid" = "emulator-5554"
//!
//! [llm]                     # for `codeact run`
//! base_url = "http://localhost:11434/v1"
//! model = "qwen2.5:7b"
//! api_key_env = "DEEPSEEK_API_KEY"   # the variable holding the key, never the key
//! temperature = 0.2
//! timeout_s = 120
//! max_retries = 2
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::error::ConfigError;
use crate::llm::LlmSection;
use codeact_base::toml_error::TomlError;
use codeact_engine::sandbox::Limits;
use codeact_tools::Recording;

/// The file's name: looked for in the current folder (`exec`: its scripts' folder)
/// and then each folder above it.
pub const FILE_NAME: &str = "codeact.toml";

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolsSection {
    pub settle_ms: Option<u64>,
    pub coordinate_scale: Option<u32>,
    pub record: Option<Recording>,
}

/// `[watchers]`: each built-in blocker watcher on or off (`enabled = false` first
/// turns them all off).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WatchersSection {
    pub enabled: Option<bool>,
    pub permission: Option<String>,
    pub anr: Option<bool>,
    pub crash: Option<bool>,
    pub popups: Option<bool>,
    pub keyboard: Option<bool>,
}

impl WatchersSection {
    /// The section as a `--watchers` spec.
    pub fn spec(&self) -> String {
        let mut items = Vec::new();
        match self.enabled {
            Some(true) => items.push("on".to_string()),
            Some(false) => items.push("off".to_string()),
            None => {}
        }
        if let Some(p) = &self.permission {
            items.push(format!("permission={p}"));
        }
        for (name, on) in
            [("anr", self.anr), ("crash", self.crash), ("popups", self.popups), ("keyboard", self.keyboard)]
        {
            match on {
                Some(true) => items.push(name.to_string()),
                Some(false) => items.push(format!("-{name}")),
                None => {}
            }
        }
        items.join(",")
    }
}

/// `[assets]`: where the reference pictures are.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssetsSection {
    /// The gallery folder, relative to codeact.toml (`--assets` wins).
    pub dir: Option<PathBuf>,
}

/// `[sensitive]`: the sensitive-action gate (the rules come on top of the built-in
/// ones unless `defaults = false`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SensitiveSection {
    /// ask, refuse or allow (the `--sensitive` flag wins).
    pub policy: Option<codeact_tools::SensitivePolicy>,
    /// More words or phrases, matched like the built-in ones.
    #[serde(default)]
    pub rules: Vec<String>,
    /// More regular expressions.
    #[serde(default)]
    pub patterns: Vec<String>,
    /// Keep the built-in rules (default true).
    pub defaults: Option<bool>,
}

/// What `codeact.toml` holds (everything optional).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub device: Option<String>,
    pub device_timeout_s: Option<f64>,
    pub observe: Option<codeact_platform::device::ObserveWith>,
    pub persona: Option<String>,
    #[serde(default)]
    pub limits: toml::Table,
    #[serde(default)]
    pub tools: ToolsSection,
    #[serde(default)]
    pub watchers: WatchersSection,
    #[serde(default)]
    pub apps: BTreeMap<String, codeact_tools::AppAlias>,
    #[serde(default)]
    pub sensitive: SensitiveSection,
    #[serde(default)]
    pub assets: AssetsSection,
    /// The secrets file `type_secret` reads (relative to this file).
    pub secrets_file: Option<PathBuf>,
    /// The LLM for `codeact run`.
    #[serde(default)]
    pub llm: LlmSection,
    /// `[appium]`: the capabilities of a session created on `appium:URL`.
    #[serde(default)]
    pub appium: toml::Table,
    /// Rhai files whose documented public functions are tools of every session
    /// (relative to this file).
    #[serde(default)]
    pub tools_from: Vec<String>,
    /// Where the file came from, for messages.
    #[serde(skip)]
    pub origin: Option<PathBuf>,
}

impl FileConfig {
    /// `explicit`, else `$CODEACT_CONFIG`, else `./codeact.toml` when it exists, else
    /// nothing. A file that was asked for must exist.
    pub fn find(explicit: Option<&Path>) -> Result<Self, ConfigError> {
        Self::find_from(explicit, Path::new("."))
    }

    /// [`find`](Self::find), looking for `codeact.toml` in `from` and then each
    /// folder above it, as cargo looks for `Cargo.toml` (`--config` and
    /// `$CODEACT_CONFIG` first); paths inside it are its own folder's.
    pub fn find_from(explicit: Option<&Path>, from: &Path) -> Result<Self, ConfigError> {
        if let Some(path) = explicit {
            return Self::read(path);
        }
        if let Some(path) = std::env::var_os("CODEACT_CONFIG").filter(|p| !p.is_empty()) {
            return Self::read(Path::new(&path));
        }
        match nearest(from) {
            Some(found) => Self::read(&found),
            None => Ok(Self::default()),
        }
    }

    /// The folder of the `codeact.toml` nearest above `from` (itself included).
    pub fn folder_above(from: &Path) -> Option<PathBuf> {
        nearest(from).and_then(|f| f.parent().map(Path::to_path_buf))
    }

    pub fn read(path: &Path) -> Result<Self, ConfigError> {
        let text = codeact_base::files::read_text(path, codeact_base::files::TEXT_BYTES)
            .map_err(|source| ConfigError::Read { path: path.to_path_buf(), source })?;
        Self::parse(&text, path)
    }

    pub fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        let mut config: FileConfig = toml::from_str(text)
            .map_err(|e| ConfigError::Invalid { path: path.to_path_buf(), source: TomlError::new(&e, text) })?;
        Limits::layered([&config.limits])
            .map_err(|source| ConfigError::FileLimits { path: path.to_path_buf(), source })?;
        config.origin = Some(path.to_path_buf());
        Ok(config)
    }
}

/// The `codeact.toml` in `from` or the nearest folder above it, as an absolute path.
fn nearest(from: &Path) -> Option<PathBuf> {
    let start = std::path::absolute(from).ok()?;
    let start = start.canonicalize().unwrap_or(start);
    start.ancestors().map(|dir| dir.join(FILE_NAME)).find(|f| f.is_file())
}

/// The most a capabilities file may hold.
const CAPS_BYTES: usize = 1024 * 1024;

impl FileConfig {
    /// The capabilities of a session created on `appium:URL`: `--caps FILE.json`,
    /// else `[appium]` here, else none (the device's own default).
    pub(super) fn appium_caps(&self, flags: &super::flags::Flags) -> Result<Option<serde_json::Value>, ConfigError> {
        if let Some(path) = &flags.appium_caps {
            let bad = |why: String| ConfigError::AppiumCaps { path: path.clone(), why };
            let text = codeact_base::files::read_text(path, CAPS_BYTES).map_err(|e| bad(e.to_string()))?;
            return match serde_json::from_str::<serde_json::Value>(&text) {
                Ok(caps @ serde_json::Value::Object(_)) => Ok(Some(caps)),
                Ok(_) => Err(bad("it is not an object".into())),
                Err(e) => Err(bad(e.to_string())),
            };
        }
        if self.appium.is_empty() {
            return Ok(None);
        }
        let origin = self.origin.clone().unwrap_or_else(|| PathBuf::from(FILE_NAME));
        serde_json::to_value(&self.appium)
            .map(Some)
            .map_err(|e| ConfigError::AppiumCaps { path: origin, why: format!("[appium]: {e}") })
    }
}
