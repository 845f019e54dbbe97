//! The judge of a heal that did not end with what its experience recorded: when
//! the run has a reviewer model of its own (`--reflector-model`, `[llm.reflector]`),
//! that model reads the task, what the remembered run left changed, what this run
//! left changed and the screen it ended on, and says whether this run did the task
//! all the same (a different but equally good final screen, say). The model that
//! healed is never its own judge: without a reviewer of its own, the effects decide
//! alone. This module words the question and reads the verdict; the asking is the
//! run's (`mod.rs`).

use codeact_record::trajectory::RunEffects;
use codeact_runtime::llm::{Message, Role};

const SYSTEM: &str = "You check the work of an agent that operates an Android phone. An earlier run of the same \
     task succeeded; this run was meant to do the same, but it did not end with everything the earlier run left \
     changed. Decide from the evidence alone, not from what the agent claimed, whether this run did the task all \
     the same. Answer on the first line with exactly VERIFIED or NOT VERIFIED, then one sentence why.";

/// The most of the final screen the judge reads.
const SCREEN_BYTES: usize = 6000;

/// What the judge is asked.
pub(super) fn messages(
    task: &str,
    recorded: &RunEffects,
    this_run: &RunEffects,
    missing: &[String],
    screen_text: &str,
) -> Vec<Message> {
    let text = format!(
        "Task: {task}\n\nThe earlier run left: {}\nThis run left: {}\nMissing from this run: {}\n\n\
         The screen this run ended on:\n{}\n\nYour verdict (VERIFIED or NOT VERIFIED, then why):",
        recorded.describe(),
        this_run.describe(),
        missing.join("; "),
        codeact_base::clip::clip(screen_text, SCREEN_BYTES)
    );
    vec![Message::text(Role::System, SYSTEM.to_string()), Message::text(Role::User, text)]
}

/// The judge's verdict: `Some(why)` when it says VERIFIED; anything else
/// (NOT VERIFIED, or an answer it did not give in the form asked) is `None`.
pub(super) fn verified(reply: &str) -> Option<String> {
    let reply = reply.trim();
    let first = reply.lines().next().unwrap_or("").trim().trim_matches(['*', '.', ':']).trim();
    if !first.eq_ignore_ascii_case("verified") {
        return None;
    }
    let why: Vec<&str> = reply.lines().skip(1).map(str::trim).filter(|l| !l.is_empty()).collect();
    Some(codeact_base::clip::clip(&why.join(" "), 300).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_plain_verified_verdict_counts() {
        assert_eq!(verified("VERIFIED\nThe switch is off.").as_deref(), Some("The switch is off."));
        assert_eq!(verified("**Verified**").as_deref(), Some(""));
        assert_eq!(verified("NOT VERIFIED\nWi-Fi is on."), None);
        assert_eq!(verified("I think it is verified"), None);
        assert_eq!(verified(""), None);
    }
}
