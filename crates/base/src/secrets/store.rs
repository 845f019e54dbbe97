//! Where `type_secret(name)` finds a secret: a secrets file (`--secrets FILE`, or
//! `[secrets] file` in codeact.toml: `name = "value"` lines) or the environment
//! (`CODEACT_SECRET_NAME`). Every value is registered for redaction when the store is
//! loaded, before any script runs. Only that prefix is read: a script cannot type
//! `$OPENAI_API_KEY` or any other variable of the process into a field.
//!
//! Not here: typing (`tools/catalog/human.rs`) or redacting (`super`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::matcher::STANDALONE_BELOW;
use super::registry::SecretLease;
use super::typed::{SHORTEST_TYPED, register_typed};

/// The environment variables `type_secret` may read: `CODEACT_SECRET_` + the name in
/// upper case (`type_secret("bank_pin")` reads `CODEACT_SECRET_BANK_PIN`).
pub const SECRET_ENV_PREFIX: &str = "CODEACT_SECRET_";

#[derive(Debug, thiserror::Error)]
pub enum SecretStoreError {
    #[error("cannot read the secrets file {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The TOML error is not chained: its message quotes the offending line, which
    /// may hold a secret.
    #[error("the secrets file {path} is not `name = \"value\"` lines (TOML); the error is on line {line}")]
    Invalid { path: PathBuf, line: usize },
    #[error(
        "the secrets file {path}: {name:?} must be a string of at least {min} characters (shorter ones cannot be kept out of logs)"
    )]
    BadValue { path: PathBuf, name: String, min: usize },
}

/// The secrets a session may type. Its `Debug` shows names only.
#[derive(Clone, Default)]
pub struct SecretStore {
    from_file: BTreeMap<String, String>,
    file: Option<PathBuf>,
    /// What was lent to this store's session: blotted out until the last clone of
    /// the store (the session's) is dropped.
    lease: Option<Arc<SecretLease>>,
}

/// Says once, by name, that a short secret is blotted out only where it stands
/// alone (a PIN inside a longer number stays, or every number holding its digits
/// would be garbled).
fn warn_if_short(name: &str, value: &str) {
    if value.len() < STANDALONE_BELOW {
        tracing::warn!(
            "secret {name} has only {} characters: it is blotted out wherever it stands alone, but not inside a longer word or number; a longer secret is safer",
            value.chars().count()
        );
    }
}

impl std::fmt::Debug for SecretStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretStore").field("names", &self.from_file.keys().collect::<Vec<_>>()).finish()
    }
}

impl SecretStore {
    /// The secrets in `file` (if any) and in `CODEACT_SECRET_*`, all registered for
    /// redaction now.
    pub fn load(file: Option<&Path>) -> Result<Self, SecretStoreError> {
        let mut store = Self::default();
        if let Some(path) = file {
            let text = crate::files::read_text(path, crate::files::TEXT_BYTES)
                .map_err(|source| SecretStoreError::Read { path: path.to_path_buf(), source })?;
            let table: toml::Table = toml::from_str(&text).map_err(|e| SecretStoreError::Invalid {
                path: path.to_path_buf(),
                line: e.span().map_or(0, |s| text[..s.start.min(text.len())].lines().count().max(1)),
            })?;
            for (name, value) in table {
                let value = value.as_str().filter(|v| v.len() >= SHORTEST_TYPED).ok_or_else(|| {
                    SecretStoreError::BadValue { path: path.to_path_buf(), name: name.clone(), min: SHORTEST_TYPED }
                })?;
                register_typed(value);
                warn_if_short(&name, value);
                store.from_file.insert(name.to_lowercase(), value.to_string());
            }
            store.file = Some(path.to_path_buf());
        }
        for (var, value) in std::env::vars() {
            if let Some(name) = var.strip_prefix(SECRET_ENV_PREFIX) {
                register_typed(&value);
                if value.len() >= SHORTEST_TYPED {
                    warn_if_short(name, &value);
                }
            }
        }
        Ok(store)
    }

    /// The secret called `name` (any case): the file's, else the environment's.
    pub fn get(&self, name: &str) -> Option<String> {
        if let Some(v) = self.from_file.get(&name.to_lowercase()) {
            return Some(v.clone());
        }
        // One too short to be blotted out is never typed (it would show in the records).
        let value = std::env::var(Self::env_name(name)).ok().filter(|v| v.len() >= SHORTEST_TYPED)?;
        register_typed(&value);
        Some(value)
    }

    /// Adds (or replaces) the secret `name` for this store only — a value a server's
    /// client marked sensitive — blotted out of every record at once, and until the
    /// store's session ends (not for the rest of the process). Values shorter
    /// than [`SHORTEST_TYPED`](super::SHORTEST_TYPED) are refused (they could not be
    /// kept out of the records); `false` then.
    pub fn lend(&mut self, name: &str, value: &str) -> bool {
        if value.len() < SHORTEST_TYPED || !self.lease().lend_typed(value) {
            return false;
        }
        self.from_file.insert(name.to_lowercase(), value.to_string());
        true
    }

    /// Words a server's client marked sensitive (a clipboard's text, a sensitive
    /// script's strings): blotted out of every record for as long as this store's
    /// session lives. `false`: shorter than
    /// [`SHORTEST_TYPED`](super::SHORTEST_TYPED), or the session lent too much.
    pub fn mask(&mut self, words: &str) -> bool {
        self.lease().mask(words)
    }

    /// [`mask`](Self::mask) for many words at once; `false` when the session lent too much.
    pub fn mask_all(&mut self, many: &[&str]) -> bool {
        self.lease().mask_all(many)
    }

    fn lease(&mut self) -> &SecretLease {
        self.lease.get_or_insert_with(|| Arc::new(SecretLease::new()))
    }

    /// The variable `name` is read from.
    pub fn env_name(name: &str) -> String {
        format!("{SECRET_ENV_PREFIX}{}", name.to_uppercase())
    }

    /// Where the secrets file is, when one was loaded (for messages).
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// The names the file holds (for messages: never the values).
    pub fn names(&self) -> Vec<&str> {
        self.from_file.keys().map(String::as_str).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_loads_registers_and_never_shows_its_values() {
        let dir = std::env::temp_dir().join(format!("codeact-secrets-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("secrets.toml");
        std::fs::write(&path, "bank_pin = \"4791\"\nPassword = \"correct-horse-9\"\n").unwrap();
        let store = SecretStore::load(Some(&path)).unwrap();
        assert_eq!(store.get("BANK_PIN").as_deref(), Some("4791"));
        assert_eq!(store.get("password").as_deref(), Some("correct-horse-9"));
        assert!(!format!("{store:?}").contains("4791"));
        assert_eq!(crate::secrets::redact("pin 4791 typed"), "pin [key] typed");
        std::fs::write(&path, "pin = \"12\"\n").unwrap();
        let err = SecretStore::load(Some(&path)).unwrap_err().to_string();
        assert!(err.contains("at least 4") && !err.contains("\"12\""), "{err}");
        std::fs::write(&path, "pin = hunter2-not-quoted\n").unwrap();
        let err = crate::error_text::full_message(&SecretStore::load(Some(&path)).unwrap_err());
        assert!(err.contains("line 1") && !err.contains("hunter2"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
