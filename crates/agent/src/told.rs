//! What the model is told of what ran: a snippet's result (its actions, output,
//! value, error and warnings, each bounded) and the rule for a session's scaled
//! coordinates, in the words both action formats share. Text only; the prompts
//! that carry it are `prompt.rs` and `json_prompt.rs`.

use std::fmt::Write as _;

use codeact_engine::sandbox::{LISTED_ACTIONS, RunResult};

/// How many bytes of a snippet's printed output go back to the model.
const OUTPUT_BYTES: usize = 4000;

/// The most of one action's line (call, result, effect) that goes back to the model.
const ACTION_BYTES: usize = 600;

/// The rule for a session whose integer coordinates are 0..`n`, not pixels.
pub(super) fn coordinate_rule(n: u32) -> String {
    format!(
        "- Integer coordinates (tap, swipe, ...) are 0..{n} across the screen, not pixels: ({}, {}) is the centre.\n",
        n / 2,
        n / 2
    )
}

/// `text` cut at `max` bytes (on a character boundary), and whether it was cut.
pub(super) fn cut_at(text: &str, max: usize) -> (&str, bool) {
    (&text[..text.floor_char_boundary(max)], text.len() > max)
}

/// What the model is told after a snippet ran; each warning is a line of its own.
pub fn result_text(result: &RunResult, warnings: &[&str]) -> String {
    let mut out = String::from("Execution result:\n");
    if result.actions.is_empty() {
        out.push_str("(no actions)\n");
    }
    let (listed, more) = result.listed_actions(LISTED_ACTIONS);
    for a in listed {
        let _ = writeln!(out, "- {}", codeact_base::clip::clip(&a.summary(), ACTION_BYTES));
    }
    if let Some(more) = more {
        let _ = writeln!(out, "- {more}");
    }
    if !result.output.is_empty() {
        let (output, cut) = cut_at(&result.output, OUTPUT_BYTES);
        let cut = if cut { "\n[output cut]" } else { "" };
        let _ = write!(out, "Printed:\n{}{cut}\n", output.trim_end());
    }
    if let Some(v) = &result.value {
        let v: String = v.chars().take(500).collect();
        let _ = writeln!(out, "Value: {v}");
    }
    if let Some(e) = &result.error {
        let _ = writeln!(out, "Error: {e}");
    }
    for w in warnings {
        let _ = writeln!(out, "Warning: {w}");
    }
    out
}
