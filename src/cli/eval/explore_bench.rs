//! `codeact eval --explore`: the exploration benchmark — the random (Monkey-like),
//! systematic and, with a model, llm explorers on every built-in app at each
//! action budget, each on a fresh virtual phone with the plan's crashes planted;
//! the table on stdout, bench.md and bench.json in --out beside each exploration's
//! run folder (runs/). Not an explorer itself (`codeact explore`).

use std::process::ExitCode;

use codeact::config::Flags;
use codeact::explore::bench::{self, BenchPlan, BenchRow, BenchTable};
use codeact::explore::{self, ExploreOptions, ExploreRequest, Strategy, UserPersona};
use codeact::terminal::one_line;
use codeact::tools::SensitivePolicy;

use super::flags::{EvalArgs, Explorer};

/// One progress line per exploration.
fn progress_line(r: &BenchRow, done: usize, total: usize) -> String {
    let mut line = format!(
        "[{done:>3}/{total}] {:<34} {:<10} {:>5}: {}/{} activities, {} screens, {} widgets, crashes {}/{}  {:.1} s",
        one_line(&r.app),
        r.strategy,
        r.budget,
        r.activities,
        r.declared,
        r.screens,
        r.widgets,
        r.crashes.len(),
        r.planted,
        r.seconds
    );
    if let Some(e) = &r.error {
        line.push_str(&format!("  ERROR {}", one_line(e)));
    }
    line
}

impl EvalArgs {
    pub(super) fn explore_bench(&self) -> anyhow::Result<ExitCode> {
        let args = &self.explore;
        let plan = BenchPlan::load(args.plan.as_deref())?.only(args.apps.as_deref())?;
        let defaults = Flags { default_sensitive: Some(SensitivePolicy::Allow), ..Flags::default() };
        let settings = self.session.settings(&self.phones.device_args(self.platform.device()), defaults)?;
        let mut strategies: Vec<Strategy> = Vec::new();
        for e in &args.explorers {
            let s = match e {
                Explorer::Random => Strategy::Random,
                Explorer::Systematic => Strategy::Systematic,
                Explorer::Llm => Strategy::Llm,
            };
            if !strategies.contains(&s) {
                strategies.push(s);
            }
        }
        // The model is checked before a phone is touched.
        let models = match strategies.contains(&Strategy::Llm) {
            true => Some(self.strategy.models(&settings.llm, &self.llm)?),
            false => None,
        };
        let persona = match models {
            Some(_) => Some(settings.agent_persona()?),
            None => None,
        };
        let budgets: Vec<usize> = args.budgets.iter().map(|b| *b as usize).collect();
        let jobs = bench::jobs(&plan, &strategies, &budgets);
        let out_dir = self
            .out
            .clone()
            .unwrap_or_else(|| codeact::trajectory::new_run_dir(std::path::Path::new("evals"), "explore"));
        codeact::eval::runner::check_out_dir(&out_dir)?;
        let runs = out_dir.join("runs");
        codeact::files::create_run_folder(&runs)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", codeact::terminal::path(&runs)))?;
        codeact::errln!(
            "codeact eval --explore: {} apps × {} explorers × budgets {:?} = {} explorations on {} phones; results in {}",
            plan.apps.len(),
            strategies.len(),
            budgets,
            jobs.len(),
            self.parallel,
            codeact::terminal::path(&out_dir)
        );
        let runtime = super::super::interrupt::runtime()?;
        let interrupt = super::super::interrupt::cancel_on_signal(&runtime, "the explorations under way");
        let settings = &settings;
        let open = || settings.open_device();
        let memory = out_dir.join("memory.sqlite");
        let explore_one = |job: &bench::BenchJob,
                           app: &bench::BenchApp,
                           device: Box<dyn codeact::device::Device>|
         -> Result<explore::ExploreSummary, explore::ExploreError> {
            let options = ExploreOptions {
                budget: explore::Budget::Actions(job.budget),
                strategy: job.strategy,
                user: UserPersona::default_user(),
                out_dir: runs.clone(),
                screenshots: false,
                replay_findings: false,
                seed: self.seed,
                ..ExploreOptions::new(&app.package)
            };
            let request = ExploreRequest { device, settings, options: &options };
            let mut quiet = |_: explore::Progress<'_>| {};
            match (&models, &persona) {
                (Some(models), Some(persona)) if job.strategy == Strategy::Llm => {
                    let setup = explore::ModelSetup {
                        models,
                        persona,
                        memory: Some(memory.clone()),
                        embeddings: None,
                        task_steps: args.task_steps as usize,
                        actor: codeact::agent::Strategy::React,
                        tree_depth: 3,
                        actions: codeact::agent::ActionFormat::Code,
                        reflect_every: 3,
                        vision: false,
                        device_spec: settings.device.clone(),
                    };
                    runtime.block_on(explore::run_with_model(request, &setup, &interrupt.token, &mut quiet))
                }
                _ => explore::run(request, &interrupt.token, &mut quiet),
            }
        };
        let done = std::sync::atomic::AtomicUsize::new(0);
        let total = jobs.len();
        let on_row = |r: &BenchRow| {
            let n = done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
            codeact::errln!("{}", progress_line(r, n, total));
        };
        let rows = bench::run(&plan, &jobs, self.parallel as usize, &open, &explore_one, &interrupt.token, &on_row);
        let table = BenchTable::new(rows, self.seed);
        let markdown = table.markdown(one_line);
        let write = |name: &str, bytes: &[u8]| {
            codeact::files::write_replacing(&out_dir.join(name), bytes)
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", codeact::terminal::path(&out_dir.join(name))))
        };
        write("bench.json", &serde_json::to_vec_pretty(&table)?)?;
        write("bench.md", markdown.as_bytes())?;
        codeact::out!("{markdown}");
        codeact::outln!("table: {}", codeact::terminal::path(&out_dir.join("bench.md")));
        if let Some(code) = interrupt.exit_code() {
            return Ok(ExitCode::from(code));
        }
        let failed = table.rows.iter().filter(|r| r.error.is_some()).count();
        if failed > 0 {
            codeact::errln!("codeact eval --explore: {failed} explorations failed; each row says why");
            return Ok(ExitCode::from(super::super::exit::EXIT_FAILED));
        }
        Ok(ExitCode::SUCCESS)
    }
}
