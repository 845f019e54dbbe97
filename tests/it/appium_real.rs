//! The real Appium server (3.x from npm, with `appium driver install uiautomator2`)
//! on both ends: it drives the virtual phone through the stock adb — installing its
//! server APKs, starting them with `am instrument`, talking to the virtual phone's
//! UiAutomator2 server through `adb forward` —, and codeact drives Appium
//! (`--device appium:URL`): the bundled scripts pass, the oracle scores 1.0 on the
//! Android templates, and Appium's own Python client runs a test from Appium's
//! documentation in which a codeact script is one step (attach mode).

use std::path::PathBuf;
use std::process::Command;

use crate::common::{self, appium::Stand};

pub fn said(out: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn codeact_passes_the_bundled_scripts_and_the_android_templates_through_real_appium() {
    let stand = Stand::start();
    let device = format!("appium:{}", stand.appium.url);
    let scripts: Vec<PathBuf> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts"))
        .expect("scripts/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rhai"))
        .collect();
    assert!(scripts.len() >= 6, "{scripts:?}");
    let mut args: Vec<&str> = vec!["exec"];
    args.extend(scripts.iter().filter_map(|p| p.to_str()));
    args.extend(["--device", &device]);
    let out = stand.codeact(&args);
    let text = said(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(&format!("{} passed, 0 failed, 0 errors", scripts.len())), "{text}");

    // The whole Android suite, set up and judged through Appium's `mobile: shell`.
    let out_dir = tempfile::tempdir().expect("a temp dir");
    let results = out_dir.path().join("eval");
    let out = stand.codeact(&[
        "eval",
        "--agent",
        "oracle",
        "--device",
        &device,
        "--parallel",
        "1",
        "--out",
        results.to_str().unwrap_or(""),
    ]);
    let text = said(&out);
    assert!(out.status.success(), "{text}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(results.join("results.json")).expect("results.json")).expect("json");
    let all = &json["summary"]["all"];
    assert_eq!(all["mean_score"].as_f64(), Some(1.0), "{all}\n{text}");
    assert!(json["results"].as_array().is_some_and(|r| r.len() >= 116), "every Android template: {all}");
}

#[test]
fn appiums_python_client_runs_a_test_with_a_codeact_step_inside_its_session() {
    client_test_with_a_codeact_step(common::appium::Version::Three);
}

/// Appium 4's beta: the same test, the same codeact — a session read through
/// `/appium/capabilities` (its `GET /session/:id` is gone), elements under the W3C
/// key only.
#[test]
fn appium_4_beta_runs_the_same_test_with_a_codeact_step_inside_its_session() {
    client_test_with_a_codeact_step(common::appium::Version::FourBeta);
}

fn client_test_with_a_codeact_step(version: common::appium::Version) {
    let stand = Stand::start_version(version);
    let client = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/clients/appium_client.py");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/turn_off_wifi.rhai");
    let ran = Command::new(common::programs::appium_python())
        .args([client, &stand.appium.url, &stand.sim.addr, &stand.adb.port(), env!("CARGO_BIN_EXE_codeact"), script])
        .env("CODEACT_APPIUM_CAPS", stand.caps())
        .output()
        .expect("run the Appium client");
    let text = said(&ran);
    assert!(ran.status.success() && !text.contains("FAIL"), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("ok ")).count(), 18, "{text}");
    // The test's own session ended with it (attach mode left it to its owner until
    // then), and with it Appium's server on the phone.
    let (ps, _, _) = stand.adb.shell(&stand.sim.addr, "ps -A");
    assert!(!ps.contains("io.appium.uiautomator2.server"), "{ps}");
}
