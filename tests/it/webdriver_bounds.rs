//! `codeact serve --webdriver` bounds what a client's words cost it: a megabyte in
//! any field of a request (a command's path, an action's type, a locator, a
//! `mobile:` method, capabilities) comes back clipped in the error and is recorded
//! clipped; a locator of another platform is refused by name; and an XPath that
//! nests walks over the page is refused when its budget is spent, the session's
//! next command answered at once.

use crate::webdriver::Served;

#[test]
fn a_clients_words_are_clipped_in_answers_and_records() {
    let dir = tempfile::tempdir().expect("dir");
    let served = Served::start("sim", dir.path(), &["--out", "runs"]);
    let id = served.session(r#"{"platformName": "Android"}"#);
    let huge = "Z".repeat(1_000_000);
    // A path as long as a request's head may be (hyper refuses longer ones itself).
    let long_path = "Z".repeat(60_000);
    let s = |path: &str| format!("/session/{id}{path}");
    let requests: Vec<(String, String)> = vec![
        (s(&format!("/{long_path}")), "{}".into()),
        (s("/actions"), serde_json::json!({"actions": [{"type": huge, "actions": []}]}).to_string()),
        (
            s("/actions"),
            serde_json::json!({"actions": [{"type": "pointer", "id": "f", "actions": [{"type": huge}]}]}).to_string(),
        ),
        (s("/element"), serde_json::json!({"using": huge, "value": "x"}).to_string()),
        (s("/element"), serde_json::json!({"using": "id", "value": huge}).to_string()),
        (s("/execute/sync"), serde_json::json!({"script": format!("mobile: {huge}"), "args": [{}]}).to_string()),
        (
            s("/execute/sync"),
            serde_json::json!({"script": "mobile: activateApp", "args": [{"appId": huge}]}).to_string(),
        ),
        (s("/execute/sync"), serde_json::json!({"script": "mobile: deepLink", "args": [{"url": huge}]}).to_string()),
        (s("/appium/execute_driver"), serde_json::json!({"script": "1", "type": huge}).to_string()),
        ("/session".into(), serde_json::json!({"capabilities": {"alwaysMatch": {"x": huge}}}).to_string()),
    ];
    for (path, body) in &requests {
        let (status, reply) = served.call("POST", path, body);
        assert!(status >= 400, "{}: {status}", &path[..path.len().min(80)]);
        let message = reply["value"]["message"].as_str().unwrap_or_default();
        assert!(
            !message.is_empty() && reply.to_string().len() < 10_000,
            "{}: {} bytes",
            &path[..path.len().min(80)],
            reply.to_string().len()
        );
    }
    // The session answers on.
    assert_eq!(served.call("GET", &s("/source"), "").0, 200);
    assert_eq!(served.call("DELETE", &s(""), "").0, 200);
    drop(served);
    let runs = dir.path().join("runs");
    for folder in std::fs::read_dir(&runs).expect("runs").flatten() {
        let events = std::fs::metadata(folder.path().join("events.jsonl")).map_or(0, |m| m.len());
        assert!(events < 200_000, "the record holds the words clipped: {events} bytes");
    }
}

#[test]
fn an_ios_session_refuses_androids_locator_and_runaway_xpath_ends_at_once() {
    let dir = tempfile::tempdir().expect("dir");
    let served = Served::start("sim:ios", dir.path(), &[]);
    let id = served.session(r#"{"platformName": "iOS"}"#);
    let find = |using: &str, value: &str| {
        let body = serde_json::json!({"using": using, "value": value}).to_string();
        served.call("POST", &format!("/session/{id}/element"), &body)
    };
    let (status, reply) = find("-android uiautomator", "new UiSelector().text(\"Wi-Fi\")");
    assert_eq!((status, reply["value"]["error"].as_str()), (400, Some("invalid selector")), "{reply}");
    assert!(
        reply["value"]["message"].as_str().is_some_and(|m| m.contains("Android's") && m.contains("iOS")),
        "{reply}"
    );
    let runaway = "//*[preceding::*[following::*[preceding::*[following::*[preceding::*[following::*]]]]]]";
    let (status, reply) = find("xpath", runaway);
    assert_eq!((status, reply["value"]["error"].as_str()), (400, Some("invalid selector")), "{reply}");
    assert!(reply["value"]["message"].as_str().is_some_and(|m| m.contains("steps")), "{reply}");
    let (status, reply) = find("xpath", "//*[@name or @label]");
    assert_eq!(status, 200, "the next command answers: {reply}");
}

/// What an Appium 4 client asks instead of Appium 3's `GET /session/:id`: the
/// session's capabilities at `/appium/capabilities`, and its event history — each
/// command with its times, and the client's own events — unconditionally.
#[test]
fn appium_4s_session_reads_are_answered_beside_appium_3s() {
    let dir = tempfile::tempdir().expect("dir");
    let served = Served::start("sim", dir.path(), &[]);
    let id = served.session(r#"{"platformName": "Android"}"#);
    let (status, old) = served.call("GET", &format!("/session/{id}"), "");
    assert_eq!(status, 200, "{old}");
    let (status, new) = served.call("GET", &format!("/session/{id}/appium/capabilities"), "");
    assert_eq!(status, 200, "{new}");
    assert_eq!(new["value"]["capabilities"], old["value"], "the same capabilities both ways");
    let (status, _) =
        served.call("POST", &format!("/session/{id}/appium/log_event"), r#"{"vendor": "me", "event": "ready"}"#);
    assert_eq!(status, 200);
    let (status, events) = served.call("POST", &format!("/session/{id}/appium/events"), "{}");
    assert_eq!(status, 200, "{events}");
    let commands = events["value"]["commands"].as_array().cloned().unwrap_or_default();
    assert!(commands.iter().any(|c| c["cmd"].as_str().is_some_and(|c| c.contains("capabilities"))), "{events}");
    assert!(commands.iter().all(|c| c["startTime"].as_f64() <= c["endTime"].as_f64()), "{events}");
    assert_eq!(events["value"]["me:ready"].as_array().map(Vec::len), Some(1), "{events}");
    let (_, only) = served.call("POST", &format!("/session/{id}/appium/events"), r#"{"type": "me:ready"}"#);
    assert!(only["value"].get("commands").is_none() && only["value"]["me:ready"].is_array(), "{only}");
    let (status, _) = served.call("POST", &format!("/session/{id}/appium/log_event"), r#"{"vendor": "me"}"#);
    assert_eq!(status, 400, "an event needs its name");
}
