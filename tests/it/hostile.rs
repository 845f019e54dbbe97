//! Hostile snippets (`tests/hostile/*.rhai`): each ends with a clear error within its
//! limit, nothing panics, and the session stays usable afterwards.

use std::time::{Duration, Instant};

use codeact::sandbox::{Limits, Sandbox};

/// Small limits so every case ends quickly; the time limit is what `busy_sleep` hits.
fn limits() -> Limits {
    Limits {
        max_operations: 200_000,
        timeout_ms: 500,
        max_output: 4096,
        max_array_size: 1000,
        max_map_size: 1000,
        ..Limits::default()
    }
}

/// (file, code, what the error must mention; `a|b` accepts either)
const CASES: &[(&str, &str, &str)] = &[
    ("endless_loop", include_str!("hostile/endless_loop.rhai"), "operations"),
    ("busy_sleep", include_str!("hostile/busy_sleep.rhai"), "time limit"),
    ("deep_recursion", include_str!("hostile/deep_recursion.rhai"), "levels"),
    ("doubling_string", include_str!("hostile/doubling_string.rhai"), "limit"),
    ("growing_array", include_str!("hostile/growing_array.rhai"), "limit"),
    // Rhai checks map sizes in `for`/`while` but not in `loop`: there the operations
    // limit bounds it.
    ("growing_map", include_str!("hostile/growing_map.rhai"), "limit|operations"),
    ("endless_print", include_str!("hostile/endless_print.rhai"), "operations"),
    ("eval", include_str!("hostile/eval.rhai"), "eval"),
    ("import", include_str!("hostile/import.rhai"), "import"),
    ("file_and_network", include_str!("hostile/file_and_network.rhai"), "open_file"),
    ("deep_expression", include_str!("hostile/deep_expression.rhai"), "syntax error"),
    ("wrong_types", include_str!("hostile/wrong_types.rhai"), "complete"),
    ("swallowing_comparer", include_str!("hostile/swallowing_comparer.rhai"), "operations"),
    ("sleepy_comparer", include_str!("hostile/sleepy_comparer.rhai"), "time limit"),
    ("callback_work", include_str!("hostile/callback_work.rhai"), "operations"),
    ("shadowed_builtin", include_str!("hostile/shadowed_builtin.rhai"), "cannot redefine"),
    ("huge_error", include_str!("hostile/huge_error.rhai"), "error cut"),
    ("nul_byte", include_str!("hostile/nul_byte.rhai"), "NUL byte"),
    ("replace_bomb", include_str!("hostile/replace_bomb.rhai"), "limit"),
];

#[test]
fn every_hostile_snippet_ends_with_a_clear_error_and_the_session_survives() {
    let limits = limits();
    let mut sb = Sandbox::new(limits.clone()).expect("sandbox");
    // Time limit ×1.2, plus a little for scheduling on a loaded 2-core CI machine.
    let bound = limits.timeout().mul_f64(1.2) + Duration::from_millis(50);
    for (name, code, expected) in CASES {
        let started = Instant::now();
        let r = sb.eval(code);
        let elapsed = started.elapsed();
        let err = r.error.unwrap_or_else(|| panic!("{name}: no error"));
        let message = err.message.to_lowercase();
        assert!(
            expected.split('|').any(|word| message.contains(&word.to_lowercase())),
            "{name}: error {:?} should mention {expected:?}",
            err.message
        );
        assert!(elapsed <= bound, "{name}: took {elapsed:?}, limit {bound:?}");
        assert!(r.output.is_empty() || *name == "endless_print", "{name}: nothing ran past the error");
        assert!(err.message.len() < 4096 + 64, "{name}: the error is bounded");
        if *name == "endless_print" {
            assert!(r.output.len() <= 4096 + 64, "{name}: output is bounded");
            assert!(r.output.contains("[output cut at"), "{name}: says it was cut");
        }
        // The session is still usable and keeps its state.
        let after = sb.eval("let ok = 1 + 1; print(ok);");
        assert_eq!(after.output, "2\n", "{name}: session unusable afterwards: {:?}", after.error);
    }
}

/// Settings from `flags`, with the test build's worker program.
fn settings_from(flags: &codeact::config::Flags) -> codeact::config::Settings {
    let mut settings = codeact::config::FileConfig::default().resolve(flags).expect("settings");
    settings.worker = crate::common::worker();
    settings
}

/// A session with `settings` on a virtual phone of its own.
fn sim_session(settings: &codeact::config::Settings) -> codeact::session::Session {
    use codeact::device::{DeviceSpec, open};
    let device = open(&DeviceSpec::Sim, Duration::from_secs(10)).expect("virtual device");
    codeact::session::Session::new(device, settings).expect("session")
}

/// Hostile uses of the tools, against the virtual device: (file, code, persona, what
/// the error must mention).
const TOOL_CASES: &[(&str, &str, Option<&str>, &str)] = &[
    (
        "tool_outside_persona",
        include_str!("hostile/tool_outside_persona.rhai"),
        Some("app_starter"),
        "function not found: tap_by_index",
    ),
    (
        "tool_wrong_types",
        include_str!("hostile/tool_wrong_types.rhai"),
        None,
        "input_text() cannot take (integer); use input_text(text)",
    ),
    ("tool_bad_values", include_str!("hostile/tool_bad_values.rhai"), None, "off the screen"),
    ("tool_endless_taps", include_str!("hostile/tool_endless_taps.rhai"), None, "time limit"),
    ("tool_long_waits", include_str!("hostile/tool_long_waits.rhai"), None, "past its time limit"),
    ("tool_selector_tree", include_str!("hostile/tool_selector_tree.rhai"), None, "more than 16 regexes"),
    ("tool_selector_text", include_str!("hostile/tool_selector_text.rhai"), None, "KiB of text"),
];

#[test]
fn hostile_tool_calls_end_with_clear_errors_and_the_session_survives() {
    use codeact::config::Flags;

    for (name, code, persona, expected) in TOOL_CASES {
        let flags =
            Flags { persona: persona.map(str::to_string), limits: vec!["timeout_ms=1000".into()], ..Flags::default() };
        let settings = settings_from(&flags);
        let mut session = sim_session(&settings);
        let started = Instant::now();
        let r = session.eval(code);
        let elapsed = started.elapsed();
        let err = r.error.unwrap_or_else(|| panic!("{name}: no error"));
        assert!(
            err.message.to_lowercase().contains(&expected.to_lowercase()),
            "{name}: error {:?} should mention {expected:?}",
            err.message
        );
        // One device call may be in flight when the deadline passes: allow for it.
        let bound = settings.limits.timeout().mul_f64(1.2) + Duration::from_millis(150);
        assert!(elapsed <= bound, "{name}: took {elapsed:?}, limit {bound:?}");
        if *name == "tool_outside_persona" {
            assert!(
                err.message.contains("start_app, open_app, list_packages, complete"),
                "names the tools: {}",
                err.message
            );
        }
        let after = session.eval("let ok = 1 + 1; print(ok);");
        assert_eq!(after.output, "2\n", "{name}: session unusable afterwards: {:?}", after.error);
    }
}

#[test]
fn a_hung_device_cannot_hold_a_snippet_past_its_limit() {
    use codeact::config::Flags;
    use codeact::device::{DeviceSpec, open};
    use codeact::session::Session;

    let flags = Flags { limits: vec!["timeout_ms=1000".into()], ..Flags::default() };
    let settings = settings_from(&flags);
    let mut device = open(&DeviceSpec::Sim, Duration::from_secs(10)).expect("virtual device");
    device.observe().expect("the screen size is known before the hang");
    device.shell("simctl fault hang 0").expect("arm the fault");
    let mut session = Session::new(device, &settings).expect("session");
    let started = Instant::now();
    let r = session.eval(include_str!("hostile/tool_hung_device.rhai"));
    let elapsed = started.elapsed();
    let err = r.error.expect("the tap cannot finish");
    assert!(err.message.contains("time limit"), "{}", err.message);
    let bound = settings.limits.timeout().mul_f64(1.2) + Duration::from_millis(150);
    assert!(elapsed <= bound, "took {elapsed:?}, limit {bound:?}");
}

#[test]
fn a_deeply_nested_value_cannot_overflow_a_small_caller_stack() {
    // The agent calls the sandbox from a tokio worker: 2 MiB of stack.
    let caller = std::thread::Builder::new().stack_size(2 * 1024 * 1024).spawn(|| {
        let mut sb = Sandbox::new(Limits::default()).expect("sandbox");
        let r = sb.eval(include_str!("hostile/deep_value.rhai"));
        let shown = r.value.unwrap_or_default();
        let checked = sb.compile("let b = a;").is_ok();
        let after = sb.eval("a.len() + a[0].len()");
        let _ = sb.reset();
        drop(sb);
        (shown.len(), checked, after.value, r.error.map(|e| e.message))
    });
    let (shown, checked, depth, error) = caller.expect("thread").join().expect("no stack overflow on the caller");
    assert!(error.is_none(), "{error:?}");
    assert!(shown > 9000 && checked, "the value was shown and the session still parses");
    assert_eq!(depth.as_deref(), Some("2"), "the value is kept whole");
}

/// A snippet that kills its engine (here: memory) is one clear error, within the
/// limits; the session goes on with a fresh engine and says what was lost.
#[test]
fn a_snippet_that_kills_its_engine_is_one_error_and_the_session_goes_on() {
    use codeact::config::Flags;
    use codeact::sandbox::{ErrorKind, Limit};

    let flags = Flags { limits: vec!["timeout_ms=5000".into(), "max_memory_mb=256".into()], ..Flags::default() };
    let settings = settings_from(&flags);
    let mut session = sim_session(&settings);
    assert!(session.eval("let kept = 41;").ok());
    let started = Instant::now();
    let r = session.eval(include_str!("hostile/memory_bomb.rhai"));
    let elapsed = started.elapsed();
    let err = r.error.expect("an error");
    assert_eq!(err.kind, ErrorKind::Limit { limit: Limit::Memory }, "{}", err.message);
    assert!(err.message.contains("256 MiB") && err.message.contains("variables"), "{}", err.message);
    assert!(elapsed < Duration::from_secs(7), "took {elapsed:?}");
    let after = session.eval("print(1 + 1); kept");
    assert_eq!(after.output, "2\n", "a fresh engine runs the next snippet");
    assert!(after.error.is_some_and(|e| e.message.contains("kept")), "and the old variables are gone");
    assert!(session.eval("tap(10, 10);").ok(), "the tools still work");

    assert!(session.eval("let kept = 7;").ok());
    let r = session.eval(include_str!("hostile/self_reaching_value.rhai"));
    let err = r.error.expect("an error");
    assert_eq!(err.kind, ErrorKind::Script, "a script error, not a crash: {}", err.message);
    assert!(err.message.contains("to_json") && !err.message.contains("restarted"), "{}", err.message);
    let after = session.eval("let m = #{a: 1}; m.to_json()");
    assert_eq!(after.value.as_deref(), Some(r#""{\"a\":1}""#), "no value stays locked: {:?}", after.error);
    assert_eq!(session.eval("kept").value.as_deref(), Some("7"), "the session kept its variables");
}

/// Through the binary: a snippet that kills its engine ends `exec` with an ordinary
/// failure exit, never an abort.
#[test]
fn exec_survives_a_snippet_that_kills_its_engine() {
    let dir = std::env::temp_dir().join(format!("codeact-hostile-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let script = dir.join("memory_bomb.rhai");
    std::fs::write(&script, include_str!("hostile/memory_bomb.rhai")).expect("write script");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "--device", "sim", "--limit", "max_memory_mb=128"])
        .arg(&script)
        .output()
        .expect("run codeact exec");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(1 | 2)), "{:?}: {stderr}", out.status);
    assert!(stderr.contains("more than 128 MiB"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Through a session with the tools: `complete()` swallowed by a built-in still
/// ends the snippet as it said; a script cannot redefine `complete`; a flood of
/// tool calls is kept bounded and summed up.
#[test]
fn completion_tools_and_the_action_log_cannot_be_subverted() {
    use codeact::config::Flags;
    use codeact::sandbox::{ErrorKind, KEPT_ACTIONS, LISTED_ACTIONS};

    let flags = Flags { limits: vec!["timeout_ms=20000".into()], ..Flags::default() };
    let settings = settings_from(&flags);
    let mut session = sim_session(&settings);

    let r = session.eval(include_str!("hostile/complete_twice.rhai"));
    let completion = r.completion.expect("completed");
    assert_eq!((completion.success, completion.reason.as_str()), (false, "first"));
    assert!(r.error.is_none(), "{:?}", r.error);

    let r = session.eval(include_str!("hostile/shadowed_complete.rhai"));
    let err = r.error.expect("refused");
    assert_eq!((err.kind, err.line), (ErrorKind::Syntax, Some(3)));
    assert!(err.message.contains("fn complete") && err.message.contains("cannot redefine"), "{}", err.message);
    assert!(r.output.is_empty() && r.completion.is_none(), "nothing ran");
    let r = session.eval("complete(true, \"the real one\");");
    assert_eq!(r.completion.map(|c| c.reason), Some("the real one".to_string()), "the tool is intact");

    let r = session.eval(include_str!("hostile/tool_flood.rhai"));
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!((r.actions.len(), r.more_actions), (KEPT_ACTIONS, 3000 - KEPT_ACTIONS));
    let (listed, more) = r.listed_actions(LISTED_ACTIONS);
    assert_eq!(listed.len(), LISTED_ACTIONS);
    assert_eq!(more.as_deref(), Some("… and 2,950 more calls"));
}

/// Through the binary: a stack overflow in the engine ends `exec` with an ordinary
/// error exit and a message that names it.
#[test]
fn exec_survives_a_stack_overflow_in_its_engine() {
    let dir = std::env::temp_dir().join(format!("codeact-hostile-stack-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let script = dir.join("closure_chain.rhai");
    std::fs::write(&script, include_str!("hostile/closure_chain.rhai")).expect("write script");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "--device", "sim", "--limit", "max_operations=100000000", "--limit", "max_memory_mb=4096"])
        .arg(&script)
        .output()
        .expect("run codeact exec");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("stack overflow"), "{stderr}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("dropped"));
    let _ = std::fs::remove_dir_all(&dir);
}
