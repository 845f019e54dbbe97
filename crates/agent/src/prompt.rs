//! What the model reads: the system prompt (the persona's template with the tool list,
//! the rules of answering, a worked example) and the conversation. Earlier steps keep
//! their replies and what came of them (derived from their [`StepRecord`]s); only the
//! newest user message carries the screen (and the image), so a prompt stays bounded
//! however long the run. This module formats text; it calls nothing.

use std::fmt::Write as _;

use std::sync::Arc;

use codeact_record::trajectory::{StepOutcome, StepRecord};
use codeact_runtime::llm::{Message, Role};
use codeact_runtime::persona::Persona;

use super::json_prompt;
pub use super::told::result_text;
use super::told::{coordinate_rule, cut_at};

/// The most of the focus (a replay's step to redo) and of a reviewer's note shown.
const FOCUS_BYTES: usize = 8 * 1024;

/// The system prompt for `persona`, with rules that name only the tools it has;
/// `coordinate_scale` N tells the model integer coordinates are 0..N, not pixels.
pub fn system(persona: &Persona, coordinate_scale: Option<u32>, script_tools: &str) -> String {
    let has = |t: &str| persona.allows(t);
    let mut rules = String::from(
        "\n\nHow to answer:\n\
         - Reply with a short thought (one or two sentences), then exactly one ```rhai code block.\n\
         - The code is Rhai, which reads like JavaScript or Rust: `let x = 1;`, `if a { } else { }`, \
         `for e in ui_state { }`, maps `#{text: \"OK\"}`, strings with `${x}` inside backticks.\n\
         - `ui_state` (the elements listed under \"Current screen\", as maps with index, text, desc, id, class, \
         bounds, center, clickable, checked, editable, ...) and `phone_state` (app, activity, keyboard_shown, \
         focused_text) are in scope.\n\
         - `ui_state` and `phone_state` are read-only copies of the screen: assigning to them changes nothing on \
         the phone; act by calling the functions above.\n\
         - Variables and functions you define are kept for later steps; what you print() comes back to you.\n\
         - A screen line is: index, class, #id, \"text\", desc=, [flags], then @x,y, the element's centre (a list \
         that scrolls gives its bounds); a line without a class is text only.\n",
    );
    if has("refresh") {
        rules.push_str("- After an action changes the screen, call refresh() before using ui_state again, or end the snippet and read the next screen.\n");
    } else {
        rules.push_str("- After an action changes the screen, end the snippet: the next step shows the new screen.\n");
    }
    if let Some(n) = coordinate_scale {
        rules.push_str(&coordinate_rule(n));
    }
    if has("ask_user") {
        rules.push_str(
            "- What only the person knows (a code, a choice between options) comes from ask_user(\"question\"); \
             a login or CAPTCHA is for take_over(\"why\"); passwords are typed with type_secret(\"name\"), never as text.\n",
        );
    }
    rules.push_str(
        "- The runtime asks the person before sensitive actions (pay, buy, transfer, delete, uninstall...); \
         if one is refused, do not try it another way: complete(false, \"why\").\n",
    );
    rules.push_str(
        "- When the task is done, call complete(true, \"what was achieved\"); if it cannot be done, \
         complete(false, \"why\").\n",
    );
    let example = super::example::code(&has);
    format!("{}{rules}{example}", persona.system_prompt_with(script_tools).trim_end())
}

/// What the model is told when its reply held no code.
const NO_CODE: &str = "Your reply had no code, so nothing ran. Answer with a short thought and one ```rhai block \
     (call complete(true, \"...\") when the task is done).";

/// What the model is told when the same code ran again on the same screen.
const REPEATED: &str = "this is the same code as the previous step, on the same screen, and it did not finish the \
     task; try something different";

/// The most of a past reply sent back in the history.
const REPLY_BYTES: usize = 16 * 1024;

/// The most of an app card shown in a prompt.
const CARD_BYTES: usize = 2000;

/// The most of one remembered fact shown in a prompt.
const FACT_BYTES: usize = 500;

/// How the note on a step whose reply split its goal begins (the tree strategy).
pub const SPLIT: &str = "You split this goal into";

/// What the model was told about a past step (kept in the history).
pub fn feedback(step: &StepRecord) -> String {
    if let (StepOutcome::NoCode, Some(split)) = (&step.outcome, step.notes.iter().find(|n| n.starts_with(SPLIT))) {
        return split.clone();
    }
    let mut warnings: Vec<&str> = step.notes.iter().map(String::as_str).collect();
    if step.repeated {
        warnings.insert(0, REPEATED);
    }
    let mut out = match &step.outcome {
        StepOutcome::NoCode => NO_CODE.to_string(),
        StepOutcome::NotParsed(e) => format!("Your code did not parse, so nothing ran:\n{e}\nFix it and answer again."),
        StepOutcome::Ran(result) => return result_text(result, &warnings),
    };
    for w in warnings {
        let _ = write!(out, "\nWarning: {w}");
    }
    out
}

/// Whether the step's reply split its goal (the tree strategy) rather than act.
fn is_split(step: &StepRecord) -> bool {
    step.notes.iter().any(|n| n.starts_with(SPLIT))
}

/// The warnings about a step whose function calls the model sees answered one by
/// one (`--actions json`): repeated, held, stalled; empty when there are none.
fn notes(step: &StepRecord) -> String {
    let mut out = String::new();
    if step.repeated {
        let _ = writeln!(out, "Warning: {REPEATED}");
    }
    for n in &step.notes {
        let _ = writeln!(out, "Warning: {n}");
    }
    out
}

/// What stays the same for every request of a run.
#[derive(Debug, Clone)]
pub struct Prompt {
    pub system: String,
    /// How the model acts: the history and the closing line follow it.
    pub actions: super::options::ActionFormat,
    pub task: String,
    pub max_steps: usize,
    /// The apps the model may open, when the persona shows them.
    pub packages: Option<Vec<String>>,
    /// What the model works on beside the task: the plan, its item marked.
    pub focus: Option<String>,
    /// Worked examples from memory: earlier successful runs of similar tasks.
    pub examples: Option<String>,
    /// Reviewers' notes on earlier runs of this very task (memory).
    pub lessons: Vec<String>,
}

/// What the model sees of the phone now, beside the run's constants.
#[derive(Debug, Clone, Copy)]
pub struct Now<'a> {
    pub step: usize,
    /// The observation's compact text (`Observation::screen_text`).
    pub screen_text: &'a str,
    /// The screenshot to attach, when the model sees one.
    pub image: Option<&'a Arc<[u8]>>,
    /// Remembered facts, when the persona shows them.
    pub memory: &'a [String],
    /// What happened to the screen since the last step that the model did not do
    /// (a watcher cleared a dialog).
    pub happened: &'a [String],
    /// The reflector's latest critiques, oldest first.
    pub reflections: &'a [String],
    /// The user's card for the app in front (memory), if there is one.
    pub app_card: Option<&'a str>,
    /// What acting on elements of this screen did in earlier runs (memory).
    pub widget_hints: &'a [String],
    /// When the tree says little about the screen: how else to find things.
    pub sparse_tree: Option<&'a str>,
}

/// Listed elements that say what they are (a text, a description or a hint): at
/// most this many and the tree is too sparse to act on by itself.
const SPARSE_NAMED: usize = 2;
/// The most reference names the hint lists.
const HINT_REFERENCES: usize = 30;

/// When `tree` says little (a canvas, a game, a WebView or Flutter screen without
/// accessibility), what the model can find things by instead: the gallery's
/// references and the locator model. `None` when the tree is rich enough, or when
/// there is no other way.
pub fn sparse_tree_hint(
    tree: &codeact_platform::ui::UiTree,
    ways: impl FnOnce() -> codeact_runtime::session::LocatingWays,
) -> Option<String> {
    let named = codeact_platform::ui::screen_text::listed(tree)
        .iter()
        .filter(|e| [&e.text, &e.content_desc, &e.hint].iter().any(|t| !t.trim().is_empty()))
        .count();
    if named > SPARSE_NAMED {
        return None;
    }
    let ways = ways();
    if ways.references.is_empty() && !ways.model {
        return None;
    }
    let mut hint = format!(
        "The UI tree says little about this screen ({named} named elements): what is drawn may not be in ui_state."
    );
    if !ways.references.is_empty() {
        let shown: Vec<&str> = ways.references.iter().take(HINT_REFERENCES).map(String::as_str).collect();
        let more = ways.references.len().saturating_sub(shown.len());
        let _ = write!(
            hint,
            " Find by reference picture: tap(#{{image: \"NAME\"}}), with NAME one of: {}{}.",
            shown.join(", "),
            if more > 0 { format!(" (and {more} more)") } else { String::new() }
        );
    }
    if ways.model {
        hint.push_str(" Find by description: tap(#{ai: \"the blue send button\"}), or locate(\"...\") for the point.");
    }
    Some(hint)
}

impl Prompt {
    /// The conversation for the next request: the task, each past step's reply and
    /// feedback, then the screen now.
    pub fn messages(&self, history: &[StepRecord], now: Now) -> Vec<Message> {
        let mut msgs = vec![Message::text(Role::System, self.system.clone())];
        let mut pending = format!("Task: {}\n", self.task);
        if let Some(examples) = &self.examples {
            let _ = write!(
                pending,
                "\nWorked examples: earlier successful runs of similar tasks (adapt them; the screen decides):\n{}\n",
                examples.trim_end()
            );
        }
        if !self.lessons.is_empty() {
            pending.push_str("\nA reviewer's notes on earlier runs of this task:\n");
            for lesson in &self.lessons {
                let _ = writeln!(pending, "- {}", codeact_base::clip::clip(lesson, FACT_BYTES));
            }
        }
        for step in history {
            // After a call's results, a user message only when there is something to say.
            if !pending.is_empty() {
                msgs.push(Message::text(Role::User, std::mem::take(&mut pending)));
            }
            // A runaway reply is not sent back whole with every later request.
            let reply = match cut_at(&step.reply, REPLY_BYTES) {
                (kept, true) => format!("{kept}\n[reply cut at {REPLY_BYTES} bytes; its code ran as written]"),
                (kept, false) => kept.to_string(),
            };
            let json = self.actions == super::options::ActionFormat::Json;
            if json && !step.calls.is_empty() {
                json_prompt::past_turn(step, reply, &mut msgs);
                pending = notes(step);
            } else {
                msgs.push(Message::text(Role::Assistant, reply));
                pending = if json && matches!(step.outcome, StepOutcome::NoCode) && !is_split(step) {
                    json_prompt::NO_CALL.to_string()
                } else {
                    feedback(step)
                };
            }
        }
        let mut text = pending;
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        for h in now.happened {
            let _ = writeln!(text, "Since then: {h}");
        }
        if let Some(focus) = &self.focus {
            let _ = write!(text, "\n{}", codeact_base::clip::clip(focus.trim_end(), FOCUS_BYTES));
            text.push('\n');
        }
        if let Some(card) = now.app_card {
            let (kept, cut) = cut_at(card, CARD_BYTES);
            let _ = write!(
                text,
                "\nNotes on this app (its card):\n{}{}\n",
                kept.trim_end(),
                if cut { " [cut]" } else { "" }
            );
        }
        if !now.widget_hints.is_empty() {
            text.push_str("\nWhat acting on elements of this screen did in earlier runs:\n");
            for hint in now.widget_hints {
                let _ = writeln!(text, "- {hint}");
            }
        }
        if !now.reflections.is_empty() {
            text.push_str("\nA reviewer's notes on your progress (newest last):\n");
            for r in now.reflections {
                let _ = writeln!(text, "- {r}");
            }
        }
        let _ = write!(
            text,
            "\nStep {} of {}. Current screen (indices are ui_state's):\n{}",
            now.step, self.max_steps, now.screen_text
        );
        if let Some(hint) = now.sparse_tree {
            let _ = writeln!(text, "{hint}");
        }
        if !now.memory.is_empty() {
            text.push_str("\nRemembered:\n");
            for m in now.memory {
                let (kept, cut) = cut_at(m, FACT_BYTES);
                let _ = writeln!(text, "- {kept}{}", if cut { " [cut]" } else { "" });
            }
        }
        if let Some(p) = &self.packages {
            let _ = writeln!(text, "\nInstalled apps: {}", p.join(", "));
        }
        let image = now.image.cloned();
        if image.is_some() {
            text.push_str("\nA screenshot of this screen is attached.\n");
        }
        text.push('\n');
        text.push_str(match self.actions {
            super::options::ActionFormat::Code => "Answer with a short thought and one ```rhai block.",
            super::options::ActionFormat::Json => json_prompt::ASK,
        });
        msgs.push(Message { image_png: image, ..Message::text(Role::User, text) });
        msgs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use codeact_engine::sandbox::RunResult;
    use codeact_record::trajectory::StepTiming;

    fn past(reply: &str, output: &str) -> StepRecord {
        StepRecord {
            number: 1,
            reply: reply.into(),
            thought: String::new(),
            code: Some("print(1);".into()),
            outcome: StepOutcome::Ran(RunResult { output: output.into(), ..RunResult::default() }),
            usage: Default::default(),
            timing: StepTiming::default(),
            repeated: false,
            notes: Vec::new(),
            completion_held: false,
            seen: None,
            node: None,
            calls: Vec::new(),
        }
    }

    #[test]
    fn only_the_newest_message_carries_the_screen() {
        let prompt = Prompt {
            system: "sys".into(),
            actions: super::super::options::ActionFormat::Code,
            task: "Turn off Wi-Fi".into(),
            max_steps: 15,
            packages: None,
            focus: None,
            examples: None,
            lessons: Vec::new(),
        };
        let history = [past("r1", "f1"), past("r2", "f2")];
        let png: Arc<[u8]> = Arc::from(&b"png"[..]);
        let now = Now {
            step: 3,
            screen_text: "SCREEN\n",
            image: Some(&png),
            memory: &[],
            happened: &[],
            reflections: &[],
            app_card: None,
            widget_hints: &[],
            sparse_tree: None,
        };
        let m = prompt.messages(&history, now);
        let roles: Vec<Role> = m.iter().map(|m| m.role).collect();
        use Role::*;
        assert_eq!(roles, [System, User, Assistant, User, Assistant, User], "roles alternate");
        assert_eq!(m[1].text, "Task: Turn off Wi-Fi\n");
        assert!(m[3].text.starts_with("Execution result:\n(no actions)\nPrinted:\nf1\n"), "{}", m[3].text);
        assert!(m[5].text.contains("f2\n\nStep 3 of 15. Current screen"), "{}", m[5].text);
        assert_eq!(m.iter().filter(|m| m.text.contains("Current screen")).count(), 1);
        assert_eq!(m.iter().filter(|m| m.image_png.is_some()).count(), 1);
        let hidden = prompt.messages(&history, Now { image: None, ..now });
        assert!(hidden.iter().all(|m| m.image_png.is_none()), "no image unless asked");
        let first = prompt.messages(&[], Now { step: 1, ..now });
        assert!(first[1].text.starts_with("Task: Turn off Wi-Fi\n\nStep 1 of 15."), "{}", first[1].text);
    }

    #[test]
    fn runaway_replies_facts_and_outputs_are_sent_back_bounded() {
        let prompt = Prompt {
            system: "sys".into(),
            actions: super::super::options::ActionFormat::Code,
            task: "t".into(),
            max_steps: 15,
            packages: None,
            focus: None,
            examples: None,
            lessons: Vec::new(),
        };
        let huge = "x".repeat(1 << 20);
        let history = [past(&huge, &huge)];
        let memory = [huge.clone()];
        let m = prompt.messages(
            &history,
            Now {
                step: 2,
                screen_text: "S\n",
                image: None,
                memory: &memory,
                happened: &[],
                reflections: &[],
                app_card: None,
                widget_hints: &[],
                sparse_tree: None,
            },
        );
        let total: usize = m.iter().map(|m| m.text.len()).sum();
        assert!(total < 32 * 1024, "{total} bytes");
        assert!(m[2].text.ends_with("[reply cut at 16384 bytes; its code ran as written]"));
        assert!(m[3].text.contains("[output cut]") && m[3].text.contains("[cut]"));
    }

    #[test]
    fn the_system_prompt_lists_only_the_persona_tools() {
        let p = Persona::load("app_starter").unwrap();
        let s = system(&p, None, "");
        assert!(system(&p, Some(1000), "").contains("0..1000 across the screen"));
        assert!(s.contains("- start_app(package[, activity or options])") && !s.contains("tap_by_index"), "{s}");
        assert!(s.contains("complete(true"));
    }

    #[test]
    fn a_sparse_tree_tells_the_model_how_else_to_find_things() {
        use codeact_runtime::session::LocatingWays;
        let game = r#"<hierarchy rotation="0"><node class="android.widget.FrameLayout" bounds="[0,0][1080,2400]"><node class="android.view.View" bounds="[0,0][1080,2400]" /></node></hierarchy>"#;
        let game = codeact_platform::ui::parse(game.as_bytes(), (1080, 2400)).unwrap();
        let both = || LocatingWays { references: vec!["play_button".into(), "coin".into()], model: true };
        let hint = sparse_tree_hint(&game, both).unwrap();
        assert!(hint.contains("#{image: \"NAME\"}), with NAME one of: play_button, coin."), "{hint}");
        assert!(hint.contains("tap(#{ai: \"the blue send button\"})"), "{hint}");
        let pictures = sparse_tree_hint(&game, || LocatingWays { model: false, ..both() }).unwrap();
        assert!(!pictures.contains("#{ai"), "{pictures}");
        assert_eq!(sparse_tree_hint(&game, LocatingWays::default), None, "no other way: nothing to say");
        let rich = codeact_platform::ui::samples::switches();
        assert_eq!(sparse_tree_hint(&rich, || panic!("not asked for a rich tree")), None);
    }
}
