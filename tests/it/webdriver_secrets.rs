//! `X-Appium-Is-Sensitive` on every route that carries a client's text through
//! `codeact serve --webdriver`: element keys, legacy keys, W3C key actions,
//! `mobile: type`, the clipboard (Appium's route and `mobile: setClipboard`), a
//! find's value, and a sensitive `execute_driver` script that types its own
//! literals (ending in a new line, and one that fails) — no file of the session's
//! run folder holds any of them (events, screen dumps, report, summary,
//! `session.rhai`), and the session goes on working. A value lent to one session is
//! not masked in the next one's records: it lived as long as its session.

use crate::webdriver::Served;

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// Every file below `dir`, as text.
fn every_file(dir: &std::path::Path) -> Vec<(std::path::PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).map(|r| r.flatten().collect::<Vec<_>>()).unwrap_or_default() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                out.push((path, String::from_utf8_lossy(&bytes).into_owned()));
            }
        }
    }
    out
}

fn sensitive(served: &Served, method: &str, path: &str, body: &str) -> (u16, serde_json::Value) {
    let (status, text) = served.request(
        method,
        &format!("/{}{path}", served.token),
        &[("X-Appium-Is-Sensitive", "true"), ("Content-Type", "application/json")],
        body.as_bytes(),
    );
    (status, serde_json::from_str(&text).unwrap_or(serde_json::Value::Null))
}

#[test]
fn no_route_of_a_sensitive_request_leaves_its_words_in_a_record() {
    let dir = tempfile::tempdir().expect("dir");
    let served = Served::start("sim", dir.path(), &["--out", "runs"]);
    let id = served.session(r#"{"platformName": "Android", "appium:appPackage": "com.example.notes"}"#);
    let s = |path: &str| format!("/session/{id}{path}");
    let find = |served: &Served, using: &str, value: &str| -> String {
        let (status, reply) =
            served.call("POST", &s("/element"), &serde_json::json!({"using": using, "value": value}).to_string());
        assert_eq!(status, 200, "{value}: {reply}");
        reply["value"][ELEMENT].as_str().expect("an element").to_string()
    };
    let new_note = find(&served, "accessibility id", "New note");
    assert_eq!(served.call("POST", &s(&format!("/element/{new_note}/click")), "{}").0, 200);
    let field = find(&served, "id", "note_body");
    assert_eq!(served.call("POST", &s(&format!("/element/{field}/click")), "{}").0, 200);

    let secrets = [
        "element-value-hunter2",
        "legacy-keys-swordfish",
        "key-actions-tr0ub4dor",
        "mobile-type-correcthorse",
        "clipboard-route-batterystaple",
        "mobile-clipboard-opensesame",
        "find-value-account-4471",
        "script-literal-xyzzy-plugh",
        "failing-script-literal-qwerty",
    ];
    let (status, reply) = sensitive(
        &served,
        "POST",
        &s(&format!("/element/{field}/value")),
        &serde_json::json!({"text": secrets[0]}).to_string(),
    );
    assert_eq!(status, 200, "element value: {reply}");
    let (status, reply) = sensitive(
        &served,
        "POST",
        &s("/keys"),
        &serde_json::json!({"value": secrets[1].chars().map(String::from).collect::<Vec<_>>()}).to_string(),
    );
    assert_eq!(status, 200, "keys: {reply}");
    let keys: Vec<serde_json::Value> = secrets[2]
        .chars()
        .flat_map(|c| {
            [
                serde_json::json!({"type": "keyDown", "value": c.to_string()}),
                serde_json::json!({"type": "keyUp", "value": c.to_string()}),
            ]
        })
        .collect();
    let actions = serde_json::json!({"actions": [{"type": "key", "id": "keyboard", "actions": keys}]});
    let (status, reply) = sensitive(&served, "POST", &s("/actions"), &actions.to_string());
    assert_eq!(status, 200, "key actions: {reply}");
    let typed = serde_json::json!({"script": "mobile: type", "args": [{"text": secrets[3]}]});
    let (status, reply) = sensitive(&served, "POST", &s("/execute/sync"), &typed.to_string());
    assert_eq!(status, 200, "mobile: type: {reply}");
    use base64::Engine as _;
    let b64 = |t: &str| base64::engine::general_purpose::STANDARD.encode(t);
    let clip = serde_json::json!({"content": b64(secrets[4]), "contentType": "plaintext"});
    let (status, reply) = sensitive(&served, "POST", &s("/appium/device/set_clipboard"), &clip.to_string());
    assert_eq!(status, 200, "set_clipboard: {reply}");
    let clip = serde_json::json!({"script": "mobile: setClipboard", "args": [{"content": b64(secrets[5])}]});
    let (status, reply) = sensitive(&served, "POST", &s("/execute/sync"), &clip.to_string());
    assert_eq!(status, 200, "mobile: setClipboard: {reply}");
    let (status, reply) = sensitive(
        &served,
        "POST",
        &s("/element"),
        &serde_json::json!({"using": "accessibility id", "value": secrets[6]}).to_string(),
    );
    assert_eq!(status, 404, "a find that finds nothing: {reply}");
    let script = format!("input_text(\" {}\");\n// typed {}\n", secrets[7], secrets[7]);
    let (status, reply) = sensitive(
        &served,
        "POST",
        &s("/appium/execute_driver"),
        &serde_json::json!({"script": script, "type": "rhai"}).to_string(),
    );
    assert_eq!(status, 200, "a sensitive script: {reply}");
    let failing = format!("input_text(\"{}\");\nthrow \"no\";\n", secrets[8]);
    let (status, reply) = sensitive(
        &served,
        "POST",
        &s("/appium/execute_driver"),
        &serde_json::json!({"script": failing, "type": "rhai"}).to_string(),
    );
    assert_eq!(status, 500, "a sensitive script that fails: {reply}");
    // The session goes on; what the field holds reads back masked.
    let (status, reply) = served.call("GET", &s(&format!("/element/{field}/text")), "");
    assert_eq!(status, 200, "{reply}");
    let text = reply["value"].as_str().unwrap_or_default();
    assert!(secrets.iter().all(|v| !text.contains(v)), "the field's text is masked: {text}");
    assert_eq!(served.call("DELETE", &s(""), "").0, 200);

    // The next session's record shows what it types: nothing lent before is masked there.
    let next = served.session(r#"{"platformName": "Android", "appium:appPackage": "com.example.notes"}"#);
    let plain = serde_json::json!({"script": format!("\"{}\"", secrets[7]), "type": "rhai"});
    let (status, reply) = served.call("POST", &format!("/session/{next}/appium/execute_driver"), &plain.to_string());
    assert_eq!((status, reply["value"]["result"].as_str()), (200, Some(secrets[7])), "no longer a secret: {reply}");
    assert_eq!(served.call("DELETE", &format!("/session/{next}"), "").0, 200);
    drop(served);

    let runs = dir.path().join("runs");
    let mut folders: Vec<_> = std::fs::read_dir(&runs).expect("runs").flatten().map(|e| e.path()).collect();
    // Both began within a second: the first session's is the one with the longer record.
    let size = |p: &std::path::PathBuf| std::fs::metadata(p.join("events.jsonl")).map_or(0, |m| m.len());
    folders.sort_by_key(|p| std::cmp::Reverse(size(p)));
    assert_eq!(folders.len(), 2, "{folders:?}");
    let files = every_file(&folders[0]);
    assert!(files.iter().any(|(p, _)| p.ends_with("session.rhai")), "{files:?}");
    assert!(files.iter().any(|(p, _)| p.to_string_lossy().contains("/ui/")), "screen dumps were kept");
    for (path, text) in &files {
        for secret in secrets {
            assert!(!text.contains(secret), "{} holds {secret}", path.display());
        }
    }
    let later: String = every_file(&folders[1]).into_iter().map(|(_, t)| t).collect();
    assert!(later.contains(secrets[7]), "the next session's record is not masked by the last one's secrets");
}
