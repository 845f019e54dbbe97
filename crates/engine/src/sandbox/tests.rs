//! The sandbox's own tests: persistence, errors and their positions, limits inside
//! callbacks, unfinished input.

use super::*;
use std::time::Duration;

#[test]
fn variables_and_functions_persist() {
    let mut sb = Sandbox::new(Limits::default()).unwrap();
    assert!(sb.eval("let n = 40; fn twice(x) { x * 2 }").ok());
    let r = sb.eval("let n = n + 1; print(twice(n));");
    assert_eq!((r.output.as_str(), r.error.is_none()), ("82\n", true));
    for _ in 0..50 {
        assert!(sb.eval("let n = 1;").ok());
    }
    assert_eq!(sb.vars(), ["n"], "re-declared variables do not pile up");
}

#[test]
fn errors_carry_line_column_source_and_kind() {
    let mut sb = Sandbox::new(Limits::default()).unwrap();
    let err = sb.compile("let a = 1;\nlet b = ;").unwrap_err();
    assert_eq!((err.line, &err.kind), (Some(2), &ErrorKind::Syntax));
    assert_eq!(err.source_line.as_deref(), Some("let b = ;"));
    let r = sb.eval("let x = 1;\nx.no_such_method();");
    let e = r.error.unwrap();
    assert_eq!((e.line, &e.kind), (Some(2), &ErrorKind::Script));
    assert!(e.message.contains("no_such_method"), "{}", e.message);
    assert!(e.to_string().contains('^'));
    let r = sb.eval("loop {}");
    assert_eq!(r.error.unwrap().kind, ErrorKind::Limit { limit: Limit::Operations });
}

#[test]
fn operations_inside_callbacks_count_toward_the_limit() {
    let mut sb = Sandbox::new(Limits { max_operations: 100_000, ..Limits::default() }).unwrap();
    for code in [
        "let a = []; for i in 0..2000 { a.push(i); } a.map(|x| { let s = 0; for j in 0..100 { s += j; } s })",
        "let a = []; for i in 0..2000 { a.push(i); } a.filter(|x| { let s = 0; for j in 0..100 { s += j; } s > 0 })",
        "let a = []; for i in 0..2000 { a.push(i); } a.reduce(|r, x| { let s = 0; for j in 0..100 { s += j; } s })",
    ] {
        let r = sb.eval(code);
        assert_eq!(r.error.map(|e| e.kind), Some(ErrorKind::Limit { limit: Limit::Operations }), "{code}");
    }
    assert!(sb.eval("let a = [1, 2, 3]; a.map(|x| x * 2)").ok(), "small callbacks are fine");
}

#[test]
fn a_compiled_snippet_runs_as_often_as_asked() {
    let mut sb = Sandbox::new(Limits::default()).unwrap();
    let code = sb.compile("let n = if n == () { 0 } else { n }; n += 1; n").unwrap();
    assert_eq!(code.source(), "let n = if n == () { 0 } else { n }; n += 1; n");
    let _ = sb.set_var("n", Dynamic::UNIT);
    assert_eq!(sb.run(&code).value.as_deref(), Some("1"));
    assert_eq!(sb.run(&code).value.as_deref(), Some("2"));
}

#[test]
fn unfinished_input_is_told_from_wrong_input() {
    for code in ["fn f(x) {", "let a = [1,\n2", "if true {\n print(1);", "let s = \"abc", "let x = 1 +"] {
        assert!(is_incomplete(code), "{code:?} is unfinished");
    }
    for code in ["let x = 1;", "fn f(x) { x }", "let = 3;", "print(1))", "let x = 1 + ;", ""] {
        assert!(!is_incomplete(code), "{code:?} is finished (or plainly wrong)");
    }
}

#[test]
fn a_cancel_stops_a_sleeping_snippet_at_once() {
    let mut sb = Sandbox::new(Limits::default()).unwrap();
    let handle = sb.cancel_handle();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        handle.cancel();
    });
    let started = Instant::now();
    let r = sb.eval("sleep(20);");
    let _ = canceller.join();
    assert_eq!(r.error.map(|e| e.kind), Some(ErrorKind::Cancelled));
    assert!(started.elapsed() < Duration::from_secs(5), "woken by the cancel, not the clock");
    assert!(sb.eval("sleep(0.01); 1").ok(), "the next snippet runs normally");
    let session = CancellationToken::new();
    sb.stop_on(session.clone());
    session.cancel();
    assert_eq!(sb.eval("loop {}").error.map(|e| e.kind), Some(ErrorKind::Cancelled), "stopped before it began");
}

#[test]
fn a_panic_in_the_engine_is_a_script_error_and_the_session_keeps_its_variables() {
    let mut builder = Sandbox::builder(Limits::default()).unwrap();
    // A host function with a bug: it panics while the engine holds the lock of
    // the (shared) map it was handed.
    builder.engine_mut().register_fn("buggy", |_m: &mut rhai::Map| -> i64 { panic!("a bug") });
    let mut sb = builder.start(String::new()).unwrap();
    assert!(sb.eval("let kept = 41; fn twice(x) { 2 * x }").ok());
    // `m` is shared (a closure captured it) while the engine holds its lock.
    let r = sb.eval("let m = #{a: 1}; let f = || m; m.buggy()");
    let err = r.error.expect("an error");
    assert_eq!(err.kind, ErrorKind::Script, "{}", err.message);
    assert!(err.message.contains("a bug") && err.message.contains("session goes on"), "{}", err.message);
    assert!(err.message.contains("gone: f, m"), "the poisoned variables are named: {}", err.message);
    assert_eq!(sb.eval("twice(kept + 1)").value.as_deref(), Some("84"), "variables and functions are kept");
    assert!(sb.eval("m").error.is_some_and(|e| e.message.contains("not found")), "m is gone, not locked");
}

#[test]
fn to_json_of_a_map_that_reaches_itself_is_an_error_not_a_panic() {
    let mut sb = Sandbox::new(Limits::default()).unwrap();
    let r = sb.eval("let kept = 1; let m = #{}; m.f = |x| m; m.to_json()");
    let err = r.error.expect("an error");
    assert_eq!(err.kind, ErrorKind::Script, "{}", err.message);
    assert!(err.message.contains("to_json"), "{}", err.message);
    assert_eq!(sb.eval("kept").value.as_deref(), Some("1"));
    let plain = sb.eval(r#"#{a: 1, b: [true, (), 2.5, "x\"y"], c: #{}}.to_json()"#);
    assert_eq!(plain.value.as_deref(), Some(r#""{\"a\":1,\"b\":[true,null,2.5,\"x\\\"y\"],\"c\":{}}""#));
}
