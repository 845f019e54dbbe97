//! An exploration's sections of its `report.html` (the run report page every
//! mode's run folder has, whose header and steps the record crate draws): findings
//! first (each with its steps and reproduction script), then coverage (the table
//! and its growth as a chart), the screen-transition graph, the tasks (the
//! model-driven strategy's), the screens with their screenshots, and the tests
//! found. Every text from the app or the device is escaped; every link is a path
//! below the folder.

use std::fmt::Write as _;
use std::path::Path;

use super::coverage::Coverage;
use super::export::TestFound;
use super::findings::Finding;
use super::graph::Graph;
use codeact_record::report::html::{escape, highlight, relative_href};

/// A task of the model-driven strategy, as the report shows it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TaskView {
    pub goal: String,
    pub success: bool,
    pub steps: usize,
    /// The agent's run folder, relative to the exploration's.
    pub run: Option<String>,
    pub note: String,
}

pub struct ReportInput<'a> {
    pub app: &'a str,
    pub strategy: &'a str,
    pub label: Option<&'a str>,
    pub coverage: &'a Coverage,
    pub graph: &'a Graph,
    pub findings: &'a [Finding],
    pub tests: &'a [TestFound],
    pub tasks: &'a [TaskView],
    pub actions: usize,
    pub seconds: f64,
    pub stopped: &'a str,
}

const EXTRA_STYLE: &str = "<style>.finding{background:#fff3f2;border-left:4px solid #c0392b;padding:8px 12px;margin:8px 0}\
.yes{color:#1e8449}.no{color:#c0392b;font-weight:600}.grid{display:flex;flex-wrap:wrap;gap:12px}\
.screen{background:#fff;border:1px solid #dde;border-radius:6px;padding:6px;width:190px;font-size:12px}\
.screen img{width:180px;border-radius:4px}svg text{font:11px sans-serif}\
section.explored{padding:8px 24px;background:#fff;border-bottom:1px solid #dde}</style>";

fn link(path: &str, text: &str) -> String {
    match relative_href(Path::new(path)) {
        Some(href) => format!("<a href=\"{}\">{}</a>", escape(&href), escape(text)),
        None => escape(text),
    }
}

/// `after 1 action`, `after 7 actions`.
fn after(n: usize) -> String {
    format!("after {n} action{}", if n == 1 { "" } else { "s" })
}

fn short(activity: &str) -> &str {
    activity.rsplit('.').next().unwrap_or(activity)
}

/// The growth of activities and screens over the actions, as an SVG line chart.
fn chart(c: &Coverage) -> String {
    let (w, h, pad) = (640.0, 220.0, 36.0);
    let max_x = c.timeline.last().map_or(1, |p| p.actions.max(1)) as f64;
    let max_y =
        c.timeline.iter().map(|p| p.screens.max(p.activities)).max().unwrap_or(0).max(c.declared.len()).max(1) as f64;
    let x = |v: f64| pad + (w - 2.0 * pad) * v / max_x;
    let y = |v: f64| h - pad - (h - 2.0 * pad) * v / max_y;
    let line = |pick: &dyn Fn(&super::coverage::Sample) -> usize| {
        c.timeline
            .iter()
            .map(|p| format!("{:.1},{:.1}", x(p.actions as f64), y(pick(p) as f64)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut svg = format!("<svg width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"coverage over actions\">");
    let _ = write!(
        svg,
        "<line x1=\"{pad}\" y1=\"{0}\" x2=\"{1}\" y2=\"{0}\" stroke=\"#999\"/><line x1=\"{pad}\" y1=\"{pad}\" x2=\"{pad}\" y2=\"{0}\" stroke=\"#999\"/>",
        h - pad,
        w - pad
    );
    if !c.declared.is_empty() {
        let yd = y(c.declared.len() as f64);
        let _ = write!(
            svg,
            "<line x1=\"{pad}\" y1=\"{yd:.1}\" x2=\"{}\" y2=\"{yd:.1}\" stroke=\"#1e8449\" stroke-dasharray=\"4 3\"/><text x=\"{}\" y=\"{:.1}\">declared {}</text>",
            w - pad,
            w - pad - 80.0,
            yd - 4.0,
            c.declared.len()
        );
    }
    let _ = write!(
        svg,
        "<polyline fill=\"none\" stroke=\"#1e8449\" stroke-width=\"2\" points=\"{}\"/><polyline fill=\"none\" stroke=\"#2e86c1\" stroke-width=\"2\" points=\"{}\"/>",
        line(&|p| p.activities),
        line(&|p| p.screens)
    );
    let _ = write!(
        svg,
        "<text x=\"{pad}\" y=\"14\" fill=\"#1e8449\">activities</text><text x=\"{}\" y=\"14\" fill=\"#2e86c1\">screens</text>\
         <text x=\"{}\" y=\"{}\">{} actions</text><text x=\"4\" y=\"{pad}\">{}</text></svg>",
        pad + 80.0,
        w - pad - 60.0,
        h - 8.0,
        max_x as usize,
        max_y as usize
    );
    svg
}

/// The screens as nodes in columns by their distance from the start, the actions
/// between them as arrows.
fn transitions(g: &Graph) -> String {
    let mut depth = vec![usize::MAX; g.states.len()];
    if let Some(start) = g.start {
        depth[start] = 0;
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(at) = queue.pop_front() {
            for e in g.edges.iter().filter(|e| e.from == at) {
                if depth[e.to] == usize::MAX {
                    depth[e.to] = depth[at] + 1;
                    queue.push_back(e.to);
                }
            }
        }
    }
    let last = depth.iter().filter(|d| **d != usize::MAX).max().copied().unwrap_or(0) + 1;
    for d in depth.iter_mut().filter(|d| **d == usize::MAX) {
        *d = last;
    }
    let mut rows = vec![0usize; last + 1];
    let mut at = vec![(0.0, 0.0); g.states.len()];
    for (i, d) in depth.iter().enumerate() {
        at[i] = (70.0 + 170.0 * *d as f64, 30.0 + 50.0 * rows[*d] as f64);
        rows[*d] += 1;
    }
    let (w, h) = (170.0 * (last + 1) as f64 + 40.0, 50.0 * *rows.iter().max().unwrap_or(&1) as f64 + 30.0);
    let mut svg = format!(
        "<svg width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"screen transitions\"><defs><marker id=\"arrow\" \
         viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\">\
         <path d=\"M0,0L10,5L0,10z\" fill=\"#888\"/></marker></defs>"
    );
    for e in g.edges.iter().filter(|e| e.from != e.to) {
        let ((x1, y1), (x2, y2)) = (at[e.from], at[e.to]);
        let _ = write!(
            svg,
            "<line x1=\"{x1:.0}\" y1=\"{y1:.0}\" x2=\"{:.0}\" y2=\"{y2:.0}\" stroke=\"#bbb\" marker-end=\"url(#arrow)\"><title>{}</title></line>",
            x2 - 8.0,
            escape(&e.label)
        );
    }
    for (i, s) in g.states.iter().enumerate() {
        let (x, y) = at[i];
        let _ = write!(
            svg,
            "<circle cx=\"{x:.0}\" cy=\"{y:.0}\" r=\"7\" fill=\"{}\"><title>{} · {}</title></circle><text x=\"{:.0}\" y=\"{:.0}\">{}</text>",
            if Some(i) == g.start { "#1e8449" } else { "#2e86c1" },
            escape(&s.name),
            escape(&s.activity),
            x - 30.0,
            y + 20.0,
            escape(&codeact_base::clip::clip(short(&s.activity), 24))
        );
    }
    svg.push_str("</svg>");
    svg
}

pub fn sections(r: &ReportInput<'_>) -> String {
    let mut out = EXTRA_STYLE.to_string();
    let _ = write!(
        out,
        "<section class=\"explored\"><h2>Exploring {}{}</h2><p class=\"meta\">{} strategy · {} actions in {:.1} s · stopped: {}</p>",
        escape(r.app),
        r.label.map(|l| format!(" ({})", escape(l))).unwrap_or_default(),
        escape(r.strategy),
        r.actions,
        r.seconds,
        escape(r.stopped)
    );
    let _ = write!(out, "<h2>Findings ({})</h2>", r.findings.len());
    if r.findings.is_empty() {
        out.push_str("<p class=\"yes\">No crash and no ANR.</p>");
    }
    for f in r.findings {
        let reproduced = match f.reproduced {
            Some(true) => "<span class=\"no\">reproduced from a clean start</span>",
            Some(false) => "did not happen again from a clean start",
            None => "not replayed",
        };
        let _ = write!(
            out,
            "<div class=\"finding\"><b>{}</b>: {} <span class=\"meta\">on {} after action {} · {reproduced}</span>{}<pre>{}</pre>{}</div>",
            escape(f.kind.word()),
            escape(&f.title),
            escape(&f.activity),
            f.at_action,
            f.exception.as_deref().map(|e| format!("<p class=\"error\">{}</p>", escape(e))).unwrap_or_default(),
            highlight(&f.steps.join(";\n")),
            if f.script.is_empty() { String::new() } else { format!("<p>{}</p>", link(&f.script, &f.script)) }
        );
    }
    let c = r.coverage;
    out.push_str("<h2>Coverage</h2><table>");
    match c.ratio() {
        Some(ratio) => {
            let _ = write!(
                out,
                "<tr><th>activities</th><td>{} of {} declared ({:.0}%)</td></tr>",
                c.reached_declared(),
                c.declared.len(),
                100.0 * ratio
            );
        }
        None => {
            let _ = write!(
                out,
                "<tr><th>activities</th><td>{} reached (the manifest is not known)</td></tr>",
                c.reached.len()
            );
        }
    }
    let _ = write!(
        out,
        "<tr><th>screens</th><td>{}</td></tr><tr><th>widgets acted on</th><td>{}</td></tr></table>",
        c.screens, c.widgets
    );
    out.push_str(&chart(c));
    out.push_str("<table><tr><th>activity</th><th>first reached</th></tr>");
    for a in &c.declared {
        let when = c.reached.get(a).map_or("<span class=\"no\">never</span>".to_string(), |n| after(*n));
        let _ = write!(out, "<tr><td>{}</td><td>{when}</td></tr>", escape(a));
    }
    for (a, n) in c.reached.iter().filter(|(a, _)| !c.declared.contains(a)) {
        let _ = write!(
            out,
            "<tr><td>{} <span class=\"meta\">(not declared)</span></td><td>{}</td></tr>",
            escape(a),
            after(*n)
        );
    }
    out.push_str("</table><h2>Screen transitions</h2>");
    out.push_str(&transitions(r.graph));
    if !r.tasks.is_empty() {
        out.push_str("<h2>Tasks</h2><table><tr><th>goal</th><th>outcome</th><th>steps</th><th>note</th></tr>");
        for t in r.tasks {
            let goal = match &t.run {
                Some(run) => link(&format!("{run}/report.html"), &t.goal),
                None => escape(&t.goal),
            };
            let outcome =
                if t.success { "<span class=\"yes\">done</span>" } else { "<span class=\"no\">failed</span>" };
            let _ = write!(
                out,
                "<tr><td>{goal}</td><td>{outcome}</td><td>{}</td><td>{}</td></tr>",
                t.steps,
                escape(&t.note)
            );
        }
        out.push_str("</table>");
    }
    out.push_str("<h2>Screens</h2><div class=\"grid\">");
    for s in &r.graph.states {
        let picture = s
            .screenshot
            .as_deref()
            .and_then(|f| relative_href(Path::new(f)))
            .map(|href| format!("<img src=\"{}\" alt=\"\">", escape(&href)))
            .unwrap_or_else(|| "<div class=\"missing\">no screenshot</div>".into());
        let _ = write!(
            out,
            "<div class=\"screen\">{picture}<br><b>{}</b> {}<br><span class=\"meta\">{} of {} actions tried · first seen {}</span></div>",
            escape(&s.name),
            escape(short(&s.activity)),
            s.candidates.len() - s.untried(),
            s.candidates.len(),
            after(s.first_seen)
        );
    }
    let _ = write!(out, "</div><h2>Tests found ({})</h2>", r.tests.len());
    out.push_str("<p>Run them with <code>codeact exec tests/*.rhai --device sim</code> from this folder.</p><table><tr><th>test</th><th>goal</th><th>steps</th></tr>");
    for t in r.tests {
        let _ =
            write!(out, "<tr><td>{}</td><td>{}</td><td>{}</td></tr>", link(&t.file, &t.file), escape(&t.goal), t.steps);
    }
    out.push_str("</table></section>\n");
    out
}
