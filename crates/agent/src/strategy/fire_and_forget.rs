//! The `--strategy tree` sub-goals that need neither a look at the screen nor a
//! model call — opening an app or a link, going home, a wait — given by the
//! splitting node as one call (`"do": "open_app(\"Settings\")"`). Only those
//! calls, with one literal argument, are taken; the statement that runs is
//! written here from what was read, never the model's text, so nothing else can
//! ride along. Consecutive ones run as one step, one line each (an error's line
//! says which failed). Not the running (`tree.rs`, `Run::fire`).

use codeact_engine::emit::rhai::string as rhai_string;

/// The longest wait a sub-goal may be.
const MOST_WAIT_MS: i64 = 10_000;
/// The longest argument taken.
const MOST_ARGUMENT: usize = 2048;

/// What a call takes.
enum Takes {
    Nothing,
    Text,
    Millis,
}

const CALLS: &[(&str, Takes)] = &[
    ("open_app", Takes::Text),
    ("start_app", Takes::Text),
    ("open_url", Takes::Text),
    ("home", Takes::Nothing),
    ("go_home", Takes::Nothing),
    ("wait", Takes::Millis),
];

/// A Rhai string literal in double quotes: its text and what follows it.
fn string_literal(source: &str) -> Option<(String, &str)> {
    let mut chars = source.strip_prefix('"')?.char_indices();
    let mut text = String::new();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((text, &source[i + 2..])),
            '\\' => match chars.next()?.1 {
                '"' => text.push('"'),
                '\\' => text.push('\\'),
                'n' => text.push('\n'),
                't' => text.push('\t'),
                _ => return None,
            },
            c => text.push(c),
        }
    }
    None
}

/// The calls a sub-goal may make without the model that `allowed` (the persona)
/// lets the session have, for the prompt.
pub(super) fn offered(allowed: impl Fn(&str) -> bool) -> Vec<&'static str> {
    CALLS.iter().map(|(name, _)| *name).filter(|name| allowed(name)).collect()
}

/// The statement for `source` when it is one call a sub-goal may make without
/// the model (`open_app("Settings")`, `home()`, `wait(500)`, a `;` or not) and
/// `allowed` lets the session have; `None` for anything else.
pub(super) fn statement(source: &str, allowed: impl Fn(&str) -> bool) -> Option<String> {
    let source = source.trim();
    let source = source.strip_suffix(';').unwrap_or(source).trim_end();
    let (name, rest) = source.split_once('(')?;
    let (_, takes) = CALLS.iter().find(|(n, _)| *n == name.trim() && allowed(n))?;
    let inner = rest.strip_suffix(')')?.trim();
    let argument = match takes {
        Takes::Nothing => inner.is_empty().then(String::new)?,
        Takes::Text => {
            let (text, after) = string_literal(inner)?;
            let fits = after.trim().is_empty() && !text.trim().is_empty() && text.len() <= MOST_ARGUMENT;
            fits.then(|| rhai_string(&text))?
        }
        Takes::Millis => {
            let ms: i64 = inner.parse().ok()?;
            (0..=MOST_WAIT_MS).contains(&ms).then(|| ms.to_string())?
        }
    };
    Some(format!("{}({argument});", name.trim()))
}

#[cfg(test)]
mod tests {
    use super::offered;

    fn statement(source: &str) -> Option<String> {
        super::statement(source, |_| true)
    }

    #[test]
    fn only_one_plain_call_of_the_few_is_taken_and_it_is_rewritten() {
        assert_eq!(statement(" open_app(\"Settings\") ").as_deref(), Some("open_app(\"Settings\");"));
        assert_eq!(statement("home();").as_deref(), Some("home();"));
        assert_eq!(statement("wait(500)").as_deref(), Some("wait(500);"));
        assert_eq!(statement(r#"open_url("sms:\"Bob\"")"#).as_deref(), Some(r#"open_url("sms:\"Bob\"");"#));
        assert_eq!(statement("start_app(\"设置\")").as_deref(), Some("start_app(\"设置\");"));
        assert_eq!(super::statement("open_url(\"https://a.example\")", |t| t != "open_url"), None, "not the persona's");
        assert_eq!(offered(|t| t != "open_url" && t != "go_home"), ["open_app", "start_app", "home", "wait"]);
        for refused in [
            "tap(\"Send\")",
            "open_app(\"a\"); tap(\"b\")",
            "open_app(\"a\") + shell(\"rm\")",
            "open_app(x)",
            "open_app(\"\")",
            "open_app(\"a\", \"b\")",
            "home(1)",
            "wait(60000)",
            "wait(-1)",
            "open_app(\"a\\u0041\")",
            "open_app(\"unterminated)",
            "",
        ] {
            assert_eq!(statement(refused), None, "{refused}");
        }
    }
}
