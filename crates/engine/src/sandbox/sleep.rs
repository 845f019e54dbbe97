//! `sleep(seconds)` as a snippet calls it: the package's cannot be interrupted, this
//! one waits with a pause that ends at the snippet's deadline or a cancel.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rhai::{Engine, EvalAltResult};

use super::shared::{STOP_TIMEOUT, Shared, Stopped};

/// `sleep(seconds)`: the package's cannot be interrupted; this one waits with
/// `pause` (which ends at the deadline or a cancel), and replaces any earlier one.
pub(crate) fn register_sleep(
    engine: &mut Engine,
    shared: Arc<Shared>,
    pause: impl Fn(Duration) -> Result<(), Stopped> + Send + Sync + Clone + 'static,
) {
    let wait = move |secs: f64| -> Result<(), Box<EvalAltResult>> {
        if !secs.is_finite() || secs < 0.0 {
            return Err("sleep() needs a number of seconds ≥ 0".into());
        }
        let wanted = Duration::from_secs_f64(secs.min(86_400.0));
        let until = Instant::now() + wanted;
        pause(wanted).map_err(|_| shared.stop(STOP_TIMEOUT))?;
        // The pause ended at the deadline before the sleep was over.
        if Instant::now() < until { Err(shared.stop(STOP_TIMEOUT)) } else { Ok(()) }
    };
    let w = wait.clone();
    engine.register_fn("sleep", move |secs: f64| w(secs));
    engine.register_fn("sleep", move |secs: i64| wait(secs as f64));
}
