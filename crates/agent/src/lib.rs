//! The CodeAct loop, read top to bottom in [`run_task`]: recall what memory holds
//! of the task, start the run, follow the strategy's steps until one ends it (or the
//! budget does), learn, finish. A step (`step.rs`) looks at what the persona needs,
//! asks the model, executes the snippet it wrote on the observation it saw, and
//! records the step once, as a [`StepRecord`](codeact_record::trajectory::StepRecord).
//!
//! The rooms, bottom up: the vocabulary (`options.rs`, `outcome.rs`, `progress.rs`,
//! `error.rs`, `summary.rs`, `roles.rs`), wording (`told.rs`, `prompt.rs`,
//! `json_prompt.rs`, `reflect.rs`, `plan_text.rs`),
//! the run's parts (the record crate's `StepRecorder` writes, `history.rs` remembers, `loop_guard.rs`
//! and `checks.rs` judge a step, `recall.rs` is memory's part), the run's life
//! (`run.rs`), a step (`step.rs`), and the loops (`strategy/`).
//!
//! The loop is async (the LLM request); device and sandbox work is blocking and runs
//! in `block_in_place`.

mod checks;
mod error;
mod example;
mod heal_review;
mod history;
mod json_actions;
mod json_prompt;
mod loop_guard;
mod options;
mod outcome;
mod plan_text;
mod progress;
pub mod prompt;
mod recall;
mod reflect;
mod roles;
mod run;
mod step;
mod strategy;
mod summary;
mod told;

use tokio_util::sync::CancellationToken;

pub use error::AgentError;
pub use options::{ActionFormat, AgentOptions, SaveMode, Strategy};
pub use outcome::{Ending, Outcome};
pub use progress::{Progress, ProgressSink};
pub use roles::{Models, Role, RoleUsage};
pub use summary::{ReportWritten, RunSummary};

use codeact_runtime::persona::Persona;
use codeact_runtime::session::Session;
use recall::{Learned, Recall};
use run::Run;
use strategy::replay::Replaying;
use strategy::{hierarchical, plan, react, replay, tree};

/// The persona a session for `--strategy hierarchical` needs: the tools of both
/// sub-agents (`app_starter` and `ui_expert`); each is held to its own during the run.
pub fn hierarchical_persona() -> Result<Persona, codeact_runtime::persona::PersonaError> {
    hierarchical::SubAgents::session_persona()
}

/// A task for the agent: the session it acts in, the models it asks, the persona
/// it is, and the options (the task itself among them).
pub struct AgentRequest<'a> {
    pub session: &'a mut Session,
    pub models: &'a Models,
    pub persona: &'a Persona,
    pub options: &'a AgentOptions,
}

/// Runs `request.options.task` to its end, in the shape every mode has: a request,
/// a cancellation token, a progress sink, a typed outcome. Errors only when the run
/// directory cannot be written; everything else (the LLM failing, the device lost,
/// Ctrl-C through `interrupt`) ends the run with an outcome, and the directory is
/// complete.
pub async fn run_task(
    request: AgentRequest<'_>,
    interrupt: &CancellationToken,
    progress: &mut ProgressSink<'_>,
) -> Result<RunSummary, AgentError> {
    let AgentRequest { session, models, persona, options } = request;
    if tokio::runtime::Handle::current().runtime_flavor() != tokio::runtime::RuntimeFlavor::MultiThread {
        return Err(AgentError::Runtime);
    }
    // The sub-agents' personas live as long as the run.
    let sub_agents = match options.strategy {
        Strategy::Hierarchical => Some(hierarchical::SubAgents::load()?),
        _ => None,
    };
    // A script being healed is the run's own plan: memory stays out of it.
    let memory = options.memory.as_deref().filter(|_| options.script.is_none());
    let recall = Recall::before(memory, &options.task, options.embeddings.as_deref(), models, progress).await;

    let mut run = Run::start(session, models, persona, options, interrupt, progress)?;
    if let Some(lent) = recall.lend() {
        run.lend_memory(lent);
    }
    let ending = match (&options.script, recall.recalled(), &sub_agents, options.strategy) {
        (Some(script), ..) => replay::run(&mut run, Replaying::Script, script, progress).await,
        (None, Some(row), ..) => replay::run(&mut run, Replaying::Memory(row.id), &row.experience, progress).await,
        (None, None, Some(sub), _) => hierarchical::run(&mut run, sub, progress).await,
        (None, None, None, Strategy::Plan) => plan::run(&mut run, progress).await,
        (None, None, None, Strategy::Tree) => tree::run(&mut run, progress).await,
        (None, None, None, _) => react::run(&mut run, progress).await,
    };

    let ending = recall.hold_to_recorded(ending, &run.history.all_records());
    let (ending, judged) = judge_heal(&mut run, models, &recall, ending, progress).await;
    let memory_note = if recall.is_on() {
        let learned = Learned {
            ending: &ending,
            widget_facts: run.widget_facts(),
            reflections: &run.history.reflections,
            // A successful run is kept as an experience; a heal that did not
            // reproduce its experience is kept aside.
            experience: (ending.outcome().0 == Outcome::Success || matches!(ending, Ending::NotReproduced { .. }))
                .then(|| run.experience()),
            llm_calls: run.llm_calls(),
            steps: run.steps_taken(),
            judged,
        };
        recall.after(learned, progress)
    } else {
        None
    };
    run.finish(ending, memory_note)
}

/// A heal that did not end with what its experience recorded, put to the run's own
/// reviewer when it has one (never the model that healed): its VERIFIED verdict
/// restores the completion, and is the reason memory keeps the heal.
async fn judge_heal(
    run: &mut Run<'_>,
    models: &Models,
    recall: &Recall,
    ending: Ending,
    progress: &mut ProgressSink<'_>,
) -> (Ending, Option<String>) {
    let Ending::NotReproduced { claimed, missing } = &ending else { return (ending, None) };
    let recorded = recall.recalled().and_then(|row| row.experience.effects.clone());
    let Some(recorded) = recorded.filter(|_| models.reflector.is_some() && run.llm_calls() > 0) else {
        return (ending, None);
    };
    let this_run = codeact_record::trajectory::RunEffects::of_records(&run.history.all_records());
    let screen = tokio::task::block_in_place(|| run.session.observe(false)).map(|o| o.screen_text());
    let messages = heal_review::messages(&run.options.task, &recorded, &this_run, missing, &screen.unwrap_or_default());
    let verdict = match run.ask_model(Role::Reflector, &messages).await {
        Ok(reply) => heal_review::verified(&reply.text),
        Err(_) => None,
    };
    let step = run.steps_taken();
    match verdict {
        Some(why) => {
            let text = format!("the reviewer judges that the heal did the task: {why}");
            progress(Progress::Note { step, text: &text });
            (
                Ending::Completed(codeact_engine::sandbox::Completion { success: true, reason: claimed.clone() }),
                Some(why),
            )
        }
        None => {
            progress(Progress::Note { step, text: "the reviewer does not judge that the heal did the task" });
            (ending, None)
        }
    }
}
