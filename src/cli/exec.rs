//! `codeact exec`: run scripts, print how each went, write JUnit; the exit code says
//! whether all passed (0), one failed (1), or one could not run to its end (2).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use codeact::config::Flags;
use codeact::script::{self, ExecOptions, Report};
use codeact::session::Session;
use codeact::terminal::clean;
use codeact::tools::{Recording, SensitivePolicy};
use codeact::trajectory::junit::{self, Verdict};

use super::args::{DeviceArgs, LlmArgs, LocatorArgs, SessionArgs, Switch, TraceArgs, finish_traces, open_device};
use super::{EXIT_ERROR, EXIT_FAILED};

/// Run Rhai scripts against a device, with the tool catalog and every sandbox
/// limit; exit 0 when each passes, 1 when one failed (an assertion or
/// complete(false, ..)), 2 when one could not run to its end.
///
///   codeact exec scripts/turn_off_wifi.rhai --device sim
///   codeact exec scripts/*.rhai -d sim --junit report.xml --trajectory runs/ci
///   codeact exec my.rhai --var name=张三 --var count=3 --limit timeout_ms=60000
///   codeact exec checkout.rhai -d sim --heal --model gpt-4o-mini   # an LLM fixes a step that errs
///
/// Each script gets a fresh session (variables, functions, memory) on the same
/// device. Settings also come from codeact.toml (see `--config`).
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct ExecArgs {
    /// The scripts to run, in order.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    device: DeviceArgs,
    #[command(flatten)]
    session: SessionArgs,
    /// A variable the scripts can read, KEY=VALUE (numbers and true/false are typed).
    #[arg(long = "var", value_name = "KEY=VALUE")]
    vars: Vec<String>,
    /// Only check the scripts, touching no device: each parses, and every function it
    /// calls exists (a tool of the persona, the engine's, or the script's own).
    #[arg(long)]
    check: bool,
    /// With `--device sim`: run each script on the phone as the last one left it.
    /// By default each starts on a fresh virtual phone (`simctl reset`), so scripts
    /// pass or fail on their own.
    #[arg(long)]
    keep_state: bool,
    /// on: a script that calls complete(true, ...) right after acting, with nothing
    /// checking what the actions did (assert_visible, wait_for, wait_gone,
    /// assert_not_visible, refresh()), fails: a test that never looks passes
    /// anything. Default off.
    #[arg(long, value_enum, value_name = "on|off", default_value = "off")]
    verify_completion: Switch,
    /// Run a script that did not pass again, up to N more times (on a fresh virtual
    /// phone each time; not one that does not parse); the report says which attempt
    /// passed.
    #[arg(long, value_name = "N", default_value_t = 0)]
    retries: usize,
    /// Write a JUnit XML report here: one test case per script; assertions and
    /// complete(false, ..) are failures, anything else that stops a script an error.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write each script's run here as it goes: events.jsonl (every action, with
    /// timing), screenshots/ and ui/ after each action, script.rhai, summary.json.
    /// With several scripts, one sub-directory per script.
    #[arg(long, value_name = "DIR")]
    trajectory: Option<PathBuf>,
    /// Run one script step by step (each top-level statement a step; the comment
    /// above it is its intent) and hand only a step that errs to the LLM (--model,
    /// --base-url), with the goal, the step and the screen; the script goes on after
    /// the healed step. The script with its healed steps is written beside it as
    /// NAME.healed.rhai; the original is never changed.
    #[arg(long, conflicts_with_all = ["check", "retries", "junit"])]
    heal: bool,
    /// With --heal: the goal the model is told (default: the script's opening
    /// comment block).
    #[arg(long, requires = "heal", value_name = "TEXT")]
    goal: Option<String>,
    #[command(flatten)]
    llm: LlmArgs,
    #[command(flatten)]
    locator: LocatorArgs,
    #[command(flatten)]
    traces: TraceArgs,
}

/// At most this many notes of an agent giving way to a dump, per script.
const FALLBACK_NOTES: usize = 3;

/// What `codeact exec` prints as each script ends.
fn print_report(report: &Report) {
    let result = &report.result;
    let file = report.script.path.display();
    codeact::out!("{}", clean(&result.output));
    let (listed, more) = result.listed_actions(codeact::sandbox::LISTED_ACTIONS);
    for a in listed {
        codeact::errln!("  {:>8.1} ms  {}", a.duration_ms, clean(&a.summary_before(result.error.as_ref())));
    }
    if let Some(more) = more {
        codeact::errln!("  {more}");
    }
    // An on-device agent that gave way to `uiautomator dump` is said once, not on
    // every action after it (the first note of an agent set aside also says what
    // comes next: the later ones are its beginning).
    let mut fallbacks: Vec<&str> = Vec::new();
    for f in result.actions.iter().filter_map(|a| a.capture.fallback.as_deref()) {
        if !fallbacks.iter().any(|seen| seen.starts_with(f) || f.starts_with(seen)) {
            fallbacks.push(f);
        }
    }
    for f in fallbacks.iter().take(FALLBACK_NOTES) {
        codeact::errln!("  note: {}", clean(f));
    }
    if fallbacks.len() > FALLBACK_NOTES {
        codeact::errln!(
            "  note: and {} more (the trajectory's actions have them all)",
            fallbacks.len() - FALLBACK_NOTES
        );
    }
    let verdict = report.verdict.word();
    let verdict =
        if report.attempt > 1 { format!("{verdict} (attempt {})", report.attempt) } else { verdict.to_string() };
    match (&result.error, &result.completion) {
        (Some(e), _) => codeact::errln!("{verdict} {file}: {}", clean(&e.to_string())),
        (None, Some(c)) if !c.success => codeact::errln!("{verdict} {file}: completed as failed: {}", clean(&c.reason)),
        (None, completion) => {
            if let Some(c) = completion {
                codeact::outln!("completed: {}", clean(&c.reason));
            }
            let calls = result.actions.len() + result.more_actions;
            codeact::errln!("{verdict} {file} ({calls} actions, {:.0} ms)", result.duration_ms);
        }
    }
    if let Some(png) = &report.failure_screenshot {
        codeact::errln!("  failure screenshot: {}", png.display());
    }
    if let Some(dir) = &report.trajectory {
        codeact::errln!("  trajectory: {}", dir.display());
    }
}

/// With a trajectory: each script's run directory has its report.html; several
/// scripts get an index at the top linking them all.
fn write_exec_index(root: &std::path::Path, reports: &[Report]) -> anyhow::Result<()> {
    let report = match reports {
        [one] => one.trajectory.as_ref().map(|dir| dir.join("report.html")),
        _ => {
            let rows: Vec<(Option<std::path::PathBuf>, Vec<String>)> = reports
                .iter()
                .map(|r| {
                    let link =
                        r.trajectory.as_deref().and_then(|d| d.strip_prefix(root).ok()).map(|d| d.join("report.html"));
                    let cells = vec![
                        r.script.path.display().to_string(),
                        r.verdict.word().to_string(),
                        (r.result.actions.len() + r.result.more_actions).to_string(),
                        format!("{:.0}", r.result.duration_ms),
                    ];
                    (link, cells)
                })
                .collect();
            let head = ["script", "verdict", "actions", "ms"];
            Some(codeact::report::write_index(root, "codeact exec", &head, &rows)?)
        }
    };
    if let Some(path) = report.filter(|p| p.is_file()) {
        codeact::errln!("report: {}", path.display());
    }
    Ok(())
}

impl ExecArgs {
    pub fn exec(self) -> anyhow::Result<ExitCode> {
        let default_record = self.trajectory.is_some().then_some(Recording::All);
        let defaults = Flags { default_record, default_sensitive: Some(SensitivePolicy::Allow), ..Flags::default() };
        let mut settings = self.session.settings(&self.device, defaults)?;
        // A script's intent wins: the watchers answer only a dialog in the way of
        // one of its actions (a heal is the agent's run: watchers clear ahead).
        if !self.heal {
            settings.tools.watch_mode = codeact::tools::WatchMode::WhenBlocked;
        }
        let scripts = script::read_scripts(&self.files)?;
        let vars = script::parse_vars(&self.vars)?;
        if self.check {
            let errors = script::check(&scripts, &settings.limits, settings.persona.as_ref())?;
            let mut bad = 0;
            for (s, error) in scripts.iter().zip(&errors) {
                match error {
                    None => codeact::outln!("{}: parses, and every function it calls exists", s.path.display()),
                    Some(e) => {
                        bad += 1;
                        codeact::errln!("{}: {}", s.path.display(), clean(&e.to_string()));
                    }
                }
            }
            if bad > 0 {
                codeact::errln!("codeact: {bad} of {} scripts do not pass the check", scripts.len());
                return Ok(ExitCode::from(EXIT_ERROR));
            }
            return Ok(ExitCode::SUCCESS);
        }
        let traces = self.traces.start()?;
        let mut session = Session::new(open_device(&settings)?, &settings)?;
        session.set_human(self.session.person(true)?);
        session.set_locator(self.locator.vision(&settings.llm, &self.llm)?);
        let on_sim =
            matches!(codeact::device::DeviceSpec::parse(settings.device.as_deref()), codeact::device::DeviceSpec::Sim);
        if self.heal {
            let [script] = scripts.as_slice() else {
                anyhow::bail!("--heal runs one script at a time ({} given); run them one by one", scripts.len());
            };
            let flags = super::heal::HealFlags {
                script,
                goal: self.goal.clone(),
                vars: &vars,
                llm: &self.llm,
                trajectory: self.trajectory.as_deref(),
                fresh_world: !self.keep_state && on_sim,
                traces,
            };
            return super::heal::heal_script(flags, &settings, &mut session);
        }
        let options = ExecOptions {
            vars: &vars,
            trajectory: self.trajectory.as_deref(),
            persona: settings.persona.as_ref().map(|p| p.name.as_str()),
            retries: self.retries.min(10),
            failure_screenshots: self
                .junit
                .as_deref()
                .map(|p| p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."))),
            verify_completion: self.verify_completion == Switch::On,
            fresh_world: !self.keep_state && on_sim,
            traces: traces.as_deref(),
            interrupt: None,
        };
        // SIGINT or SIGTERM: the script in hand is cancelled and ends as
        // interrupted, no other starts, and the records of those that ran are
        // written before the exit (130 or 143).
        let runtime = super::interrupt::runtime()?;
        let interrupt = super::interrupt::cancel_on_signal(&runtime, "the script in hand, then the records");
        let (token, cancel) = (interrupt.token.clone(), session.cancel_handle());
        runtime.spawn(async move {
            token.cancelled().await;
            cancel.cancel();
        });
        let options = ExecOptions { interrupt: Some(&interrupt.token), ..options };
        let reports = script::run_scripts(&mut session, &scripts, &options, &mut print_report);
        finish_traces(traces.as_deref());
        let reports = reports?;
        if let Some(root) = &self.trajectory {
            write_exec_index(root, &reports)?;
        }
        if let Some(path) = &self.junit {
            let cases: Vec<junit::Case> = reports.iter().map(Report::junit_case).collect();
            std::fs::write(path, junit::render("codeact exec", &cases))
                .with_context(|| format!("cannot write the JUnit report {}", path.display()))?;
        }
        if let Some(code) = interrupt.exit_code() {
            let kept = [
                self.junit.as_ref().map(|p| p.display().to_string()),
                self.trajectory.as_ref().map(|p| p.display().to_string()),
            ];
            let kept: Vec<String> = kept.into_iter().flatten().collect();
            codeact::errln!(
                "codeact: stopped after {} of {} scripts{}",
                reports.len(),
                scripts.len(),
                if kept.is_empty() { String::new() } else { format!("; their records are in {}", kept.join(" and ")) }
            );
            return Ok(ExitCode::from(code));
        }
        let not_passed: Vec<&Report> = reports.iter().filter(|r| r.verdict != Verdict::Passed).collect();
        if not_passed.is_empty() {
            return Ok(ExitCode::SUCCESS);
        }
        if let [one] = reports.as_slice() {
            codeact::errln!("codeact: {} did not pass", one.script.path.display());
        } else {
            let names: Vec<String> = not_passed.iter().map(|r| r.script.path.display().to_string()).collect();
            codeact::errln!(
                "codeact: {} of {} scripts did not pass: {}",
                not_passed.len(),
                reports.len(),
                names.join(", ")
            );
        }
        let errored = not_passed.iter().any(|r| matches!(r.verdict, Verdict::Error { .. }));
        Ok(ExitCode::from(if errored { EXIT_ERROR } else { EXIT_FAILED }))
    }
}
