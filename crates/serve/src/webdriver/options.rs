//! What the WebDriver server is started with, and the limits it keeps on requests,
//! bodies and idle sessions. Only settings: the server itself is `sessions.rs`
//! (its state) and `mod.rs` (serving).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use codeact_runtime::config::Settings;

/// The largest request body read (a script, a picture to find, W3C actions).
pub const MAX_BODY: usize = 8 * 1024 * 1024;

/// What the server is started with.
#[derive(Clone)]
pub struct WebdriverOptions {
    /// Persona, limits, tool options; `device` is the phone a session that names
    /// no `appium:udid` opens.
    pub settings: Settings,
    /// Each session's run folder is made in here.
    pub out: PathBuf,
    /// The most sessions open at once.
    pub max_sessions: usize,
    /// A session no command reached for this long is deleted (a client's
    /// `appium:newCommandTimeout` sets its own, within [`MOST_IDLE`]).
    pub idle: Duration,
    /// Each session as spans to this exporter (`--otlp`).
    pub traces: Option<Arc<codeact_record::trace::Traces>>,
}

/// The most requests answered at once (the rest are refused at once, not queued:
/// each waits on a worker thread).
pub const MOST_IN_FLIGHT: usize = 64;

/// The longest idle time a client may ask for.
pub const MOST_IDLE: Duration = Duration::from_secs(3600);
