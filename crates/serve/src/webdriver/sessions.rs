//! The server's state ([`Server`]) and its sessions: made from capabilities (a
//! codeact session opened from the server's settings, on the client's
//! `appium:udid` or the server's device, its app started), found by id, deleted on request or when idle past their time,
//! and all closed when the server stops. At most `max_sessions` at once (counting
//! those being opened); a phone that is not a virtual one of its own is held by
//! one session at a time. Not what a session does (`session.rs`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use codeact_platform::device::DeviceSpec;
use codeact_runtime::session::{Screen, Session};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::capabilities::{self, Asked};
use super::options::WebdriverOptions;
use super::session::WdSession;
use super::wire::{Failure, Reply, clipped, no_session};
use crate::served::{Door, Record};
use codeact_tools::call::ToolCall;

/// The server's state: its options, its door and its sessions.
pub struct Server {
    pub(super) options: WebdriverOptions,
    pub(super) token: String,
    pub(super) port: u16,
    pub(super) sessions: Sessions,
    pub(super) in_flight: Arc<tokio::sync::Semaphore>,
}

type Shared = Arc<Mutex<WdSession>>;

/// An open session, with what is read of it without waiting for its command in flight.
struct Entry {
    session: Shared,
    capabilities: Value,
}

/// The open sessions, how many are being opened, which phones are held (each by
/// the session id holding it, or an opening's mark), and the new-session replies
/// given for each idempotency key (the newest [`KEPT_REPLIES`]).
#[derive(Default)]
pub struct Sessions {
    open: Mutex<HashMap<String, Entry>>,
    opening: AtomicUsize,
    held: Mutex<HashMap<String, String>>,
    replies: Mutex<std::collections::VecDeque<(String, Value)>>,
}

/// How many new-session replies are kept for their idempotency keys.
const KEPT_REPLIES: usize = 64;

/// What an opening that is not finished holds: given back if it fails.
struct Hold<'a> {
    sessions: &'a Sessions,
    device: Option<String>,
}

impl Drop for Hold<'_> {
    fn drop(&mut self) {
        if let Some(device) = &self.device {
            lock(&self.sessions.held).remove(device);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn not_created(message: impl Into<String>) -> Failure {
    Failure::new("session not created", message)
}

/// A slot among the server's sessions, given back if the opening fails.
struct Slot<'a>(&'a AtomicUsize);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Sessions {
    /// Runs `f` with session `id` (one command at a time per session).
    pub fn with<T>(&self, id: &str, f: impl FnOnce(&mut WdSession) -> T) -> Result<T, Failure> {
        let shared = lock(&self.open).get(id).map(|e| e.session.clone()).ok_or_else(|| no_session(id))?;
        let mut session = lock(&shared);
        session.last_used = Instant::now();
        let out = f(&mut session);
        session.last_used = Instant::now();
        Ok(out)
    }

    /// `GET /sessions`: each session's id and capabilities.
    pub fn list(&self) -> Value {
        let open = lock(&self.open);
        Value::Array(open.iter().map(|(id, e)| json!({"id": id, "capabilities": e.capabilities})).collect())
    }

    /// Forgets what session `id` held.
    fn release(&self, id: &str) {
        lock(&self.held).retain(|_, holder| holder != id);
    }

    /// `DELETE /session/:id`: the session closes (its records finished).
    pub fn delete(&self, id: &str) -> Reply {
        let removed = lock(&self.open).remove(id).ok_or_else(|| no_session(id))?;
        // Wait for a command in flight, then let the session (and its phone) go.
        drop(lock(&removed.session));
        drop(removed);
        self.release(id);
        Ok(Value::Null)
    }

    /// Closes every session (the server is stopping).
    pub fn close_all(&self) {
        let all: Vec<Entry> = lock(&self.open).drain().map(|(_, e)| e).collect();
        drop(all);
        lock(&self.held).clear();
    }

    /// The sessions idle past their time, removed.
    fn take_idle(&self) -> Vec<Shared> {
        let mut open = lock(&self.open);
        let idle: Vec<String> = open
            .iter()
            .filter(|(_, e)| e.session.try_lock().is_ok_and(|s| s.last_used.elapsed() > s.idle))
            .map(|(id, _)| id.clone())
            .collect();
        let taken: Vec<Shared> = idle.iter().filter_map(|id| open.remove(id)).map(|e| e.session).collect();
        drop(open);
        for id in &idle {
            self.release(id);
        }
        taken
    }

    /// Holds `device` for an opening, unless a session holds it: who does, then.
    fn hold(&self, device: &str) -> Result<Hold<'_>, String> {
        let mut held = lock(&self.held);
        if let Some(holder) = held.get(device) {
            return Err(holder.clone());
        }
        held.insert(device.to_string(), String::new());
        Ok(Hold { sessions: self, device: Some(device.to_string()) })
    }
}

/// Deletes idle sessions once a second until `stop`.
pub async fn reap_idle(server: Arc<Server>, stop: CancellationToken) {
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(Duration::from_secs(1)) => {}
        }
        let idle = server.sessions.take_idle();
        if !idle.is_empty() {
            for s in &idle {
                if let Ok(s) = s.try_lock() {
                    tracing::info!("codeact serve: session {} was idle for {:?} and is deleted", s.id, s.idle);
                }
            }
            // Closing a session stops its worker (and its virtual phone): not on the async workers.
            let _ = tokio::task::spawn_blocking(move || drop(idle)).await;
        }
    }
}

/// `POST /session`: a session from `body`'s capabilities — or, for an idempotency
/// key already answered, that answer again while its session is open (a client
/// that retries a new session gets the one it made).
pub fn create(server: &Server, body: &Value, key: Option<&str>) -> Reply {
    if let Some(key) = key {
        let replies = lock(&server.sessions.replies);
        if let Some((_, reply)) = replies.iter().find(|(k, _)| k == key) {
            let id = reply["sessionId"].as_str().unwrap_or("");
            if lock(&server.sessions.open).contains_key(id) {
                return Ok(reply.clone());
            }
        }
    }
    let reply = open(server, body)?;
    if let Some(key) = key {
        let mut replies = lock(&server.sessions.replies);
        if replies.len() >= KEPT_REPLIES {
            replies.pop_front();
        }
        replies.push_back((key.to_string(), reply.clone()));
    }
    Ok(reply)
}

fn open(server: &Server, body: &Value) -> Reply {
    let asked = capabilities::read(body)?;
    let most = server.options.max_sessions;
    let sessions = &server.sessions;
    let taken = sessions.opening.fetch_add(1, Ordering::SeqCst);
    let slot = Slot(&sessions.opening);
    if taken + lock(&sessions.open).len() >= most {
        return Err(not_created(format!(
            "{most} sessions are open already (the server's --max-sessions): delete one (driver.quit()) or wait for an idle one to time out"
        )));
    }
    let settings = &server.options.settings;
    if let Some(udid) = &asked.udid {
        capabilities::udid_allowed(udid, settings.device.as_deref())?;
    }
    let device = asked.udid.clone().or_else(|| settings.device.clone());
    let shown = device.clone().unwrap_or_else(|| "the attached phone".into());
    // A virtual phone is opened afresh for each session; any other phone is shared.
    let own_phone =
        matches!(DeviceSpec::parse(device.as_deref()), DeviceSpec::Sim | DeviceSpec::SimIos | DeviceSpec::SimHarmony);
    let holds = (!own_phone).then(|| shown.clone());
    let mut hold = match &holds {
        Some(key) => sessions.hold(key).map_err(|other| {
            let who = if other.is_empty() { "a session being opened".to_string() } else { format!("session {other}") };
            not_created(format!("{} is in {who} already: delete that session first (driver.quit())", clipped(key, 120)))
        })?,
        None => Hold { sessions, device: None },
    };
    let mut settings = settings.clone();
    settings.device = device;
    let mut session = Session::open(&settings).map_err(|e| {
        not_created(format!("cannot open {}: {}", clipped(&shown, 120), codeact_base::error_text::full_message(&e)))
    })?;
    let platform = session.platform();
    capabilities::platform_matches(asked.platform.as_deref(), platform)?;
    let id = codeact_base::token::new_token().map_err(|e| not_created(format!("no session id could be made: {e}")))?;
    let id: String = id.chars().take(32).collect();
    let device_name = session.device_name();
    let answered = capabilities::answered(&asked, platform, &device_name);
    let record = open_record(server, &id, &device_name);
    let mut wd = WdSession::new(id.clone(), session, answered.clone(), record);
    if let Some(idle) = asked.idle {
        wd.idle = idle;
    } else {
        wd.idle = server.options.idle;
    }
    start_app(&mut wd, &asked)?;
    if let Some(device) = hold.device.take() {
        lock(&sessions.held).insert(device, id.clone());
    }
    let entry = Entry { session: Arc::new(Mutex::new(wd)), capabilities: answered.clone() };
    lock(&sessions.open).insert(id.clone(), entry);
    drop(slot);
    Ok(json!({"sessionId": id, "capabilities": answered}))
}

/// The session's run folder, or none (said in the log) when it cannot be made.
fn open_record(server: &Server, id: &str, device: &str) -> Option<Record> {
    let out = &server.options.out;
    let dir = codeact_record::trajectory::new_run_dir(out, &format!("webdriver {}", &id[..id.len().min(8)]));
    match Record::create(Door::Webdriver, &dir, &format!("session {id}"), device, server.options.traces.as_deref()) {
        Ok(record) => Some(record),
        Err(e) => {
            tracing::warn!(
                "codeact serve: session {id} is not recorded: {}",
                codeact_base::error_text::full_message(&e)
            );
            None
        }
    }
}

/// The app the capabilities name, started as the session's first steps: stopped
/// first unless `appium:noReset`, its data cleared first with `appium:fullReset`
/// (a sensitive act: the gate asks, as for any script).
fn start_app(wd: &mut WdSession, asked: &Asked) -> Result<(), Failure> {
    let Some(app) = &asked.app else { return Ok(()) };
    let mut calls = Vec::new();
    if asked.full_reset {
        calls.push(ToolCall::clear_app_data(app));
    } else if !asked.no_reset {
        calls.push(ToolCall::stop_app(app));
    }
    calls.push(match &asked.activity {
        Some(activity) => ToolCall::start_app_at(app, activity),
        None => ToolCall::start_app(app),
    });
    let result = wd.run("POST /session", &calls, Screen::Live);
    match result.error {
        None => Ok(()),
        Some(e) => Err(not_created(format!("the app {} did not start: {}", clipped(app, 120), e.message))),
    }
}
