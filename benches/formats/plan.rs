//! The plans the formats bench plays, derived mechanically from the oracle's
//! recording (`events.jsonl` and the UI dump kept after each action, `--record ui`):
//!
//! - **code**: one Rhai snippet per screen — the actions and reads until the app or
//!   activity changes, `complete` after the last one;
//! - **function calls, one per turn**: each call a turn of its own;
//! - **function calls in parallel**: a turn's calls use only what the observation at
//!   the start of that turn shows. A call joins the turn while the element it acts on
//!   is, on the screen just before it, what it was on that observation (same place,
//!   text, description and state) and the app and activity are the same; a call by
//!   coordinates joins only while the whole screen is unchanged; a call with no
//!   target (back, hide the keyboard) joins while the activity is the same. A read
//!   of the screen the model did not see (something in the turn changed what it
//!   reads) makes the next action wait for a new turn — a turn a read forced; a read
//!   that is not of the screen (the clipboard) is a call whose result the next calls
//!   wait for. `complete` rides with the last turn.
//!
//! Not the server that plays the plans, nor the tables (`formats.rs`).

use std::path::Path;

use codeact::tools::select::Selector;
use codeact::tools::{Access, ParamKind};
use codeact::ui::{Element, UiTree};
use serde_json::{Map, Value};

/// One function call: the tool's name and its named arguments.
pub type Call = (String, Value);

/// One template's plans.
#[derive(Debug, Default, Clone)]
pub struct Plan {
    pub snippets: Vec<String>,
    /// One per turn.
    pub calls: Vec<Call>,
    /// The parallel plan's turns.
    pub turns: Vec<Vec<Call>>,
    /// Turns of the parallel plan that began only because a decision waited for
    /// something read (a value, whether an element is there) that code reads in
    /// the same snippet.
    pub read_turns: usize,
    /// Every tool the plans call, reads included (the persona offers them all).
    pub tools: std::collections::BTreeSet<String>,
}

/// A screen as the recording kept it: its tree, its dump and where it was.
#[derive(Clone)]
struct Seen {
    tree: UiTree,
    xml: String,
    place: Value,
}

/// What an element shows: where it is, its text and description, checked and selected.
#[derive(Debug, PartialEq)]
struct Look {
    bounds: codeact::ui::Bounds,
    text: String,
    desc: String,
    checked: bool,
    selected: bool,
}

/// What a selector's element shows, to tell whether a screen still shows it so.
fn look(e: &Element) -> Look {
    Look {
        bounds: e.bounds,
        text: e.text.clone(),
        desc: e.content_desc.clone(),
        checked: e.checked,
        selected: e.selected,
    }
}

fn looks(selector: &Selector, tree: &UiTree) -> Vec<Look> {
    selector.find_all(tree).into_iter().map(look).collect()
}

/// Whether `selector` reads the same off `then` (the turn's observation) as off
/// `now` (the screen just before the call).
fn reads_the_same(selector: &Selector, then: &Seen, now: &Seen) -> bool {
    looks(selector, &then.tree) == looks(selector, &now.tree)
}

/// The selectors among a call's arguments, compiled; `None` when one does not compile.
fn selectors(spec: &codeact::tools::ToolSpec, args: &[&str]) -> Option<Vec<Selector>> {
    spec.params
        .iter()
        .zip(args)
        .filter(|(p, _)| p.kind == ParamKind::Selector)
        .map(|(_, a)| Selector::from_source(a).ok())
        .collect()
}

/// Whether a call can go in the turn that began on `then`, the screen before it being `now`.
fn joins(spec: &codeact::tools::ToolSpec, args: &[&str], then: Option<&Seen>, now: Option<&Seen>) -> bool {
    let (Some(then), Some(now)) = (then, now) else { return false };
    if then.place != now.place {
        return false;
    }
    if spec.params.iter().zip(args).any(|(p, _)| p.kind == ParamKind::Coordinate) {
        return then.xml == now.xml;
    }
    let Some(sels) = selectors(spec, args) else { return false };
    sels.iter().all(|s| s.find(&then.tree).is_some() && reads_the_same(s, then, now))
}

/// A recorded Rhai literal (an action's argument) as JSON: evaluated by a bare
/// engine, then converted as the judges convert values.
fn literal_json(engine: &rhai::Engine, literal: &str) -> Option<Value> {
    let value = engine.eval_expression::<rhai::Dynamic>(literal).ok()?;
    Some(codeact::eval::judge::to_json(&value))
}

/// The screen the recording kept after an action, when it kept one.
fn seen_after(run: &Path, event: &Value) -> Option<Seen> {
    let xml = std::fs::read_to_string(run.join(event["ui"].as_str()?)).ok()?;
    let tree = codeact::ui::parse(xml.as_bytes(), (1080, 2400)).ok()?;
    Some(Seen { tree, xml, place: event.get("screen").cloned().unwrap_or(Value::Null) })
}

/// The plans a recorded run makes (`run` is its folder, for the UI dumps).
pub fn plan(events: &str, run: &Path) -> Option<Plan> {
    let engine = rhai::Engine::new_raw();
    let mut plan = Plan::default();
    let mut group: Vec<String> = Vec::new();
    let mut screen: Option<Value> = None;
    let mut turn: Vec<Call> = Vec::new();
    // The observation the turn began on, and the screen as it is now.
    let (mut then, mut now): (Option<Seen>, Option<Seen>) = (None, None);
    let mut read_unseen = false;
    for line in events.lines() {
        let event: Value = serde_json::from_str(line).ok()?;
        if event["event"] != "action" {
            continue;
        }
        let tool = event["tool"].as_str()?;
        let args: Vec<&str> = event["args"].as_array()?.iter().filter_map(Value::as_str).collect();
        // A watcher's own record is not a call, and a call a watcher had already
        // made for the script did nothing: a model would not see the dialog at all.
        let by_watcher = event["effect"].as_str().is_some_and(|e| e.starts_with("already done:"));
        let Some(spec) = codeact::tools::form_of(tool, args.len()) else { continue };
        if by_watcher {
            continue;
        }
        let mut named = Map::new();
        for (param, arg) in spec.params.iter().zip(&args) {
            named.insert(param.name.to_string(), literal_json(&engine, arg)?);
        }
        let call: Call = (tool.to_string(), Value::Object(named));
        plan.tools.insert(tool.to_string());
        group.push(format!("{tool}({});", args.join(", ")));
        if spec.access == Access::Reads {
            let sels = selectors(spec, &args).unwrap_or_default();
            if sels.is_empty() {
                // Not of the screen: a call of its own, waited for.
                plan.calls.push(call.clone());
                turn.push(call);
                plan.turns.push(std::mem::take(&mut turn));
                plan.read_turns += 1;
                then = now.clone();
                read_unseen = false;
            } else {
                let seen = match (&then, &now) {
                    (Some(then), Some(now)) => sels.iter().all(|s| reads_the_same(s, then, now)),
                    _ => false,
                };
                read_unseen |= !seen;
            }
            continue;
        }
        let fits = joins(spec, &args, then.as_ref(), now.as_ref());
        if !turn.is_empty() && (read_unseen || !fits) {
            plan.read_turns += usize::from(fits);
            plan.turns.push(std::mem::take(&mut turn));
            then = now.clone();
            read_unseen = false;
        }
        if turn.is_empty() {
            // A new turn: its observation is the screen as it is now, reads included.
            then = now.clone();
            read_unseen = false;
        }
        plan.calls.push(call.clone());
        turn.push(call);
        if let Some(after) = seen_after(run, &event) {
            now = Some(after);
        }
        // The screen it left: a new app or activity ends the snippet.
        let after = event.get("screen").cloned();
        if after.is_some() && screen.is_some() && after != screen {
            plan.snippets.push(group.join("\n"));
            group.clear();
        }
        if after.is_some() {
            screen = after;
        }
    }
    if !turn.is_empty() {
        plan.turns.push(turn);
    }
    group.push("complete(true, \"done\");".into());
    plan.snippets.push(group.join("\n"));
    Some(plan)
}
