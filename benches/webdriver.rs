//! `codeact serve --webdriver` on the virtual phone: the same flow — add a note in
//! the Notes app (open the editor by its description, type a title and a body,
//! save, read the new note's text back) — driven element by element as an Appium
//! client drives it (a find and an act per step: ten HTTP requests) and as one
//! `execute_driver` request carrying the flow as Rhai. Prints the requests each way
//! takes and the median wall time of the flow (the session's opening and closing
//! left out), over fresh sessions. Then what secrets cost a long-running server:
//! a request's time and the server's memory on a fresh server, after sessions
//! that sent hundreds of large scripts marked `X-Appium-Is-Sensitive` have ended,
//! and inside a session as the secrets it was lent grow. Run with `cargo bench
//! --bench webdriver` (`-- --rounds N`; under `cargo test` one round as a smoke test).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

struct Server {
    child: std::process::Child,
    port: u16,
    token: String,
    requests: usize,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn start(dir: &std::path::Path) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_codeact"))
            .args(["serve", "--webdriver", "-d", "sim", "--port", "0"])
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("codeact serve");
        let mut reader = BufReader::new(child.stderr.take().expect("stderr"));
        let mut line = String::new();
        reader.read_line(&mut line).expect("the server's first line");
        std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
        let url = line.split_whitespace().find(|w| w.starts_with("http://")).expect("the URL").to_string();
        let (port, token) = url.trim_start_matches("http://127.0.0.1:").split_once('/').expect("port/token");
        Server { child, port: port.parse().expect("port"), token: token.to_string(), requests: 0 }
    }

    fn call(&mut self, method: &str, path: &str, body: &Value) -> Value {
        self.call_with(method, path, body, "")
    }

    /// The server process's resident memory, in MiB.
    fn rss_mib(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        let kib: f64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(f64::NAN);
        kib / 1024.0
    }

    fn call_with(&mut self, method: &str, path: &str, body: &Value, headers: &str) -> Value {
        self.requests += 1;
        let body = if body.is_null() { String::new() } else { body.to_string() };
        let mut s = std::net::TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(60))).expect("timeout");
        let head = format!(
            "{method} /{}{path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\nContent-Type: application/json\r\n{headers}Content-Length: {}\r\n\r\n{body}",
            self.token,
            self.port,
            body.len()
        );
        s.write_all(head.as_bytes()).expect("send");
        let mut answer = String::new();
        s.read_to_string(&mut answer).expect("read");
        let json = answer.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
        let value: Value = serde_json::from_str(json).expect("JSON");
        assert!(answer.starts_with("HTTP/1.1 200"), "{method} {path}: {value}");
        value["value"].clone()
    }

    fn session(&mut self) -> String {
        let caps = json!({"capabilities": {"alwaysMatch": {"platformName": "Android", "appium:appPackage": "com.example.notes"}}});
        self.call("POST", "/session", &caps)["sessionId"].as_str().expect("id").to_string()
    }

    fn find(&mut self, id: &str, using: &str, value: &str) -> String {
        let found = self.call("POST", &format!("/session/{id}/element"), &json!({"using": using, "value": value}));
        found[ELEMENT].as_str().expect("an element").to_string()
    }
}

/// The flow element by element; its text at the end.
fn one_by_one(server: &mut Server, id: &str) -> String {
    let new_note = server.find(id, "accessibility id", "New note");
    server.call("POST", &format!("/session/{id}/element/{new_note}/click"), &json!({}));
    let title = server.find(id, "id", "note_title");
    server.call("POST", &format!("/session/{id}/element/{title}/value"), &json!({"text": "Shopping"}));
    let body = server.find(id, "id", "note_body");
    server.call("POST", &format!("/session/{id}/element/{body}/value"), &json!({"text": "milk, eggs"}));
    let save = server.find(id, "xpath", "//*[@text='Save']");
    server.call("POST", &format!("/session/{id}/element/{save}/click"), &json!({}));
    let note = server.find(id, "xpath", "//*[@text='Shopping']");
    server.call("GET", &format!("/session/{id}/element/{note}/text"), &Value::Null).as_str().unwrap_or("").to_string()
}

const FLOW: &str = r#"tap(#{desc: "New note"});
set_text(#{id: "note_title"}, "Shopping");
set_text(#{id: "note_body"}, "milk, eggs");
tap(#{text: "Save"});
wait_for(#{text: "Shopping"}).text"#;

/// The flow as one execute_driver request; its text at the end.
fn in_one(server: &mut Server, id: &str) -> String {
    let answer =
        server.call("POST", &format!("/session/{id}/appium/execute_driver"), &json!({"script": FLOW, "type": "rhai"}));
    answer["result"].as_str().unwrap_or("").to_string()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let smoke = args.iter().any(|a| a == "--test") || !args.iter().any(|a| a == "--bench");
    let rounds = args
        .iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(if smoke { 1 } else { 7 });
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut server = Server::start(dir.path());
    println!("the Notes flow on `codeact serve --webdriver -d sim`, {rounds} fresh sessions each way");
    println!("| way | HTTP requests | median ms |");
    println!("|---|---:|---:|");
    for (way, run) in [
        ("element by element", one_by_one as fn(&mut Server, &str) -> String),
        ("one execute_driver", in_one as fn(&mut Server, &str) -> String),
    ] {
        let mut times = Vec::new();
        let mut requests = 0;
        for _ in 0..rounds {
            let id = server.session();
            let before = server.requests;
            let started = Instant::now();
            let text = run(&mut server, &id);
            times.push(started.elapsed().as_secs_f64() * 1000.0);
            requests = server.requests - before;
            assert_eq!(text, "Shopping", "{way}");
            server.call("DELETE", &format!("/session/{id}"), &Value::Null);
        }
        println!("| {way} | {requests} | {:.0} |", median(times));
    }
    secrets(rounds, smoke);
}

/// A large script sent as sensitive: `literals` strings of its own (each a secret
/// the session masks), about 100 bytes each.
fn sensitive_script(n: usize, literals: usize) -> String {
    let mut s = String::new();
    for k in 0..literals {
        s.push_str(&format!("\"secret-{n}-{k}-{}\";\n", "x".repeat(80)));
    }
    s.push('1');
    s
}

const SENSITIVE: &str = "X-Appium-Is-Sensitive: true\r\n";

/// One ordinary request's median time on session `id` (a find and a page source).
fn a_request_ms(server: &mut Server, id: &str, rounds: usize) -> f64 {
    let mut times = Vec::new();
    for _ in 0..rounds.max(3) {
        let started = Instant::now();
        server.call("GET", &format!("/session/{id}/source"), &Value::Null);
        server.find(id, "accessibility id", "New note");
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    median(times)
}

/// What a server's history of sensitive scripts costs its next session.
fn secrets(rounds: usize, smoke: bool) {
    let (sessions, scripts, literals) = if smoke { (1, 2, 20) } else { (20, 10, 1000) };
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut server = Server::start(dir.path());
    let id = server.session();
    let fresh = a_request_ms(&mut server, &id, rounds);
    server.call("DELETE", &format!("/session/{id}"), &Value::Null);
    let rss_fresh = server.rss_mib();
    let mut n = 0;
    for _ in 0..sessions {
        let id = server.session();
        for _ in 0..scripts {
            n += 1;
            let body = json!({"script": sensitive_script(n, literals), "type": "rhai"});
            server.call_with("POST", &format!("/session/{id}/appium/execute_driver"), &body, SENSITIVE);
        }
        server.call("DELETE", &format!("/session/{id}"), &Value::Null);
    }
    let rss_after = server.rss_mib();
    let id = server.session();
    let after = a_request_ms(&mut server, &id, rounds);
    println!();
    println!(
        "a server's history of sensitive scripts: {} scripts of {} KiB ({} secrets each) in {sessions} sessions, all ended",
        sessions * scripts,
        sensitive_script(0, literals).len() / 1024,
        literals
    );
    println!("| | a request, median ms | the server's RSS, MiB |");
    println!("|---|---:|---:|");
    println!("| fresh server | {fresh:.1} | {rss_fresh:.0} |");
    println!("| after the sessions ended | {after:.1} | {rss_after:.0} |");
    // Inside one session: the cost of a request as its secrets grow.
    println!();
    println!("| secrets lent to the session | a request, median ms |");
    println!("|---:|---:|");
    let mut lent = 0;
    for target in [0, literals, literals * 10] {
        while lent < target {
            n += 1;
            let body = json!({"script": sensitive_script(n, literals), "type": "rhai"});
            server.call_with("POST", &format!("/session/{id}/appium/execute_driver"), &body, SENSITIVE);
            lent += literals;
        }
        println!("| {lent} | {:.1} |", a_request_ms(&mut server, &id, rounds));
    }
    server.call("DELETE", &format!("/session/{id}"), &Value::Null);
}
