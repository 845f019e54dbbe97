//! JUnit XML for `codeact exec --junit`: one `<testcase>` per script, in the shape CI
//! systems (GitLab, Jenkins, GitHub test reporters) read. The screen not as the script
//! expected — an assertion, an element or a wait that did not come — or a failed
//! `complete()` is a `<failure>`; what stopped the script from running (a syntax
//! error, a device gone, a limit hit) is an `<error>`. This module formats; it runs
//! nothing.

use std::fmt::Write as _;

use codeact_engine::sandbox::RunResult;

/// How one script ended, as a test.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Passed,
    /// The screen was not as expected (an assertion, a missing element, a wait that
    /// timed out), or the script completed as failed.
    Failed {
        message: String,
        detail: String,
    },
    /// The script could not run to its end.
    Error {
        message: String,
        detail: String,
    },
}

/// One script's result.
#[derive(Debug, Clone)]
pub struct Case {
    /// The test's name (the script's file stem).
    pub name: String,
    /// The script's path, used as the class name.
    pub classname: String,
    pub seconds: f64,
    pub verdict: Verdict,
    /// What the script printed, and its action log.
    pub output: String,
    /// Name and value pairs the report carries (`attempts`, `failure_screenshot`).
    pub properties: Vec<(String, String)>,
}

impl Verdict {
    /// How a run of a script ends, as a test: the screen not as expected or a failed
    /// completion is a failure, any other error an error.
    pub fn of(result: &RunResult) -> Self {
        match (&result.error, &result.completion) {
            (Some(e), _) if e.kind == codeact_engine::sandbox::ErrorKind::Cancelled => Verdict::Error {
                message: format!("interrupted: {}", e.message),
                detail: format!("interrupted before it ended: {e}"),
            },
            (Some(e), _) if e.is_failure() => Verdict::Failed { message: e.message.clone(), detail: e.to_string() },
            (Some(e), _) => Verdict::Error { message: e.message.clone(), detail: e.to_string() },
            (None, Some(c)) if !c.success => {
                Verdict::Failed { message: format!("completed as failed: {}", c.reason), detail: String::new() }
            }
            _ => Verdict::Passed,
        }
    }

    /// `PASS`, `FAIL` or `ERROR`, as `codeact exec` prints it.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Passed => "PASS",
            Verdict::Failed { .. } => "FAIL",
            Verdict::Error { .. } => "ERROR",
        }
    }
}

/// Escapes text for XML content and attributes, dropping characters XML 1.0 forbids.
pub(super) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

/// The report for `cases` as a `<testsuites>` document.
pub fn render(suite: &str, cases: &[Case]) -> String {
    let failures = cases.iter().filter(|c| matches!(c.verdict, Verdict::Failed { .. })).count();
    let errors = cases.iter().filter(|c| matches!(c.verdict, Verdict::Error { .. })).count();
    let seconds: f64 = cases.iter().map(|c| c.seconds).sum();
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let head = format!(
        "name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{seconds:.3}\"",
        escape(suite),
        cases.len()
    );
    let _ = writeln!(x, "<testsuites {head}>");
    let _ = writeln!(x, "  <testsuite {head} skipped=\"0\">");
    for case in cases {
        let _ = write!(
            x,
            "    <testcase name=\"{}\" classname=\"{}\" time=\"{:.3}\">",
            escape(&case.name),
            escape(&case.classname),
            case.seconds
        );
        if !case.properties.is_empty() {
            x.push_str("\n      <properties>");
            for (name, value) in &case.properties {
                let _ = write!(x, "\n        <property name=\"{}\" value=\"{}\"/>", escape(name), escape(value));
            }
            x.push_str("\n      </properties>");
        }
        match &case.verdict {
            Verdict::Passed => {}
            Verdict::Failed { message, detail } => {
                let _ = write!(x, "\n      <failure message=\"{}\">{}</failure>", escape(message), escape(detail));
            }
            Verdict::Error { message, detail } => {
                let _ = write!(x, "\n      <error message=\"{}\">{}</error>", escape(message), escape(detail));
            }
        }
        if !case.output.is_empty() {
            let _ = write!(x, "\n      <system-out>{}</system-out>", escape(&case.output));
        }
        let bare = matches!(case.verdict, Verdict::Passed) && case.output.is_empty() && case.properties.is_empty();
        x.push_str(if bare { "" } else { "\n    " });
        x.push_str("</testcase>\n");
    }
    x.push_str("  </testsuite>\n</testsuites>\n");
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_and_errors_are_counted_and_text_is_escaped() {
        let cases = [
            Case {
                name: "ok".into(),
                classname: "a.rhai".into(),
                seconds: 0.5,
                verdict: Verdict::Passed,
                output: "".into(),
                properties: Vec::new(),
            },
            Case {
                name: "wifi".into(),
                classname: "scripts/wifi.rhai".into(),
                seconds: 1.25,
                verdict: Verdict::Failed { message: "assertion failed: \"On\" <x>".into(), detail: "line 3".into() },
                output: "tap(1, 2) -> ok\u{1}".into(),
                properties: vec![("attempts".into(), "2".into())],
            },
            Case {
                name: "gone".into(),
                classname: "b.rhai".into(),
                seconds: 0.0,
                verdict: Verdict::Error { message: "device & co".into(), detail: String::new() },
                output: String::new(),
                properties: Vec::new(),
            },
        ];
        let xml = render("codeact", &cases);
        assert!(xml.contains("tests=\"3\" failures=\"1\" errors=\"1\" time=\"1.750\""), "{xml}");
        assert!(xml.contains("message=\"assertion failed: &quot;On&quot; &lt;x&gt;\""), "{xml}");
        assert!(xml.contains("<error message=\"device &amp; co\">"), "{xml}");
        assert!(xml.contains("<system-out>tap(1, 2) -&gt; ok</system-out>"), "control characters are dropped");
        assert!(roxmltree::Document::parse(&xml).is_ok(), "well-formed");
    }
}
