//! `codeact serve --webdriver` on the virtual phone: the same flow — add a note in
//! the Notes app (open the editor by its description, type a title and a body,
//! save, read the new note's text back) — driven element by element as an Appium
//! client drives it (a find and an act per step: ten HTTP requests) and as one
//! `execute_driver` request carrying the flow as Rhai. Prints the requests each way
//! takes and the median wall time of the flow (the session's opening and closing
//! left out), over fresh sessions. Run with `cargo bench --bench webdriver`
//! (`-- --rounds N`; under `cargo test` one round as a smoke test).

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
        self.requests += 1;
        let body = if body.is_null() { String::new() } else { body.to_string() };
        let mut s = std::net::TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(60))).expect("timeout");
        let head = format!(
            "{method} /{}{path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
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
}
