//! A suite's index page (`codeact exec` with several scripts and a trajectory): the
//! totals, filters by verdict and by tag, and a row per script with its verdict,
//! tags, actions and a bar of its time, linking the script's own report. The
//! filters are radio buttons and CSS (the page runs no script). Not an eval's index
//! (`html::index`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::escape::{escape, relative_href};
use super::html::page_start;

/// One script of the suite, as its row shows it.
#[derive(Debug, Clone)]
pub struct SuiteRow {
    /// The script as its lines name it.
    pub name: String,
    /// Its own report, relative to the index's folder.
    pub link: Option<PathBuf>,
    /// PASS, FAIL or ERROR.
    pub verdict: String,
    pub tags: Vec<String>,
    pub actions: usize,
    pub ms: f64,
    /// Why it did not pass.
    pub message: Option<String>,
    /// Which attempt stood (`--retries`).
    pub attempt: usize,
}

const STYLE: &str = "
.pick{position:absolute;opacity:0}.pick+label{display:inline-block;margin:0 4px 8px 0;padding:2px 10px;border:1px solid #bbc;border-radius:12px;cursor:pointer;font-size:12px;background:#fff}
.pick:checked+label{background:#1d2330;color:#fff}.pick:focus-visible+label{outline:2px solid #6c5ce7}
.filters{margin:0 0 4px}.v-PASS td.v{color:#1f8a4c;font-weight:600}.v-FAIL td.v{color:#c0392b;font-weight:600}.v-ERROR td.v{color:#8a6d1f;font-weight:600}
td.why{font-size:12px;color:#555;max-width:420px}.bar{display:flex;height:9px}.bar i{display:block;height:100%;background:#00a884}
";

/// Writes the suite's `report.html` in `dir`.
pub fn write_suite_index(
    dir: &Path,
    title: &str,
    rows: &[SuiteRow],
    seconds: f64,
) -> Result<PathBuf, super::write::ReportError> {
    super::write::write_whole(dir, "report.html", suite_index(title, rows, seconds).as_bytes())
}

/// The page.
pub fn suite_index(title: &str, rows: &[SuiteRow], seconds: f64) -> String {
    let count = |v: &str| rows.iter().filter(|r| r.verdict == v).count();
    let (passed, failed, errors) = (count("PASS"), count("FAIL"), count("ERROR"));
    let mut tags: Vec<&str> = rows.iter().flat_map(|r| r.tags.iter().map(String::as_str)).collect();
    tags.sort_unstable();
    tags.dedup();
    let mut out = page_start(title);
    // The filters hide rows: one rule per choice, verdicts and tags each a group.
    out.push_str("<style>");
    out.push_str(STYLE);
    for v in ["PASS", "FAIL", "ERROR"] {
        let _ = write!(out, "#v-{v}:checked~table tr.row:not(.v-{v}){{display:none}}");
    }
    for k in 0..tags.len() {
        let _ = write!(out, "#t-{k}:checked~table tr.row:not(.t-{k}){{display:none}}");
    }
    out.push_str("</style>\n");
    let outcome = if failed + errors == 0 { "ok" } else { "bad" };
    let _ = write!(
        out,
        "<header><h1>{}</h1><span class=\"outcome {outcome}\">{passed} passed, {failed} failed, {errors} error{}</span> <span>{} scripts in {seconds:.1} s</span></header>\n<main><div>",
        escape(title),
        if errors == 1 { "" } else { "s" },
        rows.len()
    );
    let _ = write!(
        out,
        "<input class=\"pick\" type=\"radio\" name=\"verdict\" id=\"v-all\" checked><label for=\"v-all\">every verdict ({})</label>",
        rows.len()
    );
    for (v, n) in [("PASS", passed), ("FAIL", failed), ("ERROR", errors)] {
        let _ = write!(
            out,
            "<input class=\"pick\" type=\"radio\" name=\"verdict\" id=\"v-{v}\"><label for=\"v-{v}\">{v} ({n})</label>"
        );
    }
    out.push_str("<br>");
    if !tags.is_empty() {
        out.push_str("<input class=\"pick\" type=\"radio\" name=\"tag\" id=\"t-all\" checked><label for=\"t-all\">any tag</label>");
        for (k, tag) in tags.iter().enumerate() {
            let n = rows.iter().filter(|r| r.tags.iter().any(|t| t == tag)).count();
            let _ = write!(
                out,
                "<input class=\"pick\" type=\"radio\" name=\"tag\" id=\"t-{k}\"><label for=\"t-{k}\">{} ({n})</label>",
                escape(tag)
            );
        }
    }
    out.push_str("<table><tr><th>script</th><th>verdict</th><th>tags</th><th>actions</th><th>time</th><th>ms</th><th>why</th></tr>\n");
    let longest = rows.iter().map(|r| r.ms).fold(1.0, f64::max);
    for r in rows {
        let mut classes = format!(
            "row v-{}",
            if ["PASS", "FAIL", "ERROR"].contains(&r.verdict.as_str()) { &r.verdict } else { "ERROR" }
        );
        for (k, tag) in tags.iter().enumerate() {
            if r.tags.iter().any(|t| t == tag) {
                let _ = write!(classes, " t-{k}");
            }
        }
        let name = match r.link.as_deref().and_then(relative_href) {
            Some(href) => format!("<a href=\"{}\">{}</a>", escape(&href), escape(&r.name)),
            None => escape(&r.name),
        };
        let attempt = if r.attempt > 1 { format!(" (attempt {})", r.attempt) } else { String::new() };
        let _ = writeln!(
            out,
            "<tr class=\"{classes}\"><td>{name}</td><td class=\"v\">{}{attempt}</td><td>{}</td><td>{}</td><td><span class=\"bar\"><i style=\"width:{:.1}px\"></i></span></td><td>{:.0}</td><td class=\"why\">{}</td></tr>",
            escape(&r.verdict),
            escape(&r.tags.join(", ")),
            r.actions,
            (300.0 * r.ms / longest).max(1.0),
            r.ms,
            escape(r.message.as_deref().unwrap_or(""))
        );
    }
    out.push_str("</table></div></main></body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_carry_their_verdict_and_tags_and_names_are_escaped() {
        let row = |name: &str, verdict: &str, tags: &[&str]| SuiteRow {
            name: name.into(),
            link: Some(PathBuf::from(name).join("report.html")),
            verdict: verdict.into(),
            tags: tags.iter().map(|t| t.to_string()).collect(),
            actions: 3,
            ms: 120.0,
            message: (verdict != "PASS").then(|| "<b>no</b>".into()),
            attempt: 1,
        };
        let page = suite_index(
            "codeact exec",
            &[row("a", "PASS", &["smoke"]), row("<x>", "FAIL", &["smoke", "\"q\""]), row("c", "ERROR", &[])],
            1.5,
        );
        assert!(page.contains("1 passed, 1 failed, 1 error</span>"), "{page}");
        assert!(page.contains("<tr class=\"row v-PASS t-1\">"), "{page}");
        assert!(page.contains("<tr class=\"row v-FAIL t-0 t-1\">"), "{page}");
        assert!(page.contains("&lt;x&gt;") && !page.contains("<x>") && !page.contains("<b>no"), "{page}");
        assert!(page.contains("#t-1:checked~table tr.row:not(.t-1){display:none}"), "{page}");
        assert!(page.contains("&quot;q&quot; (1)"), "{page}");
        assert!(!page.contains("<script"), "no script");
    }
}
