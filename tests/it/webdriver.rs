//! `codeact serve --webdriver` driven by clients codeact did not write: tests from
//! Appium's documentation on Appium's own Python client and on WebdriverIO pass
//! against the virtual phone as Android and as an iPhone (and the Python one as a
//! HarmonyOS phone): accessibility id, id, XPath, UiSelector and UiScrollable, keys,
//! text, page source, screenshot, a W3C swipe, a Rhai flow through execute_driver, each
//! session's run folder replays with `codeact exec`; `-custom` and `-image` find
//! the right element through a scripted vision model and a picture. And the door:
//! no or a wrong base path, a foreign Host or Origin, broken JSON, huge bodies,
//! scripts that hit every limit, more sessions than allowed, idle sessions, masked
//! sensitive values — each a W3C error or refusal, the server alive. Behind a real
//! Selenium Grid (two codeact servers as relay nodes) and in front of a real
//! Appium, the same suite passes.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::loopback::Loopback;
use crate::common::{self, programs};
use common::llm::{ScriptedLlm, reply};

/// `codeact serve --webdriver` on a free port in `dir`; killed on drop.
pub struct Served(Loopback);

impl std::ops::Deref for Served {
    type Target = Loopback;
    fn deref(&self) -> &Loopback {
        &self.0
    }
}

impl Served {
    pub fn start(device: &str, dir: &std::path::Path, extra: &[&str]) -> Self {
        Self::start_with(device, dir, extra, &[])
    }

    pub fn start_with(device: &str, dir: &std::path::Path, extra: &[&str], env: &[(&str, &str)]) -> Self {
        let mut args = vec!["serve", "--webdriver", "--device", device, "--port", "0"];
        args.extend_from_slice(extra);
        Served(Loopback::start(&args, dir, env))
    }

    /// A W3C command under the token: (status, the reply's JSON).
    pub fn call(&self, method: &str, path: &str, body: &str) -> (u16, serde_json::Value) {
        let path = format!("/{}{path}", self.token);
        let (status, text) = self.request(method, &path, &[("Content-Type", "application/json")], body.as_bytes());
        (status, serde_json::from_str(&text).unwrap_or_else(|_| panic!("{method} {path}: not JSON: {text}")))
    }

    /// A new session's id.
    pub fn session(&self, caps: &str) -> String {
        let (status, reply) =
            self.call("POST", "/session", &format!(r#"{{"capabilities": {{"alwaysMatch": {caps}}}}}"#));
        assert_eq!(status, 200, "{reply}");
        reply["value"]["sessionId"].as_str().expect("sessionId").to_string()
    }
}

fn said(out: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn client(script: &str, args: &[&str]) -> String {
    let path = format!("{}/tests/clients/{script}", env!("CARGO_MANIFEST_DIR"));
    let ran = Command::new(programs::appium_python()).arg(&path).args(args).output().expect("run the Appium client");
    let text = said(&ran);
    assert!(ran.status.success(), "{text}");
    text
}

/// The run folders below `dir/runs`.
fn run_folders(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut all: Vec<_> =
        std::fs::read_dir(dir.join("runs")).map(|r| r.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    all.sort();
    all
}

#[test]
fn appiums_python_client_passes_on_every_virtual_platform_and_the_sessions_replay() {
    for (device, platform) in [("sim", "android"), ("sim:ios", "ios"), ("sim:harmony", "harmony")] {
        let dir = tempfile::tempdir().expect("a temp dir");
        let served = Served::start(device, dir.path(), &[]);
        let text = client("webdriver_appium.py", &[&served.url, platform]);
        assert_eq!(text.lines().filter(|l| l.starts_with("ok ")).count(), 13, "{device}: {text}");
        drop(served);
        let folders = run_folders(dir.path());
        assert_eq!(folders.len(), 1, "{folders:?}");
        let summary = std::fs::read_to_string(folders[0].join("summary.json")).expect("summary.json");
        assert!(summary.contains("\"mode\": \"webdriver\"") || summary.contains("\"mode\":\"webdriver\""), "{summary}");
        let events = std::fs::read_to_string(folders[0].join("events.jsonl")).expect("events.jsonl");
        assert!(events.contains("\"webdriver_call\"") && events.contains("POST /appium/execute_driver"), "{events}");
        let script = folders[0].join("session.rhai");
        let replayed = Command::new(env!("CARGO_BIN_EXE_codeact"))
            .args(["exec", script.to_str().unwrap_or(""), "--device", device])
            .output()
            .expect("codeact exec");
        assert!(
            replayed.status.success(),
            "{device}: {}\n{}",
            said(&replayed),
            std::fs::read_to_string(&script).unwrap_or_default()
        );
    }
}

#[test]
fn appiums_client_reaches_a_phone_behind_a_real_appium_through_codeact() {
    // Appium's client → codeact serve --webdriver → the real Appium (3.8, and 4's
    // beta) → the virtual phone.
    for version in [common::appium::Version::Three, common::appium::Version::FourBeta] {
        let stand = common::appium::Stand::start_version(version);
        let dir = tempfile::tempdir().expect("a temp dir");
        let device = format!("appium:{}", stand.appium.url);
        let served = Served::start_with(&device, dir.path(), &[], &[("CODEACT_APPIUM_CAPS", &stand.caps())]);
        let text = client("webdriver_appium.py", &[&served.url, "android"]);
        assert_eq!(text.lines().filter(|l| l.starts_with("ok ")).count(), 13, "{version:?}: {text}");
    }
}

#[test]
fn a_selenium_grid_spreads_appium_suites_over_codeact_servers() {
    // Two codeact servers as relay nodes of a real Selenium Grid; two suites at once
    // through the hub, each on a virtual phone of its own.
    let dirs = [tempfile::tempdir().expect("a temp dir"), tempfile::tempdir().expect("a temp dir")];
    let servers: Vec<Served> = dirs.iter().map(|d| Served::start("sim", d.path(), &[])).collect();
    let stereotype = serde_json::json!({"platformName": "Android", "appium:automationName": "codeact"});
    let relays: Vec<(String, serde_json::Value, usize)> =
        servers.iter().map(|s| (s.url.clone(), stereotype.clone(), 1)).collect();
    let grid_dir = tempfile::tempdir().expect("a temp dir");
    let grid = common::appium::Grid::relaying(&relays, grid_dir.path());
    let runs: Vec<_> = (0..2)
        .map(|_| {
            let url = grid.url.clone();
            std::thread::spawn(move || client("webdriver_appium.py", &[&url, "android"]))
        })
        .collect();
    for run in runs {
        let text = run.join().expect("a suite");
        assert_eq!(text.lines().filter(|l| l.starts_with("ok ")).count(), 13, "{text}");
    }
    drop(grid);
    drop(servers);
    for dir in &dirs {
        assert_eq!(run_folders(dir.path()).len(), 1, "each server ran one of the suites");
    }
}

#[test]
fn webdriverio_passes_on_the_virtual_android_and_iphone() {
    let wdio = programs::wdio_dir();
    let test = format!("{}/tests/clients/webdriver_wdio.mjs", env!("CARGO_MANIFEST_DIR"));
    for (device, platform) in [("sim", "android"), ("sim:ios", "ios")] {
        let dir = tempfile::tempdir().expect("a temp dir");
        let served = Served::start(device, dir.path(), &[]);
        let ran = Command::new("node")
            .args([test.as_str(), &served.url, platform, wdio.to_str().unwrap_or("")])
            .output()
            .expect("node (WebdriverIO's client)");
        let text = said(&ran);
        assert!(ran.status.success(), "{device}: {text}");
        assert_eq!(text.lines().filter(|l| l.starts_with("ok ")).count(), 8, "{device}: {text}");
    }
}

#[test]
fn a_description_and_a_picture_find_the_notes_app() {
    let llm = ScriptedLlm::start(vec![reply("```json\n{\"x\": 875, \"y\": 210, \"confidence\": 0.9}\n```")]);
    let dir = tempfile::tempdir().expect("a temp dir");
    // The Notes icon on the launcher (810..1080 × 420..714), cut into the gallery the
    // server reads (./assets).
    let cut = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args([
            "assets",
            "add",
            "notes_icon",
            "--from-screen",
            "810,420,1080,714",
            "--threshold",
            "0.97",
            "--device",
            "sim",
        ])
        .current_dir(dir.path())
        .output()
        .expect("codeact assets add");
    assert!(cut.status.success(), "{}", said(&cut));
    let served = Served::start("sim", dir.path(), &["--base-url", &llm.base_url, "--model", "vision"]);
    let cafe = format!("{}/eval/assets/cafe.png", env!("CARGO_MANIFEST_DIR"));
    let text = client("webdriver_locators.py", &[&served.url, "notes_icon", &cafe]);
    assert_eq!(text.lines().filter(|l| l.starts_with("ok ")).count(), 5, "{text}");
    assert_eq!(llm.requests().len(), 1, "one question for the one description");
    drop(served);
    let script = std::fs::read_to_string(run_folders(dir.path())[0].join("session.rhai")).expect("session.rhai");
    // The finds are reads; what a picture or the model found is tapped where it was
    // found, a point the replay taps again: no model, no picture, never the view around it.
    assert!(!script.contains("locate(") && !script.contains("#{ai:") && !script.contains("#{image:"), "{script}");
    assert!(
        !script.contains("map_canvas") && !script.contains("\"Map\""),
        "never the canvas around the place: {script}"
    );
    // The session replays on a fresh phone and does what it did: the café saved.
    let sim = common::SimProcess::start(&[]);
    let folder = run_folders(dir.path())[0].clone();
    let replay = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "session.rhai", "--device", &sim.addr])
        .current_dir(&folder)
        .output()
        .expect("codeact exec");
    assert!(replay.status.success(), "{}\n{script}", said(&replay));
    let saved = common::sim_state(&sim.addr)["saved"].clone();
    assert!(saved.to_string().contains("cafe"), "the replay saved the café too: {saved}");
}

#[test]
fn strangers_and_hostile_requests_get_w3c_errors_and_the_server_lives() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let served = Served::start("sim", dir.path(), &["--max-sessions", "2", "--limit", "timeout_ms=3000"]);
    let token = served.token.clone();
    // The door.
    for (path, headers, want) in [
        ("/status".to_string(), vec![], 401),
        ("/wrongtoken/status".to_string(), vec![], 401),
        (format!("/{token}/status"), vec![("Host", "evil.example")], 403),
        (format!("/{token}/status"), vec![("Origin", "http://evil.example")], 403),
        (format!("/{token}/status"), vec![], 200),
        (format!("/{token}//status"), vec![], 200),
        (format!("/{token}/wd/hub/status"), vec![], 200),
    ] {
        let (status, body) = served.request("GET", &path, &headers, b"");
        assert_eq!(status, want, "{path} {headers:?}: {body}");
        if want != 200 {
            let reply: serde_json::Value = serde_json::from_str(&body).expect("a W3C error");
            assert!(reply["value"]["error"].is_string(), "{body}");
            assert!(!body.contains(&token), "the token is not echoed");
        }
    }
    // Broken and huge bodies, unknown commands and sessions.
    let (status, reply) = served.call("POST", "/session", "{not json");
    assert_eq!((status, reply["value"]["error"].as_str()), (400, Some("invalid argument")), "{reply}");
    let huge = format!("{{\"capabilities\": {{\"x\": \"{}\"}}}}", "a".repeat(9 * 1024 * 1024));
    let (status, _) = served.request("POST", &format!("/{token}/session"), &[], huge.as_bytes());
    assert_eq!(status, 413);
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let (status, reply) = served.call("POST", "/session", &deep);
    assert_eq!(status, 400, "{reply}");
    let (status, reply) = served.call("GET", "/session/nope/source", "");
    assert_eq!((status, reply["value"]["error"].as_str()), (404, Some("invalid session id")), "{reply}");
    let (status, reply) = served.call("GET", "/bogus", "");
    assert_eq!((status, reply["value"]["error"].as_str()), (404, Some("unknown command")), "{reply}");
    // No address a client names is reached out to.
    let (status, reply) = served.call(
        "POST",
        "/session",
        r#"{"capabilities": {"alwaysMatch": {"appium:udid": "appium:http://127.0.0.1:9/"}}}"#,
    );
    assert_eq!((status, reply["value"]["error"].as_str()), (500, Some("session not created")), "{reply}");
    // Two sessions at most; a thousand more are refused fast. A retried new session
    // (the same idempotency key) is the same session.
    let retried = |key: &str| {
        let (status, text) = served.request(
            "POST",
            &format!("/{token}/session"),
            &[("X-Idempotency-Key", key), ("Content-Type", "application/json")],
            br#"{"capabilities": {"alwaysMatch": {"platformName": "Android"}}}"#,
        );
        assert_eq!(status, 200, "{text}");
        let reply: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        reply["value"]["sessionId"].as_str().expect("sessionId").to_string()
    };
    let id = retried("key-1");
    assert_eq!(retried("key-1"), id, "the same key, the same session");
    let second = served.session(r#"{"platformName": "Android"}"#);
    let started = Instant::now();
    for _ in 0..1000 {
        let (status, reply) = served.call("POST", "/session", r#"{"capabilities": {}}"#);
        assert_eq!(status, 500, "{reply}");
        assert!(reply["value"]["message"].as_str().is_some_and(|m| m.contains("--max-sessions")), "{reply}");
    }
    assert!(started.elapsed() < Duration::from_secs(60), "{:?}", started.elapsed());
    // A session idle past its newCommandTimeout is gone after its second (checked
    // apart from the cap: on a busy machine the thousand refusals outlast a second).
    assert_eq!(served.call("DELETE", &format!("/session/{second}"), "").0, 200);
    let other = served.session(r#"{"platformName": "Android", "appium:newCommandTimeout": 1}"#);
    std::thread::sleep(Duration::from_millis(2500));
    let (status, _) = served.call("GET", &format!("/session/{other}/source"), "");
    assert_eq!(status, 404, "the idle session was deleted");
    // Scripts that hit every limit are errors; the session goes on.
    let run = |script: &str| {
        let body = serde_json::json!({"script": script, "type": "rhai"}).to_string();
        served.call("POST", &format!("/session/{id}/appium/execute_driver"), &body)
    };
    for (script, says) in [
        ("loop {}", "operations"),
        ("let s = \"x\"; loop { s += s; }", "limit"),
        ("loop { refresh(); }", ""),
        ("fn f(n) { f(n + 1) } f(0)", "nested"),
        ("let a = []; loop { a.push(a.len()); }", "limit"),
        ("eval(\"1\")", "eval"),
        ("import \"x\" as y;", "module"),
    ] {
        let (status, reply) = run(script);
        let message = reply["value"]["message"].as_str().unwrap_or("").to_lowercase();
        assert_eq!(status, 500, "{script}: {reply}");
        assert!(message.contains(says), "{script}: {reply}");
        eprintln!("{script}: {message}");
    }
    let (status, reply) = run("for i in 0..100000 { print(i); } 1 + 1");
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["value"]["result"], 2, "{reply}");
    assert!(reply.to_string().len() < 1_000_000, "output is bounded");
    // Locators that would take for ever, or never end, are refused (an XPath when it
    // has spent its budget of steps, whatever axes it nests).
    for (using, value) in [
        (
            "xpath",
            "//*[preceding::*[following::*[preceding::*[following::*[preceding::*[following::*[preceding::*[following::*]]]]]]]]",
        ),
        ("xpath", "//*[@text='"),
        ("-android uiautomator", "new UiSelector().textMatches(\"(a+)+$\").childSelector(new UiSelector())"),
        ("-android uiautomator", &"new UiScrollable(".repeat(40)),
        ("-ios predicate string", "label == 'x'"),
    ] {
        let body = serde_json::json!({"using": using, "value": value}).to_string();
        let started = Instant::now();
        let (status, reply) = served.call("POST", &format!("/session/{id}/element"), &body);
        assert_eq!((status, reply["value"]["error"].as_str()), (400, Some("invalid selector")), "{value}: {reply}");
        assert!(started.elapsed() < Duration::from_secs(5), "{value}: {:?}", started.elapsed());
    }
    // The sensitive-action gate holds: nobody at the server's terminal confirms a delete.
    let clear = r#"{"script": "mobile: clearApp", "args": [{"appId": "com.example.notes"}]}"#;
    let (status, reply) = served.call("POST", &format!("/session/{id}/execute/sync"), clear);
    assert_eq!(status, 500, "{reply}");
    assert!(reply["value"]["message"].as_str().is_some_and(|m| m.contains("sensitive")), "{reply}");
    // A sensitive value is masked in every record.
    let (status, reply) =
        served.call("POST", &format!("/session/{id}/appium/device/activate_app"), r#"{"appId": "com.example.notes"}"#);
    assert_eq!(status, 200, "{reply}");
    let (_, found) =
        served.call("POST", &format!("/session/{id}/element"), r#"{"using": "accessibility id", "value": "New note"}"#);
    let new_note = found["value"]["element-6066-11e4-a52e-4f735466cecf"].as_str().expect("New note").to_string();
    served.call("POST", &format!("/session/{id}/element/{new_note}/click"), "{}");
    let (_, body) = served.call("POST", &format!("/session/{id}/element"), r#"{"using": "id", "value": "note_body"}"#);
    let field = body["value"]["element-6066-11e4-a52e-4f735466cecf"].as_str().expect("note_body").to_string();
    let (status, reply) = served.request(
        "POST",
        &format!("/{token}/session/{id}/element/{field}/value"),
        &[("X-Appium-Is-Sensitive", "true"), ("Content-Type", "application/json")],
        br#"{"text": "hunter2-correct-horse"}"#,
    );
    assert_eq!(status, 200, "{reply}");
    let (status, reply) = served.call("GET", &format!("/session/{id}/element/{field}/text"), "");
    assert_eq!((status, reply["value"].as_str()), (200, Some("[key]")), "the field's text is not read back: {reply}");
    let secret_flow =
        serde_json::json!({"script": "let pin = \"swordfish-4711\"; pin.len()", "type": "rhai"}).to_string();
    let (status, reply) = served.request(
        "POST",
        &format!("/{token}/session/{id}/appium/execute_driver"),
        &[("X-Appium-Is-Sensitive", "true"), ("Content-Type", "application/json")],
        secret_flow.as_bytes(),
    );
    assert_eq!(status, 200, "{reply}");
    let (status, reply) = served.call("DELETE", &format!("/session/{id}"), "");
    assert_eq!(status, 200, "{reply}");
    let (status, _) = served.call("GET", "/status", "");
    assert_eq!(status, 200, "the server lives");
    drop(served);
    for folder in run_folders(dir.path()) {
        for file in ["events.jsonl", "session.rhai", "report.html"] {
            let text = std::fs::read_to_string(folder.join(file)).unwrap_or_default();
            assert!(!text.contains("hunter2-correct-horse"), "{file} shows the sensitive value");
            assert!(!text.contains("swordfish-4711"), "{file} shows the sensitive script");
        }
    }
}
