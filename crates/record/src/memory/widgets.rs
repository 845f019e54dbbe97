//! Widget knowledge: what acting on an element did (the effect check's line),
//! learned from a run's steps and shown to the model as short hints when the same
//! element is on screen again ("tap(#{id: \"fab\"}) → opened .ComposeActivity").
//! Not the effect check itself (`tools::effect`) or the database (`store.rs`).

use std::collections::HashMap;

use super::store::WidgetFact;
use crate::trajectory::StepRecord;
use codeact_engine::sandbox::Action;
use codeact_tools::{Replay, Role, form_of};

/// The longest effect kept.
const EFFECT_BYTES: usize = 160;
/// Hints one prompt shows at most.
pub const SHOWN: usize = 5;

/// The element an action acted on, as the call that found it (`None`: the action
/// acts on no element, or by a point).
pub fn element_call(a: &Action) -> Option<String> {
    let form = form_of(&a.tool, a.args.len()).filter(|t| matches!(t.role, Role::Press(_)))?;
    match (form.replay, &a.capture.target) {
        (Replay::IndexAsSelector(by), Some(sel)) => Some(format!("{by}({sel})")),
        (Replay::IndexAsSelector(_), None) => None,
        _ => Some(format!("{}({})", a.tool, a.args.first()?)),
    }
}

/// What each step's element actions did, on the screen the step saw. A step's
/// actions after one that changed the activity are left out: the screen they were
/// on is not known here.
pub fn facts_from_records(records: &[StepRecord]) -> Vec<WidgetFact> {
    let mut facts = Vec::new();
    for r in records {
        let (Some((app, screen)), Some(ran)) = (&r.seen, r.ran()) else { continue };
        for a in ran.actions.iter().filter(|a| a.succeeded() && !a.is_watcher() && !a.done_by_watcher()) {
            let Some(effect) = a.capture.effect.as_deref() else { continue };
            if let Some(element) = element_call(a) {
                let cut = effect.floor_char_boundary(EFFECT_BYTES);
                facts.push(WidgetFact {
                    app: app.clone(),
                    screen: screen.clone(),
                    element,
                    effect: effect[..cut].to_string(),
                });
            }
            if effect.contains("opened ") {
                break;
            }
        }
    }
    facts
}

/// Widget knowledge by screen, for the prompt.
#[derive(Debug, Default)]
pub struct WidgetHints {
    by_screen: HashMap<(String, String), Vec<(String, String)>>,
}

impl WidgetHints {
    pub fn new(facts: Vec<WidgetFact>) -> Self {
        let mut by_screen: HashMap<(String, String), Vec<(String, String)>> = HashMap::new();
        for f in facts {
            by_screen.entry((f.app, f.screen)).or_default().push((f.element, f.effect));
        }
        Self { by_screen }
    }

    /// Hints for the elements of this screen that `screen_text` shows (each quoted
    /// string of the call appears on it), at most [`SHOWN`].
    pub fn for_screen(&self, app: &str, screen: &str, screen_text: &str) -> Vec<String> {
        let Some(known) = self.by_screen.get(&(app.to_string(), screen.to_string())) else { return Vec::new() };
        known
            .iter()
            .filter(|(element, _)| {
                // The quoted values (not the keys) of the call's selector.
                let parts: Vec<&str> = element.split('"').collect();
                let values: Vec<&str> = (1..parts.len())
                    .step_by(2)
                    .filter(|&i| !parts.get(i + 1).is_some_and(|next| next.starts_with(':')))
                    .map(|i| parts[i])
                    .filter(|v| !v.is_empty())
                    .collect();
                values.iter().any(|v| screen_text.contains(v))
            })
            .take(SHOWN)
            .map(|(element, effect)| format!("{element} → {effect}"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn act(tool: &str, args: &[&str], effect: &str) -> Action {
        Action::with_effect(tool, args, effect)
    }

    #[test]
    fn effects_become_hints_for_elements_on_screen() {
        let actions = vec![
            act("tap", &["#{\"desc\": \"New note\"}"], "opened .Editor; keyboard shown"),
            act("tap", &["#{\"desc\": \"Save\"}"], "opened .Main"),
        ];
        let record = StepRecord::ran_for_test("...", actions, Some(("com.example.notes", ".Main")));
        let facts = facts_from_records(&[record]);
        assert_eq!(facts.len(), 1, "Save was tapped on a screen the step did not see: {facts:?}");
        assert_eq!((facts[0].element.as_str(), facts[0].screen.as_str()), ("tap(#{\"desc\": \"New note\"})", ".Main"));
        let fact = |element: &str| WidgetFact {
            app: "a".into(),
            screen: ".Main".into(),
            element: element.into(),
            effect: "opened .Editor".into(),
        };
        let hints = WidgetHints::new(vec![fact("tap(#{\"desc\": \"New note\"})"), fact("tap(#{\"id\": \"gone\"})")]);
        assert_eq!(
            hints.for_screen("a", ".Main", "3 ImageButton \"New note\""),
            ["tap(#{\"desc\": \"New note\"}) → opened .Editor"]
        );
        assert!(hints.for_screen("a", ".Other", "New note").is_empty());
        assert!(hints.for_screen("a", ".Main", "3 TextView \"desc id\"").is_empty(), "keys are not values");
    }
}
