//! JUnit XML for `codeact exec --junit`: one `<testcase>` per script, in the shape CI
//! systems (GitLab, Jenkins, GitHub test reporters) read. An assertion or a failed
//! `complete()` is a `<failure>`; any other error (a device gone, a script bug, a limit
//! hit) is an `<error>`. This module formats; it runs nothing.

use std::fmt::Write as _;

use crate::sandbox::RunResult;

/// How one script ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Passed,
    /// An assertion failed or the script completed as failed.
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
    pub outcome: Outcome,
    /// What the script printed, and its action log.
    pub output: String,
}

/// How a run of a script ends, as a test: an assertion tool's error or a failed
/// completion is a failure, any other error an error.
pub fn outcome(result: &RunResult) -> Outcome {
    match (&result.error, &result.completion) {
        (Some(e), _) => {
            let message = e.message.clone();
            let detail = e.to_string();
            if message.contains(crate::tools::ASSERTION) {
                Outcome::Failed { message, detail }
            } else {
                Outcome::Error { message, detail }
            }
        }
        (None, Some(c)) if !c.success => {
            Outcome::Failed { message: format!("completed as failed: {}", c.reason), detail: String::new() }
        }
        _ => Outcome::Passed,
    }
}

/// Escapes text for XML content and attributes, dropping characters XML 1.0 forbids.
fn escape(text: &str) -> String {
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
    let failures = cases.iter().filter(|c| matches!(c.outcome, Outcome::Failed { .. })).count();
    let errors = cases.iter().filter(|c| matches!(c.outcome, Outcome::Error { .. })).count();
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
        match &case.outcome {
            Outcome::Passed => {}
            Outcome::Failed { message, detail } => {
                let _ = write!(x, "\n      <failure message=\"{}\">{}</failure>", escape(message), escape(detail));
            }
            Outcome::Error { message, detail } => {
                let _ = write!(x, "\n      <error message=\"{}\">{}</error>", escape(message), escape(detail));
            }
        }
        if !case.output.is_empty() {
            let _ = write!(x, "\n      <system-out>{}</system-out>", escape(&case.output));
        }
        x.push_str(if matches!(case.outcome, Outcome::Passed) && case.output.is_empty() { "" } else { "\n    " });
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
                outcome: Outcome::Passed,
                output: "".into(),
            },
            Case {
                name: "wifi".into(),
                classname: "scripts/wifi.rhai".into(),
                seconds: 1.25,
                outcome: Outcome::Failed { message: "assertion failed: \"On\" <x>".into(), detail: "line 3".into() },
                output: "tap(1, 2) -> ok\u{1}".into(),
            },
            Case {
                name: "gone".into(),
                classname: "b.rhai".into(),
                seconds: 0.0,
                outcome: Outcome::Error { message: "device & co".into(), detail: String::new() },
                output: String::new(),
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
