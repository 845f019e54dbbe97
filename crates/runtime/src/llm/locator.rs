//! A chat model as the tools' vision model (`#{ai: ...}`, `locate()`): the blocking
//! [`Vision`] callback the tools call, built on the async client. The requests run on
//! a small runtime of the locator's own, so a tool call on any thread — the agent's
//! blocking pool, a script's session, the REPL — can wait for one, up to the call's
//! deadline and no longer, and a stopped snippet stops waiting.
//!
//! Not the question or reading the answer (`locate::ai`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use codeact_platform::locate::ai::{Vision, VisionError, VisionReply, VisionRequest};

use super::client::{LlmClient, Message, Role};
use super::error::LlmError;

/// How often a wait looks whether the snippet was stopped.
const STOP_POLL: Duration = Duration::from_millis(50);

/// The runtime the requests run on; shut down without waiting when the last user
/// goes (dropping a runtime inside another one's task would panic).
struct Runtime(Option<tokio::runtime::Runtime>);

impl Drop for Runtime {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

/// `client` as a vision model for locating.
pub fn vision(client: LlmClient) -> Result<Vision, LlmError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("codeact-locator")
        .enable_all()
        .build()
        .map_err(LlmError::Runtime)?;
    let runtime = Arc::new(Runtime(Some(runtime)));
    let client = Arc::new(client);
    Ok(Arc::new(move |request: &VisionRequest| ask(&runtime, &client, request)))
}

fn ask(runtime: &Runtime, client: &Arc<LlmClient>, request: &VisionRequest) -> Result<VisionReply, VisionError> {
    let Some(rt) = &runtime.0 else { return Err(VisionError::Stopped) };
    let left = request.deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(VisionError::TimedOut { secs: 0.0 });
    }
    let messages =
        [Message { image_png: Some(Arc::from(request.png)), ..Message::text(Role::User, request.prompt.to_string()) }];
    let (tx, rx) = std::sync::mpsc::channel();
    let asking = client.clone();
    let task = rt.spawn(async move {
        let _ = tx.send(asking.complete(&messages).await);
    });
    loop {
        if (request.stopped)() {
            task.abort();
            return Err(VisionError::Stopped);
        }
        let now = Instant::now();
        if now >= request.deadline {
            task.abort();
            return Err(VisionError::TimedOut { secs: left.as_secs_f64() });
        }
        match rx.recv_timeout(STOP_POLL.min(request.deadline - now)) {
            Ok(Ok(reply)) => return Ok(VisionReply { text: reply.text, model: client.model().to_string() }),
            Ok(Err(e)) => return Err(VisionError::Failed { message: codeact_base::error_text::full_message(&e) }),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(VisionError::Failed { message: "the request ended without an answer".into() });
            }
        }
    }
}
