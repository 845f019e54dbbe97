//! Who an exploration plays: a user described in TOML — name, goals, traits, and
//! the values they type (`[data]`, keys matched against a field's hint, id and
//! label). Built in: `tester` (the default) and `newcomer`; any other name is a
//! file. Not a session persona (which tools a session has): that is `persona.rs`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

const BUILT_IN: &[(&str, &str)] = &[
    ("tester", include_str!("../../../../personas/users/tester.toml")),
    ("newcomer", include_str!("../../../../personas/users/newcomer.toml")),
];

/// The user an exploration plays.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct UserPersona {
    pub name: String,
    #[serde(default)]
    pub goals: Vec<String>,
    #[serde(default)]
    pub traits: Vec<String>,
    /// What they type: `name = "Alice Smith"`, `email = "…"`, `text` for the rest.
    #[serde(default)]
    pub data: BTreeMap<String, String>,
}

/// Why a user persona could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum UserPersonaError {
    #[error(
        "no user persona {name:?}: the built-in ones are {}; or give a TOML file (name, goals, traits, [data])",
        builtin_names()
    )]
    Unknown { name: String },
    #[error("cannot read the user persona {path}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the user persona {path} is not valid: {problem}")]
    Invalid { path: String, problem: codeact_base::toml_error::TomlError },
    #[error("the user persona {path} has an empty `name`")]
    NoName { path: String },
}

fn builtin_names() -> String {
    BUILT_IN.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

impl UserPersona {
    /// A built-in persona by name, else the TOML file at that path.
    pub fn load(name_or_path: &str) -> Result<Self, UserPersonaError> {
        if let Some((name, text)) = BUILT_IN.iter().find(|(n, _)| *n == name_or_path) {
            return Self::parse(text, name);
        }
        let path = Path::new(name_or_path);
        if !name_or_path.ends_with(".toml") && !path.exists() {
            return Err(UserPersonaError::Unknown { name: name_or_path.to_string() });
        }
        let text = codeact_base::files::read_text(path, codeact_base::files::TEXT_BYTES)
            .map_err(|source| UserPersonaError::Read { path: name_or_path.to_string(), source })?;
        Self::parse(&text, name_or_path)
    }

    /// The default: `tester`.
    pub fn default_user() -> Self {
        Self::load("tester").unwrap_or_else(|_| UserPersona {
            name: "tester".into(),
            goals: Vec::new(),
            traits: Vec::new(),
            data: BTreeMap::new(),
        })
    }

    fn parse(text: &str, path: &str) -> Result<Self, UserPersonaError> {
        let persona: UserPersona = toml::from_str(text).map_err(|e| UserPersonaError::Invalid {
            path: path.to_string(),
            problem: codeact_base::toml_error::TomlError::new(&e, text),
        })?;
        if persona.name.trim().is_empty() {
            return Err(UserPersonaError::NoName { path: path.to_string() });
        }
        Ok(persona)
    }

    /// What this user types into a field: the first `[data]` key the first of
    /// `fields` names (its hint, its text, its label, its id), else `text`, else "test".
    pub fn value_for(&self, fields: &[&str]) -> String {
        fields
            .iter()
            .map(|f| f.to_lowercase())
            .find_map(|words| {
                self.data.iter().filter(|(k, _)| k.as_str() != "text").find(|(k, _)| words.contains(k.as_str()))
            })
            .or_else(|| self.data.get_key_value("text"))
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| "test".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_users_load_and_fields_get_fitting_values() {
        let tester = UserPersona::load("tester").unwrap();
        assert_eq!(tester.value_for(&["Email address", "com.x:id/email_field"]), "alice@example.com");
        assert_eq!(tester.value_for(&["Amount"]), "12.50");
        assert_eq!(tester.value_for(&["Something else"]), "hello");
        // The hint wins over the id: a note's title field is a title.
        assert_eq!(tester.value_for(&["Title", "com.example.notes:id/note_title"]), "Groceries");
        assert!(UserPersona::load("newcomer").is_ok());
        let err = UserPersona::load("nobody").unwrap_err().to_string();
        assert!(err.contains("tester, newcomer"), "{err}");
    }

    #[test]
    fn a_persona_file_is_checked() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.toml");
        std::fs::write(&file, "name = \"Zoe\"\nmood = \"sad\"\n").unwrap();
        let err = UserPersona::load(file.to_str().unwrap()).unwrap_err();
        assert!(matches!(err, UserPersonaError::Invalid { .. }), "{err}");
        std::fs::write(&file, "name = \"Zoe\"\n[data]\ntext = \"hey\"\n").unwrap();
        assert_eq!(UserPersona::load(file.to_str().unwrap()).unwrap().value_for(&["x"]), "hey");
    }
}
