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

mod matcher;
mod registry;
mod store;
mod typed;

pub use matcher::STANDALONE_BELOW;
pub use registry::{MOST_BYTES, MOST_LENT_BYTES, SecretLease, known};
pub use store::{SECRET_ENV_PREFIX, SecretStore, SecretStoreError};
pub use typed::{SHORTEST_TYPED, register_typed};

use std::borrow::Cow;
use std::io::Write;
use std::sync::LazyLock;

use registry::Kind;
use typed::spellings;

/// What a secret is replaced with.
pub const REDACTED: &str = "[key]";

/// Shorter strings are not taken as secrets: blotting them out would garble text.
const SHORTEST: usize = 6;

static KEY_SHAPED: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| regex::Regex::new(r"\b(sk|pk|rk)-[A-Za-z0-9_\-\*]{4,}").ok());

/// Adds `secret` to what [`redact`] blots out, for the rest of the process.
pub fn register(secret: &str) {
    if secret.len() < SHORTEST {
        return;
    }
    registry::add_for_process(Kind::Process, &[secret.to_string()]);
}

impl SecretLease {
    /// Lends a value a script may type with `type_secret` (at least
    /// [`SHORTEST_TYPED`] bytes): blotted out of every record, refused as a tool's
    /// text, never pictured, until the lease is dropped. `false`: too short, or
    /// the lease is full.
    pub fn lend_typed(&self, secret: &str) -> bool {
        secret.len() >= SHORTEST_TYPED && self.add(Kind::Typed, &spellings(secret))
    }

    /// Lends words a client marked sensitive (at least [`SHORTEST_TYPED`] bytes):
    /// blotted out of every record and never pictured until the lease is dropped,
    /// while the client's own calls may still carry them. `false`: too short, or
    /// the lease is full.
    pub fn mask(&self, words: &str) -> bool {
        words.len() >= SHORTEST_TYPED && self.add(Kind::Masked, &spellings(words))
    }

    /// [`mask`](Self::mask) for many at once (one rebuild of the matcher): those
    /// shorter than [`SHORTEST_TYPED`] are left out. `false` when the lease is full.
    pub fn mask_all(&self, many: &[&str]) -> bool {
        let all: Vec<String> = many.iter().filter(|w| w.len() >= SHORTEST_TYPED).flat_map(|w| spellings(w)).collect();
        all.is_empty() || self.add(Kind::Masked, &all)
    }
}

/// Whether any secret is known that a screen could show (a typed one, or a
/// client's sensitive words): then screens are checked before they are pictured.
pub fn any_typed() -> bool {
    registry::matcher().on_screens()
}

/// `text` with every registered secret, and anything shaped like a key, replaced by
/// [`REDACTED`]. For free text (a log line, a script, a prompt): a record is
/// redacted value by value ([`redact_json`], [`redact_dump`]), so that a secret
/// never lands inside a number or a key.
pub fn redact(text: &str) -> Cow<'_, str> {
    // Key shapes first: a registered word that overlaps a key's start (` sk-proj`)
    // must not hide the shape the rest of the key is found by.
    let shaped = without_key_shapes(text);
    match blot_registered(&shaped) {
        Cow::Borrowed(_) => shaped,
        Cow::Owned(o) => Cow::Owned(o),
    }
}

/// `text` with anything shaped like a provider's key replaced.
fn without_key_shapes(text: &str) -> Cow<'_, str> {
    match KEY_SHAPED.as_ref() {
        Some(shaped) if shaped.is_match(text) => Cow::Owned(shaped.replace_all(text, REDACTED).into_owned()),
        _ => Cow::Borrowed(text),
    }
}

/// Every string inside `value` redacted; numbers, booleans and keys are left as
/// they are, so the record stays what it was (JSON with the same shape). A field
/// called `code` or `args` holds code ([`redact_code`]); other text may hold a
/// reply's code blocks ([`redact_reply`]).
pub fn redact_json(value: &mut serde_json::Value) {
    redact_json_as(value, false);
}

fn redact_json_as(value: &mut serde_json::Value, code: bool) {
    // Without recursion: however deep the value nests, the stack does not.
    let mut stack = vec![(value, code)];
    while let Some((value, code)) = stack.pop() {
        match value {
            serde_json::Value::String(s) => {
                let redacted = if code { redact_code(s) } else { redact_reply(s) };
                if let Cow::Owned(r) = redacted {
                    *s = r;
                }
            }
            serde_json::Value::Array(items) => stack.extend(items.iter_mut().map(|v| (v, code))),
            serde_json::Value::Object(fields) => {
                // A call's arguments are Rhai literals, code too.
                stack.extend(fields.iter_mut().map(|(key, v)| (v, code || key == "code" || key == "args")))
            }
            _ => {}
        }
    }
}

/// Code with its secrets out, the code left runnable: long secrets and key shapes
/// wherever they are, a short secret only inside a string literal or a comment (as
/// a bare number it is a coordinate or a count: nobody's PIN).
pub fn redact_code(code: &str) -> Cow<'_, str> {
    let matcher = registry::matcher();
    let shaped = without_key_shapes(code);
    let long = matcher.long_places(&shaped);
    let mut out: Cow<'_, str> =
        if long.is_empty() { shaped } else { Cow::Owned(matcher::replaced(&shaped, &long, REDACTED)) };
    let short = matcher.short_places(&out);
    if !short.is_empty() {
        let quoted = crate::literals::literal_spans(&out);
        let inside: Vec<(usize, usize)> =
            short.into_iter().filter(|(start, end)| crate::literals::inside_spans(&quoted, *start, *end)).collect();
        if !inside.is_empty() {
            out = Cow::Owned(matcher::replaced(&out, &inside, REDACTED));
        }
    }
    out
}

/// A model's reply with its secrets out: its prose as any text, its ```code```
/// blocks as code ([`redact_code`]).
pub fn redact_reply(text: &str) -> Cow<'_, str> {
    if !text.contains("```") {
        return redact(text);
    }
    let mut out = String::with_capacity(text.len());
    for (i, part) in text.split("```").enumerate() {
        if i > 0 {
            out.push_str("```");
        }
        if i % 2 == 1 { out.push_str(&redact_code(part)) } else { out.push_str(&redact(part)) }
    }
    if out == text { Cow::Borrowed(text) } else { Cow::Owned(out) }
}

/// A hierarchy dump with its secrets out: in XML, only the attributes that hold
/// what a person reads (text, content-desc, hint) are redacted, so bounds and ids
/// stay whole; a JSON dump is redacted value by value; anything else as text.
pub fn redact_dump(dump: &str) -> Cow<'_, str> {
    if dump.trim_start().starts_with('{') || dump.trim_start().starts_with('[') {
        if let Ok(mut value) = serde_json::from_str::<serde_json::Value>(dump) {
            redact_json(&mut value);
            return Cow::Owned(value.to_string());
        }
        return redact(dump);
    }
    match READABLE_ATTRIBUTE.as_ref() {
        Some(attribute) if !registry::matcher().is_empty() => {
            match attribute.replace_all(dump, |c: &regex::Captures| format!("{}{}\"", &c[1], redact(&c[2]))) {
                Cow::Borrowed(_) => Cow::Borrowed(dump),
                Cow::Owned(o) if o == dump => Cow::Borrowed(dump),
                Cow::Owned(o) => Cow::Owned(o),
            }
        }
        _ => Cow::Borrowed(dump),
    }
}

static READABLE_ATTRIBUTE: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| regex::Regex::new(r#"(\b(?:text|content-desc|hint|label|value|name)=")([^"]*)""#).ok());

/// `text` with every registered secret (not key shapes) replaced: what a script may
/// read of the screen (`ui_state`), where a typed secret must not show.
pub fn blot_registered(text: &str) -> Cow<'_, str> {
    let places = registry::matcher().places(text);
    if places.is_empty() { Cow::Borrowed(text) } else { Cow::Owned(matcher::replaced(text, &places, REDACTED)) }
}

/// Whether `text` holds a registered secret of any kind (then a screenshot of it is
/// withheld: pixels cannot be redacted).
pub fn appears_in(text: &str) -> bool {
    registry::matcher().is_in(text)
}

/// Whether `text` holds a secret no tool may send anywhere as text (the process's,
/// or one `type_secret` types): a call that would is refused.
pub fn refused_in(text: &str) -> bool {
    registry::matcher().refused_in(text)
}

/// Whether any secret is registered (a screen can only show one if so).
pub fn any_registered() -> bool {
    !registry::matcher().is_empty()
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

    #[test]
    fn a_short_secret_is_blotted_where_it_stands_alone_and_records_stay_json() {
        register_typed("4791");
        assert_eq!(redact("pin 4791 typed, 14791 and 47910 are not it"), "pin [key] typed, 14791 and 47910 are not it");
        assert_eq!(redact("\"4791\""), "\"[key]\"");
        let mut record =
            serde_json::json!({"prompt_tokens": 4791, "4791": "x", "text": "PIN 4791", "list": [4791, "4791"]});
        redact_json(&mut record);
        assert_eq!(
            record,
            serde_json::json!({"prompt_tokens": 4791, "4791": "x", "text": "PIN [key]", "list": [4791, "[key]"]})
        );
        let dump = r#"<node text="4791" bounds="[0,4791][1080,2400]" resource-id="a:id/pin4791" />"#;
        assert_eq!(
            redact_dump(dump),
            r#"<node text="[key]" bounds="[0,4791][1080,2400]" resource-id="a:id/pin4791" />"#
        );
        assert!(appears_in("PIN: 4791") && !appears_in("swipe(540, 14791)"));
        let code = "tap(540, 4791); input_text(\"4791\"); // the PIN 4791";
        assert_eq!(redact_code(code), "tap(540, 4791); input_text(\"[key]\"); // the PIN [key]");
        let reply = "Thought: PIN 4791 next.\n```rhai\ntap(540, 4791);\n```";
        assert_eq!(redact_reply(reply), "Thought: PIN [key] next.\n```rhai\ntap(540, 4791);\n```");
    }

    #[test]
    fn a_lent_secret_lives_as_long_as_its_lease() {
        let lease = SecretLease::new();
        assert!(lease.mask("lent-for-a-while-77") && lease.lend_typed("typed-for-a-while-88"));
        assert!(!lease.mask("abc"), "too short to be kept out");
        assert_eq!(redact("a lent-for-a-while-77 b typed-for-a-while-88"), "a [key] b [key]");
        assert!(refused_in("typed-for-a-while-88") && !refused_in("lent-for-a-while-77"), "a client's own words pass");
        assert!(appears_in("lent-for-a-while-77"));
        let shared = std::sync::Arc::new(lease);
        let clone = shared.clone();
        drop(shared);
        assert!(appears_in("lent-for-a-while-77"), "a clone keeps the lease");
        drop(clone);
        assert!(!appears_in("lent-for-a-while-77") && !appears_in("typed-for-a-while-88"));
        assert_eq!(redact("lent-for-a-while-77"), "lent-for-a-while-77");
    }

    #[test]
    fn a_registered_word_over_a_keys_start_does_not_hide_the_key() {
        let lease = SecretLease::new();
        assert!(lease.mask(" sk-proj"));
        let said = redact("key: sk-proj-ABCDEFGHIJKLMNOP done");
        assert!(!said.contains("ABCDEFGH"), "{said}");
        let code = redact_code("let k = \"sk-proj-ABCDEFGHIJKLMNOP\";");
        assert!(!code.contains("ABCDEFGH"), "{code}");
    }
}
