//! `codeact explore`: explore an app on its own, then print its coverage and
//! findings; exit 1 when it found a crash or an ANR.

use std::path::PathBuf;
use std::process::ExitCode;

use codeact::config::{Flags, Settings};
use codeact::explore::{self, Budget, ExploreOptions, Progress, Strategy, UserPersona};
use codeact::tools::SensitivePolicy;

use super::args::DeviceArgs;

/// Explore an app without a task: every screen and widget it can reach, its
/// coverage against the activities its APK declares, the crashes and ANRs it meets
/// (each with the shortest script that does it again), and the tests it found.
///
///   codeact explore --app com.example.notes --device sim
///   codeact explore --app com.example.notes -d emulator-5554 --budget 20m
///   codeact explore --app com.android.settings -d sim --persona newcomer --budget 500
///
/// Everything goes into a run folder (--out, default runs/): report.html, tests/
/// (one script per activity reached, `codeact exec tests/*.rhai` runs them),
/// findings/ (one reproduction per problem), events.jsonl, graph.json and
/// summary.json. Each restart of the app forgets its data (`pm clear`) so that the
/// paths found replay from a fresh install; --keep-data keeps it.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct ExploreArgs {
    /// The app's package (`codeact apk info` and `pm list packages` name them).
    #[arg(long, value_name = "PACKAGE")]
    app: String,
    /// How much: a number of actions (300) or a time (90s, 20m, 1h).
    #[arg(long, default_value = "300", value_parser = parse_budget)]
    budget: Budget,
    /// systematic: no model, every widget of every screen with back-tracking (the
    /// baseline). The model-driven strategy is not in this build yet.
    #[arg(long, value_enum, default_value = "systematic")]
    strategy: StrategyArg,
    /// The user it plays: a built-in one (tester, newcomer) or a TOML file (name,
    /// goals, traits, and [data]: what to type into which field).
    #[arg(long, value_name = "NAME|FILE")]
    persona: Option<String>,
    /// Where the run folder goes.
    #[arg(long, default_value = "runs", value_name = "DIR")]
    out: PathBuf,
    /// Keep the app's data when it is restarted (default: forget it each time).
    #[arg(long)]
    keep_data: bool,
    /// No screenshots of new screens (faster on a slow phone).
    #[arg(long)]
    no_screenshots: bool,
    /// Do not replay each finding's steps afterwards to check it happens again.
    #[arg(long)]
    no_replay: bool,
    /// Actions on something sensitive (delete, send, pay… and codeact.toml's
    /// [sensitive] rules): allow (the default here: an explorer tries what a tester
    /// tries, on a test build whose data it clears anyway), ask, or refuse.
    #[arg(long, value_enum, value_name = "ask|refuse|allow")]
    sensitive: Option<SensitivePolicy>,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    /// codeact.toml to read (default: $CODEACT_CONFIG, else ./codeact.toml).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    #[command(flatten)]
    device: DeviceArgs,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum StrategyArg {
    Systematic,
}

fn parse_budget(text: &str) -> Result<Budget, String> {
    text.parse().map_err(|e: explore::BadBudget| e.to_string())
}

fn clean(text: &str) -> String {
    codeact::terminal::clean(text).into_owned()
}

impl ExploreArgs {
    pub fn explore(self) -> anyhow::Result<ExitCode> {
        let user = match &self.persona {
            Some(p) => UserPersona::load(p)?,
            None => UserPersona::default_user(),
        };
        let flags = Flags {
            device: self.device.device.clone(),
            device_timeout_s: self.device.timeout,
            sensitive: self.sensitive,
            default_sensitive: Some(SensitivePolicy::Allow),
            ..Flags::default()
        };
        let settings = Settings::load(self.config.as_deref(), &flags)?;
        let device = super::args::open_device(&settings)?;
        let options = ExploreOptions {
            app: self.app.clone(),
            budget: self.budget,
            strategy: match self.strategy {
                StrategyArg::Systematic => Strategy::Systematic,
            },
            user,
            out_dir: self.out.clone(),
            keep_data: self.keep_data,
            screenshots: !self.no_screenshots,
            replay_findings: !self.no_replay,
        };
        let runtime = super::interrupt::runtime()?;
        let interrupt = super::interrupt::cancel_on_signal(&runtime, "the exploration's records");
        let token = interrupt.token.clone();
        let stop = move || token.is_cancelled();
        let mut progress = |p: Progress<'_>| match p {
            Progress::Activity { activity, reached, declared } if declared > 0 => {
                codeact::errln!("activity {reached}/{declared}: {}", clean(activity));
            }
            Progress::Activity { activity, reached, .. } => codeact::errln!("activity {reached}: {}", clean(activity)),
            Progress::Finding(f) => {
                codeact::errln!("FOUND {}: {} (after {})", f.kind.word(), clean(&f.title), clean(&f.action))
            }
            Progress::Note(note) => codeact::errln!("note: {}", clean(note)),
            Progress::Action { .. } | Progress::Screen { .. } => {}
        };
        let summary = explore::run(device, &settings, &options, &mut progress, &stop)?;
        if self.json {
            codeact::outln!("{}", serde_json::to_string_pretty(&summary)?);
        } else {
            let c = &summary.coverage;
            let activities = match c.ratio() {
                Some(r) => format!("{}/{} activities ({:.0}%)", c.reached_declared(), c.declared.len(), 100.0 * r),
                None if c.reached.is_empty() => "no activities (the platform names none)".to_string(),
                None => format!("{} activities (the APK's list is not known)", c.reached.len()),
            };
            codeact::outln!(
                "explored {} with {} actions in {:.1} s ({}): {activities}, {} screens, {} widgets",
                clean(&summary.app),
                summary.actions,
                summary.seconds,
                summary.stopped.words(),
                c.screens,
                c.widgets
            );
            let missed = c.missed();
            if !missed.is_empty() {
                codeact::outln!("not reached: {}", clean(&missed.join(", ")));
            }
            for f in &summary.findings {
                let again = match f.reproduced {
                    Some(true) => ", reproduced",
                    Some(false) => ", not reproduced",
                    None => "",
                };
                codeact::outln!(
                    "{}: {} → {}{again}",
                    f.kind.word(),
                    clean(&f.title),
                    summary.dir.join(&f.script).display()
                );
            }
            codeact::outln!("{} tests in {}", summary.tests.len(), summary.dir.join("tests").display());
            codeact::outln!("report: {}", summary.dir.join("report.html").display());
        }
        if let Some(code) = interrupt.exit_code() {
            return Ok(ExitCode::from(code));
        }
        if let Some(error) = &summary.error {
            codeact::errln!(
                "codeact: the exploration stopped early: {}; what it found until then is in {}",
                clean(error),
                summary.dir.display()
            );
            return Ok(ExitCode::from(super::EXIT_ERROR));
        }
        Ok(if summary.findings.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(super::EXIT_FAILED) })
    }
}
