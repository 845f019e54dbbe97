//! The person in the loop, as the tools meet one: the sensitive-action gate every
//! pressing, typing, app and shell tool passes before it acts, and the asking that
//! `ask_user`, `take_over` and the gate share (the snippet's clock stops while a
//! person answers). The rules are `sensitive.rs`'s; the channel is [`Human`].
//!
//! A refusal is a [`ToolError::Refused`] naming the action, the rule and how to let
//! it through; nothing was done on the device.

use std::time::Instant;

use super::context::ToolContext;
use super::error::ToolError;
use super::sensitive::SensitivePolicy;
use crate::human::{Consent, HumanRequest};
use crate::sandbox::Capture;
use crate::ui::{Element, UiTree};

/// How many of an element's descendants lend it their text (a row whose label is
/// a child: "Delete" inside a clickable layout).
const DESCENDANT_TEXTS: usize = 12;

/// What an element shows, for the rules: its own text, description, id and hint,
/// and the text of what it holds.
pub(crate) fn element_subjects(tree: Option<&UiTree>, e: &Element) -> Vec<String> {
    let mut out: Vec<String> =
        [&e.text, &e.content_desc, &e.resource_id, &e.hint].into_iter().filter(|t| !t.is_empty()).cloned().collect();
    let Some(tree) = tree.filter(|t| t.get(e.id).is_some_and(|same| same.bounds == e.bounds)) else { return out };
    let mut stack: Vec<usize> = e.children.clone();
    let mut seen = 0;
    while let Some(id) = stack.pop() {
        let Some(child) = tree.get(id) else { continue };
        seen += 1;
        if seen > DESCENDANT_TEXTS {
            break;
        }
        out.extend([&child.text, &child.content_desc].into_iter().filter(|t| !t.is_empty()).cloned());
        stack.extend(child.children.iter().copied());
    }
    out
}

impl ToolContext {
    /// The gate for an action on `element` (text it types in `typed`): see
    /// [`ToolContext::gate`].
    pub(crate) fn gate_element(&mut self, verb: &str, element: &Element, typed: Option<&str>) -> Result<(), ToolError> {
        if self.options.sensitive.policy == SensitivePolicy::Allow {
            return Ok(());
        }
        let tree = self.live().map(|o| &o.ui);
        let mut subjects = element_subjects(tree, element);
        let target = super::closest::described(element);
        let what = match typed {
            Some(t) => {
                subjects.push(t.to_string());
                format!("{verb} {t:?} into {target}")
            }
            None => format!("{verb} {target}"),
        };
        self.gate(&what, &subjects)
    }

    /// The gate before an action that touches a point: the element under it.
    pub(crate) fn gate_point(&mut self, verb: &str, (x, y): (i32, i32)) -> Result<(), ToolError> {
        if self.options.sensitive.policy == SensitivePolicy::Allow {
            return Ok(());
        }
        if self.live().is_none() {
            self.look()?;
        }
        let under = self.live().and_then(|o| {
            o.ui.elements
                .iter()
                .filter(|e| e.bounds.contains(x, y) && (e.clickable || e.long_clickable || e.checkable))
                .max_by_key(|e| e.depth)
                .cloned()
        });
        match under {
            Some(e) => self.gate_element(verb, &e, None),
            None => Ok(()),
        }
    }

    /// Stops an action whose `subjects` match a sensitive rule until a person says
    /// yes: `what` is the action as the person reads it. Refused when the policy
    /// says so, the person says no, or nobody can answer. A yes holds for the rest
    /// of this call (a retried tap is not asked twice); "always" for the rule, the
    /// rest of the session. Each decision is recorded as a `confirm` action.
    pub(crate) fn gate(&mut self, what: &str, subjects: &[String]) -> Result<(), ToolError> {
        let Some(rule) = self.options.sensitive.matching(subjects).map(str::to_string) else { return Ok(()) };
        if self.consented_call || self.consented_rules.contains(&rule) {
            return Ok(());
        }
        let started = Instant::now();
        let (consent, why) = match self.options.sensitive.policy {
            SensitivePolicy::Allow => return Ok(()),
            SensitivePolicy::Refuse => (Consent::No, "--sensitive refuse refuses every one".to_string()),
            SensitivePolicy::Ask => match self.ask_person(&HumanRequest::Confirm { action: what, rule: &rule }) {
                Some(answer) => {
                    let consent = Consent::from_answer(&answer);
                    (consent, format!("the person answered {:?}", answer.trim()))
                }
                None => (Consent::No, "nobody could confirm it (no terminal, no matching --answers entry)".into()),
            },
        };
        let line = format!("{what} matched the sensitive rule {rule:?}; {why}");
        let outcome = match consent {
            Consent::No => Err((crate::sandbox::FailureKind::Refused, format!("refused: {line}"))),
            Consent::Yes | Consent::Always => Ok(()),
        };
        let effect = outcome.is_ok().then(|| line.clone());
        let capture = Capture { effect, ..Capture::default() };
        self.shared.record("confirm", vec![format!("{what:?}")], outcome, started, capture);
        match consent {
            Consent::No => Err(ToolError::Refused { what: what.to_string(), rule, why }),
            Consent::Yes => {
                self.consented_call = true;
                Ok(())
            }
            Consent::Always => {
                self.consented_rules.push(rule);
                Ok(())
            }
        }
    }

    /// Asks the session's person, with the snippet's clock stopped meanwhile (a
    /// person takes longer than a time limit allows). `None`: nobody can answer.
    pub(crate) fn ask_person(&mut self, request: &HumanRequest) -> Option<String> {
        let human = self.human.clone()?;
        let started = Instant::now();
        let answer = human(request);
        self.extend_deadline(started.elapsed());
        answer
    }
}
