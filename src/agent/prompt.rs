//! What the model reads: the system prompt (the persona's template with the tool list,
//! the rules of answering, a worked example) and the conversation. Earlier steps keep
//! their replies and execution results; only the newest user message carries the
//! screen (and the image), so a prompt stays bounded however long the run. This module
//! formats text; it calls nothing.

use std::fmt::Write as _;
use std::sync::Arc;

use crate::llm::{Message, Role};
use crate::persona::Persona;
use crate::sandbox::RunResult;

/// How many bytes of a snippet's printed output go back to the model.
const OUTPUT_BYTES: usize = 4000;

/// The system prompt for `persona`, with rules that name only the tools it has;
/// `coordinate_scale` N tells the model integer coordinates are 0..N, not pixels.
pub fn system(persona: &Persona, coordinate_scale: Option<u32>) -> String {
    let has = |t: &str| persona.allows(t);
    let mut rules = String::from(
        "\n\nHow to answer:\n\
         - Reply with a short thought (one or two sentences), then exactly one ```rhai code block.\n\
         - The code is Rhai, which reads like JavaScript or Rust: `let x = 1;`, `if a { } else { }`, \
         `for e in ui_state { }`, maps `#{text: \"OK\"}`, strings with `${x}` inside backticks.\n\
         - `ui_state` (the elements listed under \"Current screen\", as maps with index, text, desc, id, class, \
         bounds, center, clickable, checked, editable, ...) and `phone_state` (app, activity, keyboard_shown, \
         focused_text) are in scope.\n\
         - Variables and functions you define are kept for later steps; what you print() comes back to you.\n",
    );
    if has("refresh") {
        rules.push_str("- After an action changes the screen, call refresh() before using ui_state again, or end the snippet and read the next screen.\n");
    } else {
        rules.push_str("- After an action changes the screen, end the snippet: the next step shows the new screen.\n");
    }
    if let Some(n) = coordinate_scale {
        let _ = writeln!(
            rules,
            "- Integer coordinates (tap, swipe, ...) are 0..{n} across the screen, not pixels: ({}, {}) is the centre.",
            n / 2,
            n / 2
        );
    }
    rules.push_str(
        "- When the task is done, call complete(true, \"what was achieved\"); if it cannot be done, \
         complete(false, \"why\").\n",
    );
    let example = if has("tap_by_index") {
        "\nExample reply:\nThought: Wi-Fi is on and its switch is element 4; I tap it.\n```rhai\ntap_by_index(4);\n```\n"
    } else if has("start_app") {
        "\nExample reply:\nThought: The Settings app will have it; I open it and finish.\n```rhai\nstart_app(\"com.android.settings\");\ncomplete(true, \"Settings is open\");\n```\n"
    } else {
        ""
    };
    format!("{}{rules}{example}", persona.system_prompt().trim_end())
}

/// What the model is told after a snippet ran (kept in the history).
pub fn result_text(result: &RunResult, loop_warning: Option<&str>) -> String {
    let mut out = String::from("Execution result:\n");
    if result.actions.is_empty() {
        out.push_str("(no actions)\n");
    }
    for a in &result.actions {
        let _ = writeln!(out, "- {}({}) -> {}", a.tool, a.args.join(", "), a.result);
    }
    if !result.output.is_empty() {
        let mut output = result.output.as_str();
        let mut cut = "";
        if output.len() > OUTPUT_BYTES {
            let mut end = OUTPUT_BYTES;
            while !output.is_char_boundary(end) {
                end -= 1;
            }
            output = &output[..end];
            cut = "\n[output cut]";
        }
        let _ = write!(out, "Printed:\n{}{cut}\n", output.trim_end());
    }
    if let Some(v) = &result.value {
        let v: String = v.chars().take(500).collect();
        let _ = writeln!(out, "Value: {v}");
    }
    if let Some(e) = &result.error {
        let _ = writeln!(out, "Error: {e}");
    }
    if let Some(w) = loop_warning {
        let _ = writeln!(out, "Warning: {w}");
    }
    out
}

/// One past step: the model's reply and what came back.
#[derive(Debug, Clone)]
pub struct Turn {
    pub reply: String,
    pub feedback: String,
}

/// What the model sees of the device now.
#[derive(Debug, Clone, Default)]
pub struct Screen {
    /// The compact screen text (phone line and indexed elements).
    pub text: String,
    pub memory: Vec<String>,
    pub packages: Option<Vec<String>>,
    pub image: Option<Arc<[u8]>>,
}

/// The conversation for the next request.
pub fn messages(
    system: &str,
    task: &str,
    turns: &[Turn],
    step: usize,
    max_steps: usize,
    screen: &Screen,
) -> Vec<Message> {
    let mut msgs = vec![Message { role: Role::System, text: system.to_string(), image_png: None }];
    let task_line = format!("Task: {task}\n");
    let mut pending = task_line;
    for turn in turns {
        msgs.push(Message { role: Role::User, text: std::mem::take(&mut pending), image_png: None });
        msgs.push(Message { role: Role::Assistant, text: turn.reply.clone(), image_png: None });
        pending = turn.feedback.clone();
    }
    let mut now = pending;
    if !now.is_empty() && !now.ends_with('\n') {
        now.push('\n');
    }
    let _ = write!(now, "\nStep {step} of {max_steps}. Current screen (indices are ui_state's):\n{}", screen.text);
    if !screen.memory.is_empty() {
        now.push_str("\nRemembered:\n");
        for m in &screen.memory {
            let _ = writeln!(now, "- {m}");
        }
    }
    if let Some(p) = &screen.packages {
        let _ = writeln!(now, "\nInstalled apps: {}", p.join(", "));
    }
    if screen.image.is_some() {
        now.push_str("\nA screenshot of this screen is attached.\n");
    }
    now.push_str("\nAnswer with a short thought and one ```rhai block.");
    msgs.push(Message { role: Role::User, text: now, image_png: screen.image.clone() });
    msgs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_newest_message_carries_the_screen() {
        let turns = vec![
            Turn { reply: "r1".into(), feedback: "f1".into() },
            Turn { reply: "r2".into(), feedback: "f2".into() },
        ];
        let screen = Screen { text: "SCREEN\n".into(), image: Some(Arc::from(&b"png"[..])), ..Screen::default() };
        let m = messages("sys", "Turn off Wi-Fi", &turns, 3, 15, &screen);
        let roles: Vec<Role> = m.iter().map(|m| m.role).collect();
        use Role::*;
        assert_eq!(roles, [System, User, Assistant, User, Assistant, User], "roles alternate");
        assert_eq!(m[1].text, "Task: Turn off Wi-Fi\n");
        assert_eq!(m[3].text, "f1");
        assert!(m[5].text.starts_with("f2\n\nStep 3 of 15. Current screen"), "{}", m[5].text);
        assert_eq!(m.iter().filter(|m| m.text.contains("SCREEN")).count(), 1);
        assert_eq!(m.iter().filter(|m| m.image_png.is_some()).count(), 1);
        let first = messages("sys", "t", &[], 1, 15, &Screen::default());
        assert!(first[1].text.starts_with("Task: t\n\nStep 1 of 15."), "{}", first[1].text);
    }

    #[test]
    fn the_system_prompt_lists_only_the_persona_tools() {
        let p = Persona::load("app_starter").unwrap();
        let s = system(&p, None);
        assert!(system(&p, Some(1000)).contains("0..1000 across the screen"));
        assert!(s.contains("- start_app(package[, activity])") && !s.contains("tap_by_index"), "{s}");
        assert!(s.contains("complete(true"));
    }
}
