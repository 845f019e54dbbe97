//! Shards' JUnit reports as one (`codeact exec --merge`): every `<testcase>` of
//! every file's `<testsuite>`s, written again from what was parsed (names without
//! their namespace prefixes, entities expanded, every text escaped), under one
//! `<testsuite>` whose counts and time are summed again; the result is read back
//! and its counts checked against its cases before it is returned. A case in two
//! files (the same shard given twice) is refused. The files are another run's:
//! each is read up to a size and parsed by a parser that expands no entity it was
//! not given. This module merges text; it runs nothing.

use std::fmt::Write as _;
use std::path::PathBuf;

use roxmltree::Node;

use super::junit::escape;

/// Why shards' reports cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum JunitMergeError {
    #[error("{} is not a JUnit report: {why}", .path.display())]
    NotJunit { path: PathBuf, why: String },
    #[error("{name} ({classname}) is in {} and in {}: is one shard given twice?", .first.display(), .second.display())]
    Twice { name: String, classname: String, first: PathBuf, second: PathBuf },
    #[error("the merged report did not read back as written ({why}); please report this with the input files")]
    Unsound { why: String },
}

/// One report's file and text.
pub struct Part {
    pub path: PathBuf,
    pub text: String,
}

/// How a case ended, by the first verdict element it holds (an error before a
/// failure before a skip): each case is counted once, and only that verdict
/// element is written, so the counts agree with any reader's.
#[derive(Clone, Copy, PartialEq)]
enum Outcome {
    Passed,
    Failed,
    Errored,
    Skipped,
}

impl Outcome {
    fn of(case: Node<'_, '_>) -> Self {
        let has = |tag: &str| case.children().any(|c| c.is_element() && c.tag_name().name() == tag);
        match () {
            _ if has("error") => Outcome::Errored,
            _ if has("failure") => Outcome::Failed,
            _ if has("skipped") => Outcome::Skipped,
            _ => Outcome::Passed,
        }
    }

    /// The verdict element this outcome keeps.
    fn element(self) -> Option<&'static str> {
        match self {
            Outcome::Passed => None,
            Outcome::Failed => Some("failure"),
            Outcome::Errored => Some("error"),
            Outcome::Skipped => Some("skipped"),
        }
    }
}

/// A case's seconds: a finite number of at least 0, else 0; at most a year.
fn seconds_of(case: Node<'_, '_>) -> f64 {
    let t = case.attribute("time").and_then(|t| t.trim().parse::<f64>().ok()).unwrap_or(0.0);
    if t.is_finite() { t.clamp(0.0, 3.2e7) } else { 0.0 }
}

/// Whether an element is a verdict element other than the one a case keeps.
fn dropped(node: Node<'_, '_>, keep: Option<&str>) -> bool {
    let name = node.tag_name().name();
    matches!(name, "error" | "failure" | "skipped") && Some(name) != keep
}

/// Writes `case` again from the parsed tree: local names, each attribute once,
/// text and CDATA escaped, comments and processing instructions left out; nested
/// cases and suites (not JUnit) and the verdict elements it does not keep too.
/// Walked without recursion: a file may nest deep.
fn write_case(out: &mut String, case: Node<'_, '_>, outcome: Outcome, seconds: f64) {
    let keep = outcome.element();
    let _ = write!(out, "    <testcase");
    for (name, value) in [("name", case.attribute("name")), ("classname", case.attribute("classname"))] {
        let _ = write!(out, " {name}=\"{}\"", escape(value.unwrap_or("")));
    }
    let _ = write!(out, " time=\"{seconds:.3}\">");
    // An explicit stack of nodes to open, and of elements to close.
    let mut stack: Vec<(Node<'_, '_>, bool)> = case.children().rev().map(|c| (c, false)).collect();
    while let Some((n, closing)) = stack.pop() {
        if closing {
            let _ = write!(out, "</{}>", n.tag_name().name());
        } else if n.is_element() {
            if matches!(n.tag_name().name(), "testcase" | "testsuite" | "testsuites") || dropped(n, keep) {
                continue;
            }
            let _ = write!(out, "<{}", n.tag_name().name());
            let mut written: Vec<&str> = Vec::new();
            for a in n.attributes() {
                if !written.contains(&a.name()) {
                    written.push(a.name());
                    let _ = write!(out, " {}=\"{}\"", a.name(), escape(a.value()));
                }
            }
            out.push('>');
            stack.push((n, true));
            stack.extend(n.children().rev().map(|c| (c, false)));
        } else if let Some(text) = n.is_text().then(|| n.text()).flatten() {
            out.push_str(&escape(text));
        }
    }
    out.push_str("</testcase>\n");
}

/// The `<testcase>` elements of a report: the children of its `<testsuite>`s
/// (the root, or below `<testsuites>`, nested suites included), in order.
fn cases_of<'a, 'input>(root: Node<'a, 'input>) -> impl Iterator<Item = Node<'a, 'input>> {
    root.descendants().filter(|n| {
        n.is_element()
            && n.tag_name().name() == "testcase"
            && n.parent_element().is_some_and(|p| p.tag_name().name() == "testsuite")
    })
}

/// The reports of a suite's shards as one `<testsuites>` document named `suite`.
pub fn merge(suite: &str, parts: &[Part]) -> Result<String, JunitMergeError> {
    let mut seen: std::collections::HashMap<(String, String), usize> = std::collections::HashMap::new();
    let mut body = String::new();
    let (mut tests, mut failures, mut errors, mut skipped, mut seconds) = (0usize, 0, 0, 0, 0.0);
    for (k, part) in parts.iter().enumerate() {
        let doc = roxmltree::Document::parse(&part.text)
            .map_err(|e| JunitMergeError::NotJunit { path: part.path.clone(), why: e.to_string() })?;
        let root = doc.root_element();
        if !matches!(root.tag_name().name(), "testsuites" | "testsuite") {
            let why = format!(
                "its root is <{}>, not <testsuites> or <testsuite>",
                codeact_base::clip::clip(root.tag_name().name(), 60)
            );
            return Err(JunitMergeError::NotJunit { path: part.path.clone(), why });
        }
        for case in cases_of(root) {
            let (name, classname) = (case.attribute("name").unwrap_or(""), case.attribute("classname").unwrap_or(""));
            let key = (name.to_string(), classname.to_string());
            // The same case twice in one file is that file's business (a retried
            // test); in two files, it is a shard given twice.
            match seen.get(&key) {
                Some(&first) if first != k => {
                    let (name, classname) = key;
                    let clip = |t: String| codeact_base::clip::clip(&t, 200).into_owned();
                    return Err(JunitMergeError::Twice {
                        name: clip(name),
                        classname: clip(classname),
                        first: parts[first].path.clone(),
                        second: part.path.clone(),
                    });
                }
                Some(_) => {}
                None => {
                    seen.insert(key, k);
                }
            }
            let outcome = Outcome::of(case);
            tests += 1;
            match outcome {
                Outcome::Failed => failures += 1,
                Outcome::Errored => errors += 1,
                Outcome::Skipped => skipped += 1,
                Outcome::Passed => {}
            }
            let time = seconds_of(case);
            seconds += time;
            write_case(&mut body, case, outcome, time);
        }
    }
    let head = format!(
        "name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{seconds:.3}\"",
        escape(suite)
    );
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(x, "<testsuites {head}>");
    let _ = writeln!(x, "  <testsuite {head} skipped=\"{skipped}\">");
    x.push_str(&body);
    x.push_str("  </testsuite>\n</testsuites>\n");
    check(&x, [tests, failures, errors, skipped])?;
    Ok(x)
}

/// Reads the merged report back: it parses, and its cases are what its counts say.
fn check(written: &str, [tests, failures, errors, skipped]: [usize; 4]) -> Result<(), JunitMergeError> {
    let unsound = |why: String| JunitMergeError::Unsound { why };
    let doc = roxmltree::Document::parse(written).map_err(|e| unsound(e.to_string()))?;
    let cases: Vec<Node<'_, '_>> = doc.descendants().filter(|n| n.has_tag_name("testcase")).collect();
    let count = |tag: &str| cases.iter().filter(|c| c.children().any(|n| n.has_tag_name(tag))).count();
    let read = [cases.len(), count("failure"), count("error"), count("skipped")];
    if read != [tests, failures, errors, skipped] {
        return Err(unsound(format!("counts {:?}, cases {read:?}", [tests, failures, errors, skipped])));
    }
    Ok(())
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
        assert!(merged.contains("message=\"no &lt;switch&gt;\"") && merged.contains("x &amp; y"), "escaped again");
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

    /// Valid XML that is unusual JUnit: each merges into a report that parses and
    /// whose counts are its cases'.
    #[test]
    fn unusual_reports_merge_into_one_that_reads_back() {
        let unusual = [
            // A case nested in a case.
            r#"<testsuite><testcase name="outer"><testcase name="inner"><failure/></testcase></testcase></testsuite>"#,
            // Prefixes declared on the root.
            r#"<x:testsuites xmlns:x="urn:x" xmlns:y="urn:y"><x:testsuite><x:testcase name="p" y:time="1" time="2"><x:failure x:message="m"/></x:testcase></x:testsuite></x:testsuites>"#,
            // Character references and predefined entities.
            r#"<testsuite><testcase name="e&#x41;"><system-out>expanded &amp; more &#60;</system-out></testcase></testsuite>"#,
            // Both a failure and an error; a negative and an infinite time; CDATA.
            r#"<testsuite><testcase name="both" time="-5"><failure/><error/></testcase><testcase name="inf" time="1e400"><system-out><![CDATA[<not a tag> & ]]]]><![CDATA[>]]></system-out></testcase></testsuite>"#,
            // The same unnamed case twice in one file, a comment and an instruction.
            r#"<testsuites><testsuite><testcase/><testcase/><!-- c --><?pi x?><testsuite><testcase name="deep"><skipped/></testcase></testsuite></testsuite></testsuites>"#,
        ];
        for (i, text) in unusual.iter().enumerate() {
            let part = Part { path: format!("{i}.xml").into(), text: text.to_string() };
            let merged = merge("s", &[part]).unwrap_or_else(|e| panic!("{i}: {e}"));
            let doc = roxmltree::Document::parse(&merged).unwrap_or_else(|e| panic!("{i}: {e}\n{merged}"));
            let suite = doc.descendants().find(|n| n.has_tag_name("testsuite")).unwrap();
            let cases: Vec<_> = suite.children().filter(|n| n.has_tag_name("testcase")).collect();
            assert_eq!(suite.attribute("tests"), Some(cases.len().to_string().as_str()), "{i}: {merged}");
            let time: f64 = suite.attribute("time").unwrap().parse().unwrap();
            assert!(time.is_finite() && time >= 0.0, "{i}: {merged}");
        }
        let merged = merge("s", &[Part { path: "n.xml".into(), text: unusual[0].into() }]).unwrap();
        assert!(merged.contains("tests=\"1\" failures=\"0\""), "the nested case is not a case: {merged}");
        let merged = merge("s", &[Part { path: "e.xml".into(), text: unusual[2].into() }]).unwrap();
        assert!(merged.contains("name=\"eA\"") && merged.contains("expanded &amp; more &lt;"), "{merged}");
        // A file's own DTD (entities a case may use) is refused, never copied half.
        let dtd = r#"<!DOCTYPE t [<!ENTITY n "x">]><testsuite><testcase name="d">&n;</testcase></testsuite>"#;
        let refused = merge("s", &[Part { path: "d.xml".into(), text: dtd.into() }]);
        assert!(matches!(refused, Err(JunitMergeError::NotJunit { .. })), "{refused:?}");
        let merged = merge("s", &[Part { path: "b.xml".into(), text: unusual[3].into() }]).unwrap();
        assert!(merged.contains("failures=\"0\" errors=\"1\"") && !merged.contains("<failure"), "{merged}");
        assert!(merged.contains("&lt;not a tag&gt; &amp; ]]&gt;"), "{merged}");
    }
}
