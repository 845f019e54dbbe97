//! A plan as the planner writes it and the actor reads it: parsed from JSON
//! (`{"steps": [{"goal": .., "expect": ..}]}`, or `"apps"` with `app` and `carry`
//! for the hierarchical strategy), or from a numbered list when a model ignores the
//! format; rendered with the item in hand marked. Text only: no model, no device.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// The most items a plan keeps (a model that lists fifty steps is not planning).
const MOST_ITEMS: usize = 12;
/// The most bytes of one goal or expectation kept.
const FIELD_BYTES: usize = 400;

pub use codeact_record::trajectory::PlanItem;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    pub items: Vec<PlanItem>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error(
        "the reply holds no plan: answer with JSON like {{\"steps\": [{{\"goal\": \"...\", \"expect\": \"...\"}}]}}"
    )]
    NoPlan,
    #[error("item {0} has no app: every item of an app-level plan names the app it happens in")]
    NoApp(usize),
    #[error("{0:?} is not a variable name (letters, digits and _, not starting with a digit)")]
    BadCarry(String),
}

#[derive(Deserialize)]
struct Wrapped {
    #[serde(default)]
    steps: Vec<PlanItem>,
    #[serde(default)]
    apps: Vec<PlanItem>,
    #[serde(default)]
    plan: Vec<PlanItem>,
}

fn cut(text: &str) -> String {
    let t = text.trim();
    t[..t.floor_char_boundary(FIELD_BYTES)].to_string()
}

/// A sub-goal's text on one line: a model's newlines, carriage returns and escape
/// codes would forge lines in the terminal, the report's notes and the exported
/// script's comments.
fn one_line(text: &str) -> String {
    let spaced: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    cut(&spaced.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// The first JSON value in `text` that reads as a plan (in a ```json block or not).
fn from_json(text: &str) -> Option<Vec<PlanItem>> {
    for (start, open) in text.char_indices().filter(|(_, c)| *c == '{' || *c == '[') {
        let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<serde_json::Value>();
        let Some(Ok(value)) = stream.next() else { continue };
        let items = if open == '[' {
            serde_json::from_value::<Vec<PlanItem>>(value).ok()
        } else {
            serde_json::from_value::<Wrapped>(value).ok().map(|w| {
                if !w.steps.is_empty() {
                    w.steps
                } else if !w.apps.is_empty() {
                    w.apps
                } else {
                    w.plan
                }
            })
        };
        if let Some(items) = items.filter(|i| !i.is_empty()) {
            return Some(items);
        }
    }
    None
}

/// The sub-goals a tree node split its goal into: JSON `{"subgoals": [{"goal": ..,
/// "expect": ..}]}` only (a numbered list in a thought is not a decision to split),
/// at most [`MOST_ITEMS`], each field cut. `None`: the reply does not split.
pub fn subgoals(text: &str) -> Option<Vec<PlanItem>> {
    #[derive(Deserialize)]
    struct Split {
        subgoals: Vec<PlanItem>,
    }
    for start in text.char_indices().filter(|(_, c)| *c == '{').map(|(i, _)| i) {
        let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Split>();
        if let Some(Ok(split)) = stream.next() {
            let items: Vec<PlanItem> = split
                .subgoals
                .into_iter()
                .map(|i| PlanItem { goal: one_line(&i.goal), expect: i.expect.as_deref().map(one_line), ..i })
                .filter(|i| !i.goal.is_empty())
                .take(MOST_ITEMS)
                .collect();
            return (!items.is_empty()).then_some(items);
        }
    }
    None
}

/// A numbered list: `1. Open Settings (expect: the Settings list)`.
fn from_list(text: &str) -> Vec<PlanItem> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim();
            let digits = line.chars().take_while(char::is_ascii_digit).count();
            let rest = line[digits..].strip_prefix(['.', ')'])?;
            if digits == 0 || rest.trim().is_empty() {
                return None;
            }
            let (goal, expect) = match rest.split_once("expect:") {
                Some((g, e)) => {
                    (g.trim().trim_end_matches(['(', '-', '—']).trim(), Some(e.trim().trim_end_matches(')')))
                }
                None => (rest.trim(), None),
            };
            Some(PlanItem {
                goal: goal.to_string(),
                expect: expect.map(str::to_string),
                app: None,
                carry: Vec::new(),
                action: None,
            })
        })
        .collect()
}

impl Plan {
    /// Reads a planner's reply; `apps`: every item must name its app.
    pub fn parse(text: &str, apps: bool) -> Result<Self, PlanError> {
        let mut items = from_json(text).unwrap_or_else(|| from_list(text));
        items.retain(|i| !i.goal.trim().is_empty());
        if items.is_empty() {
            return Err(PlanError::NoPlan);
        }
        items.truncate(MOST_ITEMS);
        for (n, item) in items.iter_mut().enumerate() {
            item.goal = cut(&item.goal);
            item.expect = item.expect.as_deref().map(cut).filter(|e| !e.is_empty());
            item.app = item.app.as_deref().map(cut).filter(|a| !a.is_empty());
            if apps && item.app.is_none() {
                return Err(PlanError::NoApp(n + 1));
            }
            for name in &item.carry {
                let ok = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !ok {
                    return Err(PlanError::BadCarry(name.clone()));
                }
            }
        }
        Ok(Self { items })
    }

    /// The plan as the actor reads it, item `current` (0-based) marked as its own.
    pub fn render(&self, current: usize) -> String {
        let mut out = String::new();
        for (n, item) in self.items.iter().enumerate() {
            let mark = match n.cmp(&current) {
                std::cmp::Ordering::Less => "done",
                std::cmp::Ordering::Equal => "NOW",
                std::cmp::Ordering::Greater => "later",
            };
            let _ = write!(out, "{}. [{mark}] ", n + 1);
            if let Some(app) = &item.app {
                let _ = write!(out, "in {app}: ");
            }
            out.push_str(&item.goal);
            if let Some(e) = &item.expect {
                let _ = write!(out, " (expect: {e})");
            }
            if !item.carry.is_empty() {
                let _ = write!(out, " (keep in variables: {})", item.carry.join(", "));
            }
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sub_goal_is_one_line_without_control_characters() {
        let reply = "{\"subgoals\": [{\"goal\": \"Evil\\u001b[31m\\r\\ncomplete(true);\", \"expect\": \"a\\nb\"}, \
                     {\"goal\": \"\\u001b\"}, {\"goal\": \"Go home\", \"do\": \"home()\"}]}";
        let items = subgoals(reply).unwrap_or_default();
        let goals: Vec<&str> = items.iter().map(|i| i.goal.as_str()).collect();
        assert_eq!(goals, ["Evil [31m complete(true);", "Go home"], "an empty one is dropped");
        assert_eq!(items[0].expect.as_deref(), Some("a b"));
        assert_eq!(items[1].action.as_deref(), Some("home()"));
    }

    #[test]
    fn plans_are_read_from_json_or_a_numbered_list() {
        let json = "Here is the plan:\n```json\n{\"steps\": [{\"goal\": \"Open Settings\", \"expect\": \"Settings list\"}, \
                    {\"goal\": \"Turn off Wi-Fi\"}]}\n```";
        let plan = Plan::parse(json, false).unwrap();
        assert_eq!(plan.items.len(), 2);
        assert_eq!(plan.items[0].expect.as_deref(), Some("Settings list"));
        assert_eq!(plan.render(1), "1. [done] Open Settings (expect: Settings list)\n2. [NOW] Turn off Wi-Fi\n");
        let list = Plan::parse("1. Open Clock (expect: the alarm list)\n2) Add an alarm\nthanks", false).unwrap();
        assert_eq!(list.items[1].goal, "Add an alarm");
        assert_eq!(list.items[0].expect.as_deref(), Some("the alarm list"));
        assert_eq!(Plan::parse("I cannot plan this.", false), Err(PlanError::NoPlan));
        let apps = "{\"apps\": [{\"app\": \"Contacts\", \"goal\": \"find Ann's number\", \"carry\": [\"phone\"]}]}";
        assert_eq!(Plan::parse(apps, true).unwrap().items[0].carry, ["phone"]);
        assert_eq!(Plan::parse("{\"steps\": [{\"goal\": \"x\"}]}", true), Err(PlanError::NoApp(1)));
        let bad = "{\"apps\": [{\"app\": \"A\", \"goal\": \"g\", \"carry\": [\"a b\"]}]}";
        assert!(matches!(Plan::parse(bad, true), Err(PlanError::BadCarry(_))));
    }
}
