//! `--strategy hierarchical`: the planner writes an app-level plan (which apps, in
//! order, and which values to carry between them); per app, an `app_starter`
//! sub-agent opens it and a `ui_expert` sub-agent acts in it, each with its own
//! history and only its persona's tools. Values found in one app reach the next as
//! variables of the one sandbox they share (`let phone = ...` in Contacts is
//! `phone` in Messages); an app whose sub-agent did not keep them has failed. A
//! failed app makes the planner plan again, as `--strategy plan` does.

use std::fmt::Write as _;

use super::plan::Planning;
use super::react::{Stop, steps_until_done};
use crate::outcome::Ending;
use crate::plan_text::{Plan, PlanItem};
use crate::progress::ProgressSink;
use crate::run::Run;
use codeact_engine::sandbox::Completion;
use codeact_runtime::persona::{Persona, PersonaError};

/// The most steps the opening sub-agent gets per app.
const OPEN_STEPS: usize = 3;
/// How much of a carried value the next sub-agent's prompt shows.
const VALUE_WIDTH: usize = 120;

/// The personas of the two sub-agents.
pub(crate) struct SubAgents {
    opener: Persona,
    actor: Persona,
}

impl SubAgents {
    pub(crate) fn load() -> Result<Self, PersonaError> {
        Ok(Self { opener: Persona::load("app_starter")?, actor: Persona::load("ui_expert")? })
    }

    /// One persona with the tools of both: the session a hierarchical run needs
    /// (each sub-agent is then held to its own).
    pub(crate) fn session_persona() -> Result<Persona, PersonaError> {
        let both = Self::load()?;
        Ok(both.actor.merged_with(&both.opener, "hierarchical"))
    }
}

/// What the app-level plan looks like to a sub-agent.
fn focus(plan: &Plan, current: usize) -> String {
    format!("The app-level plan (yours is the item marked NOW):\n{}", plan.render(current))
}

/// The acting sub-agent's task: its app's goal, the values earlier apps left, and
/// the ones it must leave.
fn act_task(item: &PlanItem, overall: &str, values: &[(String, String)]) -> String {
    let mut task = format!("{} (in {})", item.goal, item.app.as_deref().unwrap_or("the app"));
    let _ = write!(task, "\nThis is one part of the whole task: {overall}");
    if !values.is_empty() {
        task.push_str("\nVariables earlier apps left, in scope in your code: ");
        let shown: Vec<String> = values.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        task.push_str(&shown.join(", "));
    }
    if !item.carry.is_empty() {
        let _ = write!(
            task,
            "\nLater apps need these values: before complete(true, ...), keep each in a variable of that name \
             (`let {} = ...;`): {}",
            item.carry[0],
            item.carry.join(", ")
        );
    }
    task
}

/// The carried variables the session holds now, with a short view of each.
fn carried_values(run: &mut Run<'_>, names: &[String]) -> Vec<(String, String)> {
    run.session.var_summaries(VALUE_WIDTH).into_iter().filter(|(name, _)| names.contains(name)).collect()
}

/// Opens the app of `item`, then does its part; `carried` are the names earlier
/// apps kept.
async fn one_app<'a>(
    run: &mut Run<'a>,
    sub: &'a SubAgents,
    progress: &mut ProgressSink<'_>,
    plan: &Plan,
    current: usize,
    carried: &[String],
) -> Stop {
    let item = &plan.items[current];
    let app = item.app.clone().unwrap_or_default();
    run.begin_phase(&sub.opener, format!("Open the app {app}; the work there comes next: {}", item.goal));
    run.set_focus(Some(focus(plan, current)));
    run.session.allow_only(Some((&sub.opener.name, &sub.opener.tools)));
    match steps_until_done(run, progress, Some(OPEN_STEPS), true).await {
        Stop::Done(_) => {}
        other => return other,
    }
    let values = carried_values(run, carried);
    let task = act_task(item, &run.options.task.clone(), &values);
    run.begin_phase(&sub.actor, task);
    run.session.allow_only(Some((&sub.actor.name, &sub.actor.tools)));
    let done = steps_until_done(run, progress, None, true).await;
    let Stop::Done(completion) = done else { return done };
    let have = run.session.var_names();
    let missing: Vec<&String> = item.carry.iter().filter(|n| !have.contains(n)).collect();
    if missing.is_empty() {
        return Stop::Done(completion);
    }
    let names: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
    let why = format!("the {app} sub-agent completed without keeping {} in variables", names.join(", "));
    let ending = Ending::Completed(Completion { success: false, reason: why.clone() });
    Stop::Failed { why, ending }
}

pub(crate) async fn run<'a>(run: &mut Run<'a>, sub: &'a SubAgents, progress: &mut ProgressSink<'_>) -> Ending {
    let ending = apps_in_turn(run, sub, progress).await;
    // The session may serve another run: every tool it has is usable again.
    run.session.allow_only(None);
    ending
}

async fn apps_in_turn<'a>(run: &mut Run<'a>, sub: &'a SubAgents, progress: &mut ProgressSink<'_>) -> Ending {
    let (mut planning, mut plan) = match Planning::start(run, progress, true).await {
        Ok(started) => started,
        Err(ending) => return ending,
    };
    let mut current = 0;
    let mut carried: Vec<String> = Vec::new();
    loop {
        let label = format!("{} in {}", plan.items[current].goal, plan.items[current].app.as_deref().unwrap_or("?"));
        match one_app(run, sub, progress, &plan, current, &carried).await {
            Stop::Done(c) => {
                planning.done(&label, &c.reason);
                carried.extend(plan.items[current].carry.iter().cloned());
                current += 1;
                if current == plan.items.len() {
                    return Ending::Completed(c);
                }
                run.reflect_if_due(progress).await;
            }
            Stop::Failed { why, ending } => {
                plan = match planning.replan(run, progress, &label, &why, ending).await {
                    Ok(plan) => plan,
                    Err(ending) => return ending,
                };
                current = 0;
            }
            Stop::End(ending) => return ending,
        }
    }
}
