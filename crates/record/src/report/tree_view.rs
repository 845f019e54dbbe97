//! The report's drawing of a `--strategy tree` run: every node indented under its
//! parent, with how it ended, what it split into, links to its steps, and the
//! screen a leaf left (one thumbnail). Nothing for other runs. Not the step cards
//! (`html.rs`).

use std::fmt::Write as _;

use super::escape::escape;
use super::images::Shown;
use super::model::{NodeView, RunView};

/// Styles the section adds to the page's.
pub const STYLE: &str = "
#tree{padding:12px 24px;background:#fff;border-bottom:1px solid #dde}#tree h2{font-size:15px;margin:0 0 8px}
#tree ol{list-style:none;padding:0;margin:0}#tree li{display:flex;gap:10px;align-items:flex-start;padding:4px 0;border-bottom:1px dotted #dde}
#tree .outcome{color:#fff;font-size:11px;min-width:56px;text-align:center}#tree img{width:60px;border:1px solid #ccd;border-radius:3px}
.partial{background:#b9770e}
";

fn outcome_class(state: &str) -> &'static str {
    match state {
        "done" | "replayed" => "ok",
        "partial" => "partial",
        "failed" => "bad",
        _ => "open",
    }
}

/// The screenshot of the screen `node` left: the last its steps took.
fn last_screen(view: &RunView, node: &NodeView) -> Option<(usize, String)> {
    let (first, last) = node.steps?;
    view.steps.iter().rev().filter(|s| s.number >= first && s.number <= last).find_map(|s| {
        let after = s.actions.iter().rev().find_map(|a| a.screenshot.clone());
        after.or_else(|| s.seen.clone()).map(|shot| (s.number, shot))
    })
}

/// The tree section, or nothing when the run has no nodes.
pub fn render(view: &RunView, image: &mut dyn FnMut(&str) -> Option<Shown>) -> String {
    if view.nodes.is_empty() {
        return String::new();
    }
    let mut out = String::from("<section id=\"tree\"><h2>Strategy tree</h2><ol>");
    for node in &view.nodes {
        let indent = 22 * (node.depth().saturating_sub(1));
        let _ = write!(
            out,
            "<li data-node=\"{path}\" style=\"margin-left:{indent}px\"><span class=\"outcome {}\">{}</span><div><b>{path}</b> {}",
            outcome_class(&node.state),
            escape(&node.state),
            escape(&node.goal),
            path = escape(&node.path),
        );
        match node.steps {
            Some((first, last)) if last > first => {
                let _ = write!(
                    out,
                    " <span class=\"meta\">steps <a href=\"#step-{first}\">{first}</a>–<a href=\"#step-{last}\">{last}</a></span>"
                );
            }
            Some((first, last)) if last == first => {
                let _ = write!(out, " <span class=\"meta\">step <a href=\"#step-{first}\">{first}</a></span>");
            }
            _ => out.push_str(" <span class=\"meta\">no step</span>"),
        }
        if let Some(split) = &node.split {
            let _ = write!(out, "<p class=\"note\">split into: {}</p>", escape(split));
        }
        if let Some(detail) = &node.detail {
            let _ = write!(out, "<p class=\"note\">{}</p>", escape(detail));
        }
        out.push_str("</div>");
        // A leaf's own screen; a branch's is its last child's.
        if node.split.is_none()
            && let Some((step, shot)) = last_screen(view, node)
            && let Some((src, _)) = image(&shot)
        {
            let _ = write!(
                out,
                "<a href=\"#step-{step}\"><img src=\"{}\" alt=\"the screen node {} left\"></a>",
                escape(&src),
                escape(&node.path)
            );
        }
        out.push_str("</li>");
    }
    out.push_str("</ol></section>\n");
    out
}
