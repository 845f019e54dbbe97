//! A worker's end: stopping and reaping it, keeping the tail of what it printed on
//! stderr, and saying why it died (its memory cap, its stack, its CPU cap, a
//! protocol break, a signal) in one clear line with the limit it hit.

use std::io::Read;
use std::process::{Child, ExitStatus};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::worker::exit;
use crate::sandbox::{ErrorKind, Limit, Limits};

/// Kept of the worker's stderr, to say why it died.
const STDERR_TAIL: usize = 8 * 1024;

/// Ends a worker (it holds nothing that needs a clean exit) and reaps it.
pub(super) fn stop(child: &mut Child, stderr_thread: &mut Option<JoinHandle<()>>) -> Option<ExitStatus> {
    let status = match child.try_wait() {
        Ok(Some(status)) => Some(status),
        _ => {
            let _ = child.kill();
            child.wait().ok()
        }
    };
    if let Some(t) = stderr_thread.take() {
        let _ = t.join();
    }
    status
}

/// Reads the worker's stderr, keeping its last few kilobytes.
pub(super) fn keep_tail(mut stderr: std::process::ChildStderr, tail: Arc<Mutex<Vec<u8>>>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        while let Ok(n) = stderr.read(&mut chunk) {
            if n == 0 {
                break;
            }
            let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
            t.extend_from_slice(&chunk[..n]);
            if t.len() > STDERR_TAIL {
                let cut = t.len() - STDERR_TAIL;
                t.drain(..cut);
            }
        }
    })
}

pub(super) fn tail_text(tail: &Mutex<Vec<u8>>) -> String {
    let t = tail.lock().unwrap_or_else(|e| e.into_inner());
    String::from_utf8_lossy(&t).trim().to_string()
}

/// Why a worker died, from how it ended and the last thing it printed.
pub(super) fn explain(status: Option<ExitStatus>, stderr: &str, l: &Limits) -> (String, ErrorKind) {
    use std::os::unix::process::ExitStatusExt;
    let signal = status.and_then(|s| s.signal());
    if stderr.contains("memory allocation of") || stderr.contains("out of memory") {
        return (
            format!("the snippet used more than {} MiB of memory and was stopped", l.max_memory_mb),
            ErrorKind::Limit { limit: Limit::Memory },
        );
    }
    if stderr.contains("has overflowed its stack") {
        return (
            "stack overflow in the snippet (values or calls nested too deeply) and it was stopped".to_string(),
            ErrorKind::Limit { limit: Limit::Stack },
        );
    }
    if signal == Some(nix::sys::signal::Signal::SIGXCPU as i32) {
        return (
            "the snippet used more CPU time than its time limit allows and was stopped".to_string(),
            ErrorKind::Limit { limit: Limit::Time },
        );
    }
    let how = match (status.and_then(|s| s.code()), signal) {
        (Some(exit::PROTOCOL), _) => "it broke the protocol".to_string(),
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(sig)) => {
            nix::sys::signal::Signal::try_from(sig).map_or(format!("signal {sig}"), |s| format!("{s}"))
        }
        _ => "for no reason it gave".to_string(),
    };
    let last = stderr.lines().last().map(|l| codeact_base::terminal::clean(l)).unwrap_or_default();
    let said = if last.is_empty() { String::new() } else { format!(": {last}") };
    (format!("the sandbox worker died ({how}){said}"), ErrorKind::Crashed)
}
