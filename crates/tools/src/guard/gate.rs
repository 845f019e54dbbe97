//! The sensitive-action gate every acting device call passes before it reaches the
//! device: a [`Gatekeeper`], made for one act by [`ToolContext::act`] (the only door to
//! the device) from the parts it needs and nothing else — the rules, the consent
//! given so far, the element the call aimed at, and [`Surroundings`] to read the
//! screen, the clipboard and ask a person through (the snippet's clock stops while
//! one answers). The rules are `sensitive.rs`'s; the channel is [`Human`].
//!
//! A refusal is a [`ToolError::Refused`] naming the action, the rule and how to let
//! it through; nothing was done on the device.
//!
//! [`ToolContext::act`]: crate::ToolContext
//! [`Human`]: crate::human::Human

use std::sync::Arc;
use std::time::Instant;

use super::shell_input::Injected;
use crate::acting::{DeviceAct, activates, is_paste};
use crate::consent::Consent as Given;
use crate::error::ToolError;
use crate::human::{Consent, Human, HumanRequest};
use crate::sensitive::{Sensitive, SensitivePolicy};
use codeact_engine::sandbox::FailureKind;
use codeact_platform::device::{DeviceError, Observation};
use codeact_platform::ui::{Element, UiTree};

/// What the gate reads and asks through, lent by the session for one judgement.
pub(crate) trait Surroundings {
    /// Reads the screen again when an action ran since it was last read (a menu
    /// that just opened is what the next tap lands on).
    fn screen_now(&mut self) -> Result<(), DeviceError>;
    /// The screen as last read (`None`: never read).
    fn screen(&self) -> Option<Arc<Observation>>;
    /// What the clipboard holds, where the device tells it.
    fn clipboard(&mut self) -> Option<String>;
    /// Asks `human`, the snippet's clock stopped meanwhile. `None`: no answer.
    fn ask(&mut self, human: &Human, request: &HumanRequest) -> Option<String>;
    /// Records a decision as a `confirm` action (`effect` the line a yes leaves).
    fn record_decision(
        &self,
        what: &str,
        outcome: Result<(), (FailureKind, String)>,
        started: Instant,
        effect: Option<String>,
    );
}

/// The gate for one act: the session's rules, the consent given so far, the
/// element the call aimed at (`None` for a watcher's press, which aims at its
/// dialog's button, not at the call's target), and what it reads the screen through.
pub(crate) struct Gatekeeper<'a> {
    pub(crate) rules: &'a Sensitive,
    pub(crate) consent: &'a mut Given,
    pub(crate) aimed: Option<&'a Element>,
    pub(crate) around: &'a mut dyn Surroundings,
}

/// How many of an element's descendants lend it their text (a row whose label is
/// a child: "Delete" inside a clickable layout).
const DESCENDANT_TEXTS: usize = 12;

/// What an element is, for the rules: its own text, description, id and hint, and
/// the text of what it holds. A text field's text is what someone typed into it,
/// not what the field is: its id, hint and description name it ("payment_amount").
pub(crate) fn element_subjects(tree: Option<&UiTree>, e: &Element) -> Vec<String> {
    let own_text = if e.is_editable() { None } else { Some(&e.text) };
    let mut out: Vec<String> = own_text
        .into_iter()
        .chain([&e.content_desc, &e.resource_id, &e.hint])
        .filter(|t| !t.is_empty())
        .cloned()
        .collect();
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

/// Strokes shorter than this (in pixels, either way) are presses: a phone takes a
/// touch that barely moves as a tap on what is under it.
const PRESS_SLOP: i32 = 24;

/// The rule a shell command's unreadable input is judged under.
const UNREADABLE_RULE: &str = "shell input the runtime cannot read";

/// The elements a press at `(x, y)` reaches on `ui`: the deepest element there, and
/// the ancestors up to the one that takes the press (the nearest clickable one).
/// When nothing there says it is clickable (a canvas, a web view), the deepest
/// element there still is judged: no point passes unjudged.
fn receivers(ui: &UiTree, (x, y): (i32, i32)) -> Vec<&Element> {
    let Some(hit) = ui.elements.iter().filter(|e| e.visible && e.bounds.contains(x, y)).max_by_key(|e| (e.depth, e.id))
    else {
        return Vec::new();
    };
    let takes = |e: &Element| e.clickable || e.long_clickable || e.checkable || e.actions.touch;
    let mut chain = vec![hit];
    let mut at = hit;
    while !takes(at) {
        match at.parent.and_then(|p| ui.get(p)) {
            Some(parent) => {
                chain.push(parent);
                at = parent;
            }
            None => return vec![hit],
        }
    }
    chain
}

impl Gatekeeper<'_> {
    /// The gate for an action on `element` (text it types in `typed`): see
    /// [`Gatekeeper::gate`]. Typing is judged by the field it goes into (a payment
    /// amount, a delete-confirmation box), never by the words typed: a note that
    /// says "Delete all old files" is a note.
    pub(crate) fn gate_element(&mut self, verb: &str, element: &Element, typed: Option<&str>) -> Result<(), ToolError> {
        if self.rules.policy == SensitivePolicy::Allow {
            return Ok(());
        }
        let screen = self.around.screen();
        let subjects = element_subjects(screen.as_ref().map(|o| &o.ui), element);
        let target = crate::naming::described(element);
        let what = match typed {
            Some(t) => format!("{verb} {:?} into {target}", codeact_base::clip::clip(t, 200)),
            None => format!("{verb} {target}"),
        };
        self.gate(&what, &subjects)
    }

    /// The gate before a press at a point: every element the press reaches there,
    /// on the screen as it is now.
    pub(crate) fn gate_point(&mut self, verb: &str, point: (i32, i32)) -> Result<(), ToolError> {
        if self.rules.policy == SensitivePolicy::Allow {
            return Ok(());
        }
        let Some(screen) = self.around.screen() else { return Ok(()) };
        let reached: Vec<Element> = receivers(&screen.ui, point).into_iter().cloned().collect();
        let Some(taker) = reached.last() else { return Ok(()) };
        let mut subjects = element_subjects(Some(&screen.ui), taker);
        for e in &reached {
            subjects.extend(
                [&e.text, &e.content_desc, &e.resource_id, &e.hint].into_iter().filter(|t| !t.is_empty()).cloned(),
            );
        }
        let what = format!("{verb} {}", crate::naming::described(taker));
        self.gate(&what, &subjects)
    }

    /// The gate before a key that presses or types into what has focus: the focused
    /// field; with none in the tree (a web view, a game: the runtime cannot see where
    /// the text goes), the text itself.
    fn gate_focused(&mut self, verb: &str, typed: Option<&str>) -> Result<(), ToolError> {
        let screen = self.around.screen();
        match screen.as_ref().and_then(|o| o.phone.focused.and_then(|f| o.ui.get(f))) {
            Some(field) => self.gate_element(verb, field, typed),
            None => match typed {
                Some(t) => self.gate(&format!("{verb} {:?}", codeact_base::clip::clip(t, 200)), &[t.to_string()]),
                None => Ok(()),
            },
        }
    }

    /// The gate before a stroke: a short one is a press where it starts; a longer
    /// one reaches what is under its start and under its end (a row swiped away, a
    /// thing dropped on a bin), unless it only scrolls content.
    fn gate_stroke(&mut self, verb: &str, from: (i32, i32), to: (i32, i32), scroll: bool) -> Result<(), ToolError> {
        let short = (from.0 - to.0).abs() <= PRESS_SLOP && (from.1 - to.1).abs() <= PRESS_SLOP;
        if short {
            return self.gate_point(&format!("{verb} (a press) on"), from);
        }
        if scroll {
            return Ok(());
        }
        self.gate_point(&format!("{verb} starting on"), from)?;
        self.gate_point(&format!("{verb} ending on"), to)
    }

    /// The sensitive-action gate for an acting device call, on the screen as it is
    /// now: the context's `act` asks it for every one, so no tool acts unjudged.
    /// Each kind of call is judged by what it reaches: a press or a stroke by the
    /// elements under its points, typing and keys that press by the focused field
    /// (and the text), apps and links by their names, a shell command by the input
    /// it injects (read by `shell_input.rs`) and its words.
    pub(crate) fn judge(&mut self, act: &DeviceAct<'_>) -> Result<(), ToolError> {
        if self.rules.policy == SensitivePolicy::Allow {
            return Ok(());
        }
        match *act {
            DeviceAct::Tap(_) | DeviceAct::LongPress(..) | DeviceAct::Stroke { .. } | DeviceAct::Type { .. } => {
                self.around.screen_now()?
            }
            DeviceAct::Key(k) | DeviceAct::KeyTimes(k, _) if activates(k) => self.around.screen_now()?,
            _ => {}
        }
        match *act {
            DeviceAct::Tap(p) => {
                self.gate_aimed("tap on")?;
                self.gate_point("tap on", p)
            }
            DeviceAct::LongPress(p, _) => {
                self.gate_aimed("long press on")?;
                self.gate_point("long press on", p)
            }
            DeviceAct::Stroke { from, to, drag, scroll, .. } => {
                self.gate_stroke(if drag { "drag" } else { "swipe" }, from, to, scroll)
            }
            DeviceAct::Type { shown, .. } => self.gate_focused("type", Some(shown)),
            // Pasting types what the clipboard holds (where the device tells it).
            DeviceAct::Key(k) | DeviceAct::KeyTimes(k, _) if is_paste(k) => {
                let pasted = self.around.clipboard();
                self.gate_focused("paste", Some(pasted.as_deref().unwrap_or("the clipboard")))
            }
            DeviceAct::Key(k) | DeviceAct::KeyTimes(k, _) if activates(k) => {
                self.gate_focused(&format!("press {k} on"), None)
            }
            DeviceAct::StartApp { package, activity } => {
                let mut subjects = vec![package.to_string()];
                subjects.extend(activity.map(str::to_string));
                self.gate(&format!("start the app {package}"), &subjects)
            }
            DeviceAct::ClearData(package) => {
                let what = format!("delete all data of the app {package} (pm clear)");
                self.gate(&what, std::slice::from_ref(&what))
            }
            DeviceAct::OpenUrl(uri) => self.gate(&format!("open {uri:?}"), &[uri.to_string()]),
            DeviceAct::Shell(command) => self.gate_shell(command),
            // Leaving, stopping, emptying a field and the clipboard press nothing.
            DeviceAct::Key(_)
            | DeviceAct::KeyTimes(..)
            | DeviceAct::Home
            | DeviceAct::StopApp(_)
            | DeviceAct::ClearText
            | DeviceAct::SetClipboard(_) => Ok(()),
        }
    }

    /// The element the call aimed at (a selector's match, an index), when it set
    /// one: it is judged as well as what is under the point.
    fn gate_aimed(&mut self, verb: &str) -> Result<(), ToolError> {
        match self.aimed {
            Some(e) => self.gate_element(verb, e, None),
            None => Ok(()),
        }
    }

    /// A shell command: its words, then each input it injects as the tool that does
    /// the same would be judged; input it hides is judged sensitive.
    fn gate_shell(&mut self, command: &str) -> Result<(), ToolError> {
        let shown = codeact_base::clip::clip(command, 200);
        self.gate(&format!("run {shown:?} in the device shell"), &[command.to_string()])?;
        let injected = match super::shell_input::injected_input(command) {
            Ok(injected) => injected,
            Err(why) => return self.decide(&format!("run {shown:?} in the device shell ({why})"), UNREADABLE_RULE),
        };
        if injected.is_empty() {
            return Ok(());
        }
        self.around.screen_now()?;
        for input in injected {
            match input {
                Injected::Press(p) => self.gate_point("tap (through the shell) on", p)?,
                Injected::Stroke { from, to } => self.gate_stroke("swipe (through the shell)", from, to, false)?,
                Injected::Text(t) => self.gate_focused("type (through the shell)", Some(&t))?,
                Injected::Keys(keys) => {
                    if keys.iter().any(|k| activates(k)) {
                        self.gate_focused("press a key (through the shell) on", None)?;
                    }
                }
                Injected::FocusPress => self.gate_focused("press (through the shell) on", None)?,
            }
        }
        Ok(())
    }

    /// Stops an action whose `subjects` match a sensitive rule until a person says
    /// yes: `what` is the action as the person reads it. Refused when the policy
    /// says so, the person says no, or nobody can answer. A yes holds for the rest
    /// of this call (a retried tap is not asked twice); "always" for the rule, the
    /// rest of the session. Each decision is recorded as a `confirm` action.
    pub(crate) fn gate(&mut self, what: &str, subjects: &[String]) -> Result<(), ToolError> {
        let Some(rule) = self.rules.matching(subjects).map(str::to_string) else { return Ok(()) };
        self.decide(what, &rule)
    }

    /// What the policy (or the person) says to `what`, which matched `rule`.
    fn decide(&mut self, what: &str, rule: &str) -> Result<(), ToolError> {
        let rule = rule.to_string();
        if self.rules.policy == SensitivePolicy::Allow {
            return Ok(());
        }
        if self.consent.always.contains(&rule) || (self.consent.this_call && !self.consent.watcher_acting) {
            return Ok(());
        }
        if self.consent.watcher_acting {
            // Nobody asked for what a watcher presses: it is left for the script, the
            // model or the person, whose own press is judged (and asked) as any.
            let why = "a watcher asks nobody and presses nothing sensitive".to_string();
            return Err(ToolError::Refused { what: what.to_string(), rule, why });
        }
        let started = Instant::now();
        let (consent, why) = match self.rules.policy {
            SensitivePolicy::Allow => return Ok(()),
            SensitivePolicy::Refuse => (Consent::No, "--sensitive refuse refuses every one".to_string()),
            SensitivePolicy::Ask => match self.ask(&HumanRequest::Confirm { action: what, rule: &rule }) {
                Some(answer) => {
                    let consent = Consent::from_answer(&answer);
                    (consent, format!("the person answered {:?}", answer.trim()))
                }
                None => (Consent::No, "nobody could confirm it (no terminal, no matching --answers entry)".into()),
            },
        };
        let line = format!("{what} matched the sensitive rule {rule:?}; {why}");
        let outcome = match consent {
            Consent::No => Err((FailureKind::Refused, format!("refused: {line}"))),
            Consent::Yes | Consent::Always => Ok(()),
        };
        let effect = outcome.is_ok().then(|| line.clone());
        self.around.record_decision(what, outcome, started, effect);
        match consent {
            Consent::No => Err(ToolError::Refused { what: what.to_string(), rule, why }),
            Consent::Yes => {
                self.consent.this_call = true;
                Ok(())
            }
            Consent::Always => {
                self.consent.always.push(rule);
                Ok(())
            }
        }
    }

    /// Asks the session's person, with the snippet's clock stopped meanwhile (a
    /// person takes longer than a time limit allows). `None`: nobody can answer.
    fn ask(&mut self, request: &HumanRequest) -> Option<String> {
        let human = self.consent.human.clone()?;
        self.around.ask(&human, request)
    }
}
