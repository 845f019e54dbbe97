//! `--device appium:URL` against hostile W3C servers (raw TCP on 127.0.0.1, written
//! here): one that never answers, one that answers garbage, one whose page source is
//! larger than codeact reads or an XML bomb, one that redirects (with the
//! credentials in the URL codeact was given), and one whose session vanishes. Each
//! ends in a clear error in bounded time, the process survives, and the key in the
//! URL appears nowhere in what codeact prints.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

const KEY: &str = "hunter2-appium-key";

/// What the server does with a request: its method, path and body → the raw reply
/// (`None`: hang up without a word; a reply of "" hangs forever).
pub(crate) type Behave = fn(&str, &str, &str) -> Option<Vec<u8>>;

pub(crate) fn json_reply(status: &str, body: &str) -> Option<Vec<u8>> {
    Some(format!("HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).into_bytes())
}

/// A session that works: create, its capabilities, the window's size.
pub(crate) fn session_ok(method: &str, path: &str, _body: &str) -> Option<Vec<u8>> {
    match (method, path) {
        ("POST", "/session") => {
            json_reply("200 OK", r#"{"value":{"sessionId":"s1","capabilities":{"platformName":"Android"}}}"#)
        }
        ("GET", "/session/s1") => json_reply("200 OK", r#"{"value":{"platformName":"Android"}}"#),
        ("GET", "/session/s1/window/rect") => {
            json_reply("200 OK", r#"{"value":{"x":0,"y":0,"width":1080,"height":2400}}"#)
        }
        ("DELETE", _) => json_reply("200 OK", r#"{"value":null}"#),
        _ => None,
    }
}

/// Serves `behave` on a free port until the test ends.
pub(crate) fn serve(behave: Behave) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer(stream, behave));
        }
    });
    port
}

fn answer(stream: TcpStream, behave: Behave) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or("").to_string(), parts.next().unwrap_or("").to_string());
    let mut length = 0;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).is_err() || header.trim().is_empty() {
            break;
        }
        if let Some(v) = header.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    let mut stream = stream;
    match behave(&method, &path, &String::from_utf8_lossy(&body)) {
        Some(reply) if reply.is_empty() => std::thread::sleep(Duration::from_secs(600)),
        Some(reply) => {
            let _ = stream.write_all(&reply);
        }
        None => {}
    }
}

/// `codeact exec` of a script that reads the screen, against the server on `port`.
fn exec_against(port: u16) -> (Option<i32>, String, Duration) {
    let dir = tempfile::tempdir().expect("dir");
    let script = dir.path().join("look.rhai");
    std::fs::write(&script, "refresh();\nprint(ui_state.len());\n").expect("script");
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "--timeout", "3", "--device"])
        .arg(format!("appium:http://ci:{KEY}@127.0.0.1:{port}"))
        .arg(&script)
        .current_dir(dir.path())
        .output()
        .expect("codeact exec");
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!said.contains(KEY), "the key is shown nowhere: {said}");
    (out.status.code(), said, started.elapsed())
}

#[test]
fn hostile_webdriver_servers_end_in_clear_errors_in_bounded_time() {
    let cases: [(&str, Behave, &str); 9] = [
        ("hangs", |_, _, _| Some(Vec::new()), "timed out"),
        (
            "hangs after its session",
            |m, p, b| match p {
                "/session/s1/source" => Some(Vec::new()),
                _ => session_ok(m, p, b),
            },
            "timed out",
        ),
        (
            "garbage",
            |_, _, _| Some(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello".to_vec()),
            "HTTP 200",
        ),
        (
            "redirects",
            |_, _, _| {
                Some(format!("HTTP/1.1 302 Found\r\nLocation: http://ci:{KEY}@127.0.0.2:9/\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").into_bytes())
            },
            "HTTP 302",
        ),
        (
            "huge source",
            |m, p, b| match p {
                "/session/s1/source" => {
                    let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 104857600\r\nConnection: close\r\n\r\n{\"value\":\"";
                    let mut reply = head.as_bytes().to_vec();
                    reply.resize(head.len() + 100 * 1024 * 1024, b'a');
                    Some(reply)
                }
                _ => session_ok(m, p, b),
            },
            "more than",
        ),
        (
            "xml bomb",
            |m, p, b| match p {
                "/session/s1/source" => {
                    let mut bomb =
                        String::from("<?xml version=\\\"1.0\\\"?><!DOCTYPE h [<!ENTITY a \\\"aaaaaaaaaa\\\">");
                    for level in 1..9 {
                        let prev = if level == 1 { "a".to_string() } else { format!("a{}", level - 1) };
                        bomb.push_str(&format!("<!ENTITY a{level} \\\"{}\\\">", format!("&{prev};").repeat(10)));
                    }
                    bomb.push_str("]><hierarchy><node text=\\\"&a8;\\\" bounds=\\\"[0,0][1,1]\\\"/></hierarchy>");
                    json_reply("200 OK", &format!("{{\"value\":\"{bomb}\"}}"))
                }
                _ => session_ok(m, p, b),
            },
            "PASS",
        ),
        (
            "a session id that leads out of its path",
            |m, p, b| match (m, p) {
                ("POST", "/session") => json_reply(
                    "200 OK",
                    r#"{"value":{"sessionId":"../../admin?x=","capabilities":{"platformName":"Android"}}}"#,
                ),
                _ => session_ok(m, p, b),
            },
            "open a session",
        ),
        (
            "a session id with a percent escape",
            |m, p, b| match (m, p) {
                ("POST", "/session") => json_reply("200 OK", r#"{"value":{"sessionId":"s1%2F..%2Fx"}}"#),
                _ => session_ok(m, p, b),
            },
            "open a session",
        ),
        (
            "session vanishes",
            |m, p, b| match p {
                "/session/s1/source" => json_reply(
                    "404 Not Found",
                    r#"{"value":{"error":"invalid session id","message":"A session is either terminated or not started"}}"#,
                ),
                _ => session_ok(m, p, b),
            },
            "is gone",
        ),
    ];
    for (name, behave, expected) in cases {
        let (code, said, took) = exec_against(serve(behave));
        // The bomb's entities are declared outside the hierarchy codeact reads: they
        // are never expanded, and the screen reads as the one element it is.
        let wanted = if name == "xml bomb" { Some(0) } else { Some(2) };
        assert_eq!(code, wanted, "{name}: an error, not a crash: {said}");
        assert!(said.contains(expected), "{name}: {said}");
        // A session's start may take six request timeouts (3 s here); a request, one.
        let bound = if name == "hangs" { 30 } else { 20 };
        assert!(took < Duration::from_secs(bound), "{name}: bounded ({took:?})");
    }
}

/// A server that refuses every session, saying what it was asked for.
fn echoes_capabilities(method: &str, path: &str, body: &str) -> Option<Vec<u8>> {
    let said =
        serde_json::json!({"value": {"error": "session not created", "message": format!("{method} {path} {body}")}});
    json_reply("500 Internal Server Error", &said.to_string())
}

#[test]
fn capabilities_come_from_caps_then_codeact_toml() {
    let port = serve(echoes_capabilities);
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.rhai"), "refresh();").expect("script");
    std::fs::write(dir.path().join("codeact.toml"), "[appium]\n\"appium:udid\" = \"from-toml\"\n").expect("toml");
    std::fs::write(dir.path().join("caps.json"), r#"{"platformName": "Android", "appium:udid": "from-flag"}"#)
        .expect("caps");
    let exec = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
            .args(["exec", "a.rhai", "--timeout", "5", "--device", &format!("appium:http://127.0.0.1:{port}")])
            .args(extra)
            .current_dir(dir.path())
            .env_remove("CODEACT_APPIUM_CAPS")
            .output()
            .expect("codeact exec");
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let from_toml = exec(&[]);
    assert!(from_toml.contains("from-toml") && from_toml.contains("check the capabilities"), "{from_toml}");
    let from_flag = exec(&["--caps", "caps.json"]);
    assert!(from_flag.contains("from-flag") && !from_flag.contains("from-toml"), "{from_flag}");
    std::fs::write(dir.path().join("list.json"), "[1, 2]").expect("list");
    let bad = exec(&["--caps", "list.json"]);
    assert!(bad.contains("list.json are not a JSON object"), "{bad}");
}
