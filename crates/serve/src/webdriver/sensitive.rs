//! `X-Appium-Is-Sensitive`: the words of a request a client marked sensitive are
//! masked in every record (events, screen dumps, the report, `session.rhai`) for
//! as long as the session lives, whichever route carries them — every string the
//! body holds (the text of keys split into one character a value is joined
//! again, a clipboard's base64 read as its text), and every string and comment of
//! a sensitive `execute_driver` script. Typing such a value is `type_secret` of a
//! value lent to the session (`element.rs`). Words shorter than
//! [`SHORTEST_TYPED`](codeact_base::secrets::SHORTEST_TYPED) cannot be told
//! from ordinary text and are left as they are; what a client sends to be typed
//! must be longer. Not the records (the record crate's redaction).

use base64::Engine as _;
use serde_json::Value;

use super::session::WdSession;
use super::wire::{Failure, invalid};

/// The protocol's own words in a body (a locator strategy, a source's type): not
/// the client's, never masked.
const PROTOCOL_KEYS: [&str; 7] = ["using", "type", "contentType", "pointerType", "origin", "id", "button"];

/// The most strings one request's masking reads: a body of many tiny strings is
/// bounded like any other.
const MOST_WORDS: usize = 10_000;

/// Masks the words of a request's body in the session's records; the words.
pub fn mask_request(s: &mut WdSession, body: &Value) -> Result<Vec<String>, Failure> {
    let words = words_of(body)?;
    mask(s, &words)?;
    Ok(words)
}

/// A failure of a sensitive request, as it may be told: a message that quotes the
/// start of any of the request's words (an echo clipped before it could be masked
/// whole) says only what went wrong, not with what.
pub fn told(failure: Failure, words: &[String]) -> Failure {
    let quotes = words.iter().filter(|w| w.len() >= codeact_base::secrets::SHORTEST_TYPED).any(|w| {
        let start: String = w.chars().take(4).collect();
        failure.message.contains(&start)
    });
    match quotes {
        false => failure,
        true => Failure::new(
            failure.code,
            "the request was marked sensitive: its words are not repeated here (check the locator, the text or the arguments it sent)",
        ),
    }
}

/// Masks the strings and comments of a sensitive script.
pub fn mask_script(s: &mut WdSession, script: &str) -> Result<(), Failure> {
    let mut words = Vec::new();
    for (start, end) in codeact_base::literals::literal_spans(script) {
        let span = &script[start..end];
        let inner = match span.chars().next() {
            Some(quote @ ('"' | '`' | '\'')) => {
                let open = &span[quote.len_utf8()..];
                open.strip_suffix(quote).unwrap_or(open)
            }
            _ => span.trim_start_matches('/').trim_start_matches('*').trim_end_matches('/').trim_end_matches('*'),
        };
        let inner = inner.trim();
        let unescaped = unescape(inner);
        if unescaped != inner {
            words.push(unescaped);
        }
        words.push(inner.to_string());
    }
    // Numbers of four digits or more outside the strings too (a PIN as a number).
    let spans = codeact_base::literals::literal_spans(script);
    let mut at = 0;
    for run in script.split(|c: char| !c.is_ascii_digit()) {
        let start = at;
        at += run.len() + 1;
        if run.len() >= codeact_base::secrets::SHORTEST_TYPED
            && !codeact_base::literals::inside_spans(&spans, start, start + run.len())
        {
            words.push(run.to_string());
        }
    }
    mask(s, &words)
}

/// Masks `words` (all at once: one rebuild of the session's matcher).
fn mask(s: &mut WdSession, words: &[String]) -> Result<(), Failure> {
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    if s.session.mask_secrets(&words) {
        return Ok(());
    }
    Err(invalid(format!(
        "this session was lent more than {} MiB of sensitive text: start a new session",
        codeact_base::secrets::MOST_LENT_BYTES / (1024 * 1024)
    )))
}

/// A string literal's text as the script means it (the common escapes).
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// The client's words in a body: each string (but the protocol's own), each list's
/// one-character strings (or `value`s) joined as they are typed, and a
/// `content`'s base64 as its text. Walked without recursion, bounded.
fn words_of(body: &Value) -> Result<Vec<String>, Failure> {
    let mut words = Vec::new();
    let mut stack: Vec<(&Value, bool)> = vec![(body, false)];
    let mut read = 0usize;
    while let Some((value, protocol)) = stack.pop() {
        read += 1;
        if read > MOST_WORDS {
            // Refused rather than masked in part.
            return Err(invalid(format!(
                "a request marked sensitive holds more than {MOST_WORDS} values: send fewer at once"
            )));
        }
        match value {
            Value::String(text) if !protocol => words.push(text.clone()),
            Value::Array(items) => {
                let joined: String = items
                    .iter()
                    .filter_map(|i| i.as_str().or_else(|| i.get("value").and_then(Value::as_str)))
                    .filter(|t| t.chars().count() == 1)
                    .collect();
                if joined.chars().count() > 1 {
                    words.push(joined);
                }
                stack.extend(items.iter().map(|i| (i, false)));
            }
            Value::Object(fields) => {
                if let Some(Value::String(content)) = fields.get("content")
                    && let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(content.as_bytes())
                    && let Ok(text) = String::from_utf8(bytes)
                {
                    words.push(text);
                }
                stack.extend(fields.iter().map(|(k, v)| (v, PROTOCOL_KEYS.contains(&k.as_str()))));
            }
            _ => {}
        }
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_clients_words_are_found_on_every_route_and_the_protocols_left() {
        let keys = json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
            {"type": "keyDown", "value": "p"}, {"type": "keyUp", "value": "p"},
            {"type": "keyDown", "value": "w"}, {"type": "keyDown", "value": "1"}]}]});
        let words = |v: &Value| words_of(v).unwrap_or_default();
        assert!(words(&keys).contains(&"ppw1".to_string()), "{:?}", words(&keys));
        assert!(!words(&keys).contains(&"keyboard".to_string()), "a source's id is the protocol's");
        let value = json!({"text": "hunter22", "value": ["h", "u", "n"]});
        let found = words(&value);
        assert!(found.contains(&"hunter22".into()) && found.contains(&"hun".into()), "{found:?}");
        let clipboard = json!({"content": "c2VjcmV0LWNsaXA=", "contentType": "plaintext"});
        let found = words(&clipboard);
        assert!(found.contains(&"secret-clip".into()) && !found.contains(&"plaintext".into()), "{found:?}");
        let find = json!({"using": "accessibility id", "value": "account-4471"});
        assert_eq!(words(&find), vec!["account-4471".to_string()]);
        let many = Value::Array((0..50_000).map(|i| json!(format!("w{i}"))).collect());
        assert!(words_of(&many).is_err(), "bounded: refused, never masked in part");
        let failure = Failure::new("invalid selector", "the id selector account-44… could not be read");
        assert!(!told(failure, &["account-4471".into()]).message.contains("account"));
        assert_eq!(unescape(r#"a\"b\\c\n"#), "a\"b\\c\n");
    }
}
