//! Selenium Grid 4 as the engine past one machine: a hub with two Appium relay
//! nodes, each Appium over a virtual phone of its own. `codeact exec --parallel 2`
//! spreads a suite over both phones (each script once, the counts adding up, each
//! phone used), `codeact eval --parallel 2` scores 1.0 on them, and Appium's Python
//! client, through the grid, runs a test with a codeact step attached to its session.

use std::process::Command;

use crate::appium_real::said;
use crate::common::appium::{Grid, Stand, codeact_with_caps};
use crate::common::programs;

/// What codeact asks the grid for: any Android phone (the grid picks one).
const ANY_ANDROID: &str = r#"{"platformName": "Android", "appium:automationName": "UiAutomator2"}"#;

#[test]
fn a_suite_spreads_over_a_grids_phones_and_a_python_test_attaches_codeact_to_its_session() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let stands = [Stand::for_grid(&dir.path().join("appium1.log")), Stand::for_grid(&dir.path().join("appium2.log"))];
    let grid = Grid::start(&stands, dir.path());
    let device = format!("appium:{}", grid.url);

    // The bundled scripts, each once, over both phones.
    let suite = dir.path().join("suite");
    std::fs::create_dir(&suite).expect("a suite folder");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts")).expect("scripts/").flatten() {
        if entry.path().extension().is_some_and(|e| e == "rhai") {
            std::fs::copy(entry.path(), suite.join(entry.file_name())).expect("copy a script");
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    let suite_arg = suite.to_str().unwrap_or_default();
    let out = codeact_with_caps(&["exec", suite_arg, "--device", &device, "--parallel", "2"], ANY_ANDROID);
    let text = said(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(&format!("{} passed, 0 failed, 0 errors", names.len())), "{text}");
    for name in &names {
        let runs = text.lines().filter(|l| l.starts_with("PASS ") && l.contains(name.as_str())).count();
        assert_eq!(runs, 1, "{name} runs once: {text}");
    }
    for stand in &stands {
        let log = stand.appium.log.as_ref().map(std::fs::read_to_string).and_then(Result::ok).unwrap_or_default();
        assert!(log.contains("--> POST /session"), "each phone takes a session: {}", stand.sim.addr);
    }

    // The Settings templates, two workers, one grid session each.
    let results = dir.path().join("eval");
    let out = codeact_with_caps(
        &[
            "eval",
            "--agent",
            "oracle",
            "--tasks",
            "settings_*",
            "--device",
            &device,
            "--parallel",
            "2",
            "--out",
            results.to_str().unwrap_or_default(),
        ],
        ANY_ANDROID,
    );
    let text = said(&out);
    assert!(out.status.success(), "{text}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(results.join("results.json")).expect("results.json")).expect("json");
    assert_eq!(json["summary"]["all"]["mean_score"].as_f64(), Some(1.0), "{text}");

    // Appium's own client through the grid; a codeact script is one step of its test.
    let client = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/clients/appium_client.py");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/turn_off_wifi.rhai");
    let ran = Command::new(programs::appium_python())
        .args([client, &grid.url, "-", "-", env!("CARGO_BIN_EXE_codeact"), script])
        .output()
        .expect("run the Appium client");
    let text = said(&ran);
    assert!(ran.status.success() && !text.contains("FAIL"), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("ok ")).count(), 18, "{text}");
}
