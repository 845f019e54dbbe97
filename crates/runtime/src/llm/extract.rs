//! Pulling the code out of an LLM's reply: fenced blocks marked ```rhai, ```rust (or
//! ```rs) or left unmarked, joined in order; the rest of the text is the thought. A
//! block the model did not close (a reply cut at its token limit) runs to the end.
//! This module only reads text; it judges neither the code nor the thought.

/// A reply split into what the model thought and the code it wants run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    pub thought: String,
    /// `None` when the reply holds no code block.
    pub code: Option<String>,
}

impl Extracted {
    /// The thought's first non-empty line (for progress lines), without a "Thought:" label.
    pub fn headline(&self) -> &str {
        let line = self.thought.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
        line.strip_prefix("Thought:").map_or(line, str::trim)
    }
}

const CODE_LANGS: &[&str] = &["rhai", "rust", "rs", ""];

/// Splits `reply` into thought and code.
pub fn extract(reply: &str) -> Extracted {
    let mut thought = String::new();
    let mut blocks: Vec<String> = Vec::new();
    // (fence marker, is code) while inside a block.
    let mut open: Option<(String, bool)> = None;
    let mut current = String::new();
    for line in reply.lines() {
        let trimmed = line.trim_start();
        match &open {
            None => {
                if let Some(rest) = trimmed.strip_prefix("```") {
                    let fence_len = 3 + rest.chars().take_while(|c| *c == '`').count();
                    let lang = rest.trim_start_matches('`').trim().to_lowercase();
                    let lang = lang.split_whitespace().next().unwrap_or("").to_string();
                    open = Some(("`".repeat(fence_len), CODE_LANGS.contains(&lang.as_str())));
                    current.clear();
                } else {
                    thought.push_str(line);
                    thought.push('\n');
                }
            }
            Some((fence, is_code)) => {
                if trimmed.starts_with(fence.as_str()) && trimmed.trim_start_matches('`').trim().is_empty() {
                    if *is_code {
                        blocks.push(std::mem::take(&mut current));
                    } else {
                        thought.push_str(&current);
                        current.clear();
                    }
                    open = None;
                } else {
                    current.push_str(line);
                    current.push('\n');
                }
            }
        }
    }
    if let Some((_, is_code)) = open {
        if is_code {
            blocks.push(current);
        } else {
            thought.push_str(&current);
        }
    }
    let blocks: Vec<String> = blocks.into_iter().filter(|b| !b.trim().is_empty()).collect();
    Extracted {
        thought: thought.trim().to_string(),
        code: if blocks.is_empty() { None } else { Some(blocks.join("\n")) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_are_found_joined_and_the_rest_is_the_thought() {
        let e =
            extract("Thought: tap Wi-Fi.\n```rhai\ntap_by_index(3);\n```\nthen\n```\ncomplete(true, \"ok\");\n```\n");
        assert_eq!(e.code.as_deref(), Some("tap_by_index(3);\n\ncomplete(true, \"ok\");\n"));
        assert_eq!(e.thought, "Thought: tap Wi-Fi.\nthen");
        assert_eq!(e.headline(), "tap Wi-Fi.");
        let e = extract("I will look.\n```Rust\nrefresh();\n```");
        assert_eq!(e.code.as_deref(), Some("refresh();\n"));
        let e = extract("No code here, sorry.");
        assert_eq!((e.code, e.thought.as_str()), (None, "No code here, sorry."));
        let e = extract("Output:\n```json\n{\"a\": 1}\n```\n");
        assert_eq!(e.code, None, "other languages are not code to run");
        assert!(e.thought.contains("{\"a\": 1}"));
        let e = extract("Cut off:\n```rhai\ntap(1, 2);\nlet x");
        assert_eq!(e.code.as_deref(), Some("tap(1, 2);\nlet x\n"), "an unclosed block runs to the end");
        let e = extract("  ````rhai\nprint(\"```\");\n  ````\n");
        assert_eq!(e.code.as_deref(), Some("print(\"```\");\n"), "longer fences hold shorter ones");
    }
}
