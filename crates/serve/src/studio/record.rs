//! The recording: with recording on, each act the studio runs (and each assertion
//! added) becomes a line of Rhai — the act with its best unique selector, a
//! `wait_for` before it when the act before changed the screen — and the calls it
//! made are kept for a Maestro flow. Saved below the studio's folder as `.rhai`
//! (what `codeact exec` runs) or `.yaml` (a Maestro flow, through the one flow
//! writer), never over a file unless asked. Not running the acts (`act.rs`).

use std::path::Path;

use axum::http::StatusCode;
use codeact_engine::sandbox::Action;
use serde_json::{Value, json};

use super::state::Studio;
use super::state::{CallResult, Recording};
use codeact_tools::call::ToolCall;

/// The recording as the page shows it.
pub fn shown(studio: &Studio) -> Value {
    let recording = studio.recording();
    json!({"on": recording.on, "lines": recording.lines, "script": recording.script()})
}

/// `{"on": bool, "from_app": bool}` starts or stops recording (starting from the
/// app in front, when asked); `{"clear": true}` empties it.
pub fn control(studio: &Studio, body: &Value) -> CallResult {
    if body.get("clear").and_then(Value::as_bool) == Some(true) {
        *studio.recording() = Recording::default();
        return Ok(shown(studio));
    }
    let on = body
        .get("on")
        .and_then(Value::as_bool)
        .ok_or((StatusCode::BAD_REQUEST, "give {\"on\": true|false}".to_string()))?;
    let from_app = body.get("from_app").and_then(Value::as_bool) == Some(true);
    let app = if on && from_app {
        let obs = studio
            .with_session(|s| s.observe(false))
            .map_err(|e| (StatusCode::BAD_GATEWAY, codeact_base::error_text::full_message(&e)))?;
        Some(obs.phone.package.clone()).filter(|p| !p.is_empty())
    } else {
        None
    };
    let mut recording = studio.recording();
    let starting = on && !recording.on;
    recording.on = on;
    if starting
        && recording.lines.is_empty()
        && let Some(app) = app
    {
        // The script and the flow both start the app: the line, and its call as an
        // action the flow writer reads (`launchApp`).
        let literal = codeact_engine::emit::rhai::string(&app);
        recording.lines.push(ToolCall::start_app(&app).line());
        recording.actions.push(Action {
            tool: "start_app".into(),
            args: vec![literal],
            result: String::new(),
            failure: None,
            started_ms: 0.0,
            duration_ms: 0.0,
            capture: Default::default(),
        });
        recording.app = Some(app);
        recording.screen_changed = true;
    }
    drop(recording);
    Ok(shown(studio))
}

/// `{"path": "tests/wifi.rhai" | "flows/wifi.yaml", "overwrite": bool}`.
pub fn save(studio: &Studio, body: &Value) -> CallResult {
    let path = body.get("path").and_then(Value::as_str).unwrap_or("");
    let bad = || {
        (
            StatusCode::BAD_REQUEST,
            "save to a relative path below the studio's folder, ending in .rhai (a script) or .yaml (a Maestro flow)"
                .to_string(),
        )
    };
    let shown = codeact_base::clip::clip(path, 200);
    let extension = Path::new(path).extension().and_then(|e| e.to_str()).unwrap_or("");
    if path.is_empty() || !matches!(extension, "rhai" | "yaml" | "yml") {
        return Err(bad());
    }
    let recording = studio.recording();
    if recording.lines.is_empty() {
        return Err((StatusCode::BAD_REQUEST, "nothing recorded yet: turn recording on and act".into()));
    }
    let text = match extension {
        "rhai" => recording.script(),
        "yaml" | "yml" => {
            let title = Path::new(path).file_stem().and_then(|s| s.to_str()).unwrap_or("recorded");
            codeact_flows::maestro::export::flow(&recording.actions, recording.app.as_deref(), title).yaml
        }
        _ => return Err(bad()),
    };
    drop(recording);
    let overwrite = body.get("overwrite").and_then(Value::as_bool) == Some(true);
    // Folders made one at a time inside the studio's folder: a link in the way is
    // refused, never followed out of it.
    let target = codeact_base::files::new_below(&studio.options.save_dir, path).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidInput => {
            (StatusCode::BAD_REQUEST, format!("cannot save to {shown}: {e}; save below the studio's folder"))
        }
        _ => (StatusCode::INTERNAL_SERVER_ERROR, format!("cannot save to {shown}: {e}")),
    })?;
    let written = match overwrite {
        true => codeact_base::files::write_replacing(&target, text.as_bytes()),
        false => codeact_base::files::write_new(&target, text.as_bytes()),
    };
    written.map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => {
            (StatusCode::CONFLICT, format!("{shown} exists: save under another name, or overwrite it"))
        }
        _ => (StatusCode::INTERNAL_SERVER_ERROR, format!("cannot write {shown}: {e}")),
    })?;
    Ok(json!({"saved": target.display().to_string(), "bytes": text.len()}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recording_adds_lines_only_while_on() {
        let mut r = Recording::default();
        assert!(!r.add("tap(1, 2);".into(), &[]), "not recording");
        r.on = true;
        assert!(r.add("tap(1, 2);".into(), &[]));
        assert!(r.script().ends_with("tap(1, 2);\n"));
    }
}
