//! The virtual phone's iOS front door (`codeact sim --platform ios`: the same world
//! as a WebDriverAgent HTTP server), driven by a client codeact did not write: the
//! `facebook-wda` Python package runs `tests/clients/facebook_wda.py` (status, a
//! session, the page source, taps that flip the Wi-Fi switch, typing, apps, home,
//! the screenshot's size and scale, a WDA error). Then hostile requests: each gets
//! WDA's error envelope and status, and the door keeps serving.

use std::process::Command;

use crate::common::{self, programs};

#[test]
fn facebook_wda_drives_the_virtual_iphone() {
    let sim = common::SimProcess::start(&["--platform", "ios"]);
    let client = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/clients/facebook_wda.py");
    let ran = Command::new(programs::wda_python())
        .arg(client)
        .arg(format!("http://{}", sim.addr))
        .env("PYTHONWARNINGS", "ignore")
        .output()
        .expect("run the facebook-wda client");
    let out = String::from_utf8_lossy(&ran.stdout);
    let err = String::from_utf8_lossy(&ran.stderr);
    assert!(ran.status.success() && !out.contains("FAIL"), "{out}\n{err}");
    for check in ["ok session", "ok a tap turns it off", "ok typed into the focused field", "ok screenshot"] {
        assert!(out.contains(check), "{check}: {out}");
    }
}

#[test]
fn hostile_requests_get_wdas_errors_and_the_door_keeps_serving() {
    let sim = common::SimProcess::start(&["--platform", "ios"]);
    let base = format!("http://{}", sim.addr);
    // reqwest is built without a TLS provider of its own (codeact installs ring).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http =
        reqwest::blocking::Client::builder().timeout(std::time::Duration::from_secs(10)).build().expect("client");
    let send = |method: reqwest::Method, path: &str, body: &str| {
        let reply = http.request(method, format!("{base}{path}")).body(body.to_string()).send().expect("a reply");
        let status = reply.status().as_u16();
        let json: serde_json::Value = serde_json::from_str(&reply.text().unwrap_or_default()).expect("a JSON envelope");
        (status, json)
    };
    use reqwest::Method;
    let cases: &[(Method, &str, &str, u16, &str)] = &[
        (Method::GET, "/teleport", "", 404, "unknown command"),
        (Method::POST, "/session/NOPE/wda/tap", r#"{"x": 1, "y": 2}"#, 404, "invalid session id"),
        (Method::POST, "/session", "not json", 500, "session not created"),
        (
            Method::POST,
            "/session",
            r#"{"capabilities": {"alwaysMatch": {"bundleId": "com.nowhere"}}}"#,
            500,
            "session not created",
        ),
        (Method::GET, "/source?format=json", "", 400, "invalid argument"),
        (Method::POST, "/wda/homescreen", "{", 200, ""),
    ];
    for (method, path, body, status, code) in cases {
        let (got, json) = send(method.clone(), path, body);
        assert_eq!(got, *status, "{method} {path}: {json}");
        assert!(json.get("sessionId").is_some(), "{path}: the envelope names the session: {json}");
        if !code.is_empty() {
            assert_eq!(json["value"]["error"], *code, "{path}: {json}");
        }
    }
    let (_, session) = send(Method::POST, "/session", r#"{"capabilities": {}}"#);
    let id = session["sessionId"].as_str().expect("a session id").to_string();
    let tap = format!("/session/{id}/wda/tap");
    for body in [r#"{"x": "a", "y": 1}"#, r#"{"x": 1e308, "y": -1e308}"#, r#"{"y": 5}"#, "[]"] {
        let (status, json) = send(Method::POST, &tap, body);
        assert!(status == 200 || status == 400, "{body}: {status} {json}");
    }
    let huge = format!(r#"{{"value": ["{}"]}}"#, "x".repeat(3 * 1024 * 1024));
    let reply = http.post(format!("{base}/session/{id}/wda/keys")).body(huge).send().expect("a reply");
    assert!(reply.status().is_client_error(), "a body past the limit is refused: {}", reply.status());
    let (status, json) = send(Method::POST, &format!("/session/{id}/wda/keys"), r#"{"value": ["hi"]}"#);
    assert_eq!((status, json["value"]["error"].as_str()), (400, Some("invalid element state")), "{json}");
    let (status, _) = send(Method::GET, "/status", "");
    assert_eq!(status, 200, "still serving");
}
