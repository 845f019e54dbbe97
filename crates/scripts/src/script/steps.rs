//! A script as steps, for `codeact exec --heal`: each top-level statement is a
//! step (a block statement — `if`, `for`, `fn`, `{ }` — with everything inside
//! it), and the comment lines just above a statement are its intent. The script's
//! opening comment block is its goal. This module only splits text; running the
//! steps and healing one is the agent's replay.

/// One step: what it is for (its comment, else its code) and its code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptStep {
    pub intent: String,
    pub code: String,
}

/// The comment block a script opens with, as one line of text (`None`: none).
pub fn goal(code: &str) -> Option<String> {
    let mut words = Vec::new();
    for line in code.lines() {
        let line = line.trim();
        match line.strip_prefix("//") {
            Some(text) => words.push(text.trim_start_matches('/').trim().to_string()),
            None if line.is_empty() && words.is_empty() => continue,
            None => break,
        }
    }
    let text = words.into_iter().filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ");
    (!text.is_empty()).then_some(text)
}

/// Where the top-level statements of `code` end (byte offsets just past each).
/// Strings (`"…"`, `` `…` ``, `'…'`) and comments are skipped; a statement ends at
/// a `;` outside brackets, or at the end of a line that closed a block, unless
/// the next line goes on with `else`.
fn statement_ends(code: &str) -> Vec<usize> {
    let bytes = code.as_bytes();
    let mut ends = Vec::new();
    let (mut depth, mut i) = (0i32, 0usize);
    let mut closed_block = false;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
                continue;
            }
            b'"' | b'`' | b'\'' => {
                i += 1;
                while i < bytes.len() && bytes[i] != c {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'{' | b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'}' => {
                depth -= 1;
                closed_block = depth == 0;
            }
            b';' if depth == 0 => {
                ends.push(i + 1);
                closed_block = false;
            }
            b'\n' if depth == 0 && closed_block => {
                let rest = code[i..].trim_start();
                if !rest.starts_with("else") {
                    ends.push(i);
                }
                closed_block = false;
            }
            c if !c.is_ascii_whitespace() => closed_block = false,
            _ => {}
        }
        i += 1;
    }
    ends
}

/// The steps of `code`, in order. Comment lines between statements become the
/// next statement's intent; text after the last statement is a step of its own.
pub fn split(code: &str) -> Vec<ScriptStep> {
    let mut steps = Vec::new();
    let mut start = 0;
    let mut ends = statement_ends(code);
    if code[ends.last().copied().unwrap_or(0)..].trim().lines().any(|l| !l.trim().starts_with("//")) {
        ends.push(code.len());
    }
    for end in ends {
        let end = end.min(code.len());
        if end <= start || !code.is_char_boundary(end) {
            continue;
        }
        let chunk = &code[start..end];
        start = end;
        let mut comments = Vec::new();
        let mut body = Vec::new();
        for line in chunk.lines() {
            let trimmed = line.trim();
            if body.is_empty() {
                if let Some(text) = trimmed.strip_prefix("//") {
                    comments.push(text.trim_start_matches('/').trim().to_string());
                    continue;
                }
                if trimmed.is_empty() {
                    continue;
                }
            }
            body.push(line);
        }
        let code = body.join("\n").trim().to_string();
        if code.is_empty() {
            continue;
        }
        let intent = comments.into_iter().filter(|c| !c.is_empty()).collect::<Vec<_>>().join(" ");
        let intent = if intent.is_empty() { code.lines().next().unwrap_or("").trim().to_string() } else { intent };
        steps.push(ScriptStep { intent, code });
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_blocks_and_comments_become_steps() {
        let code = r#"// Send Bob a message.
// (hand-written)

start_app("com.google.android.apps.messaging");
// Open the chat; "a;b" is not the end
tap(#{desc: "Start chat"}); input_text("Bob");
if find("Allow") != () {
    tap("Allow");
}
else { back(); }
fn greet(name) { "Hi " + name }
for x in [1, 2] {
    wait(10);
}
set_text(#{id: "compose"}, greet(`Bob; {}`))
"#;
        let steps = split(code);
        let codes: Vec<&str> = steps.iter().map(|s| s.code.as_str()).collect();
        assert_eq!(
            codes,
            [
                "start_app(\"com.google.android.apps.messaging\");",
                "tap(#{desc: \"Start chat\"});",
                "input_text(\"Bob\");",
                "if find(\"Allow\") != () {\n    tap(\"Allow\");\n}\nelse { back(); }",
                "fn greet(name) { \"Hi \" + name }",
                "for x in [1, 2] {\n    wait(10);\n}",
                "set_text(#{id: \"compose\"}, greet(`Bob; {}`))",
            ]
        );
        assert_eq!(steps[1].intent, "Open the chat; \"a;b\" is not the end");
        assert_eq!(steps[2].intent, "input_text(\"Bob\");");
        assert_eq!(goal(code).as_deref(), Some("Send Bob a message. (hand-written)"));
        assert_eq!(goal("tap(\"x\");"), None);
    }
}
