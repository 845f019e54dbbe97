//! The one emitter: any text, written as a Rhai string literal, reads back as
//! exactly that text and nothing else; as a comment, it stays a comment (one line,
//! skipped by the parser, no doc comment); as a YAML scalar it reads back whole and
//! as a YAML comment it is skipped.
#![no_main]

use codeact::emit::{rhai as rhai_out, yaml as yaml_out};
use libfuzzer_sys::fuzz_target;
use saphyr::{LoadableYamlNode, Yaml};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let engine = rhai::Engine::new_raw();
    let literal = rhai_out::string(text);
    assert!(!literal.contains(['\n', '\r', '\0']), "{literal:?}");
    let script = format!("let a = {literal}; let b = 1; [a, b]");
    let back: rhai::Array = engine.eval(&script).expect("a literal reads back");
    assert_eq!(back.len(), 2);
    assert_eq!(back[0].clone().into_string().ok().as_deref(), Some(text));
    let comment = rhai_out::comment(text);
    assert!(comment.starts_with("// ") && !comment.starts_with("///") && !comment.starts_with("//!"));
    let n: i64 = engine.eval(&format!("{comment}\n{comment}\n7")).expect("a comment is skipped");
    assert_eq!(n, 7);
    let n: i64 = engine.eval(&format!("{}7", rhai_out::commented_out(text, "  "))).expect("code kept as comments");
    assert_eq!(n, 7);
    let doc = format!("{}\n- k: {}\n- end\n", yaml_out::comment(text), yaml_out::string(text));
    let docs = Yaml::load_from_str(&doc).expect("YAML reads back");
    let items = docs.first().and_then(|d| d.as_sequence()).expect("a list");
    assert_eq!(items.len(), 2, "{doc:?}");
    assert_eq!(items[0].as_mapping_get("k").and_then(|v| v.as_str()), Some(text));
});
