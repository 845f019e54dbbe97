//! How the studio runs code for the person at the page: each act and console
//! snippet one step of the studio's own run folder (made at the first act, below
//! the runs folder, so the studio's replay lists it), written by the one recorder
//! like any mode's run (`served.rs`): its events, its report and a `session.rhai`
//! that replays it. Not what an act is (`act.rs`) nor the recording a person saves
//! (`record.rs`).

use std::sync::Arc;
use std::time::Instant;

use codeact_engine::sandbox::RunResult;
use codeact_platform::device::Observation;
use codeact_runtime::session::{Screen, Session};
use codeact_tools::call::ToolCall;

use super::state::{RunFolder, Studio, lock};
use crate::served::{Door, Record};

impl Studio {
    /// Runs `code` in the session as one step of the studio's run folder (made at
    /// the first act, below the runs folder, where the studio's replay lists it),
    /// `act` naming it; the result, and the phone as it is after.
    pub(super) fn run_recorded(&self, act: &str, code: &str) -> (RunResult, Option<Arc<Observation>>) {
        self.recorded(act, code, |s| s.eval(code))
    }

    /// Runs `calls` (`Session::call`) as one step of the studio's run folder, like
    /// [`run_recorded`](Self::run_recorded).
    pub(super) fn call_recorded(&self, act: &str, calls: &[ToolCall]) -> (RunResult, Option<Arc<Observation>>) {
        self.recorded(act, &ToolCall::script(calls), |s| s.call(calls, Screen::Live))
    }

    fn recorded(
        &self,
        act: &str,
        code: &str,
        run: impl FnOnce(&mut Session) -> RunResult,
    ) -> (RunResult, Option<Arc<Observation>>) {
        let mut folder = lock(&self.record);
        if matches!(*folder, RunFolder::Unopened) {
            *folder = self.open_record().map_or(RunFolder::Refused, |r| RunFolder::Open(Box::new(r)));
        }
        let mut record = match &mut *folder {
            RunFolder::Open(record) => Some(record),
            RunFolder::Unopened | RunFolder::Refused => None,
        };
        let begun = record.as_mut().map(|r| r.begin_step(code));
        let started = Instant::now();
        let (result, after) = self.with_session(|s| {
            let result = run(s);
            (result, s.observe(false).ok())
        });
        if let (Some(record), Some(begun)) = (record.as_mut(), begun) {
            let step = begun.0;
            record.end_step(begun, &result);
            let error = result.error.as_ref().map(|e| e.to_string());
            record.call(act, Some(step), started.elapsed().as_secs_f64() * 1000.0, error.as_deref());
        }
        (result, after)
    }

    /// The run folder, its actions filed by the session; none (said in the log)
    /// when it cannot be made.
    fn open_record(&self) -> Option<Record> {
        let device = self.with_session(|s| s.device_name());
        let dir = codeact_record::trajectory::new_run_dir(&self.options.runs_dir, "studio");
        match Record::create(Door::Studio, &dir, "the studio", &device, None) {
            Ok(record) => {
                self.with_session(|s| s.set_action_sink(Some(record.action_sink())));
                Some(record)
            }
            Err(e) => {
                tracing::warn!(
                    "codeact studio: its acts are not recorded: {}",
                    codeact_base::error_text::full_message(&e)
                );
                None
            }
        }
    }
}
