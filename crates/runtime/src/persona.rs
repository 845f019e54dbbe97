//! Personas: which tools a session may call, what context each step needs, the
//! system-prompt template and optional limits. Four are built in (`personas/*.toml`,
//! embedded); `--persona FILE.toml` loads a user's, checked the same way.
//!
//! A tool a persona does not allow is never registered, so calling it is the ordinary
//! "function not found" error. This module does not build prompts (the agent does).

use std::path::Path;

use serde::Deserialize;

use codeact_base::toml_error::TomlError;
use codeact_engine::sandbox::{LimitError, Limits};
use codeact_tools::CATALOG;

/// The persona an agent acts with when nothing names one: the one place it is named.
pub const DEFAULT_PERSONA: &str = "default";

const BUILT_IN: &[(&str, &str)] = &[
    (DEFAULT_PERSONA, include_str!("../../../personas/default.toml")),
    ("ui_expert", include_str!("../../../personas/ui_expert.toml")),
    ("app_starter", include_str!("../../../personas/app_starter.toml")),
    ("big_agent", include_str!("../../../personas/big_agent.toml")),
];

/// What a persona may ask the runtime to observe for each step.
pub const CONTEXTS: &[&str] = &["ui_state", "screenshot", "phone_state", "packages", "memory"];

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Persona {
    pub name: String,
    pub description: String,
    pub tools: Vec<String>,
    #[serde(default)]
    pub context: Vec<String>,
    /// The system prompt; `{tool_descriptions}` is replaced by the allowed tools.
    pub prompt: String,
    /// Limits this persona sets (any subset; the rest keep their defaults).
    #[serde(default)]
    pub limits: toml::Table,
    /// Blocker watchers, as `--watchers` takes them ("off", "all,-popups"); the
    /// file and the flag are laid over it.
    #[serde(default)]
    pub watchers: Option<String>,
    /// Rhai files whose documented public functions are tools of this persona
    /// (`tools/checkout.rhai`, relative to the persona's file).
    #[serde(default)]
    pub tools_from: Vec<String>,
    /// The folder of the persona's file (`tools_from` is relative to it).
    #[serde(skip)]
    pub dir: Option<std::path::PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum PersonaError {
    #[error("unknown persona {0:?}; built in: default, ui_expert, app_starter, big_agent (or give a .toml file)")]
    Unknown(String),
    #[error("cannot read the persona {path}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("persona {origin} is not valid TOML for a persona")]
    Toml {
        origin: String,
        #[source]
        source: TomlError,
    },
    #[error("persona {origin}: unknown tool {tool:?}; valid tools: {}", valid_tools())]
    UnknownTool { origin: String, tool: String },
    #[error("persona {origin}: unknown context {context:?}; valid: {}", CONTEXTS.join(", "))]
    UnknownContext { origin: String, context: String },
    #[error("persona {0}: the prompt needs a {{tool_descriptions}} placeholder for the tool list")]
    NoToolList(String),
    #[error("persona {origin}: bad [limits]")]
    Limits {
        origin: String,
        #[source]
        source: LimitError,
    },
}

fn valid_tools() -> String {
    codeact_tools::names().join(", ")
}

impl Persona {
    /// A built-in name, or a path to a `.toml` file.
    pub fn load(name_or_path: &str) -> Result<Self, PersonaError> {
        if let Some((_, text)) = BUILT_IN.iter().find(|(n, _)| *n == name_or_path) {
            return Self::parse(text, name_or_path);
        }
        let path = Path::new(name_or_path);
        if path.extension().is_some_and(|e| e == "toml") || path.exists() {
            let text = codeact_base::files::read_text(path, codeact_base::files::TEXT_BYTES)
                .map_err(|source| PersonaError::Read { path: name_or_path.into(), source })?;
            let mut persona = Self::parse(&text, name_or_path)?;
            persona.dir = Some(path.parent().map_or_else(|| ".".into(), Path::to_path_buf));
            return Ok(persona);
        }
        Err(PersonaError::Unknown(name_or_path.into()))
    }

    pub fn built_in() -> Vec<Persona> {
        BUILT_IN.iter().filter_map(|(name, text)| Self::parse(text, name).ok()).collect()
    }

    pub fn parse(text: &str, origin: &str) -> Result<Self, PersonaError> {
        let origin = origin.to_string();
        let persona: Persona = toml::from_str(text)
            .map_err(|e| PersonaError::Toml { origin: origin.clone(), source: TomlError::new(&e, text) })?;
        for tool in &persona.tools {
            if !CATALOG.iter().any(|t| t.name == tool) {
                return Err(PersonaError::UnknownTool { origin, tool: tool.clone() });
            }
        }
        for c in &persona.context {
            if !CONTEXTS.contains(&c.as_str()) {
                return Err(PersonaError::UnknownContext { origin, context: c.clone() });
            }
        }
        if !persona.prompt.contains("{tool_descriptions}") {
            return Err(PersonaError::NoToolList(origin));
        }
        Limits::layered([&persona.limits]).map_err(|source| PersonaError::Limits { origin, source })?;
        Ok(persona)
    }

    /// True when each step should show the model `context` (one of [`CONTEXTS`]).
    pub fn wants(&self, context: &str) -> bool {
        self.context.iter().any(|c| c == context)
    }

    pub fn allows(&self, tool: &str) -> bool {
        self.tools.iter().any(|t| t == tool)
    }

    /// This persona with `other`'s tools and context added, called `name` (one
    /// session for several sub-agents; each is held to its own tools).
    pub fn merged_with(&self, other: &Persona, name: &str) -> Persona {
        let mut merged = self.clone();
        merged.name = name.to_string();
        merged.description = format!("{} and {} together", self.name, other.name);
        for t in &other.tools {
            if !merged.allows(t) {
                merged.tools.push(t.clone());
            }
        }
        for c in &other.context {
            if !merged.wants(c) {
                merged.context.push(c.clone());
            }
        }
        merged
    }

    /// The system prompt with this persona's tool list filled in.
    pub fn system_prompt(&self) -> String {
        self.system_prompt_with("")
    }

    /// The system prompt with this persona's tool list filled in, then `more_tools`
    /// (the session's tools written in Rhai, one `- name(params): doc` line each).
    pub fn system_prompt_with(&self, more_tools: &str) -> String {
        let tools = codeact_tools::describe_with(&|t| self.allows(t), more_tools);
        self.prompt.replace("{tool_descriptions}", tools.trim_end())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_ins_load_and_bad_personas_say_why() {
        assert_eq!(Persona::built_in().len(), 4);
        let p = Persona::load("app_starter").unwrap();
        assert!(p.allows("start_app") && !p.allows("tap_by_index"));
        assert!(p.system_prompt().contains("- start_app(package[, activity or options])"));
        let bad = "name = 'x'\ndescription = 'd'\ntools = ['tap_by_index', 'fly']\nprompt = '{tool_descriptions}'";
        let err = Persona::parse(bad, "x.toml").unwrap_err().to_string();
        assert!(err.contains("\"fly\"") && err.contains("tap_by_index"), "{err}");
        assert!(matches!(Persona::load("nobody"), Err(PersonaError::Unknown(_))));
    }
}
