//! `codeact explore` end to end on the virtual phone: the systematic strategy
//! reaches at least 90 % of every built-in app's declared activities (the APK the
//! phone serves says which) within 300 actions; a crash planted on a widget is
//! found, its reproduction fails under `codeact exec` while the crash is there and
//! passes once it is gone; the tests it found pass `codeact exec` on the same build
//! and, on a layout variant, fail naming the step that diverged; report.html
//! renders in a real headless Chromium with the findings first; a phone that goes
//! away mid-walk ends it with exit 2 and everything found until then kept.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::{self, AdbServer};

fn codeact(args: &[&str], dir: Option<&Path>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_codeact"));
    command.args(args);
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    command.output().expect("run codeact")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Explores `app` and returns the summary JSON and the run folder.
fn explore(app: &str, device: &str, out: &Path, extra: &[&str]) -> (Option<i32>, Value, PathBuf) {
    let mut args = vec!["explore", "--app", app, "--device", device, "--out", out.to_str().unwrap(), "--json"];
    args.extend(extra);
    let ran = codeact(&args, None);
    let summary: Value = serde_json::from_slice(&ran.stdout).unwrap_or_else(|e| panic!("{app}: {e}: {}", text(&ran)));
    let dir = PathBuf::from(summary["dir"].as_str().expect("the run folder"));
    (ran.status.code(), summary, dir)
}

fn covers_at_least_ninety_percent(apps: &[&str]) {
    let out = tempfile::tempdir().unwrap();
    for app in apps {
        let (code, summary, dir) = explore(app, "sim", out.path(), &["--no-screenshots"]);
        assert_eq!(code, Some(0), "{app}: no finding on an unbroken app: {summary}");
        let declared = summary["coverage"]["declared"].as_array().unwrap().len();
        let reached = summary["coverage"]["declared"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| summary["coverage"]["reached"].get(a.as_str().unwrap()).is_some())
            .count();
        assert!(declared >= 1, "{app}: the APK declares its activities");
        assert!(reached * 10 >= declared * 9, "{app}: {reached} of {declared} activities");
        assert!(summary["actions"].as_u64().unwrap() <= 300 + 10, "{app}: within the budget: {}", summary["actions"]);
        // Written as it went, and at the end.
        for file in ["events.jsonl", "graph.json", "summary.json", "report.html", "tests/index.md"] {
            assert!(dir.join(file).is_file(), "{app}: {file}");
        }
        assert_eq!(summary["tests"].as_array().unwrap().len(), reached, "{app}: one test per activity reached");
    }
}

#[test]
fn the_systematic_explorer_covers_the_first_five_apps() {
    covers_at_least_ninety_percent(&[
        "com.example.notes",
        "com.android.settings",
        "com.google.android.apps.messaging",
        "com.android.contacts",
        "com.simplemobiletools.calendar.pro",
    ]);
}

#[test]
fn the_systematic_explorer_covers_the_other_five_apps() {
    covers_at_least_ninety_percent(&[
        "com.android.deskclock",
        "com.arduia.expense",
        "com.google.android.documentsui",
        // A game drawn on a canvas: the tree has one view; the screenshot shows where.
        "com.codeact.arcade",
        "com.android.launcher3",
    ]);
}

#[test]
fn the_systematic_explorer_covers_the_five_new_apps() {
    covers_at_least_ninety_percent(&[
        // The checkout shows only with something in the cart: reached by the way
        // that first got there, "Add to cart" included.
        "com.codeact.shop",
        "com.codeact.reader",
        "com.codeact.music",
        "com.codeact.maps",
        "com.codeact.forms",
    ]);
}

#[test]
fn a_planted_crash_is_found_and_its_reproduction_fails_until_it_is_fixed() {
    let sim = common::SimProcess::start(&[]);
    let adb = AdbServer::start();
    adb.connect(&sim.addr);
    adb.shell(&sim.addr, "simctl fault crash-on com.example.notes edit_note");
    let out = tempfile::tempdir().unwrap();
    let (code, summary, dir) = explore("com.example.notes", &sim.addr, out.path(), &[]);
    assert_eq!(code, Some(1), "a finding fails the exploration: {summary}");
    let finding = &summary["findings"][0];
    assert_eq!(finding["kind"], "crash", "{summary}");
    assert_eq!(finding["title"], "Notes keeps stopping");
    assert!(finding["exception"].as_str().unwrap().contains("IllegalStateException"), "{finding}");
    assert_eq!(finding["reproduced"], true, "replayed from a clean start: {finding}");
    assert_eq!(finding["steps"].as_array().unwrap().last().unwrap(), "tap(#{desc: \"Edit\"})");
    let script = finding["script"].as_str().unwrap();

    let while_broken = codeact(&["exec", script, "--device", &sim.addr], Some(&dir));
    assert_eq!(while_broken.status.code(), Some(1), "fails while the crash is there: {}", text(&while_broken));
    assert!(text(&while_broken).contains("keeps stopping"), "{}", text(&while_broken));
    adb.shell(&sim.addr, "simctl fault clear");
    let fixed = codeact(&["exec", script, "--device", &sim.addr], Some(&dir));
    assert_eq!(fixed.status.code(), Some(0), "passes once fixed: {}", text(&fixed));

    // The report: findings first, the chart and the graph, rendered by Chromium.
    let profile = tempfile::tempdir().unwrap();
    let page = format!("file://{}", dir.join("report.html").display());
    let dom = crate::report::chromium(&["--dump-dom", &page], profile.path());
    let dom = String::from_utf8_lossy(&dom.stdout);
    let findings_at = dom.find("Findings (1)").expect("the findings section");
    let coverage_at = dom.find("<h2>Coverage</h2>").expect("the coverage section");
    assert!(findings_at < coverage_at, "findings come first");
    for part in [
        "Notes keeps stopping",
        "aria-label=\"coverage over actions\"",
        "aria-label=\"screen transitions\"",
        "findings/01-crash.rhai",
    ] {
        assert!(dom.contains(part), "{part} in the rendered report");
    }
}

#[test]
fn the_tests_found_pass_on_the_same_build_and_name_the_step_a_variant_breaks() {
    let out = tempfile::tempdir().unwrap();
    let (code, summary, dir) = explore("com.example.notes", "sim", out.path(), &["--no-screenshots"]);
    assert_eq!(code, Some(0), "{summary}");
    let tests: Vec<String> =
        summary["tests"].as_array().unwrap().iter().map(|t| t["file"].as_str().unwrap().to_string()).collect();
    assert_eq!(tests.len(), 4, "{summary}");
    let mut args = vec!["exec".to_string()];
    args.extend(tests.iter().cloned());
    args.extend(["--device".to_string(), "sim".to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let same = codeact(&args, Some(&dir));
    assert_eq!(same.status.code(), Some(0), "{}", text(&same));

    // An update renames the ids: the steps that used them diverge, and say which.
    let sim = common::SimProcess::start(&[]);
    let adb = AdbServer::start();
    adb.connect(&sim.addr);
    adb.shell(&sim.addr, "simctl variant 2");
    let mut args: Vec<&str> = args[..args.len() - 1].to_vec();
    args.push(&sim.addr);
    let variant = codeact(&args, Some(&dir));
    let said = text(&variant);
    assert_eq!(variant.status.code(), Some(1), "{said}");
    assert!(said.contains("// step 2"), "the failing line names its step: {said}");
    assert!(said.contains("nothing on screen matches #{\"id\": \"note_title\"}"), "{said}");
}

#[test]
fn a_phone_that_goes_away_ends_the_walk_with_what_it_found_kept() {
    use std::io::{BufRead, BufReader};
    let mut sim = Some(common::SimProcess::start(&[]));
    let addr = sim.as_ref().unwrap().addr.clone();
    let out = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["explore", "--app", "com.android.settings", "--device", &addr, "--timeout", "3", "--json"])
        .arg("--out")
        .arg(out.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start codeact explore");
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let mut said = String::new();
    for line in stderr.lines().map_while(Result::ok) {
        said.push_str(&line);
        said.push('\n');
        // The phone goes away once the walk is under way.
        if line.starts_with("activity 2/") {
            sim = None;
        }
    }
    drop(sim);
    let finished = child.wait_with_output().expect("explore ends");
    assert_eq!(finished.status.code(), Some(2), "{said}");
    assert!(said.contains("the exploration stopped early"), "{said}");
    let summary: Value = serde_json::from_slice(&finished.stdout).expect("the summary is printed all the same");
    assert_eq!(summary["stopped"], "device_failed", "{summary}");
    let dir = PathBuf::from(summary["dir"].as_str().unwrap());
    for file in ["events.jsonl", "summary.json", "report.html", "tests/index.md"] {
        assert!(dir.join(file).is_file(), "{file} kept");
    }
    assert!(summary["coverage"]["reached"].as_object().unwrap().len() >= 2, "{summary}");
}
