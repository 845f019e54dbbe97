//! `POST /session/:id/appium/execute_driver` with `type: "rhai"`: a whole flow in
//! one request, run in the session's sandbox under every limit (operations, time,
//! memory, output) with the persona's tools — the session's variables and `fn`s
//! persist between requests, as a script's between snippets. The reply is Appium's
//! shape: `{"result": <the script's last value as JSON>, "logs": {"log": [what it
//! printed], "warn": [], "error": []}}`. A script that fails answers W3C's
//! `unknown error` (HTTP 500) with the error's message, line and column; another
//! `type` (Appium's `webdriverio`) is refused, saying which works. The script is
//! recorded as a step, so the run folder's `session.rhai` replays it (sent with
//! `X-Appium-Is-Sensitive`, the records hold `[key]` for each of its strings and
//! comments, for as long as the session lives). Not the sandbox (the engine's).

use std::time::Duration;

use serde_json::{Value, json};

use super::session::WdSession;
use super::wire::{Failure, Reply, clipped, invalid};

/// The most characters a script may hold.
const MOST_SCRIPT: usize = 256 * 1024;

pub fn execute(s: &mut WdSession, body: &Value, sensitive: bool) -> Reply {
    let script = body.get("script").and_then(Value::as_str).ok_or_else(|| invalid("'script' must be a string"))?;
    let kind = body.get("type").and_then(Value::as_str).unwrap_or("webdriverio");
    if !kind.eq_ignore_ascii_case("rhai") {
        return Err(invalid(format!(
            "codeact runs execute_driver scripts of type \"rhai\", not {}: driver.execute_driver(script, 'rhai') (Appium's Python client), driver.executeDriverScript(script, 'rhai') (WebdriverIO)",
            clipped(kind, 40)
        )));
    }
    if script.len() > MOST_SCRIPT {
        return Err(invalid(format!("the script is longer than {} KiB", MOST_SCRIPT / 1024)));
    }
    // Appium's own `timeout` (ms) can only shorten the sandbox's time limit.
    let timeout = body.get("timeout").and_then(Value::as_f64).filter(|t| t.is_finite() && *t > 0.0);
    let limit = s.session.limits().timeout();
    if let Some(ms) = timeout
        && Duration::from_millis(ms as u64) < limit
    {
        return Err(invalid(format!(
            "timeout {ms} ms is shorter than the session's time limit ({} ms); codeact cannot shorten it per script — leave timeout out, or start the server with a shorter --limit timeout_ms=MS",
            limit.as_millis()
        )));
    }
    if sensitive {
        // `X-Appium-Is-Sensitive`: the script's strings and comments are blotted
        // out of every record (its code, what its calls typed and showed) while
        // the session lives.
        super::sensitive::mask_script(s, script)?;
    }
    let ran = s.run_json("POST /appium/execute_driver", script);
    let logs: Vec<&str> = ran.output.lines().collect();
    if let Some(e) = &ran.error {
        let place = match (e.line, e.column) {
            (Some(l), Some(c)) => format!(" (line {l}, column {c})"),
            (Some(l), None) => format!(" (line {l})"),
            _ => String::new(),
        };
        let printed =
            if logs.is_empty() { String::new() } else { format!("; it printed: {}", clipped(&logs.join(" | "), 1000)) };
        return Err(Failure::new("unknown error", format!("the Rhai script failed{place}: {}{printed}", e.message)));
    }
    let result: Value = ran.value.as_deref().and_then(|v| serde_json::from_str(v).ok()).unwrap_or(Value::Null);
    Ok(json!({"result": result, "logs": {"log": logs, "warn": [], "error": []}}))
}
