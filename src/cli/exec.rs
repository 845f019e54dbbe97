//! `codeact exec`: choose a suite's scripts, run them on one phone or several,
//! show how each goes as it goes, write JUnit and the reports; the exit code says
//! whether all passed (0), one failed (1), or one could not run to its end (2).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;

use codeact::config::{Flags, Helpers, Settings};
use codeact::script::suite::{self, Filter, Shard};
use codeact::script::{self, ExecOptions, ExecRequest, Report, Script};
use codeact::session::Session;
use codeact::tools::{Recording, SensitivePolicy};
use codeact::trajectory::junit::Verdict;

use super::args::{LlmArgs, LocatorArgs, SessionArgs, Switch, TraceArgs, finish_traces};
use super::exec_devices::{SuiteDevices, is_virtual};
use super::exec_output::{ExecPrinter, Format, Totals};
use super::exit::{EXIT_ERROR, EXIT_FAILED};

/// Run Rhai scripts against a device as tests, each on a fresh virtual phone (or
/// the device given); exit 0 when each passes, 1 when one failed (an assertion or
/// complete(false, ..)), 2 when one could not run to its end.
///
///   codeact exec scripts/turn_off_wifi.rhai --device sim
///   codeact exec tests/ -d sim --include-tags smoke --junit report.xml
///   codeact exec tests/ -d sim --parallel 2 --trajectory runs/ci    # two virtual phones
///   codeact exec tests/ -d emulator-5554 -d emulator-5556           # two phones, one script each at a time
///   codeact exec tests/ -d sim --shard 1/2 --junit 1.xml             # CI job 1 of 2 (2/2 runs the rest)
///   codeact exec --merge 1.xml 2.xml --junit all.xml                 # the shards' reports as one
///   codeact exec my.rhai --var name=张三 --var count=3 --limit timeout_ms=60000
///   codeact exec checkout.rhai -d sim --heal --model gpt-4o-mini     # an LLM fixes a step that errs
///
/// A folder runs every *.rhai in it, recursively, sorted by path (hidden entries,
/// and modules other scripts there import, left out). A script declares its tags
/// in its header comment: `// tags: smoke, settings`. Each script gets a fresh
/// session (variables, functions, memory). Prints, actions and verdicts show as
/// they happen; a closing line counts them. Settings also come from codeact.toml
/// (see `--config`).
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct ExecArgs {
    /// The scripts to run: files, and folders (their *.rhai, recursively).
    #[arg(required_unless_present = "merge", value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Only scripts tagged with any of these (comma-separated, or repeat the flag).
    #[arg(long, value_delimiter = ',', value_name = "TAGS")]
    include_tags: Vec<String>,
    /// Leave out scripts tagged with any of these.
    #[arg(long, value_delimiter = ',', value_name = "TAGS")]
    exclude_tags: Vec<String>,
    /// Run shard I of N (I from 1, as `eval --shard`): the K-th script of the suite,
    /// sorted, runs in shard (K mod N) + 1, so --shard 1/2 and --shard 2/2 together
    /// run every script once (e.g. one CI job each). Without it the shard comes from
    /// CODEACT_SHARD=I/N, a Kubernetes Indexed Job's JOB_COMPLETION_INDEX (with
    /// --shards), GitLab's CI_NODE_INDEX/CI_NODE_TOTAL, CircleCI's or Buildkite's.
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,
    /// How many shards a Kubernetes Indexed Job runs (its completions): with
    /// $JOB_COMPLETION_INDEX (from 0), this pod runs shard INDEX+1 of N.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    shards: Option<u32>,
    /// Merge the JUnit reports of a suite's shards into --junit FILE (every test
    /// case once, the counts summed again), and exit.
    #[arg(long, num_args = 1.., value_name = "FILES", requires = "junit", conflicts_with_all = ["list", "check", "heal"])]
    merge: Option<Vec<PathBuf>>,
    /// List the scripts the paths, tags and shard choose, with their tags, and exit.
    #[arg(long, conflicts_with_all = ["check", "heal"])]
    list: bool,
    /// Print one JSON object per line on stdout as things happen (events start,
    /// print, action, verdict, summary), and nothing else there.
    #[arg(long, conflicts_with = "heal")]
    json: bool,
    #[command(flatten)]
    devices: SuiteDevices,
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
    /// A script that did not pass leaves its last screen, the device log (logcat)
    /// and its screen recording beside it (or in its --trajectory folder), linked
    /// from its case.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// on: record the screen of each script on a real Android phone (screenrecord,
    /// up to 3 minutes) and keep the video of one that did not pass. The virtual
    /// phone needs none: --trajectory keeps every screen, and its report plays them.
    #[arg(long, value_enum, value_name = "on|off", default_value = "on")]
    screen_recording: Switch,
    /// Write each script's run here as it goes: events.jsonl (every action, with
    /// timing), screenshots/ and ui/ after each action, script.rhai, summary.json,
    /// report.html. With several scripts, one sub-directory per script and an index.
    #[arg(long, value_name = "DIR")]
    trajectory: Option<PathBuf>,
    /// maestro: also write each script's actions as a Maestro flow, flow.yaml in its
    /// --trajectory folder (an action Maestro has no command for stays as a comment,
    /// and is named).
    #[arg(long, value_enum, value_name = "FORMAT", requires = "trajectory")]
    export: Option<super::run::ExportFormat>,
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

impl ExecArgs {
    pub fn exec(self) -> anyhow::Result<ExitCode> {
        // SIGINT or SIGTERM: the scripts in hand are cancelled and end as
        // interrupted (one whose phone was still opening too), no other starts, and
        // the records of those that ran are written before the exit (130 or 143).
        // Heard from the start: a CI job's limit can come at any moment. (A heal
        // is a run: it listens for itself.)
        let runtime = super::interrupt::runtime()?;
        let interrupt =
            (!self.heal).then(|| super::interrupt::cancel_on_signal(&runtime, "the scripts in hand, then the records"));
        let default_record = self.trajectory.is_some().then_some(Recording::All);
        // codeact.toml is the scripts' project's: looked for from their folder up.
        let defaults = Flags {
            default_record,
            default_sensitive: Some(SensitivePolicy::Allow),
            config_from: codeact::script::suite_folder(&self.paths),
            ..Flags::default()
        };
        if let Some(files) = &self.merge {
            return merge_junit(files, self.junit.as_deref());
        }
        let env = |name: &str| std::env::var(name).ok();
        let shard = codeact::shard::resolve(self.shard, self.shards.map(|n| n as usize), &env)?.map(|(shard, from)| {
            if from != "--shard" {
                codeact::errln!("codeact exec: shard {shard} (from {})", codeact::terminal::one_line(&from));
            }
            shard
        });
        let filter = Filter { include: self.include_tags.clone(), exclude: self.exclude_tags.clone(), shard };
        let selection = suite::select(&self.paths, &filter)?;
        let scripts = selection.scripts;
        let format = if self.json { Format::Json } else { Format::Text };
        if self.list {
            return Ok(list_scripts(&scripts, selection.found, shard, format));
        }
        let mut settings = self.session.settings(&self.devices.first(), defaults.clone())?;
        // A script's intent wins: the watchers answer only a dialog in the way of
        // one of its actions (a heal is the agent's run: watchers clear ahead).
        if !self.heal {
            settings.tools.watch_mode = codeact::tools::WatchMode::WhenBlocked;
        }
        let vars = script::parse_vars(&self.vars)?;
        if self.check {
            return check_scripts(&scripts, &settings);
        }
        if self.heal {
            return self.heal_one(&scripts, &vars, &settings);
        }
        let mut workers = self.devices.worker_settings(&self.session, &defaults)?;
        for w in &mut workers {
            w.tools.watch_mode = codeact::tools::WatchMode::WhenBlocked;
        }
        let traces = self.traces.start()?;
        // One person and one locator for every phone: one prompt at a time.
        settings.helpers =
            Helpers { person: self.session.person(true)?, locator: self.locator.vision(&settings.llm, &self.llm)? };
        for w in &mut workers {
            w.helpers = settings.helpers.clone();
        }
        let open = |worker: usize| Session::open(workers.get(worker).unwrap_or(&settings));
        let on_sim = workers.iter().all(|w| w.device_spec() == codeact::device::DeviceSpec::Sim);
        let printer = Arc::new(ExecPrinter::new(format, workers.len().min(scripts.len().max(1)), scripts.len()));
        printer.json_event(&serde_json::json!({
            "event": "suite",
            "scripts": scripts.iter().map(|s| s.path.display().to_string()).collect::<Vec<_>>(),
            "found": selection.found,
            "shard": shard.map(|s| s.to_string()),
            "workers": workers.len().min(scripts.len().max(1)),
        }));
        let heard = printer.clone();
        let request = ExecRequest {
            scripts: &scripts,
            options: ExecOptions {
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
                record_screen: self.screen_recording == Switch::On
                    && !workers.iter().any(|w| is_virtual(w.device.as_deref())),
            },
            workers: workers.len(),
            junit: self.junit.as_deref(),
            export_flows: self.export.is_some(),
        };
        let listener: codeact::script::Listener = Arc::new(move |worker, event| heard.hear(worker, event));
        let cancel = interrupt.as_ref().map(|i| i.token.clone()).unwrap_or_default();
        let ran = script::run_suite(&request, &open, &cancel, &listener);
        finish_traces(traces.as_deref());
        let outcome = ran?;
        outcome.flows.iter().for_each(super::run::say_flow);
        if let Some(page) = &outcome.report_page {
            codeact::errln!("report: {}", codeact::terminal::path(page));
        }
        let reports = outcome.reports;
        let empty_shard = match shard {
            Some(shard) if scripts.is_empty() => {
                Some(format!("shard {shard} has no script of the {}", selection.tagged))
            }
            _ => None,
        };
        printer.summary(Totals::of(&reports), empty_shard.as_deref());
        if let Some(code) = interrupt.as_ref().and_then(|i| i.exit_code()) {
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
        if format == Format::Text {
            let names: Vec<String> = not_passed.iter().map(|r| codeact::terminal::path(&r.script.path)).collect();
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

    /// `--heal`: one script, step by step, on the first phone.
    fn heal_one(
        &self,
        scripts: &[Script],
        vars: &[(String, rhai::Dynamic)],
        settings: &Settings,
    ) -> anyhow::Result<ExitCode> {
        let [script] = scripts else {
            anyhow::bail!("--heal runs one script at a time ({} given); run them one by one", scripts.len());
        };
        let traces = self.traces.start()?;
        let mut settings = settings.clone();
        settings.helpers =
            Helpers { person: self.session.person(true)?, locator: self.locator.vision(&settings.llm, &self.llm)? };
        let settings = &settings;
        let mut session = Session::open(settings)?;
        let on_sim = settings.device_spec() == codeact::device::DeviceSpec::Sim;
        let flags = super::heal::HealFlags {
            script,
            goal: self.goal.clone(),
            vars,
            llm: &self.llm,
            trajectory: self.trajectory.as_deref(),
            fresh_world: !self.keep_state && on_sim,
            traces,
        };
        super::heal::heal_script(flags, settings, &mut session)
    }
}

/// `--check`: each script parses and calls only functions that exist.
fn check_scripts(scripts: &[Script], settings: &Settings) -> anyhow::Result<ExitCode> {
    let errors = script::check(scripts, &settings.limits, settings.persona.as_ref())?;
    let mut bad = 0;
    for (s, error) in scripts.iter().zip(&errors) {
        match error {
            None => codeact::outln!("{}: parses, and every function it calls exists", codeact::terminal::path(&s.path)),
            Some(e) => {
                bad += 1;
                codeact::errln!(
                    "{}: {}",
                    codeact::terminal::path(&s.path),
                    codeact::terminal::one_line(&e.to_string())
                );
            }
        }
    }
    if bad > 0 {
        codeact::errln!("codeact: {bad} of {} scripts do not pass the check", scripts.len());
        return Ok(ExitCode::from(EXIT_ERROR));
    }
    Ok(ExitCode::SUCCESS)
}

/// `--list`: the scripts chosen, with their tags.
fn list_scripts(scripts: &[Script], found: usize, shard: Option<Shard>, format: Format) -> ExitCode {
    for s in scripts {
        match format {
            Format::Json => codeact::outln!(
                "{}",
                serde_json::json!({"event": "script", "script": s.path.display().to_string(), "tags": s.tags})
            ),
            Format::Text if s.tags.is_empty() => codeact::outln!("{}", codeact::terminal::path(&s.path)),
            Format::Text => {
                codeact::outln!(
                    "{}  [{}]",
                    codeact::terminal::path(&s.path),
                    codeact::terminal::one_line(&s.tags.join(", "))
                )
            }
        }
    }
    if format == Format::Text {
        let shard = shard.map(|s| format!(" (shard {s})")).unwrap_or_default();
        codeact::errln!("{} of {found} scripts{shard}", scripts.len());
    }
    ExitCode::SUCCESS
}

/// `--merge`: the shards' JUnit reports as one, written to `--junit`.
fn merge_junit(files: &[PathBuf], out: Option<&std::path::Path>) -> anyhow::Result<ExitCode> {
    let out = out.context("--merge needs --junit FILE for the merged report")?;
    let mut parts = Vec::new();
    for path in files {
        let text = codeact::files::read_text(path, codeact::files::DATA_BYTES)
            .with_context(|| format!("cannot read the JUnit report {}", codeact::terminal::path(path)))?;
        parts.push(codeact::trajectory::junit_merge::Part { path: path.clone(), text });
    }
    let merged = codeact::trajectory::junit_merge::merge("codeact exec", &parts)?;
    codeact::files::write_replacing(out, merged.as_bytes())
        .with_context(|| format!("cannot write the JUnit report {}", codeact::terminal::path(out)))?;
    codeact::errln!("merged {} reports into {}", files.len(), codeact::terminal::path(out));
    Ok(ExitCode::SUCCESS)
}
