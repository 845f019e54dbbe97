//! Shards' JUnit reports as one (`codeact exec --merge`): every `<testcase>` of
//! every file, copied as written, under one `<testsuite>` whose counts and time are
//! summed again. A case in two files (the same shard given twice) is refused. The
//! files are another run's: each is read up to a size and parsed by a parser that
//! expands no entity it was not given. This module merges text; it runs nothing.

use std::fmt::Write as _;
use std::path::PathBuf;

/// Why shards' reports cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum JunitMergeError {
    #[error("{} is not a JUnit report: {why}", .path.display())]
    NotJunit { path: PathBuf, why: String },
    #[error("{name} ({classname}) is in {} and in {}: is one shard given twice?", .first.display(), .second.display())]
    Twice { name: String, classname: String, first: PathBuf, second: PathBuf },
}

/// One report's file and text.
pub struct Part {
    pub path: PathBuf,
    pub text: String,
}

/// The reports of a suite's shards as one `<testsuites>` document named `suite`.
pub fn merge(suite: &str, parts: &[Part]) -> Result<String, JunitMergeError> {
    let mut seen: std::collections::HashMap<(String, String), PathBuf> = std::collections::HashMap::new();
    let (mut cases, mut failures, mut errors, mut skipped, mut seconds) = (Vec::new(), 0, 0, 0, 0.0);
    for part in parts {
        let doc = roxmltree::Document::parse(&part.text)
            .map_err(|e| JunitMergeError::NotJunit { path: part.path.clone(), why: e.to_string() })?;
        let root = doc.root_element();
        if !matches!(root.tag_name().name(), "testsuites" | "testsuite") {
            let why = format!("its root is <{}>, not <testsuites> or <testsuite>", root.tag_name().name());
            return Err(JunitMergeError::NotJunit { path: part.path.clone(), why });
        }
        for case in root.descendants().filter(|n| n.has_tag_name("testcase")) {
            let (name, classname) = (case.attribute("name").unwrap_or(""), case.attribute("classname").unwrap_or(""));
            let key = (name.to_string(), classname.to_string());
            if let Some(first) = seen.insert(key.clone(), part.path.clone()) {
                let (name, classname) = key;
                return Err(JunitMergeError::Twice { name, classname, first, second: part.path.clone() });
            }
            let has = |tag: &str| case.children().any(|c| c.has_tag_name(tag));
            failures += usize::from(has("failure"));
            errors += usize::from(has("error"));
            skipped += usize::from(has("skipped"));
            seconds +=
                case.attribute("time").and_then(|t| t.parse::<f64>().ok()).filter(|t| t.is_finite()).unwrap_or(0.0);
            cases.push(&part.text[case.range()]);
        }
    }
    let head = format!(
        "name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{seconds:.3}\"",
        super::junit::escape(suite),
        cases.len()
    );
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(x, "<testsuites {head}>");
    let _ = writeln!(x, "  <testsuite {head} skipped=\"{skipped}\">");
    for case in cases {
        let _ = writeln!(x, "    {case}");
    }
    x.push_str("  </testsuite>\n</testsuites>\n");
    Ok(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trajectory::junit::{Case, Verdict, render};

    fn case(name: &str, verdict: Verdict) -> Case {
        let classname = format!("{name}.rhai");
        Case { name: name.into(), classname, seconds: 1.0, verdict, output: "x & y".into(), properties: Vec::new() }
    }

    #[test]
    fn shards_add_up_and_a_shard_given_twice_is_refused() {
        let failed = Verdict::Failed { message: "no <switch>".into(), detail: String::new() };
        let a = Part { path: "a.xml".into(), text: render("codeact exec", &[case("one", Verdict::Passed)]) };
        let b = Part { path: "b.xml".into(), text: render("codeact exec", &[case("two", failed)]) };
        let merged = merge("codeact exec", &[a, b]).unwrap();
        assert!(merged.contains("tests=\"2\" failures=\"1\" errors=\"0\" time=\"2.000\""), "{merged}");
        assert!(merged.contains("message=\"no &lt;switch&gt;\"") && merged.contains("x &amp; y"), "copied as written");
        let doc = roxmltree::Document::parse(&merged).unwrap();
        assert_eq!(doc.descendants().filter(|n| n.has_tag_name("testcase")).count(), 2);
        let a = Part { path: "a.xml".into(), text: render("codeact exec", &[case("one", Verdict::Passed)]) };
        let again = Part { path: "c.xml".into(), text: a.text.clone() };
        assert!(matches!(merge("s", &[a, again]), Err(JunitMergeError::Twice { .. })));
        // A billion laughs: refused by the parser, at once.
        let mut bomb = String::from("<!DOCTYPE x [<!ENTITY l0 \"ha\">");
        for level in 1..10 {
            let refs = format!("&l{};", level - 1).repeat(10);
            bomb.push_str(&format!("<!ENTITY l{level} \"{refs}\">"));
        }
        bomb.push_str("]><testsuites><testcase name=\"&l9;\"/></testsuites>");
        let bombed = merge("s", &[Part { path: "bomb.xml".into(), text: bomb }]);
        assert!(matches!(bombed, Err(JunitMergeError::NotJunit { .. })), "{bombed:?}");
        let html = Part { path: "r.html".into(), text: "<html/>".into() };
        assert!(matches!(merge("s", &[html]), Err(JunitMergeError::NotJunit { .. })));
    }
}
