use rhai::{Dynamic, Engine, ImmutableString};

use super::*;
use crate::emit::hostile;

/// The engine codeact's scripts are parsed by, doc comments included (a `///`
/// that sneaks in is a parse error there).
fn engine() -> Engine {
    let mut e = Engine::new_raw();
    e.set_max_expr_depths(0, 0);
    e
}

#[test]
fn a_string_literal_reads_back_as_its_text_and_nothing_else() {
    let engine = engine();
    for (i, text) in hostile::texts(1, 4_000, 24).iter().enumerate() {
        let lit = string(text);
        assert!(!lit.contains(['\n', '\r', '\0', '\u{2028}', '\u{202e}']), "case {i}: raw break in {lit}");
        let back: ImmutableString =
            engine.eval_expression(&lit).unwrap_or_else(|e| panic!("case {i}: {text:?} as {lit}: {e}"));
        assert_eq!(back.as_str(), text, "case {i}");
        // In context: a breakout would change the array's shape or run a call.
        let script = format!("let a = {lit}; let b = 1; [a, b]");
        assert!(crate::sandbox::source::checked(&script).is_ok(), "case {i}: {script}");
        let arr: rhai::Array = engine.eval(&script).unwrap_or_else(|e| panic!("case {i}: {script}: {e}"));
        assert_eq!(arr.len(), 2, "case {i}");
        assert_eq!(arr[0].clone().into_string().ok().as_deref(), Some(text.as_str()), "case {i}");
        assert_eq!(arr[1].as_int().ok(), Some(1), "case {i}");
    }
}

#[test]
fn a_comment_is_one_line_that_the_parser_skips() {
    let engine = engine();
    for (i, text) in hostile::texts(2, 4_000, 24).iter().enumerate() {
        let c = comment(text);
        assert!(c.starts_with("// ") && !c.starts_with("///") && !c.starts_with("//!"), "case {i}: {c}");
        assert!(!c.contains(['\n', '\r', '\0', '\u{85}', '\u{2028}', '\u{2029}']), "case {i}: {c}");
        let script = format!("{c}\n{c}\nfn f() {{ 2 }}\n{c}\n1 + f()");
        let n: i64 = engine.eval(&script).unwrap_or_else(|e| panic!("case {i}: {script}: {e}"));
        assert_eq!(n, 3, "case {i}");
        let ast = engine.compile(&script).unwrap_or_else(|e| panic!("case {i}: {e}"));
        assert!(ast.doc().is_empty(), "case {i}: a comment became module doc");
    }
    assert!(comment(&"x".repeat(5_000)).len() < 1_100);
}

#[test]
fn code_commented_out_never_runs() {
    let engine = engine();
    for (i, text) in hostile::texts(3, 2_000, 24).iter().enumerate() {
        let script = format!("{}1", commented_out(text, "    "));
        let n: i64 = engine.eval(&script).unwrap_or_else(|e| panic!("case {i}: {script}: {e}"));
        assert_eq!(n, 1, "case {i}");
    }
    assert_eq!(commented_out("a\rb", ""), "// a\n// b\n");
}

#[test]
fn values_read_back_equal_and_odd_ones_have_no_literal() {
    let engine = engine();
    let texts = hostile::texts(4, 500, 8);
    for (i, text) in texts.iter().enumerate() {
        let mut map = rhai::Map::new();
        map.insert(text.as_str().into(), Dynamic::from(text.clone()));
        map.insert("n".into(), Dynamic::from(i as i64));
        map.insert("f".into(), Dynamic::from(0.5f64 * i as f64));
        map.insert("c".into(), Dynamic::from(text.chars().next().unwrap_or('\'')));
        map.insert("list".into(), Dynamic::from(vec![Dynamic::TRUE, Dynamic::UNIT, Dynamic::from(text.clone())]));
        let v = Dynamic::from(map);
        let lit = value(&v).unwrap_or_else(|| panic!("case {i}"));
        let back: Dynamic = engine.eval_expression(&lit).unwrap_or_else(|e| panic!("case {i}: {lit}: {e}"));
        assert_eq!(back.to_string(), v.to_string(), "case {i}: {lit}");
    }
    assert_eq!(value(&Dynamic::from(f64::NAN)), None);
    assert_eq!(float(3.0).as_deref(), Some("3.0"));
    assert_eq!(float(1e300).and_then(|f| engine.eval_expression::<f64>(&f).ok()), Some(1e300));
    let deep = (0..100).fold(Dynamic::UNIT, |inner, _| Dynamic::from(vec![inner]));
    assert_eq!(value(&deep), None, "deeper than the emitter writes");
    assert_eq!(ident("fn"), None);
    assert_eq!(ident("a b"), None);
    assert_eq!(ident("WHO"), Some("WHO"));
}

#[test]
fn json_reads_back_as_the_value_it_was_made_from() {
    let engine = engine();
    for (i, text) in hostile::texts(4, 500, 8).iter().enumerate() {
        let json = serde_json::json!({text.as_str(): text, "n": i, "f": 0.5 * i as f64 + 0.25, "big": 1e300,
            "list": [true, null, text, -7], "empty": {}});
        let lit = super::json(&json).unwrap_or_else(|| panic!("case {i}"));
        let back: Dynamic = engine.eval_expression(&lit).unwrap_or_else(|e| panic!("case {i}: {lit}: {e}"));
        let map = back.read_lock::<rhai::Map>().unwrap_or_else(|| panic!("case {i}: {lit}"));
        assert_eq!(map.get(text.as_str()).map(|v| v.to_string()), Some(text.clone()), "case {i}: {lit}");
        assert_eq!(map.get("n").and_then(|v| v.as_int().ok()), Some(i as i64), "case {i}");
        assert_eq!(map.get("f").and_then(|v| v.as_float().ok()), Some(0.5 * i as f64 + 0.25), "case {i}");
        assert_eq!(map.get("big").and_then(|v| v.as_float().ok()), Some(1e300), "case {i}");
    }
    assert_eq!(super::json(&serde_json::json!(1.0)).as_deref(), Some("1.0"));
    let deep = (0..100).fold(serde_json::json!(1), |inner, _| serde_json::json!([inner]));
    assert_eq!(super::json(&deep), None, "deeper than the emitter writes");
}

#[test]
fn a_snippet_read_for_its_value_ends_as_a_statement() {
    assert_eq!(terminated("sent.len()"), "sent.len();");
    assert_eq!(terminated("x // the count"), "x // the count\n;");
    assert_eq!(terminated("tap(\"OK\");"), "tap(\"OK\");");
    assert_eq!(terminated("if a { b() }"), "if a { b() }");
    assert_eq!(terminated("let m = #{a: 1}"), "let m = #{a: 1};");
    assert_eq!(terminated("fn f(x) { x }"), "fn f(x) { x }");
    assert_eq!(terminated("open_app(\"设置\")"), "open_app(\"设置\");");
    assert_eq!(terminated("let x = (1"), "let x = (1", "broken code is left as it is");
}

#[test]
fn rewrites_see_strings_and_comments_as_text() {
    let code = "tap(1); print(\"tap(2)\"); // tap(3)\n/* a /* nested */ tap(4) */ tap(5); `x${tap(6)}`";
    let spans = literal_spans(code);
    let at = |s: &str| code.find(s).map(|i| inside_spans(&spans, i, i + s.len()));
    assert_eq!(at("tap(1)"), Some(false));
    assert_eq!(at("tap(2)"), Some(true));
    assert_eq!(at("tap(3)"), Some(true));
    assert_eq!(at("tap(4)"), Some(true));
    assert_eq!(at("tap(5)"), Some(false));
}
