//! `codeact studio` in a real headless Chromium driven by Selenium (clients codeact
//! did not write): a person records opening Settings, points at the Wi-Fi switch on
//! the mirror (its selector shown, unique), taps it, asserts it off and saves the
//! script, which `codeact exec` passes on a fresh virtual phone — on Android and as
//! an iPhone. And the door: strangers (no token, another page, another host, big
//! bodies) turned away, a phone's hostile labels shown as text, a phone that
//! disconnects or sends a 10 MB page source reported while the server lives on.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::appium_hostile::{json_reply, serve, session_ok};
use crate::common::loopback::Loopback;
use crate::common::{AdbServer, SimProcess, programs};

/// `codeact studio` on a free port; killed on drop.
struct Studio(Loopback);

impl std::ops::Deref for Studio {
    type Target = Loopback;
    fn deref(&self) -> &Loopback {
        &self.0
    }
}

impl Studio {
    fn start(device: &str, dir: &std::path::Path) -> Self {
        Studio(Loopback::start(&["studio", "--device", device, "--port", "0"], dir, &[]))
    }

    fn call(&self, path: &str, body: &str) -> (u16, String) {
        let path = format!("/{}/{path}", self.token);
        self.request("POST", &path, &[("Content-Type", "application/json")], body.as_bytes())
    }

    fn live(&self, since: u64) -> serde_json::Value {
        let (status, body) = self.request("GET", &format!("/{}/api/live?since={since}", self.token), &[], b"");
        assert_eq!(status, 200, "{body}");
        serde_json::from_str(&body).expect("live JSON")
    }
}

fn said(out: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn browser(script: &str, args: &[&str]) -> String {
    let client = format!("{}/tests/clients/{script}", env!("CARGO_MANIFEST_DIR"));
    let ran = Command::new(programs::selenium_python())
        .arg(&client)
        .args(args)
        .env("CODEACT_CHROMEDRIVER", programs::chromedriver())
        .output()
        .expect("run the browser client");
    let text = said(&ran);
    assert!(ran.status.success() && !text.contains("FAIL"), "{text}");
    text
}

#[test]
fn a_person_records_a_script_in_a_real_browser_that_exec_passes() {
    for device in ["sim", "sim:ios"] {
        let dir = tempfile::tempdir().expect("a temp dir");
        let studio = Studio::start(device, dir.path());
        let shot = dir.path().join("page.png");
        let text = browser(
            "studio_browser.py",
            &[&studio.url, "wifi_off.rhai", shot.to_str().unwrap_or(""), "wifi_switch", "com.android.settings"],
        );
        assert_eq!(text.lines().filter(|l| l.starts_with("ok ")).count(), 10, "{device}: {text}");
        assert!(text.contains("selector #{id: \"wifi_switch\"}"), "{text}");
        // The same recording as a Maestro flow, beside it.
        let (status, body) = studio.call("api/save", r#"{"path": "flows/wifi_off.yaml"}"#);
        assert_eq!(status, 200, "{body}");
        drop(studio);
        for saved in ["wifi_off.rhai", "flows/wifi_off.yaml"] {
            let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
                .args(["exec", saved, "--device", device])
                .current_dir(dir.path())
                .output()
                .expect("codeact exec");
            assert!(out.status.success(), "{device} {saved}: {}", said(&out));
        }
        assert!(std::fs::metadata(&shot).is_ok_and(|m| m.len() > 10_000), "a screenshot of the page");
    }
}

#[test]
fn the_door_turns_strangers_away_and_hostile_phones_leave_it_standing() {
    let sim = SimProcess::start(&[]);
    let adb = AdbServer::start();
    adb.connect(&sim.addr);
    let marker = "MARK-7f3";
    let note = format!(
        r#"simctl add notes '{{"title": "{marker} <img src=x onerror=\"window.pwned=true\"> <script>window.pwned=true</script>\u0007\u001b[31m", "body": "b"}}'"#
    );
    let (_, err, code) = adb.shell(&sim.addr, &note);
    assert_eq!(code, 0, "{err}");
    let dir = tempfile::tempdir().expect("a temp dir");
    let studio = Studio::start(&sim.addr, dir.path());
    let (status, body) = studio.call("api/act", r#"{"action": "open_app", "package": "com.example.notes"}"#);
    assert_eq!(status, 200, "{body}");
    let text = browser("studio_hostile.py", &[&studio.url, marker]);
    assert_eq!(text.lines().filter(|l| l.starts_with("ok ")).count(), 4, "{text}");

    // Strangers.
    let token = studio.token.clone();
    let page = format!("/{token}/");
    assert_eq!(studio.request("GET", "/", &[], b"").0, 401, "no token");
    assert_eq!(studio.request("GET", &format!("/{}/", "0".repeat(64)), &[], b"").0, 401, "another token");
    assert_eq!(studio.request("GET", &page, &[("Host", "evil.example")], b"").0, 403, "DNS rebinding");
    assert_eq!(studio.request("GET", &page, &[("Origin", "http://evil.example")], b"").0, 403, "another page");
    let big = vec![b'x'; 2 * 1024 * 1024];
    assert_eq!(studio.call("api/run", &String::from_utf8_lossy(&big)).0, 413, "a body past the cap");
    assert_eq!(studio.call("api/run", "{not json").0, 400);
    assert_eq!(studio.call("api/save", r#"{"path": "../outside.rhai"}"#).0, 400, "saves stay below the folder");
    let outside = format!("/{token}/api/run/file?name=..&file=..%2F..%2Fetc%2Fpasswd");
    assert_eq!(studio.request("GET", &outside, &[], b"").0, 404, "replays stay below the runs folder");
    let (status, body) = studio.call("api/run", r#"{"code": "loop {}"}"#);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"error\""), "a limit hit is an error: {body}");

    // The phone goes away: said, and the page is still served.
    let before = studio.live(0)["seq"].as_u64().unwrap_or(0);
    drop(sim);
    let began = Instant::now();
    let mut seq = before;
    let problem = loop {
        let news = studio.live(seq);
        seq = news["seq"].as_u64().unwrap_or(seq);
        if let Some(p) = news["problem"].as_str() {
            break p.to_string();
        }
        assert!(began.elapsed() < Duration::from_secs(60), "the lost phone is reported");
    };
    assert!(!problem.is_empty());
    assert_eq!(studio.request("GET", &page, &[], b"").0, 200, "the page is still served");
}

/// A W3C server whose page source is 10 MB of one label.
fn huge_source(method: &str, path: &str, body: &str) -> Option<Vec<u8>> {
    match path {
        "/session/s1/source" => {
            let label = "W".repeat(10 * 1024 * 1024);
            let xml = format!(
                "<hierarchy><node class=\\\"android.widget.TextView\\\" text=\\\"{label}\\\" bounds=\\\"[0,0][1080,200]\\\"/></hierarchy>"
            );
            json_reply("200 OK", &format!("{{\"value\":\"{xml}\"}}"))
        }
        _ => session_ok(method, path, body),
    }
}

#[test]
fn a_ten_megabyte_page_source_is_shown_clipped() {
    let port = serve(huge_source);
    let dir = tempfile::tempdir().expect("a temp dir");
    let studio = Studio::start(&format!("appium:http://127.0.0.1:{port}"), dir.path());
    let began = Instant::now();
    let mut seq = 0;
    let tree = loop {
        let news = studio.live(seq);
        seq = news["seq"].as_u64().unwrap_or(seq);
        if news["tree"]["elements"].as_array().is_some_and(|e| !e.is_empty()) {
            break news["tree"].clone();
        }
        assert!(began.elapsed() < Duration::from_secs(60), "the tree comes: {news}");
    };
    let text = tree["elements"][0]["text"].as_str().unwrap_or("");
    assert!(text.len() <= 2_100 && text.starts_with("WWW"), "clipped: {} bytes", text.len());
    let (status, body) = studio.call("api/point", r#"{"x": 10, "y": 10}"#);
    assert_eq!(status, 200, "{}", &body[..body.len().min(300)]);
    assert!(body.len() < 64 * 1024, "what the page is sent stays small: {} bytes", body.len());
    assert_eq!(studio.request("GET", &format!("/{}/", studio.token), &[], b"").0, 200);
}

#[test]
fn the_console_the_pictures_and_the_replays_answer_through_the_page_calls() {
    let dir = tempfile::tempdir().expect("a temp dir");
    // A run folder to replay: a script run with its trajectory.
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/turn_off_wifi.rhai");
    let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", script, "--device", "sim", "--trajectory", "runs/wifi"])
        .current_dir(dir.path())
        .output()
        .expect("codeact exec");
    assert!(out.status.success(), "{}", said(&out));
    let studio = Studio::start("sim", dir.path());

    // The console: variables persist, errors say where.
    let value = |body: &str| serde_json::from_str::<serde_json::Value>(body).unwrap_or_default();
    let (_, body) = studio.call("api/run", r#"{"code": "let x = 41; x + 1"}"#);
    assert_eq!(value(&body)["value"], "42", "{body}");
    let (_, body) = studio.call("api/run", r#"{"code": "x"}"#);
    assert_eq!(value(&body)["value"], "41", "{body}");
    let (_, body) = studio.call("api/run", r#"{"code": "let y = ;"}"#);
    assert!(value(&body)["error"]["line"].as_u64() == Some(1), "{body}");
    let (status, body) = studio.request("GET", &format!("/{}/api/tools", studio.token), &[], b"");
    assert!(status == 200 && body.contains("tap(sel)"), "{body}");

    // A picture cut on a canvas, then tapped by it.
    let (status, body) = studio.call("api/act", r#"{"action": "open_app", "package": "com.codeact.arcade"}"#);
    assert_eq!(status, 200, "{body}");
    let (_, body) = studio.call("api/point", r#"{"x": 472, "y": 735}"#);
    let cut = value(&body)["cut"].clone();
    assert!(cut.as_array().is_some_and(|c| c.len() == 4), "{body}");
    let (status, body) = studio.call("api/cut", &serde_json::json!({"name": "play", "box": cut}).to_string());
    assert_eq!(status, 200, "{body}");
    assert_eq!(value(&body)["selector"], "#{image: \"play\"}", "{body}");
    assert!(dir.path().join("assets/play.png").is_file(), "cut into the gallery");
    let (status, body) = studio.call("api/act", r##"{"action": "tap", "selector": "#{image: \"play\"}"}"##);
    assert!(status == 200 && value(&body)["ok"] == true, "{body}");
    let (_, tree) = studio.request("GET", &format!("/{}/api/tree", studio.token), &[], b"");
    assert!(value(&tree)["activity"].as_str().is_some_and(|a| a.contains("PlayActivity")), "the picture was tapped");
    let (status, _) = studio.call("api/cut", r#"{"name": "../evil", "box": [0, 0, 10, 10]}"#);
    assert_eq!(status, 400, "names are plain");

    // The run folder, step by step, and its pictures from inside it only.
    let (_, body) = studio.request("GET", &format!("/{}/api/runs", studio.token), &[], b"");
    let runs = value(&body);
    let names: Vec<String> =
        runs["runs"].as_array().into_iter().flatten().filter_map(|r| r["name"].as_str().map(str::to_string)).collect();
    let name = names.iter().find(|n| n.starts_with("wifi")).cloned().unwrap_or_default();
    assert!(!name.is_empty(), "{body}");
    // The studio's own acts are a run folder its replay opens, step by step.
    let own = names.iter().find(|n| n.ends_with("-studio")).cloned().unwrap_or_default();
    let (status, body) = studio.request("GET", &format!("/{}/api/run?name={own}", studio.token), &[], b"");
    assert_eq!(status, 200, "{body}");
    let steps = value(&body)["steps"].as_array().map(Vec::len).unwrap_or(0);
    assert!(steps >= 3, "the open_app, tap and console acts are steps: {body}");
    let (status, body) = studio.request("GET", &format!("/{}/api/run?name={name}", studio.token), &[], b"");
    assert_eq!(status, 200, "{body}");
    let run = value(&body);
    let actions = run["steps"][0]["actions"].as_array().cloned().unwrap_or_default();
    assert!(actions.iter().any(|a| a["tool"] == "start_app"), "{body}");
    let picture = actions.iter().find_map(|a| a["screenshot"].as_str()).unwrap_or("").to_string();
    assert!(!picture.is_empty(), "a step's picture: {body}");
    let path = format!("/{}/api/run/file?name={name}&file={}", studio.token, picture.replace('/', "%2F"));
    let (status, png) = studio.request("GET", &path, &[], b"");
    assert!(status == 200 && png.starts_with("\u{fffd}PNG"), "{status}");
}

/// The studio's files stay below its folders, links resolved: a run folder, a
/// picture or a run's file that is a link leading out is not served, and a save
/// into a folder that is a link leading out is refused (nothing is written there).
#[test]
fn links_out_of_the_studios_folders_are_not_followed() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let outside = tempfile::tempdir().expect("another");
    let secret_png = outside.path().join("secret.png");
    std::fs::write(&secret_png, b"\x89PNG\r\n\x1a\nnot yours").expect("write");
    std::fs::write(outside.path().join("events.jsonl"), b"{\"event\":\"note\",\"step\":1,\"text\":\"outside\"}\n")
        .expect("write");
    let runs = dir.path().join("runs");
    let run = runs.join("real-run");
    std::fs::create_dir_all(&run).expect("runs");
    std::fs::write(run.join("events.jsonl"), b"").expect("events");
    std::os::unix::fs::symlink(&secret_png, run.join("shot.png")).expect("link");
    std::os::unix::fs::symlink(outside.path(), runs.join("linked-run")).expect("link");
    std::os::unix::fs::symlink(outside.path(), dir.path().join("linked")).expect("link");
    let studio = Studio::start("sim", dir.path());
    let get = |path: &str| studio.request("GET", &format!("/{}/{path}", studio.token), &[], b"");
    assert_eq!(get("api/run/file?name=real-run&file=shot.png").0, 404, "a picture that is a link out");
    assert_eq!(get("api/run?name=linked-run").0, 404, "a run folder that is a link out");
    assert_eq!(get("api/run/file?name=linked-run&file=secret.png").0, 404);
    let (_, runs_listed) = get("api/runs");
    assert!(!runs_listed.contains("linked-run"), "{runs_listed}");
    // A save into a linked folder: refused, nothing written outside.
    studio.call("api/recording", r#"{"on": true}"#);
    studio.call("api/act", r#"{"action": "home"}"#);
    let (status, said) = studio.call("api/save", r#"{"path": "linked/escape.rhai"}"#);
    assert_eq!(status, 400, "{said}");
    assert!(!outside.path().join("escape.rhai").exists(), "nothing written outside");
    let (status, said) = studio.call("api/save", r#"{"path": "inside/kept.rhai"}"#);
    assert_eq!(status, 200, "{said}");
    assert!(dir.path().join("inside/kept.rhai").is_file());
}
