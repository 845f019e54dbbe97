//! Secrets a script may type with `type_secret`: how short one may be
//! ([`SHORTEST_TYPED`]), registering one for the rest of the process, and the
//! spellings (XML, quoted, JSON) each is blotted out in. Not here: where typed
//! secrets come from (`store.rs`) or how text is redacted (`mod.rs`).

use super::registry::{self, Kind};

/// The shortest value `type_secret` accepts: a PIN of four digits is still blotted
/// out everywhere (shorter ones would garble every number in a log).
pub const SHORTEST_TYPED: usize = 4;

/// Adds a secret a script may type (at least [`SHORTEST_TYPED`] bytes long), for
/// the rest of the process (the secrets file's and the environment's).
pub fn register_typed(secret: &str) {
    if secret.len() >= SHORTEST_TYPED {
        registry::add_for_process(Kind::Typed, &spellings(secret));
    }
}

/// A secret as text, as a UI dump (XML) and as a quoted string (JSON, Rust, Rhai)
/// spell it.
pub(super) fn spellings(secret: &str) -> Vec<String> {
    let xml = secret
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;");
    let quoted = format!("{secret:?}");
    let json = serde_json::to_string(secret).unwrap_or_default();
    let mut out = vec![secret.to_string()];
    for spelling in [xml, quoted[1..quoted.len() - 1].to_string(), json[1..json.len().max(2) - 1].to_string()] {
        if !out.contains(&spelling) {
            out.push(spelling);
        }
    }
    out
}
