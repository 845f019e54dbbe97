//! The judgement of a finished `--strategy tree` node, and the reflection on a
//! failed one. A node that says it is done is judged against the screen its
//! sub-goal expected: by the run's own reviewer model when it has one
//! (`--reflector-model`; the model that acted never judges itself), which reads the
//! goal, what the node's actions changed and the screen it ended on and answers
//! SUCCESS, PARTIAL or FAILURE; without one, by the words of the expected screen
//! found on the screen (and in what the actions changed): all of them missing is
//! PARTIAL, never a failure a heuristic could invent. A failed node's reflection is
//! the reviewer's critique of its steps, kept in memory for the next attempt.
//! Not the deciding what a verdict does (`tree.rs`).

use std::fmt::Write as _;

use crate::reflect;
use crate::roles::Role;
use crate::run::Run;
use codeact_record::trajectory::{RunEffects, StepRecord};
use codeact_runtime::llm::{Message, Role as Speaker};

/// How a node that said it was done is judged.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Verdict {
    Success,
    /// Done in part, or not recognisably done: why. The parent goes on, told so;
    /// memory keeps no experience of it.
    Partial(String),
    /// The reviewer judged it not done: why. The parent may split again.
    Failure(String),
}

const SYSTEM: &str = "You check one stage of the work of an agent that operates an Android phone. Decide from the \
     evidence alone, not from what the agent claimed, whether the stage's goal was reached. Answer on the first line \
     with exactly SUCCESS, PARTIAL or FAILURE, then one sentence why.";

/// The most of the screen the reviewer reads.
const SCREEN_BYTES: usize = 6000;
/// The most effect lines the reviewer reads.
const EFFECTS_READ: usize = 8;

/// Words that say nothing about which screen is meant.
const FILLER: &[&str] = &[
    "a",
    "an",
    "the",
    "is",
    "are",
    "be",
    "been",
    "was",
    "of",
    "to",
    "in",
    "on",
    "at",
    "for",
    "from",
    "with",
    "and",
    "or",
    "it",
    "its",
    "this",
    "that",
    "which",
    "where",
    "when",
    "now",
    "screen",
    "page",
    "shown",
    "shows",
    "showing",
    "visible",
    "displayed",
    "open",
    "opened",
    "app",
    "done",
    "has",
    "have",
    "there",
    "should",
    "will",
    "can",
    "view",
];

/// The records of the steps numbered after `first`.
pub(super) fn records_since(run: &Run<'_>, first: usize) -> Vec<StepRecord> {
    run.history.all_records().into_iter().filter(|r| r.number > first).collect()
}

/// What the node's actions changed, one line each (the screens they opened, what
/// appeared), and its effects in one line.
fn changes(records: &[StepRecord]) -> (Vec<String>, String) {
    let mut lines: Vec<String> = Vec::new();
    for action in records.iter().flat_map(StepRecord::actions) {
        if let Some(effect) = action.capture.effect.as_deref().filter(|e| *e != "no visible change")
            && lines.last().map(String::as_str) != Some(effect)
        {
            lines.push(format!("{}: {effect}", action.tool));
        }
    }
    let skip = lines.len().saturating_sub(EFFECTS_READ);
    (lines.split_off(skip), RunEffects::of_records(records).describe())
}

/// The significant words of `expect`, lower case.
fn words(expect: &str) -> Vec<String> {
    expect
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| !w.is_empty() && !FILLER.contains(&w.as_str()))
        .collect()
}

/// Without a reviewer: the expected screen is recognised when at least half of its
/// significant words are on the screen or in what the node changed.
pub(super) fn by_words(expect: &str, screen: &str, changed: &str) -> Verdict {
    let wanted = words(expect);
    if wanted.is_empty() {
        return Verdict::Success;
    }
    let seen = format!("{screen}\n{changed}").to_lowercase();
    let found = wanted.iter().filter(|w| seen.contains(w.as_str())).count();
    if found * 2 >= wanted.len() {
        return Verdict::Success;
    }
    let missing: Vec<&str> = wanted.iter().filter(|w| !seen.contains(w.as_str())).map(String::as_str).collect();
    Verdict::Partial(format!(
        "the expected screen ({expect}) is not recognised: {} of its words are not on the screen it ended on ({})",
        missing.len(),
        missing.join(", ")
    ))
}

/// The reviewer's first line, read as a verdict (`None`: not one).
pub(super) fn read_verdict(reply: &str) -> Option<Verdict> {
    let mut lines = reply.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next()?.trim_start_matches(['*', '#', ' ']);
    let word: String = first.chars().take_while(|c| c.is_ascii_alphabetic()).collect::<String>().to_uppercase();
    let rest = first[word.len()..].trim_start_matches([':', '.', '-', ' ', '—', '*']).trim();
    let why = if rest.is_empty() { lines.next().unwrap_or("").to_string() } else { rest.to_string() };
    let why = if why.is_empty() { "the reviewer gave no reason".to_string() } else { reflect::trimmed(&why) };
    match word.as_str() {
        "SUCCESS" => Some(Verdict::Success),
        "PARTIAL" => Some(Verdict::Partial(format!("the reviewer judged it done in part: {why}"))),
        "FAILURE" => Some(Verdict::Failure(format!("the reviewer judged it not done: {why}"))),
        _ => None,
    }
}

/// Judges the node that worked on `goal` in the steps after `first` and said it
/// was done (`claimed`). Nothing to hold it to (no expected screen, no reviewer):
/// a success.
pub(super) async fn judge(run: &mut Run<'_>, goal: &str, expect: Option<&str>, first: usize, claimed: &str) -> Verdict {
    let reviewer = run.has_own_model(Role::Reflector);
    if expect.is_none() && !reviewer {
        return Verdict::Success;
    }
    let records = records_since(run, first);
    let (lines, effects) = changes(&records);
    let screen =
        tokio::task::block_in_place(|| run.session.observe(false)).map(|o| o.screen_text()).unwrap_or_default();
    let changed = format!("{}\n{effects}", lines.join("\n"));
    let by_words = |screen: &str| expect.map_or(Verdict::Success, |e| by_words(e, screen, &changed));
    if screen.is_empty() || !reviewer {
        return if screen.is_empty() { Verdict::Success } else { by_words(&screen) };
    }
    let mut text = format!("Stage goal: {goal}\n");
    if let Some(expect) = expect {
        let _ = writeln!(text, "Expected when it is done: {expect}");
    }
    let _ = writeln!(text, "The agent said: {claimed}\nIts effects: {effects}\nWhat its actions changed:");
    for line in &lines {
        let _ = writeln!(text, "- {line}");
    }
    if lines.is_empty() {
        text.push_str("- nothing visible\n");
    }
    let _ = write!(text, "\nThe screen now:\n{}", codeact_base::clip::clip(&screen, SCREEN_BYTES));
    let messages = [Message::text(Speaker::System, SYSTEM.to_string()), Message::text(Speaker::User, text)];
    match run.ask_model(Role::Reflector, &messages).await {
        Ok(reply) => read_verdict(&reply.text).unwrap_or_else(|| by_words(&screen)),
        // A reviewer that fails leaves the judgement to the words.
        Err(_) => by_words(&screen),
    }
}

/// The reviewer's critique of a failed node's steps (`None` without a reviewer of
/// the run's own, or when it does not answer).
pub(super) async fn reflection(run: &mut Run<'_>, goal: &str, why: &str, first: usize) -> Option<String> {
    if !run.has_own_model(Role::Reflector) {
        return None;
    }
    let records = records_since(run, first);
    let focus = format!("This stage failed: {why}");
    let messages = reflect::messages(goal, Some(&focus), &records);
    let reply = run.ask_model(Role::Reflector, &messages).await.ok()?;
    Some(reflect::trimmed(&reply.text)).filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expected_screen_is_recognised_by_its_words_and_never_failed_by_them() {
        let screen = "Network & internet\n[3] Switch \"Wi-Fi\" (off)";
        assert_eq!(by_words("Wi-Fi is off", screen, ""), Verdict::Success);
        assert_eq!(
            by_words("the Settings screen", "", "start_app: opened com.android.settings/.Settings"),
            Verdict::Success
        );
        assert_eq!(by_words("the screen is shown", "anything", ""), Verdict::Success, "no significant word");
        let Verdict::Partial(why) = by_words("Bluetooth pairing dialog", screen, "") else { panic!("partial") };
        assert!(why.contains("bluetooth, pairing, dialog"), "{why}");
        assert_eq!(by_words("设置", "设置\n[1] WLAN", ""), Verdict::Success);
    }

    #[test]
    fn a_reviewer_answer_is_read_from_its_first_line() {
        assert_eq!(read_verdict("SUCCESS\nThe switch is off."), Some(Verdict::Success));
        assert_eq!(
            read_verdict("  failure: the chat is not open"),
            Some(Verdict::Failure("the reviewer judged it not done: the chat is not open".into()))
        );
        assert_eq!(
            read_verdict("Partial.\nOnly one of two messages was sent."),
            Some(Verdict::Partial("the reviewer judged it done in part: Only one of two messages was sent.".into()))
        );
        assert_eq!(read_verdict("I think it worked"), None);
        assert_eq!(read_verdict(""), None);
    }
}
