//! Secrets that must never be shown: the process's list of them (the API keys in
//! use), their redaction from any text, and the writer every log line (ours and our
//! dependencies', such as async-openai's "Server error: … Incorrect API key provided:
//! sk-…") passes through on its way to stderr.
//!
//! Anything shaped like a provider key (`sk-…`, `pk-…`, `rk-…`, masked or not) is
//! blotted out too: providers echo keys half-masked. Secrets that `type_secret`
//! types are registered here too, however short (down to [`SHORTEST_TYPED`]), the
//! moment they are loaded. Not here: where a key comes from (`llm::config`), where
//! typed secrets come from (`store.rs`), or keeping keys out of the sandbox worker (it
//! starts with an empty environment).

mod store;

pub use store::{SECRET_ENV_PREFIX, SecretStore, SecretStoreError};

use std::borrow::Cow;
use std::io::Write;
use std::sync::{LazyLock, RwLock};

/// What a secret is replaced with.
pub const REDACTED: &str = "[key]";

/// Shorter strings are not taken as secrets: blotting them out would garble text.
const SHORTEST: usize = 6;

static SECRETS: RwLock<Vec<String>> = RwLock::new(Vec::new());

static KEY_SHAPED: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| regex::Regex::new(r"\b(sk|pk|rk)-[A-Za-z0-9_\-\*]{4,}").ok());

/// The shortest value `type_secret` accepts: a PIN of four digits is still blotted
/// out everywhere (shorter ones would garble every number in a log).
pub const SHORTEST_TYPED: usize = 4;

/// Adds `secret` to what [`redact`] blots out, for the rest of the process.
pub fn register(secret: &str) {
    if secret.len() < SHORTEST {
        return;
    }
    remember(secret);
}

/// Adds a secret a script may type (at least [`SHORTEST_TYPED`] bytes long).
pub fn register_typed(secret: &str) {
    if secret.len() >= SHORTEST_TYPED {
        TYPED.store(true, std::sync::atomic::Ordering::Relaxed);
        remember(secret);
        // As a UI dump (XML) and a quoted string (JSON, Rust) spell it.
        let xml = secret
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\'', "&apos;");
        let quoted = format!("{secret:?}");
        let json = serde_json::to_string(secret).unwrap_or_default();
        for spelling in [xml, quoted[1..quoted.len() - 1].to_string(), json[1..json.len().max(2) - 1].to_string()] {
            if spelling != secret {
                remember(&spelling);
            }
        }
    }
}

/// Whether any secret a script may type is known (then screenshots are checked).
pub fn any_typed() -> bool {
    TYPED.load(std::sync::atomic::Ordering::Relaxed)
}

static TYPED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn remember(secret: &str) {
    let mut secrets = SECRETS.write().unwrap_or_else(|e| e.into_inner());
    if !secrets.iter().any(|s| s == secret) {
        secrets.push(secret.to_string());
        // The longest first: a secret that holds another is blotted out whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }
}

/// `text` with every registered secret, and anything shaped like a key, replaced by
/// [`REDACTED`].
pub fn redact(text: &str) -> Cow<'_, str> {
    let out = blot_registered(text);
    match KEY_SHAPED.as_ref() {
        Some(shaped) if shaped.is_match(&out) => Cow::Owned(shaped.replace_all(&out, REDACTED).into_owned()),
        _ => out,
    }
}

/// `text` with every registered secret (not key shapes) replaced: what a script may
/// read of the screen (`ui_state`), where a typed secret must not show.
pub fn blot_registered(text: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    for secret in SECRETS.read().unwrap_or_else(|e| e.into_inner()).iter() {
        if out.contains(secret.as_str()) {
            out = Cow::Owned(out.replace(secret.as_str(), REDACTED));
        }
    }
    out
}

/// Whether `text` holds a registered secret (then a screenshot of it is withheld:
/// pixels cannot be redacted).
pub fn appears_in(text: &str) -> bool {
    SECRETS.read().unwrap_or_else(|e| e.into_inner()).iter().any(|s| text.contains(s.as_str()))
}

/// A `tracing` writer that redacts each log line before it reaches stderr.
#[derive(Debug, Clone, Copy, Default)]
pub struct RedactingStderr;

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for RedactingStderr {
    type Writer = RedactingStderr;

    fn make_writer(&'a self) -> Self::Writer {
        RedactingStderr
    }
}

impl Write for RedactingStderr {
    /// Takes the whole buffer (the formatter writes one event in one call), so a key
    /// is never split between two writes.
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        std::io::stderr().write_all(redact(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_secrets_and_key_shapes_are_blotted_out() {
        register("abc");
        register("fake-secret-value-123");
        assert_eq!(redact("short abc stays"), "short abc stays");
        assert_eq!(redact("got fake-secret-value-123!"), "got [key]!");
        assert_eq!(redact("Incorrect API key provided: sk-abc***********wxyz."), "Incorrect API key provided: [key].");
        assert!(matches!(redact("nothing here"), Cow::Borrowed(_)));
        assert_eq!(redact("task-list and risk-free"), "task-list and risk-free");
    }
}
