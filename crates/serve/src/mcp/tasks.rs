//! The two tools that hand work to codeact's own agent: `run_task(goal)` (the
//! `codeact run` loop with the model the server was started with, on the client's
//! session and phone, its run directory inside the client's) and `eval(tasks)`
//! (chosen templates of the built-in task suite on fresh virtual phones, by the
//! oracle or that model, judged on the phones' state). Blocking: each runs the async
//! agent on the server's runtime from the call's blocking thread. Not the agent
//! (`agent/`) nor the suite (`eval/`).

use super::client::{Answer, CallError, Client};
use super::options::AgentSetup;
use codeact_agent::{self as agent, AgentOptions, SaveMode};
use codeact_measure::eval::{self, Agent, EvalOptions, LlmAgent};
use codeact_runtime::session::{OpenError, Session};

/// How many instances one `eval` call may run.
pub const MAX_EVAL_INSTANCES: usize = 20;

/// Who runs an `eval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvalAgent {
    /// Each template's reference script: checks the suite and the phone.
    Oracle,
    /// The server's model, as `codeact run` would.
    Llm,
}

impl Client {
    fn agent_setup(&self) -> Result<AgentSetup, CallError> {
        self.options.agent.clone().ok_or(CallError::NoModel)
    }

    /// `run_task`: the agent works on `goal` in this client's session on `device`
    /// until it completes or runs out of steps.
    pub fn run_task(
        &mut self,
        goal: &str,
        device: Option<&str>,
        max_steps: Option<usize>,
    ) -> Result<Answer, CallError> {
        let setup = self.agent_setup()?;
        let out_dir = self.run_dir()?.join("tasks");
        let sink = self.record_sink()?;
        let device_spec = self.options.settings.device.clone();
        let stop = self.stop_token();
        let session = self.session(device)?;
        let options = AgentOptions {
            max_steps: max_steps.unwrap_or(setup.max_steps).clamp(1, 500),
            vision: setup.vision,
            save: SaveMode::Step,
            out_dir,
            device_spec,
            ..AgentOptions::new(goal)
        };
        let runtime = tokio::runtime::Handle::current();
        let ran = runtime.block_on(agent::run_task(
            agent::AgentRequest { session, models: &setup.models, persona: &setup.persona, options: &options },
            &stop,
            &mut |_| {},
        ));
        // The agent's run directory took the session's actions; they come back here.
        session.set_action_sink(Some(sink));
        let summary = ran.map_err(|e| CallError::Agent(Box::new(e)))?;
        let text = format!(
            "{:?} after {} step{} ({:.1} s, {} tokens): {}\nrun directory: {}\nreplay: {}\n",
            summary.outcome,
            summary.steps,
            if summary.steps == 1 { "" } else { "s" },
            summary.wall_ms / 1000.0,
            summary.tokens.total_tokens,
            summary.reason,
            summary.run_dir.display(),
            summary.replay,
        );
        let failed = summary.outcome != agent::Outcome::Success;
        Ok(Answer { text: codeact_base::terminal::clean(&text).into_owned(), picture: None, failed })
    }

    /// `eval`: the templates `patterns` chooses (`settings_wifi_*,clock_*`), each
    /// `instances` times on a fresh virtual phone, by `who`.
    pub fn eval(&mut self, patterns: &str, who: EvalAgent, instances: usize) -> Result<Answer, CallError> {
        let tasks = eval::select(eval::load(None).map_err(eval_error)?, Some(patterns)).map_err(eval_error)?;
        let planned = tasks.len() * instances.max(1);
        if planned > MAX_EVAL_INSTANCES {
            return Ok(Answer {
                text: format!(
                    "that is {planned} instances; one eval call runs at most {MAX_EVAL_INSTANCES}: choose fewer templates or instances (codeact eval runs more)"
                ),
                picture: None,
                failed: true,
            });
        }
        let setup = match who {
            EvalAgent::Oracle => None,
            EvalAgent::Llm => Some(self.agent_setup()?),
        };
        let evals = self.run_dir()?.join("evals");
        let out_dir = evals.join(format!("{}", std::fs::read_dir(&evals).map_or(0, Iterator::count) + 1));
        let runtime = tokio::runtime::Handle::current();
        let agent = match &setup {
            None => Agent::Oracle,
            Some(s) => Agent::Llm(LlmAgent {
                models: &s.models,
                persona: &s.persona,
                strategy: agent::Strategy::React,
                reflect_every: agent::Strategy::React.default_reflect_every(),
                tree_depth: 3,
                actions: agent::ActionFormat::Code,
                vision: s.vision,
                error_threshold: 3,
                verify_completion: true,
                save: SaveMode::Step,
                runtime: runtime.clone(),
                memory: None,
                max_steps: None,
            }),
        };
        // As `codeact eval`: nobody is asked, the task says what to do.
        let mut settings = self.options.settings.clone();
        settings.tools.sensitive.policy = codeact_tools::SensitivePolicy::Allow;
        settings.device = Some("sim".into());
        settings.helpers = Default::default();
        let request = eval::suite::SuiteRequest {
            tasks: &tasks,
            options: EvalOptions {
                seed: 1,
                instances: instances.max(1),
                repeat: 1,
                parallel: 1,
                shard: None,
                faults: Vec::new(),
                variant: 0,
                out_dir: out_dir.clone(),
                traces: None,
            },
            agent,
            described: eval::suite::Described {
                agent: if setup.is_some() { "llm" } else { "oracle" }.into(),
                model: setup.as_ref().map(|s| s.models.actor.model().to_string()),
                persona: setup.as_ref().map(|s| s.persona.name.clone()),
                strategy: setup.as_ref().map(|_| "react".into()),
                action_format: setup.as_ref().map(|_| "code".into()),
                watchers: settings.tools.watchers.spec(),
            },
        };
        let open = move || -> Result<Session, OpenError> { Session::open(&settings) };
        let run =
            eval::suite::run(request, &open, &self.stop_token(), &|_| {}).map_err(|e| CallError::Eval(Box::new(e)))?;
        let all = &run.results.summary.all;
        let text = format!(
            "{}\nresults: {}\nreport: {}\n",
            run.results.markdown(),
            out_dir.join("results.json").display(),
            run.report.display()
        );
        let failed = all.solved < all.instances;
        Ok(Answer { text: codeact_base::terminal::clean(&text).into_owned(), picture: None, failed })
    }
}

fn eval_error(e: eval::TaskError) -> CallError {
    CallError::Tasks(Box::new(e))
}
