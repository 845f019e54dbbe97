//! The person in the loop as the CLI provides one: an `--answers` file first (for
//! unattended runs), then whoever sits at the terminal (a prompt on stderr, a line
//! from stdin). With neither, nobody answers: questions fail and sensitive actions
//! are refused. Prompts show the model's text cleaned of terminal controls.

use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::path::Path;
use std::sync::{Arc, Mutex};

use codeact::human::{Answers, Human, HumanRequest};

/// A [`Human`] from an answers file (if given) and the terminal (when `terminal`
/// and stdin is one).
pub fn person(answers: Option<&Path>, terminal: bool) -> anyhow::Result<Option<Human>> {
    let answers = answers.map(Answers::load).transpose()?;
    let terminal = terminal && std::io::stdin().is_terminal();
    if answers.is_none() && !terminal {
        return Ok(None);
    }
    // One prompt at a time (a confirm inside an ask would interleave).
    let prompting = Arc::new(Mutex::new(()));
    Ok(Some(Arc::new(move |request: &HumanRequest| {
        if let Some(answer) = answers.as_ref().and_then(|a| a.answer(request)) {
            codeact::errln!(
                "    ({} answered from --answers: {})",
                request.kind(),
                codeact::terminal::one_line(&answer)
            );
            return Some(answer);
        }
        if !terminal {
            return None;
        }
        let _one = prompting.lock().unwrap_or_else(|e| e.into_inner());
        prompt(request)
    })))
}

/// The longest answer read at the terminal.
const ANSWER_BYTES: u64 = 64 * 1024;

/// Asks at the terminal; `None` when stdin is closed.
fn prompt(request: &HumanRequest) -> Option<String> {
    let mut err = std::io::stderr();
    let _ = match request {
        HumanRequest::Question { question } => {
            write!(err, "\n? The agent asks: {}\n  your answer> ", codeact::terminal::one_line(question))
        }
        HumanRequest::Confirm { action, rule } => write!(
            err,
            "\n! Sensitive action: {} (rule {:?}).\n  Allow it? [y]es, [a]lways for this rule, [N]o> ",
            codeact::terminal::one_line(action),
            codeact::terminal::one_line(rule)
        ),
        HumanRequest::TakeOver { reason } => write!(
            err,
            "\n> Take over the phone: {}\n  Do what is needed on the device, then press Enter (a note for the agent is welcome)> ",
            codeact::terminal::one_line(reason)
        ),
    };
    let _ = err.flush();
    let mut line = String::new();
    // An answer is a line a person types: what a pipe sends without a line break
    // is read no further than this.
    match std::io::Read::take(std::io::stdin().lock(), ANSWER_BYTES).read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_string()),
    }
}
