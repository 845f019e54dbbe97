//! One configuration for every command: flags > environment > `codeact.toml`
//! (`file.rs`) > defaults, resolved once into [`Settings`]. The persona's limits sit
//! under the file's. This module reads and merges; it does not open devices or build
//! engines.

mod error;
mod file;
mod flags;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use error::ConfigError;
pub use file::{FILE_NAME, FileConfig, SensitiveSection, ToolsSection};
pub use flags::Flags;

use crate::llm::LlmSection;
use crate::persona::{DEFAULT_PERSONA, Persona, PersonaError};
use codeact_base::secrets::SecretStore;
use codeact_engine::sandbox::Limits;
use codeact_tools::{AppDirectory, Sensitive, Settle, ToolOptions, Watchers};

/// Everything a command needs, resolved.
#[derive(Debug, Clone)]
pub struct Settings {
    pub device: Option<String>,
    pub device_timeout: Duration,
    /// How an Android phone is observed (and, through an agent, tapped).
    pub observe: codeact_platform::device::ObserveWith,
    /// The capabilities of a session created on `appium:URL` (`--caps`, else
    /// `[appium]` in codeact.toml; `None`: `$CODEACT_APPIUM_CAPS`, else Android's
    /// UiAutomator2).
    pub appium_caps: Option<serde_json::Value>,
    pub persona: Option<Persona>,
    pub limits: Limits,
    pub tools: ToolOptions,
    /// `[llm]` from the file, for `codeact run` to lay its flags over.
    pub llm: LlmSection,
    /// The program each session's engine runs in (this one, unless `CODEACT_WORKER`
    /// names another).
    pub worker: codeact_engine::isolation::WorkerProgram,
    /// The reference pictures' gallery: `--assets`, else `[assets] dir` (relative to
    /// codeact.toml), else `assets` here.
    pub assets: PathBuf,
    /// Tools written in Rhai: `tools_from` of codeact.toml, then of the persona.
    pub script_tools: Arc<codeact_tools::script_tools::ScriptTools>,
    /// Who answers and which model locates, built once by the front door and shared
    /// by every session it opens (none unless it sets them).
    pub helpers: Helpers,
}

/// What a front door lends each session it opens: the person in the loop and the
/// model that locates by description. Built once (a terminal prompt holds one lock,
/// a locator one runtime), cloned into every session.
#[derive(Clone, Default)]
pub struct Helpers {
    pub person: Option<codeact_tools::human::Human>,
    pub locator: Option<codeact_platform::locate::ai::Vision>,
}

impl std::fmt::Debug for Helpers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Helpers")
            .field("person", &self.person.is_some())
            .field("locator", &self.locator.is_some())
            .finish()
    }
}

impl Settings {
    /// The device `--device` (or the file) names.
    pub fn device_spec(&self) -> codeact_platform::device::DeviceSpec {
        codeact_platform::device::DeviceSpec::parse(self.device.as_deref())
    }

    /// Opens the device these settings name, with their timeout and observer.
    pub fn open_device(
        &self,
    ) -> Result<Box<dyn codeact_platform::device::Device>, codeact_platform::device::DeviceError> {
        match self.device_spec() {
            codeact_platform::device::DeviceSpec::Appium(rest) => {
                codeact_platform::device::connect::open_appium(&rest, self.device_timeout, self.appium_caps.clone())
            }
            spec => codeact_platform::device::open_observing(&spec, self.device_timeout, self.observe),
        }
    }

    /// The persona an agent acts with: the one these settings name, else the default.
    pub fn agent_persona(&self) -> Result<Persona, PersonaError> {
        self.persona.clone().map_or_else(|| Persona::load(DEFAULT_PERSONA), Ok)
    }

    /// Finds codeact.toml (`config`, `$CODEACT_CONFIG` or `./codeact.toml`) and lays
    /// the flags over it.
    pub fn load(config: Option<&std::path::Path>, flags: &Flags) -> Result<Self, ConfigError> {
        let from = flags.config_from.as_deref().unwrap_or(std::path::Path::new("."));
        FileConfig::find_from(config, from)?.resolve(flags)
    }
}

impl FileConfig {
    /// Lays `flags` over this file (and the environment) into final settings.
    pub fn resolve(&self, flags: &Flags) -> Result<Settings, ConfigError> {
        let persona_name = flags
            .persona
            .clone()
            .or_else(|| std::env::var("CODEACT_PERSONA").ok().filter(|p| !p.is_empty()))
            .or_else(|| self.persona.clone())
            .or_else(|| flags.default_persona.then(|| DEFAULT_PERSONA.to_string()));
        let persona = persona_name.as_deref().map(Persona::load).transpose()?;
        let script_tools = self.script_tools(persona.as_ref())?;

        let mut cli = toml::Table::new();
        for item in &flags.limits {
            let (key, value) = item.split_once('=').ok_or_else(|| ConfigError::LimitFlag(item.clone()))?;
            let value: i64 =
                value.trim().replace('_', "").parse().map_err(|_| ConfigError::LimitFlagValue(item.clone()))?;
            cli.insert(key.trim().to_string(), toml::Value::Integer(value));
        }
        let empty = toml::Table::new();
        let from_persona = persona.as_ref().map_or(&empty, |p| &p.limits);
        let limits = Limits::layered([from_persona, &self.limits, &cli])
            .map_err(|source| ConfigError::Limits { file: self.origin.clone(), source })?;

        let settle = match flags.settle_ms.or(self.tools.settle_ms) {
            Some(0) => Settle { enabled: false, ..Settle::default() },
            Some(ms) => Settle { enabled: true, timeout: Duration::from_millis(ms.min(60_000)) },
            None => Settle::default(),
        };
        let coordinate_scale = flags.coordinate_scale.or(self.tools.coordinate_scale);
        if coordinate_scale == Some(0) {
            return Err(ConfigError::ZeroScale);
        }
        let apps = AppDirectory::default().with_aliases(self.apps.iter().map(|(k, v)| (k.as_str(), v)));
        let record = flags.record.or(self.tools.record).or(flags.default_record).unwrap_or_default();
        let mut watchers = Watchers::default();
        let specs = [
            ("the persona's watchers", persona.as_ref().and_then(|p| p.watchers.clone())),
            ("[watchers]", Some(self.watchers.spec())),
            ("--watchers", flags.watchers.clone()),
        ];
        for (origin, spec) in specs {
            if let Some(spec) = spec {
                watchers = watchers.with_spec(&spec).map_err(|source| ConfigError::Watchers { origin, source })?;
            }
        }
        let sensitive = self.sensitive_gate(flags)?;
        let secrets_file = flags.secrets.clone().or_else(|| {
            let file = self.secrets_file.as_ref()?;
            let base = self.origin.as_deref().and_then(|p| p.parent()).unwrap_or(std::path::Path::new(""));
            Some(base.join(file))
        });
        let secrets = SecretStore::load(secrets_file.as_deref())?;
        let assets = flags.assets.clone().unwrap_or_else(|| match &self.assets.dir {
            Some(dir) => self.origin.as_deref().and_then(|p| p.parent()).unwrap_or(std::path::Path::new("")).join(dir),
            // Beside the config, when one was found (the project's own gallery).
            None => self
                .origin
                .as_deref()
                .and_then(|p| p.parent())
                .map_or_else(|| PathBuf::from("assets"), |d| d.join("assets")),
        });
        let tools = ToolOptions {
            settle,
            coordinate_scale,
            record,
            apps,
            watchers,
            watch_mode: Default::default(),
            sensitive,
            secrets,
            assets: assets.clone(),
        };

        let timeout_s = flags.device_timeout_s.or(self.device_timeout_s).unwrap_or(20.0);
        if !(timeout_s > 0.0 && timeout_s <= 3600.0) {
            return Err(ConfigError::DeviceTimeout(timeout_s));
        }
        Ok(Settings {
            device: flags.device.clone().or_else(|| self.device.clone()),
            device_timeout: Duration::from_secs_f64(timeout_s),
            observe: flags.observe.or(self.observe).unwrap_or_default(),
            appium_caps: self.appium_caps(flags)?,
            persona,
            limits,
            tools,
            llm: self.llm.clone(),
            worker: codeact_engine::isolation::WorkerProgram::from_env(),
            assets,
            script_tools: Arc::new(script_tools),
            helpers: Helpers::default(),
        })
    }
}

impl FileConfig {
    /// The tools written in Rhai: this file's `tools_from` (relative to it), then the
    /// persona's (relative to the persona's file).
    pub fn script_tools(
        &self,
        persona: Option<&Persona>,
    ) -> Result<codeact_tools::script_tools::ScriptTools, ConfigError> {
        let here = self.origin.as_deref().and_then(std::path::Path::parent);
        let mut files: Vec<String> = Vec::new();
        for f in &self.tools_from {
            files.push(here.map_or_else(|| f.clone(), |d| d.join(f).display().to_string()));
        }
        if let Some(p) = persona {
            for f in &p.tools_from {
                files.push(p.dir.as_ref().map_or_else(|| f.clone(), |d| d.join(f).display().to_string()));
            }
        }
        Ok(codeact_tools::script_tools::load(&files, None)?)
    }

    /// The sensitive-action gate: the flag's policy, else the file's, else the
    /// command's default; the built-in rules unless the file drops them, and its own.
    fn sensitive_gate(&self, flags: &Flags) -> Result<Sensitive, ConfigError> {
        let section = &self.sensitive;
        let mut gate = Sensitive::default();
        if section.defaults == Some(false) {
            gate = gate.without_defaults();
        }
        let bad = |source| ConfigError::Sensitive { file: self.origin.clone(), source };
        gate = gate.with_words(&section.rules).map_err(bad)?;
        gate = gate.with_patterns(&section.patterns).map_err(bad)?;
        gate.policy = flags.sensitive.or(section.policy).or(flags.default_sensitive).unwrap_or_default();
        Ok(gate)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use codeact_base::error_text::full_message;
    use codeact_tools::Recording;

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
        let installed = ["com.bank".to_string()];
        let never = |_: &str| Ok::<bool, codeact_tools::AppNameError>(false);
        let bank = s.tools.apps.resolve("bank", codeact_platform::device::Platform::Android, Some(&installed), never);
        assert_eq!(bank.unwrap(), "com.bank");
        let recorded = Flags { default_record: Some(Recording::All), ..Flags::default() };
        assert_eq!(file.resolve(&recorded).unwrap().tools.record, Recording::All, "the default when nothing says");
    }

    #[test]
    fn mistakes_name_the_file_and_the_fix() {
        let err = FileConfig::parse("[limits]\ntimeout = 3\n", Path::new("x/codeact.toml")).unwrap_err();
        let err = full_message(&err);
        assert!(err.starts_with("x/codeact.toml") && err.contains("timeout_ms"), "{err}");
        let err = full_message(&FileConfig::parse("devcie = 'sim'\n", Path::new("c.toml")).unwrap_err());
        assert!(err.contains("devcie") && err.contains("line 1"), "{err}");
        let secret = FileConfig::parse("[llm]\napi_key = 'sk-secret-123456'\n", Path::new("c.toml")).unwrap_err();
        let secret = full_message(&secret);
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
