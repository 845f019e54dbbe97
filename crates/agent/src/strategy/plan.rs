//! `--strategy plan`: a planner call writes a numbered plan (each item a goal and
//! the screen expected after it); the actor carries out one item at a time, its
//! prompt showing the plan with the item in hand marked, and `complete()` ends an
//! item. An item that fails (`complete(false)`, or the error threshold of steps
//! that go nowhere) makes the planner plan again from the screen as it is and what
//! happened so far, at most [`MAX_REPLANS`] times.

use std::fmt::Write as _;

use super::react::{Stop, steps_until_done};
use crate::checks::StepEnd;
use crate::outcome::Ending;
use crate::plan_text::{Plan, PlanItem};
use crate::progress::{Progress, ProgressSink};
use crate::roles::Role;
use crate::run::Run;
use codeact_record::trajectory::Event;
use codeact_runtime::llm::{Message, Role as MessageRole};

/// How many times a run plans again before the failure stands.
const MAX_REPLANS: usize = 2;

/// What the planner is told (`apps`: the hierarchical strategy's app-level plan).
fn system(apps: bool) -> String {
    let (unit, shape) = if apps {
        (
            "Split the task by app: one item per app, in order, naming the app, what to do in it, and the \
             variables (plain names like phone or address) that later apps need from it.",
            "{\"apps\": [{\"app\": \"Contacts\", \"goal\": \"find Ann's phone number\", \"carry\": [\"phone\"]}, \
             {\"app\": \"Messages\", \"goal\": \"send Hi to the number in phone\", \"carry\": []}]}",
        )
    } else {
        (
            "Split the task into 2 to 6 steps, each a visible milestone, in order, with the screen or app \
             expected once it is done.",
            "{\"steps\": [{\"goal\": \"Open Settings\", \"expect\": \"the Settings list\"}, {\"goal\": \"Turn off \
             Wi-Fi\", \"expect\": \"the Wi-Fi switch off\"}]}",
        )
    };
    format!(
        "You plan tasks for an agent that operates an Android phone by writing small code snippets. {unit} \
         Reply with JSON only, like:\n{shape}\nDo not write code; the agent does the steps."
    )
}

/// A run's planning: what happened so far (one line per item tried) and how many
/// times it planned again; both strategies that plan share it.
pub(super) struct Planning {
    apps: bool,
    lines: Vec<String>,
    replans: usize,
}

impl Planning {
    /// The first plan (`apps`: an app-level one).
    pub(super) async fn start(
        run: &mut Run<'_>,
        progress: &mut ProgressSink<'_>,
        apps: bool,
    ) -> Result<(Self, Plan), Ending> {
        let planning = Self { apps, lines: Vec::new(), replans: 0 };
        let plan = ask_planner(run, progress, apps, &planning.lines, None, 0).await?;
        Ok((planning, plan))
    }

    /// Notes that item `label` was done.
    pub(super) fn done(&mut self, label: &str, reason: &str) {
        self.lines.push(format!("{label}: done ({reason})"));
    }

    /// After item `label` failed: a new plan from the screen as it is and what
    /// happened, or `ending` once [`MAX_REPLANS`] new plans failed too.
    pub(super) async fn replan(
        &mut self,
        run: &mut Run<'_>,
        progress: &mut ProgressSink<'_>,
        label: &str,
        why: &str,
        ending: Ending,
    ) -> Result<Plan, Ending> {
        self.lines.push(format!("{label}: failed ({why})"));
        if self.replans == MAX_REPLANS {
            return Err(ending);
        }
        self.replans += 1;
        run.checks.reset_stall();
        ask_planner(run, progress, self.apps, &self.lines, Some(why), self.replans).await
    }
}

/// Asks the planner for a plan (again, with `history` and `why`, when one failed).
/// A reply that holds no plan is answered once with what was wrong; a second one
/// falls back to a plan of one item, the task itself.
async fn ask_planner(
    run: &mut Run<'_>,
    progress: &mut ProgressSink<'_>,
    apps: bool,
    history: &[String],
    why: Option<&str>,
    replan: usize,
) -> Result<Plan, Ending> {
    let (screen, installed) = run.screen_for_planning().map_err(stop)?;
    let mut text = format!("Task: {}\n", run.options.task);
    if !installed.is_empty() {
        let _ = writeln!(text, "\nInstalled apps: {}", installed.join(", "));
    }
    if !history.is_empty() {
        text.push_str("\nWhat happened so far:\n");
        for line in history {
            let _ = writeln!(text, "- {line}");
        }
    }
    if let Some(why) = why {
        let _ = writeln!(text, "\nThe last plan failed: {why}. Plan again from the screen below.");
    }
    let _ = write!(text, "\nCurrent screen:\n{screen}\nYour plan (JSON only):");
    let mut messages = vec![Message::text(MessageRole::System, system(apps)), Message::text(MessageRole::User, text)];
    let mut plan = None;
    for _ in 0..2 {
        let reply = run.ask_model(Role::Planner, &messages).await.map_err(stop)?;
        match Plan::parse(&reply.text, apps) {
            Ok(p) => {
                plan = Some(p);
                break;
            }
            Err(e) => {
                messages.push(Message::text(MessageRole::Assistant, reply.text));
                messages.push(Message::text(MessageRole::User, format!("{e}. Answer again.")));
            }
        }
    }
    let plan = match plan {
        Some(plan) => plan,
        None if apps => {
            let message = "the planner gave no app-level plan twice".to_string();
            return Err(Ending::LlmFailed { message, never_answered: false });
        }
        None => Plan::parse(&format!("1. {}", run.options.task), false)
            .map_err(|e| Ending::LlmFailed { message: e.to_string(), never_answered: false })?,
    };
    run.event(&Event::Plan {
        step: run.steps_taken(),
        replan,
        items: plan.items.as_slice().into(),
        why: why.map(Into::into),
    });
    let head = if replan == 0 { "plan" } else { "new plan" };
    let shown = PlanItem::one_line(&plan.items);
    progress(Progress::Note { step: run.steps_taken(), text: &format!("{head}: {shown}") });
    Ok(plan)
}

/// A step's stop as the run's ending.
fn stop(end: StepEnd) -> Ending {
    match end {
        StepEnd::Stop(ending) => ending,
        StepEnd::Continue => Ending::Interrupted { during: "" },
    }
}

/// What the actor reads beside the task while it works on item `current`.
fn focus(plan: &Plan, current: usize) -> String {
    format!(
        "Plan (work only on the item marked NOW; call complete(true, \"...\") when it is done, \
         complete(false, \"why\") if it cannot be):\n{}",
        plan.render(current)
    )
}

pub(crate) async fn run(run: &mut Run<'_>, progress: &mut ProgressSink<'_>) -> Ending {
    let (mut planning, mut plan) = match Planning::start(run, progress, false).await {
        Ok(started) => started,
        Err(ending) => return ending,
    };
    let mut current = 0;
    loop {
        run.set_focus(Some(focus(&plan, current)));
        let goal = plan.items[current].goal.clone();
        match steps_until_done(run, progress, None, true).await {
            Stop::Done(c) => {
                planning.done(&goal, &c.reason);
                current += 1;
                if current == plan.items.len() {
                    return Ending::Completed(c);
                }
                run.reflect_if_due(progress).await;
            }
            Stop::Failed { why, ending } => {
                plan = match planning.replan(run, progress, &goal, &why, ending).await {
                    Ok(plan) => plan,
                    Err(ending) => return ending,
                };
                current = 0;
            }
            Stop::End(ending) => return ending,
        }
    }
}
