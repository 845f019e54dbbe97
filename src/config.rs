//! One configuration for every command: flags > environment > `codeact.toml` >
//! defaults. This module reads and merges; it does not open devices or build engines.
//!
//! `codeact.toml` (found through `--config`, then `$CODEACT_CONFIG`, then the current
//! directory) looks like this; every key is optional:
//!
//! ```toml
//! device = "sim"            # like --device
//! device_timeout_s = 20     # like --timeout
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
//! [apps]                    # more names for open_app()
//! "My Bank" = "com.example.bank"
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
use std::time::Duration;

use serde::Deserialize;

use crate::persona::Persona;
use crate::sandbox::Limits;
use crate::tools::{Record, Settle, ToolOptions};

/// The file's name in the current directory.
pub const FILE_NAME: &str = "codeact.toml";

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("{0}")]
    Bad(String),
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolsSection {
    pub settle_ms: Option<u64>,
    pub coordinate_scale: Option<u32>,
    pub record: Option<Record>,
}

/// What `codeact.toml` holds (everything optional).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub device: Option<String>,
    pub device_timeout_s: Option<f64>,
    pub persona: Option<String>,
    #[serde(default)]
    pub limits: toml::Table,
    #[serde(default)]
    pub tools: ToolsSection,
    #[serde(default)]
    pub apps: BTreeMap<String, String>,
    /// The LLM for `codeact run` (resolved by [`crate::llm::LlmConfig::resolve`]).
    #[serde(default)]
    pub llm: crate::llm::LlmSection,
    /// Where the file came from, for messages.
    #[serde(skip)]
    pub origin: Option<PathBuf>,
}

/// What the command line says; `None` leaves the decision to the layers below.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    pub device: Option<String>,
    pub device_timeout_s: Option<f64>,
    pub persona: Option<String>,
    /// The persona when neither flag, `$CODEACT_PERSONA` nor the file names one
    /// (`codeact run` needs one; `exec` and `repl` default to every tool).
    pub default_persona: Option<String>,
    /// `--limit KEY=VALUE`, in order.
    pub limits: Vec<String>,
    pub settle_ms: Option<u64>,
    pub coordinate_scale: Option<u32>,
    pub record: Option<Record>,
}

/// Everything a session needs, resolved.
#[derive(Debug, Clone)]
pub struct Settings {
    pub device: Option<String>,
    pub device_timeout: Duration,
    pub persona: Option<Persona>,
    pub limits: Limits,
    pub tools: ToolOptions,
}

/// A TOML error without the quoted source line: the line may hold a secret someone
/// put in the file by mistake (an API key under [llm]).
pub fn toml_error(e: &toml::de::Error, text: &str) -> String {
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("{} (line {line}, column {column})", e.message().trim())
        }
        None => e.message().trim().to_string(),
    }
}

impl FileConfig {
    /// `explicit`, else `$CODEACT_CONFIG`, else `./codeact.toml` when it exists, else
    /// nothing. A file that was asked for must exist.
    pub fn find(explicit: Option<&Path>) -> Result<Self, ConfigError> {
        if let Some(path) = explicit {
            return Self::read(path);
        }
        if let Some(path) = std::env::var_os("CODEACT_CONFIG").filter(|p| !p.is_empty()) {
            return Self::read(Path::new(&path));
        }
        let here = Path::new(FILE_NAME);
        if here.is_file() { Self::read(here) } else { Ok(Self::default()) }
    }

    pub fn read(path: &Path) -> Result<Self, ConfigError> {
        let text =
            std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.to_path_buf(), source })?;
        Self::parse(&text, path)
    }

    pub fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        let invalid = |message: String| ConfigError::Invalid { path: path.to_path_buf(), message };
        let mut config: FileConfig = toml::from_str(text).map_err(|e| invalid(toml_error(&e, text)))?;
        Limits::layered([&config.limits]).map_err(invalid)?;
        config.origin = Some(path.to_path_buf());
        Ok(config)
    }

    /// Lays `flags` over this file (and the environment) into final settings.
    pub fn resolve(&self, flags: &Flags) -> Result<Settings, ConfigError> {
        let persona_name = flags
            .persona
            .clone()
            .or_else(|| std::env::var("CODEACT_PERSONA").ok().filter(|p| !p.is_empty()))
            .or_else(|| self.persona.clone())
            .or_else(|| flags.default_persona.clone());
        let persona =
            persona_name.as_deref().map(Persona::load).transpose().map_err(|e| ConfigError::Bad(e.to_string()))?;

        let mut cli = toml::Table::new();
        for item in &flags.limits {
            let (key, value) = item.split_once('=').ok_or_else(|| {
                ConfigError::Bad(format!("--limit {item:?} is not KEY=VALUE, e.g. --limit timeout_ms=5000"))
            })?;
            let value: i64 = value
                .trim()
                .replace('_', "")
                .parse()
                .map_err(|_| ConfigError::Bad(format!("--limit {item:?}: the value must be a whole number")))?;
            cli.insert(key.trim().to_string(), toml::Value::Integer(value));
        }
        let empty = toml::Table::new();
        let from_persona = persona.as_ref().map_or(&empty, |p| &p.limits);
        let limits = Limits::layered([from_persona, &self.limits, &cli]).map_err(|e| {
            ConfigError::Bad(match &self.origin {
                Some(path) => format!("{e} (limits come from the persona, {} and --limit)", path.display()),
                None => e,
            })
        })?;

        let settle_ms = flags.settle_ms.or(self.tools.settle_ms);
        let settle = match settle_ms {
            Some(0) => Settle { enabled: false, ..Settle::default() },
            Some(ms) => Settle { enabled: true, timeout: Duration::from_millis(ms.min(60_000)) },
            None => Settle::default(),
        };
        let coordinate_scale = flags.coordinate_scale.or(self.tools.coordinate_scale);
        if coordinate_scale == Some(0) {
            return Err(ConfigError::Bad("coordinate_scale must be above 0, e.g. 1000".into()));
        }
        let apps = crate::tools::apps::AppDirectory::default()
            .with_aliases(self.apps.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let tools = ToolOptions {
            settle,
            coordinate_scale,
            record: flags.record.or(self.tools.record).unwrap_or_default(),
            apps,
        };

        let timeout_s = flags.device_timeout_s.or(self.device_timeout_s).unwrap_or(20.0);
        if !(timeout_s > 0.0 && timeout_s <= 3600.0) {
            return Err(ConfigError::Bad(format!(
                "the device timeout {timeout_s} s must be between 0 and 3600 seconds"
            )));
        }
        Ok(Settings {
            device: flags.device.clone().or_else(|| self.device.clone()),
            device_timeout: Duration::from_secs_f64(timeout_s),
            persona,
            limits,
            tools,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_win_over_the_file_which_wins_over_the_persona() {
        let file = FileConfig::parse(
            "device = 'sim'\npersona = 'app_starter'\n[limits]\ntimeout_ms = 7000\nmax_output = 100\n\
             [tools]\nsettle_ms = 0\ncoordinate_scale = 1000\n[apps]\n'Bank' = 'com.bank'\n",
            Path::new("codeact.toml"),
        )
        .unwrap();
        let flags = Flags { limits: vec!["timeout_ms=1_500".into()], ..Flags::default() };
        let s = file.resolve(&flags).unwrap();
        assert_eq!(s.device.as_deref(), Some("sim"));
        assert_eq!(s.persona.as_ref().map(|p| p.name.as_str()), Some("app_starter"));
        assert_eq!((s.limits.timeout_ms, s.limits.max_output), (1500, 100));
        assert!(!s.tools.settle.enabled);
        assert_eq!(s.tools.coordinate_scale, Some(1000));
        assert_eq!(s.tools.apps.resolve("bank", &["com.bank".to_string()]).unwrap(), "com.bank");
    }

    #[test]
    fn mistakes_name_the_file_and_the_fix() {
        let err = FileConfig::parse("[limits]\ntimeout = 3\n", Path::new("x/codeact.toml")).unwrap_err().to_string();
        assert!(err.starts_with("x/codeact.toml") && err.contains("timeout_ms"), "{err}");
        let err = FileConfig::parse("devcie = 'sim'\n", Path::new("c.toml")).unwrap_err().to_string();
        assert!(err.contains("devcie") && err.contains("line 1"), "{err}");
        let secret = FileConfig::parse("[llm]\napi_key = 'sk-secret-123456'\n", Path::new("c.toml")).unwrap_err();
        let secret = secret.to_string();
        assert!(
            secret.contains("api_key") && !secret.contains("sk-secret"),
            "a key put in the file is not echoed: {secret}"
        );
        let flags = Flags { limits: vec!["max_operations".into()], ..Flags::default() };
        assert!(FileConfig::default().resolve(&flags).unwrap_err().to_string().contains("KEY=VALUE"));
        let flags = Flags { limits: vec!["max_operations=lots".into()], ..Flags::default() };
        assert!(FileConfig::default().resolve(&flags).unwrap_err().to_string().contains("whole number"));
    }
}
