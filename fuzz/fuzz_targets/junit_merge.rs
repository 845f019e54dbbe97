//! Shards' JUnit reports, however crafted (the input split at NUL bytes into up
//! to four files), merge into one report that parses and whose counts are its
//! cases', or into an error — never a panic, a hang or a report that does not
//! read back.
#![no_main]

use codeact::trajectory::junit_merge::{Part, merge};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parts: Vec<Part> = data
        .split(|b| *b == 0)
        .take(4)
        .enumerate()
        .map(|(i, bytes)| Part { path: format!("shard{i}.xml").into(), text: String::from_utf8_lossy(bytes).into_owned() })
        .collect();
    if let Ok(merged) = merge("fuzz", &parts) {
        let doc = roxmltree::Document::parse(&merged).expect("the merged report parses");
        let suite = doc.descendants().find(|n| n.has_tag_name("testsuite")).expect("one suite");
        let cases = suite.children().filter(|n| n.has_tag_name("testcase")).count();
        assert_eq!(suite.attribute("tests"), Some(cases.to_string().as_str()), "{merged}");
    }
});
