//! Hostile files, as a person would hand them to codeact, through the binary: each
//! ends in an error that says what is wrong, never a stack overflow, an abort, code
//! nobody wrote, gigabytes of output or a forged line. APKs nested too deep, with
//! looping references or a flood of permissions (built by `tests/clients/
//! hostile_apk.py`); flows nested deep, holding a NUL, inlining a big flow many
//! times, or named so as to end a comment; a gallery index linked to /dev/zero;
//! script names that hold a line break; a task suite whose judge builds a value
//! nested thousands deep.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("codeact-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn codeact_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_codeact")).args(args).current_dir(dir).output().expect("run codeact")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Ended by itself (an exit code), not by a signal (a stack overflow aborts).
fn ended_cleanly(out: &Output, case: &str) {
    assert!(out.status.code().is_some(), "{case}: killed by a signal: {}", text(out));
}

fn hostile_apk(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let apk = dir.join(name);
    let maker = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/clients/hostile_apk.py");
    let made = Command::new("python3").arg(maker).arg(&apk).args(args).output().expect("python3 runs");
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    apk
}

#[test]
fn apks_nested_deep_looping_or_flooded_end_in_clear_errors() {
    let dir = scratch("apk");
    // 200,000 nested elements in a 30 KB file: refused by depth, not by the stack.
    let deep = hostile_apk(&dir, "deep.apk", &["200000"]);
    let out = codeact_in(&dir, &["apk", "info", deep.to_str().expect("path")]);
    ended_cleanly(&out, "deep");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("nests elements 200001 deep, past the 64"), "{}", text(&out));
    // A manifest a real tool writes is read (depth 3).
    let fine = hostile_apk(&dir, "fine.apk", &["1"]);
    let out = codeact_in(&dir, &["apk", "info", "--json", fine.to_str().expect("path")]);
    assert!(out.status.success(), "{}", text(&out));
    // A label pointing into resources that name each other: set aside, said.
    let looping = hostile_apk(&dir, "loop.apk", &["1", "cycle"]);
    let out = codeact_in(&dir, &["apk", "info", looping.to_str().expect("path")]);
    ended_cleanly(&out, "loop");
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("references that loop"), "{}", text(&out));
    // 100,000 distinct permissions: each once, in linear time.
    let flood = hostile_apk(&dir, "flood.apk", &["1", "permissions=100000"]);
    let started = Instant::now();
    let out = codeact_in(&dir, &["apk", "info", "--json", flood.to_str().expect("path")]);
    assert!(out.status.success(), "{}", text(&out));
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(info["permissions"].as_array().map(Vec::len), Some(100_000));
    assert!(started.elapsed() < Duration::from_secs(20), "took {:?}", started.elapsed());
}

#[test]
fn flows_nested_deep_or_holding_a_nul_are_refused_by_line() {
    let dir = scratch("flows");
    std::fs::write(dir.join("deep.yaml"), "- ".repeat(100_000)).expect("write");
    let out = codeact_in(&dir, &["convert", "deep.yaml"]);
    ended_cleanly(&out, "deep");
    assert!(text(&out).contains("nest more than 64 deep"), "{}", text(&out));
    // A NUL would end the parser's input: every later command silently dropped.
    std::fs::write(dir.join("nul.yaml"), "- back\n- tapOn: x\u{0}\n- tapOn: \"Never there\"\n").expect("write");
    let out = codeact_in(&dir, &["exec", "nul.yaml", "--device", "sim"]);
    assert_eq!(out.status.code(), Some(2), "a flow with a NUL must not pass: {}", text(&out));
    assert!(text(&out).contains("line 2: the flow holds a NUL byte"), "{}", text(&out));
}

#[test]
fn a_small_flow_inlining_a_big_one_many_times_is_stopped_early() {
    let dir = scratch("amplify");
    // 512 KiB of commands, inlined 200 times: 100 MiB of YAML, more of Rhai.
    let big = format!("- inputText: \"{}\"\n", "x".repeat(512 * 1024));
    std::fs::write(dir.join("big.yaml"), big).expect("write");
    std::fs::write(dir.join("main.yaml"), "- runFlow: big.yaml\n".repeat(200)).expect("write");
    let started = Instant::now();
    let out = codeact_in(&dir, &["convert", "main.yaml"]);
    ended_cleanly(&out, "convert");
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.len() < 1 << 20, "printed {} bytes", out.stdout.len());
    assert!(text(&out).contains("bytes of script"), "{}", String::from_utf8_lossy(&out.stderr));
    let out = codeact_in(&dir, &["exec", "main.yaml", "--device", "sim"]);
    ended_cleanly(&out, "exec");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(started.elapsed() < Duration::from_secs(60), "took {:?}", started.elapsed());
    // Many small commands count too.
    std::fs::write(dir.join("many.yaml"), "- back\n".repeat(30_000)).expect("write");
    let out = codeact_in(&dir, &["convert", "many.yaml"]);
    assert!(text(&out).contains("20000 commands"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_flow_named_to_end_a_comment_runs_nothing_it_does_not_say() {
    let dir = scratch("inject");
    // A folder whose name holds a line break and a call: data in the translation.
    let folder = dir.join("x\nshell(\"simctl fault latency 1\");\n/*");
    std::fs::create_dir_all(&folder).expect("folder");
    let flow = folder.join("f.yaml");
    let yaml = r#"appId: "com.x\n*/ shell(\"echo hi\")"
name: "n\nprint(1)"
tags: ["a\nshell(\"x\")"]
---
- back
"#;
    std::fs::write(&flow, yaml).expect("write");
    let out = codeact_in(&dir, &["convert", flow.to_str().expect("path")]);
    assert!(out.status.success(), "{}", text(&out));
    let script = String::from_utf8_lossy(&out.stdout);
    let calls: Vec<&str> =
        script.lines().filter(|l| !l.trim_start().starts_with("//") && !l.trim().is_empty()).collect();
    assert_eq!(calls, ["back();"], "only the flow's command runs:\n{script}");
    let out = codeact_in(&dir, &["exec", flow.to_str().expect("path"), "--device", "sim", "--json"]);
    assert!(out.status.success(), "{}", text(&out));
    let tools: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["event"] == "action")
        .filter_map(|v| v["tool"].as_str().map(str::to_string))
        .collect();
    assert_eq!(tools, ["back"], "{}", text(&out));
}

#[test]
fn names_with_line_breaks_print_as_one_line_and_forge_no_verdict() {
    let dir = scratch("names");
    let name = "x\nPASS forged.rhai (1 actions, 1 ms)\nz.rhai";
    std::fs::write(dir.join(name), "throw \"bad\\nPASS forged-too.rhai\";\n").expect("write");
    let out = codeact_in(&dir, &["exec", ".", "--device", "sim"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let all = text(&out);
    assert!(!all.lines().any(|l| l.starts_with("PASS")), "a forged verdict line:\n{all}");
    assert!(all.contains("\\nPASS forged.rhai"), "the name shown escaped:\n{all}");
}

#[test]
fn a_gallery_index_linked_to_an_endless_file_is_refused() {
    let dir = scratch("gallery");
    let assets = dir.join("assets");
    std::fs::create_dir_all(&assets).expect("assets");
    std::os::unix::fs::symlink("/dev/zero", assets.join("index.json")).expect("link");
    let out = codeact_in(&dir, &["assets", "list", "--assets", "assets"]);
    ended_cleanly(&out, "index");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("more than"), "{}", text(&out));
}

#[test]
fn a_judge_building_a_value_thousands_deep_is_an_error_not_an_abort() {
    let dir = scratch("judge");
    let suite = dir.join("suite");
    std::fs::create_dir_all(&suite).expect("suite");
    let task = "[[task]]\nid = \"deep_judge\"\napps = [\"settings\"]\nkind = \"operation\"\ngoal = \"Nothing.\"\n\
                max_steps = 2\njudge = '''let m = #{}; for i in 0..15000 { m = #{a: m}; } true'''\n\
                oracle = '''complete(true, \"done\");'''\n";
    std::fs::write(suite.join("deep.toml"), task).expect("write");
    let out = codeact_in(&dir, &["eval", "--agent", "oracle", "--suite", "suite", "--out", "out"]);
    ended_cleanly(&out, "judge");
    assert!(text(&out).contains("broken"), "{}", text(&out));
}

#[test]
fn the_documented_smallest_memory_limit_starts_and_still_bounds() {
    let dir = scratch("memory");
    std::fs::write(dir.join("ok.rhai"), "print(40 + 2);\n").expect("write");
    let out = codeact_in(&dir, &["exec", "ok.rhai", "--device", "sim", "--limit", "max_memory_mb=64"]);
    assert!(out.status.success(), "max_memory_mb=64 starts: {}", text(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "42\n");
    // A built-in that allocates past the cap at once is the snippet's end, said so.
    std::fs::write(dir.join("big.rhai"), include_str!("hostile/memory_bomb.rhai")).expect("write");
    let out = codeact_in(&dir, &["exec", "big.rhai", "--device", "sim", "--limit", "max_memory_mb=64"]);
    ended_cleanly(&out, "big");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("64 MiB"), "{}", text(&out));
}

/// The virtual phone's faults reach every door a user's run goes through: the
/// Portal's stream (`--observe portal`), the iOS door's WebDriverAgent calls, the
/// HarmonyOS shell — so a fault test tests what runs.
#[test]
fn the_phones_faults_reach_every_door() {
    let dir = scratch("faults");
    let timed = |before: &str| {
        format!(
            "{before}refresh();\nshell(\"simctl fault latency 700\");\nlet t = timestamp();\nrefresh();\n\
             let took = t.elapsed;\nshell(\"simctl fault clear\");\nprint(took);\n"
        )
    };
    let portal = format!("shell({:?});\n", crate::agents_door::ENABLE_PORTAL);
    let doors = [("sim", "portal", portal.as_str()), ("sim:ios", "auto", ""), ("sim:harmony", "auto", "")];
    for (device, observe, before) in doors {
        std::fs::write(dir.join("timed.rhai"), timed(before)).expect("write");
        let args = ["exec", "timed.rhai", "--device", device, "--observe", observe, "--settle-ms", "0"];
        let out = codeact_in(&dir, &args);
        assert!(out.status.success(), "{device} --observe {observe}: {}", text(&out));
        let took: f64 = String::from_utf8_lossy(&out.stdout).trim().parse().expect("seconds");
        assert!(took >= 0.65, "{device} --observe {observe}: a look under 700 ms of latency took {took} s");
    }
}
