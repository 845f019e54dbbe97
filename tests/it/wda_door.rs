//! The virtual phone's iOS front door (`codeact sim --platform ios`: the same world
//! as a WebDriverAgent HTTP server), driven by a client codeact did not write: the
//! `facebook-wda` Python package runs `tests/clients/facebook_wda.py` (status, a
//! session, the page source, taps that flip the Wi-Fi switch, typing, apps, home,
//! the screenshot's size and scale, a WDA error). Then hostile requests: each gets
//! WDA's error envelope and status, the door keeps serving, and nothing without its
//! token gets through.

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
    for check in [
        "ok session",
        "ok a tap turns it off",
        "ok typed into the focused field",
        "ok the pasteboard keeps what was set",
        "ok screenshot",
        "ok page source of com.codeact.maps",
        "ok the sign-up form says what is wrong",
    ] {
        assert!(out.contains(check), "{check}: {out}");
    }
}

#[test]
fn hostile_requests_get_wdas_errors_and_the_door_keeps_serving() {
    let sim = common::SimProcess::start(&["--platform", "ios"]);
    let base = format!("http://{}", sim.addr);
    // reqwest is built without a TLS provider of its own (codeact installs ring).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::blocking::Client::builder()
        .timeout(std::time::Duration::from_secs(10))
        // A refused body closes its connection: each request on a connection of its own.
        .pool_max_idle_per_host(0)
        .build()
        .expect("client");
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
    // A body past the limit is refused: a 413, or the connection closed while it is
    // still being sent (which of the two depends on timing).
    let huge = format!(r#"{{"value": ["{}"]}}"#, "x".repeat(3 * 1024 * 1024));
    match http.post(format!("{base}/session/{id}/wda/keys")).body(huge).send() {
        Ok(reply) => assert!(reply.status().is_client_error(), "{}", reply.status()),
        Err(e) => assert!(e.is_request() || e.is_body(), "{e}"),
    }
    let (status, json) = send(Method::POST, &format!("/session/{id}/wda/keys"), r#"{"value": ["hi"]}"#);
    assert_eq!((status, json["value"]["error"].as_str()), (400, Some("invalid element state")), "{json}");
    let (status, _) = send(Method::GET, "/status", "");
    assert_eq!(status, 200, "still serving");
    // Without the token that ends its URL, the door drives nothing.
    let (host, token) = sim.addr.split_once('/').expect("the URL carries a token");
    for path in ["/status".to_string(), format!("/{}x/status", token), "/codeact/simctl".to_string()] {
        let reply = http.post(format!("http://{host}{path}")).body(r#"{"args": "reset"}"#).send().expect("a reply");
        assert_eq!(reply.status().as_u16(), 401, "{path}");
        let json: serde_json::Value = reply.json().expect("an envelope");
        assert_eq!(json["value"]["error"], "unauthorized", "{path}");
    }
}

/// How the hostile WebDriverAgent misbehaves.
#[derive(Clone, Copy, Debug)]
enum Hostile {
    /// Reads the request and never answers.
    Hangs,
    /// Sends half a status line and closes.
    ClosesMidReply,
    /// 200 with a body that is not JSON.
    GarbageJson,
    /// 401 with a plain-text body.
    Unauthorized,
    /// 500 in WDA's error envelope.
    WdaError,
    /// Announces 4 GiB and streams zeros.
    Huge,
    /// Answers the connection's requests, then serves page source that is not XML.
    GarbageSource,
}

/// A loopback server that answers WDA's connect requests well (for
/// `GarbageSource`) or misbehaves from the first request on.
fn hostile_wda(mode: Hostile) -> String {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut first = String::new();
                let _ = reader.read_line(&mut first);
                let mut length = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0u8; length.min(1 << 20)];
                let _ = std::io::Read::read_exact(&mut reader, &mut body);
                let mut stream = stream;
                let reply = |stream: &mut std::net::TcpStream, status: &str, body: &str| {
                    let _ = write!(
                        stream,
                        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                };
                let path = first.split_whitespace().nth(1).unwrap_or("").to_string();
                let good = |path: &str| match path {
                    "/status" => Some(r#"{"value": {"ready": true}, "sessionId": null}"#.to_string()),
                    "/session" => Some(r#"{"value": {"sessionId": "S1"}, "sessionId": "S1"}"#.to_string()),
                    "/wda/screen" => Some(r#"{"value": {"scale": 3}, "sessionId": "S1"}"#.to_string()),
                    "/window/size" => {
                        Some(r#"{"value": {"width": 360, "height": 800}, "sessionId": "S1"}"#.to_string())
                    }
                    _ => None,
                };
                match mode {
                    Hostile::Hangs => std::thread::sleep(std::time::Duration::from_secs(60)),
                    Hostile::ClosesMidReply => {
                        let _ = stream.write_all(b"HTTP/1.1 200 O");
                    }
                    Hostile::GarbageJson => reply(&mut stream, "200 OK", "<<not json>>"),
                    Hostile::Unauthorized => reply(&mut stream, "401 Unauthorized", "who are you?"),
                    Hostile::WdaError => reply(
                        &mut stream,
                        "500 Internal Server Error",
                        r#"{"value": {"error": "unknown error", "message": "the runner crashed"}, "sessionId": null}"#,
                    ),
                    Hostile::Huge => {
                        let _ =
                            stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 4294967296\r\n\r\n{\"value\": \"");
                        let zeros = vec![b'0'; 1 << 16];
                        while stream.write_all(&zeros).is_ok() {}
                    }
                    Hostile::GarbageSource => match good(&path) {
                        Some(body) => reply(&mut stream, "200 OK", &body),
                        None => reply(
                            &mut stream,
                            "200 OK",
                            r#"{"value": "<XCUIElementTypeApplication <<<", "sessionId": "S1"}"#,
                        ),
                    },
                }
            });
        }
    });
    format!("ios:http://{addr}")
}

/// codeact's WebDriverAgent client against servers that hang, close mid-reply,
/// send garbage, refuse, fail or flood: each run ends within the device timeout
/// with one line that says what happened, never a hang, a panic or a flood read.
#[test]
fn the_ios_client_fails_cleanly_on_a_hostile_server() {
    let script = common::look_script("hostile-wda");
    let cases = [
        (Hostile::Hangs, "timed out"),
        (Hostile::ClosesMidReply, "does not answer"),
        (Hostile::GarbageJson, "HTTP 200"),
        (Hostile::Unauthorized, "HTTP 401"),
        (Hostile::WdaError, "the runner crashed"),
        (Hostile::Huge, "bytes"),
        (Hostile::GarbageSource, "could not be read"),
    ];
    for (mode, says) in cases {
        common::fails_cleanly(&script, &hostile_wda(mode), &[], &format!("{mode:?}"), says);
    }
    if let Some(dir) = script.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
}
