//! What every walk of an app does between its own choices, the random and the
//! systematic alike: check the stop and the budget before each look, run one
//! action's code into the run folder and count it, and record a screen seen for
//! the first time (its screenshot, its event, a progress line). Not how a walk
//! chooses what to do next (`random.rs`, `systematic.rs`).

use std::time::Instant;

use super::graph::Graph;
use super::options::ExploreOptions;
use super::progress::{Progress, StopReason};
use super::record::RunFolder;
use codeact_platform::device::Observation;
use codeact_record::trajectory::Event;
use codeact_runtime::session::Session;

/// The screen to act on next, or why the walk ends here (with the phone's words
/// when it stopped answering).
pub(super) fn look(
    session: &mut Session,
    options: &ExploreOptions,
    stop: &dyn Fn() -> bool,
    actions: usize,
    started: Instant,
) -> Result<std::sync::Arc<Observation>, (StopReason, Option<String>)> {
    if stop() {
        return Err((StopReason::Interrupted, None));
    }
    if options.budget.spent(actions, started.elapsed()) {
        return Err((StopReason::Budget, None));
    }
    session.observe(false).map_err(|e| (StopReason::DeviceFailed, Some(codeact_base::error_text::full_message(&e))))
}

/// Runs one action's code on the live screen, logged with its words (and the
/// screen it was taken on, unless `screen_name` is "-"); adds the device actions it
/// made to `actions` (a form filled before a tap is several) and says whether it ran.
pub(super) fn act(
    session: &mut Session,
    folder: &mut RunFolder,
    progress: &mut dyn FnMut(Progress<'_>),
    actions: &mut usize,
    (screen_name, code, label): (&str, &str, &str),
) -> bool {
    let said = format!("{label} (on {screen_name})");
    let result = folder.act(session, code, if screen_name == "-" { label } else { &said });
    *actions += result.actions.len().max(1);
    progress(Progress::Action { n: *actions, label, ok: result.error.is_none() });
    result.error.is_none()
}

/// State `id`, seen for the first time: its screenshot (with `options.screenshots`),
/// the `screen` event, a progress line.
pub(super) fn new_screen(
    session: &mut Session,
    folder: &mut RunFolder,
    progress: &mut dyn FnMut(Progress<'_>),
    options: &ExploreOptions,
    graph: &mut Graph,
    id: usize,
) {
    let (name, activity) = (graph.states[id].name.clone(), graph.states[id].activity.clone());
    let mut shot = None;
    if options.screenshots
        && let Ok(png) = session.screenshot()
    {
        let file = format!("screens/{name}.png");
        if folder.write(&file, &png).is_ok() {
            shot = Some(file);
        }
    }
    graph.states[id].screenshot = shot.clone();
    let step = folder.step();
    folder.event(&Event::NewScreen {
        step,
        screen: name.as_str().into(),
        activity: activity.as_str().into(),
        screenshot: shot,
    });
    progress(Progress::Screen { name: &name, activity: &activity });
}
