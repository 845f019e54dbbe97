//! Maestro flows, written from Maestro's documentation (`tests/fixtures/maestro/`),
//! run by `codeact exec` on the virtual phone and judged by the world's state; a
//! folder of flows is a suite (a flow another runs is not a test); a run exported
//! with `--export maestro` replays as the same calls; what codeact cannot run is an
//! error naming the command and its line.

use std::path::Path;
use std::process::Command;

use crate::common;

const FLOWS: &str = "tests/fixtures/maestro";

use common::codeact;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The calls a run made, in order (tool and arguments), from its events.
fn calls(dir: &Path) -> Vec<String> {
    let events = std::fs::read_to_string(dir.join("events.jsonl")).expect("events");
    events
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["event"] == "action")
        .map(|e| format!("{}({})", e["tool"].as_str().unwrap_or(""), e["args"]))
        .collect()
}

#[test]
fn documented_flows_pass_on_the_virtual_phone_and_change_its_world() {
    // The folder is a suite: five flows, the subflow they run is not one.
    let dir = tempfile::tempdir().expect("dir");
    let junit = dir.path().join("junit.xml");
    let out = codeact(&["exec", FLOWS, "-d", "sim", "--junit", junit.to_str().expect("p")]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("5 passed, 0 failed, 0 errors"), "{}", stderr(&out));
    let xml = std::fs::read_to_string(&junit).expect("junit");
    assert_eq!(xml.matches("<testcase ").count(), 5, "{xml}");
    assert!(!xml.contains("start_chat"), "a flow another runs is not a test: {xml}");

    // What they did, in the world's own words.
    type Check = fn(&serde_json::Value) -> bool;
    let checks: [(&str, Check); 3] = [
        ("wifi_off.yaml", |s| s["settings"]["wifi"] == false),
        ("send_message.yaml", |s| {
            s["messages"].as_array().is_some_and(|m| m.iter().any(|m| m["to"] == "张三" && m["text"] == "你好"))
        }),
        ("add_note.yaml", |s| {
            s["notes"]
                .as_array()
                .is_some_and(|n| n.iter().any(|n| n["title"] == "Shopping" && n["body"] == "milk, eggs"))
        }),
    ];
    for (flow, check) in checks {
        let sim = common::SimProcess::start(&[]);
        let out = codeact(&["exec", &format!("{FLOWS}/{flow}"), "--device", &sim.addr]);
        assert!(out.status.success(), "{flow}: {}", stderr(&out));
        assert!(check(&common::sim_state(&sim.addr)), "{flow}: the world does not show it");
    }

    // Tags come from the flow's config.
    let out = codeact(&["exec", FLOWS, "--include-tags", "smoke", "--list"]);
    let listed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(listed.lines().count(), 2, "{listed}");
    assert!(listed.contains("send_message.yaml") && listed.contains("wifi_off.yaml"), "{listed}");
}

#[test]
fn an_exported_flow_replays_the_same_calls() {
    let dir = tempfile::tempdir().expect("dir");
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    let out = codeact(&[
        "exec",
        &format!("{FLOWS}/send_message.yaml"),
        "-d",
        "sim",
        "--trajectory",
        first.to_str().expect("p"),
        "--export",
        "maestro",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let flow = first.join("flow.yaml");
    assert!(stderr(&out).contains(&format!("maestro flow: {}", flow.display())), "{}", stderr(&out));
    let out = codeact(&[
        "exec",
        flow.to_str().expect("p"),
        "-d",
        "sim",
        "--trajectory",
        second.to_str().expect("p"),
        "--export",
        "maestro",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // The exported flow, run, makes the calls the original made (less the waits
    // Maestro's taps do themselves, and its optional tap's guard), and exports
    // itself again.
    let acted = |calls: Vec<String>| -> Vec<String> {
        calls.into_iter().filter(|c| !c.starts_with("wait_for(") && !c.starts_with("assert_visible(")).collect()
    };
    assert_eq!(acted(calls(&first)), acted(calls(&second)));
    let body = |p: &Path| {
        std::fs::read_to_string(p)
            .expect("flow")
            .lines()
            .filter(|l| !l.starts_with("name:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(body(&flow), body(&second.join("flow.yaml")));
    // Without a trajectory there is nowhere to write it: said before anything runs.
    let out = codeact(&["exec", &format!("{FLOWS}/wifi_off.yaml"), "-d", "sim", "--export", "maestro"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--trajectory"), "{}", stderr(&out));
}

#[test]
fn convert_prints_the_script_and_refuses_what_it_cannot_run() {
    let out = codeact(&["convert", &format!("{FLOWS}/wifi_off.yaml")]);
    let script = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        script.contains("// tags: smoke, settings") && script.contains("clear_app_data(\"com.android.settings\");")
    );
    assert!(script.contains("tap(#{id: \"wifi_switch\"});"), "{script}");
    let dir = tempfile::tempdir().expect("dir");
    for (name, flow, says) in [
        ("js", "appId: x\n---\n- launchApp\n- evalScript: ${output.x = 1}\n", "line 4: evalScript is not supported"),
        ("unknown", "- back\n- doubleTapOn: OK\n", "line 2: `doubleTapOn` is not a Maestro command codeact runs"),
        ("key", "- tapOn:\n    width: 100\n", "line 2: the selector key `width` is not supported"),
        ("outside", "- runFlow: ../../../../etc/x.yaml\n", "runFlow \"../../../../etc/x.yaml\""),
        ("alias", "- tapOn: &a OK\n- tapOn: *a\n", "aliases"),
        ("no_app", "- launchApp\n", "give appId"),
    ] {
        let path = dir.path().join(format!("{name}.yaml"));
        std::fs::write(&path, flow).expect("flow");
        let out = codeact(&["convert", path.to_str().expect("p")]);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{name}: {}", stderr(&out));
        // exec says the same, and runs nothing.
        let out = codeact(&["exec", path.to_str().expect("p"), "-d", "sim"]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(stderr(&out).contains(says), "{name}: {}", stderr(&out));
    }
}

/// Every bundled script, exported as a flow, runs as a flow and exports again
/// unchanged (name, appId and all): export → exec → export is a fixed point.
#[test]
fn the_bundled_scripts_round_trip_through_maestro_unchanged() {
    let dir = tempfile::tempdir().expect("dir");
    let (first, second, flows) = (dir.path().join("first"), dir.path().join("second"), dir.path().join("flows"));
    let scripts = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts");
    let out =
        codeact(&["exec", scripts, "-d", "sim", "--trajectory", first.to_str().expect("p"), "--export", "maestro"]);
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::create_dir_all(&flows).expect("flows");
    let names: Vec<String> = std::fs::read_dir(&first)
        .expect("runs")
        .filter_map(Result::ok)
        .filter(|e| e.path().join("flow.yaml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.len() >= 6, "{names:?}");
    for name in &names {
        let flow = std::fs::read_to_string(first.join(name).join("flow.yaml")).expect("flow");
        assert!(flow.starts_with("appId: \""), "{name}: Maestro needs the appId:\n{flow}");
        std::fs::write(flows.join(format!("{name}.yaml")), flow).expect("copy");
    }
    let out = codeact(&[
        "exec",
        flows.to_str().expect("p"),
        "-d",
        "sim",
        "--trajectory",
        second.to_str().expect("p"),
        "--export",
        "maestro",
    ]);
    assert!(out.status.success(), "the exported flows pass: {}", stderr(&out));
    for name in &names {
        let read = |root: &Path| std::fs::read_to_string(root.join(name).join("flow.yaml")).expect("flow");
        assert_eq!(read(&first), read(&second), "{name}");
    }
}

/// Texts as Maestro reads them (regexes, matched whole), a failure told at the
/// flow's line (and an inlined flow's file and line), takeScreenshot's file.
#[test]
fn flows_read_and_fail_as_maestro_reads_them() {
    let dir = tempfile::tempdir().expect("dir");
    let flow = dir.path().join("f.yaml");
    std::fs::create_dir_all(dir.path().join("sub")).expect("sub");
    std::fs::write(
        &flow,
        "appId: com.android.settings\n---\n- launchApp\n- assertVisible: \"Wi.Fi\"\n- tapOn:\n    text: \"wi-fi\"\n\
         - takeScreenshot: shots/wifi\n- runFlow: sub/part.yaml\n",
    )
    .expect("flow");
    let part = "- back\n- extendedWaitUntil:\n    visible: \"Nothing [a-z]+ this\"\n    timeout: 300\n";
    std::fs::write(dir.path().join("sub/part.yaml"), part).expect("part");
    let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "f.yaml", "-d", "sim", "--limit", "timeout_ms=60000"])
        .current_dir(dir.path())
        .output()
        .expect("exec");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("FAIL f.yaml: line 8: sub/part.yaml line 2"),
        "the YAML's lines, not the translation's: {err}"
    );
    assert!(!err.contains("\"Wi.Fi\" is not on screen"), "a dot is any character: {err}");
    let png = std::fs::read(dir.path().join("shots/wifi.png")).expect("takeScreenshot wrote its file");
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
}

/// A flow's screenshot lands below the working folder and through no link that was
/// there: a link would take a file somewhere else.
#[test]
fn take_screenshot_writes_through_no_link() {
    let dir = tempfile::tempdir().expect("dir");
    let elsewhere = tempfile::tempdir().expect("elsewhere");
    std::os::unix::fs::symlink(elsewhere.path(), dir.path().join("shots")).expect("link");
    std::fs::write(dir.path().join("f.yaml"), "- takeScreenshot: shots/a\n- takeScreenshot: ok/b\n").expect("flow");
    let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "f.yaml", "-d", "sim"])
        .current_dir(dir.path())
        .output()
        .expect("exec");
    assert!(stderr(&out).contains("cannot write shots/a.png: a folder on its path is a link"), "{}", stderr(&out));
    assert!(
        std::fs::read_dir(elsewhere.path()).expect("elsewhere").next().is_none(),
        "nothing written through the link"
    );
    assert!(dir.path().join("ok/b.png").is_file());
}

/// A tap on an element that is not there waits Maestro's 17 s for it, and says so
/// while it waits: nobody looks at a silent terminal wondering whether it hung.
#[test]
fn a_long_wait_says_that_it_is_waiting() {
    let dir = tempfile::tempdir().expect("dir");
    let flow = dir.path().join("missing.yaml");
    std::fs::write(&flow, "appId: com.android.settings\n---\n- launchApp\n- tapOn: \"Nowhere to be found\"\n")
        .expect("flow");
    let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", flow.to_str().unwrap_or_default(), "--device", "sim", "--limit", "timeout_ms=5000"])
        .output()
        .expect("codeact exec");
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert_ne!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("… waiting for \"Nowhere to be found\" to show"), "{said}");
    assert!(said.contains("line 4"), "the flow's line is named: {said}");
}
