//! `codeact mcp` driven by clients codeact did not write: the official MCP Python
//! SDK (`tests/clients/mcp_client.py`) over stdio and over streamable HTTP with the
//! bearer token, and the MCP Inspector's CLI; a message sent in one `run_script`
//! call is in the virtual phone's state (read over ADB); a sensitive action is asked
//! through MCP elicitation; the same three-app task as one script per app and as
//! one call per gesture (`mcp_compare.py`). Then hostile input on the wire itself:
//! malformed JSON-RPC, a request without the token; the server answers each with an
//! error and goes on.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Output, Stdio};

use crate::common::{self, programs};

const CLIENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/clients/mcp_client.py");
const COMPARE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/clients/mcp_compare.py");
const CODEACT: &str = env!("CARGO_BIN_EXE_codeact");
const TOKEN: &str = "test-token-0123456789abcdef";

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("codeact-mcp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

fn python(args: &[&str], cwd: &std::path::Path) -> Output {
    Command::new(programs::mcp_python())
        .args(args)
        .current_dir(cwd)
        .env("PYTHONWARNINGS", "ignore")
        .output()
        .expect("run the MCP Python client")
}

fn passed(out: &Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !text.contains("FAIL"), "{text}\n{err}");
    text
}

fn sent_to_zhang(addr: &str) -> bool {
    let state = common::sim_state(addr);
    state["messages"].as_array().is_some_and(|m| m.iter().any(|m| m["to"] == "张三" && m["text"] == "hello from mcp"))
}

/// `codeact mcp --http 0` in `dir`, with its address once it listens.
struct HttpServer {
    child: Child,
    port: u16,
}

impl HttpServer {
    fn start(dir: &std::path::Path, extra: &[&str]) -> Self {
        let mut child = Command::new(CODEACT)
            .args(["mcp", "--http", "0"])
            .args(extra)
            .current_dir(dir)
            .env("CODEACT_MCP_TOKEN", TOKEN)
            .stderr(Stdio::piped())
            .spawn()
            .expect("start codeact mcp --http");
        let mut reader = BufReader::new(child.stderr.take().expect("stderr"));
        let mut first = String::new();
        reader.read_line(&mut first).expect("the server's first line");
        std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
        let port = first
            .split("127.0.0.1:")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no address in {first:?}"));
        Self { child, port }
    }

    /// One raw HTTP POST to /mcp; the status line and the body.
    fn post(&self, body: &str, token: Option<&str>) -> String {
        let auth = token.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
        self.request("POST", &auth, body)
    }

    /// One raw request with the token (any method, extra headers), its whole answer.
    fn raw(&self, method: &str, headers: &str, body: &str) -> String {
        self.request(method, &format!("Authorization: Bearer {TOKEN}\r\n{headers}"), body)
    }

    fn request(&self, method: &str, headers: &str, body: &str) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        let request = format!(
            "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.port,
            body.len()
        );
        // A server that refuses early may close before reading it all.
        let _ = stream.write_all(request.as_bytes());
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_python_sdk_drives_run_script_over_stdio() {
    let sim = common::SimProcess::start(&[]);
    let dir = scratch("stdio");
    let out = python(&[CLIENT, "stdio", &sim.addr, CODEACT, "mcp"], &dir);
    let text = passed(&out);
    assert!(text.contains("ok one call sends the message") && text.contains("ok a second call sees"), "{text}");
    assert!(sent_to_zhang(&sim.addr), "the virtual phone has no message to 张三");
    // Every call is in the client's run folder, and the session replays as a script.
    let runs: Vec<_> = std::fs::read_dir(dir.join("runs")).expect("runs").flatten().collect();
    assert_eq!(runs.len(), 1, "one run folder for the one client");
    let run = runs[0].path();
    let events = std::fs::read_to_string(run.join("events.jsonl")).expect("events");
    assert!(events.matches("\"event\":\"mcp_call\"").count() >= 10, "{events}");
    assert!(events.contains("\"tool\":\"export_script\""), "{events}");
    let script = std::fs::read_to_string(run.join("session.rhai")).expect("session.rhai");
    assert!(script.contains("tap(\"Send SMS\")") && script.contains("// Call "), "{script}");
    // The exported session replays on a fresh phone: the message is sent again.
    let fresh = common::SimProcess::start(&[]);
    let replay = common::codeact(&["exec", &run.join("session.rhai").display().to_string(), "--device", &fresh.addr]);
    assert!(replay.status.success(), "{}", String::from_utf8_lossy(&replay.stderr));
    assert!(sent_to_zhang(&fresh.addr), "the replay did not send the message");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_python_sdk_and_the_inspector_drive_it_over_http_with_the_token() {
    let sim = common::SimProcess::start(&[]);
    let dir = scratch("http");
    let server = HttpServer::start(&dir, &[]);
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let text = passed(&python(&[CLIENT, "http", &sim.addr, &url, TOKEN], &dir));
    assert!(
        text.contains("ok a wrong token is refused") && text.contains("ok another name is another session"),
        "{text}"
    );
    assert!(sent_to_zhang(&sim.addr), "the virtual phone has no message to 张三");

    // The MCP Inspector's CLI: the tool list, then a call that reads a variable
    // the Python client's session left (a session of its own: nothing there).
    let inspector = |args: &[&str]| {
        Command::new(programs::mcp_inspector())
            .args(["--cli", "--transport", "http", "--server-url", &url])
            .args(["--header", &format!("Authorization: Bearer {TOKEN}"), "--stored-auth-only"])
            .args(args)
            .args(["--format", "json"])
            .current_dir(&dir)
            .output()
            .expect("run the MCP Inspector")
    };
    let listed = inspector(&["--method", "tools/list"]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.contains("\"run_script\"") && listed.contains("\"readOnlyHint\":true"), "{listed}");
    let args = format!(r#"{{"code": "let n = 6 * 7; print(`n is ${{n}}`);", "device": "{}"}}"#, sim.addr);
    let called = inspector(&["--method", "tools/call", "--tool-name", "run_script", "--tool-args-json", &args]);
    let out = String::from_utf8_lossy(&called.stdout);
    assert!(called.status.success() && out.contains("n is 42"), "{out}\n{}", String::from_utf8_lossy(&called.stderr));

    // On the wire: no token, a wrong one, malformed JSON-RPC; the server goes on.
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    for token in [None, Some("wrong-token-0123456789abcdef")] {
        let answer = server.post(init, token);
        assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
        assert!(answer.contains("\"code\":-32001") && !answer.contains(TOKEN), "{answer}");
    }
    for body in ["{not json", r#"{"jsonrpc":"2.0","id":2,"method":42}"#, "[]", &"x".repeat(100_000)] {
        let answer = server.post(body, Some(TOKEN));
        assert!(answer.starts_with("HTTP/1.1 4"), "{body:.40}: {answer}");
    }
    let answer = server.post(init, Some(TOKEN));
    assert!(answer.starts_with("HTTP/1.1 200") && answer.contains("\"serverInfo\""), "{answer}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `codeact mcp` over stdio, spoken to line by line as raw JSON-RPC.
pub(crate) struct RawStdio {
    child: Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
}

impl RawStdio {
    pub(crate) fn start(dir: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut child = Command::new(CODEACT)
            .arg("mcp")
            .args(args)
            .current_dir(dir)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start codeact mcp");
        let stdin = child.stdin.take().expect("stdin");
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let mut raw = Self { child, stdin: Some(stdin), lines };
        raw.send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#);
        let first = raw.lines.next().expect("an answer").expect("a line");
        assert!(first.contains("\"serverInfo\""), "{first}");
        raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        raw
    }

    pub(crate) fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        let sent = stdin.write_all(line.as_bytes()).and_then(|()| stdin.write_all(b"\n"));
        sent.and_then(|()| stdin.flush()).expect("send a line");
    }

    /// The lines that came until the answer to request `id`, that answer last.
    pub(crate) fn until_answer(&mut self, id: u32) -> Vec<String> {
        let mut seen = Vec::new();
        for line in self.lines.by_ref() {
            let line = line.expect("a line");
            let done = line.contains(&format!("\"id\":{id}"));
            seen.push(line);
            if done {
                break;
            }
        }
        seen
    }
}

impl RawStdio {
    /// Closes the client's side, as a client that is done does, and waits for the
    /// server to end (it closes the client's run folder on the way out).
    pub(crate) fn close(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        for _ in 0..200 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("codeact mcp did not end within 10 s of its client closing stdin");
    }
}

impl Drop for RawStdio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn malformed_json_rpc_over_stdio_gets_errors_and_the_server_goes_on() {
    let dir = scratch("raw-stdio");
    let mut raw = RawStdio::start(&dir, &["--device", "sim", "--limit", "timeout_ms=60000"], &[]);
    raw.send("{this is not json");
    raw.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}"#);
    raw.send(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"run_script","arguments":{"code":"let x = 40 + 2; x"}}}"#);
    let all = raw.until_answer(4).join("\n");
    assert!(all.contains("\"id\":3") && all.contains("-32602") && all.contains("no tool"), "{all}");
    assert!(all.contains("value: 42"), "the server went on after the bad lines: {all}");
    // A call the client cancels stops its script (here long before its minute is up).
    raw.send(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"run_script","arguments":{"code":"loop { sleep(100); }"}}}"#);
    std::thread::sleep(std::time::Duration::from_millis(500));
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"enough"}}"#);
    raw.send(
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"run_script","arguments":{"code":"x + 1"}}}"#,
    );
    let after = raw.until_answer(6).join("\n");
    assert!(after.contains("value: 43"), "{after}");
    drop(raw);
    let run = std::fs::read_dir(dir.join("runs")).expect("runs").flatten().next().expect("a run folder").path();
    let events = std::fs::read_to_string(run.join("events.jsonl")).expect("events");
    assert!(events.contains("the snippet was cancelled"), "{events}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_task_hands_a_goal_to_the_agent_and_eval_runs_templates() {
    use crate::common::llm::{ScriptedLlm, reply};
    let sim = common::SimProcess::start(&[]);
    let dir = scratch("agent");
    let llm = ScriptedLlm::start(vec![reply(
        "Thought: Wi-Fi is in Settings.\n```rhai\nstart_app(\"com.android.settings\");\ntap(#{id: \"wifi_switch\"});\n\
         assert_visible(#{id: \"wifi_switch\", checked: false});\ncomplete(true, \"Wi-Fi is off\");\n```",
    )]);
    let args = ["--device", &sim.addr, "--base-url", &llm.base_url, "--model", "scripted"];
    let mut raw = RawStdio::start(&dir, &args, &[("OPENAI_API_KEY", crate::agent_run::FAKE_KEY)]);
    raw.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_task","arguments":{"goal":"Turn off Wi-Fi"}}}"#);
    let answer = raw.until_answer(2).join("\n");
    assert!(answer.contains("Success after 1 step") && answer.contains("Wi-Fi is off"), "{answer}");
    assert_eq!(common::sim_state(&sim.addr)["settings"]["wifi"], false, "the agent's run left Wi-Fi on");
    assert!(!answer.contains(crate::agent_run::FAKE_KEY));
    // The session goes on after the agent's run, and its actions are filed again.
    raw.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_script","arguments":{"code":"home()"}}}"#);
    assert!(raw.until_answer(3).join("\n").contains("home() ok"));
    raw.send(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"eval","arguments":{"tasks":"settings_wifi_off,clock_*x","agent":"oracle"}}}"#);
    let answer = raw.until_answer(4).join("\n");
    assert!(answer.contains("1 instances of 1 templates: mean score 1.000, 1 solved"), "{answer}");
    raw.send(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"eval","arguments":{"tasks":"*","instances":20}}}"#);
    let answer = raw.until_answer(5).join("\n");
    assert!(answer.contains("at most 20") && answer.contains("\"isError\":true"), "{answer}");
    drop(raw);
    let runs = std::fs::read_dir(dir.join("runs")).expect("runs").flatten().next().expect("a run folder").path();
    assert!(runs.join("tasks").is_dir() && runs.join("evals/1/results.json").is_file(), "{}", runs.display());
    let events = std::fs::read_to_string(runs.join("events.jsonl")).expect("events");
    assert!(events.contains("\"tool\":\"run_task\"") && events.contains("\"tool\":\"home\""), "{events}");
    assert!(!events.contains(crate::agent_run::FAKE_KEY));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_sensitive_action_is_asked_through_elicitation() {
    let dir = scratch("confirm");
    for mode in ["accept", "decline"] {
        let out = python(&[CLIENT, "confirm", mode, CODEACT, "mcp", "--device", "sim"], &dir);
        let text = passed(&out);
        assert!(text.contains("ok the client was asked"), "{mode}: {text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn one_script_per_app_takes_fewer_calls_and_bytes_than_one_call_per_gesture() {
    let dir = scratch("compare");
    let out = python(&[COMPARE, CODEACT, "mcp", "--expose", "both"], &dir);
    let text = passed(&out);
    let numbers: Vec<usize> = text
        .lines()
        .find_map(|l| l.strip_prefix("calls "))
        .map(|l| l.split_whitespace().filter_map(|w| w.parse().ok()).collect())
        .unwrap_or_default();
    assert_eq!(numbers.len(), 4, "{text}");
    println!("run_script vs gestures: {} vs {} calls, {} vs {} bytes", numbers[0], numbers[1], numbers[2], numbers[3]);
    assert!(numbers[0] * 5 <= numbers[1], "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The HTTP door's bounds, as a client that never ends its sessions meets them: at
/// most 64 open, then a refusal that says what to do; an ended one frees its place
/// and is answered as the SDKs expect (200); other origins are refused.
#[test]
fn the_http_door_caps_its_sessions_and_ends_them_on_delete() {
    let dir = scratch("http-caps");
    let server = HttpServer::start(&dir, &[]);
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let session_of = |answer: &str| {
        answer
            .lines()
            .find_map(|l| l.to_ascii_lowercase().strip_prefix("mcp-session-id:").map(|v| v.trim().to_string()))
    };
    let foreign = server.raw("POST", "Origin: http://evil.example\r\n", init);
    assert!(foreign.starts_with("HTTP/1.1 403"), "{foreign}");
    let huge = format!(r#"{{"jsonrpc":"2.0","id":2,"method":"ping","params":{{"x":"{}"}}}}"#, "a".repeat(2 << 20));
    let too_big = server.raw("POST", "", &huge);
    assert!(too_big.starts_with("HTTP/1.1 413") || too_big.is_empty(), "{}", &too_big[..too_big.len().min(300)]);
    let mut ids = Vec::new();
    for _ in 0..codeact::mcp::MAX_HTTP_SESSIONS {
        let answer = server.raw("POST", "", init);
        ids.push(session_of(&answer).unwrap_or_else(|| panic!("a session: {answer}")));
    }
    let refused = server.raw("POST", "", init);
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    assert!(refused.contains("sessions are open") && refused.contains("DELETE"), "{refused}");
    let ended = server.raw("DELETE", &format!("Mcp-Session-Id: {}\r\n", ids[0]), "");
    assert!(ended.starts_with("HTTP/1.1 200"), "{ended}");
    let again = server.raw("POST", "", init);
    assert!(session_of(&again).is_some(), "a place was freed: {again}");
}
