//! The report page: one HTML file with its style inline and no script or font from
//! anywhere (it works offline), every text from the model, the device or a script
//! escaped. A header (task, outcome, facts, the replay command), a timeline of the
//! steps (LLM / device / overhead), a tree run's nodes (`tree_view.rs`), then a
//! card per step; a script's run has a card per action instead (`script_view.rs`).
//! Not reading the run (`model.rs`) or the images (`images.rs`).

use std::fmt::Write as _;

use super::model::{ActionView, RunView, StepView};

pub use super::code::highlight;
pub use super::escape::{escape, relative_href};
use super::images::Shown;

const STYLE: &str = "
body{font:14px/1.45 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
header{background:#1d2330;color:#fff;padding:16px 24px}header h1{font-size:18px;margin:0 0 6px}
header dl{display:flex;flex-wrap:wrap;gap:4px 18px;margin:8px 0 0;font-size:12px;opacity:.85}header dt{font-weight:600}header dd{margin:0 0 0 4px}
.outcome{display:inline-block;padding:2px 8px;border-radius:4px;font-weight:600}.ok{background:#1f8a4c}.bad{background:#c0392b}.open{background:#8a6d1f}
code,pre{font:12px/1.4 ui-monospace,monospace}pre{white-space:pre-wrap;word-break:break-word;margin:6px 0;padding:8px;border-radius:4px}
.replay{background:#2b3242;color:#e8e8e8;padding:4px 8px;border-radius:4px;display:inline-block;margin-top:8px}
#timeline{padding:12px 24px;background:#fff;border-bottom:1px solid #dde}#timeline a{display:flex;align-items:center;gap:8px;color:inherit;text-decoration:none;font-size:11px;height:14px}
.bar{display:flex;height:9px;min-width:2px}.bar i{display:block;height:100%}.llm{background:#6c5ce7}.dev{background:#00a884}.ovh{background:#b2bec3}
main{padding:16px 24px;display:flex;flex-direction:column;gap:14px}
.step{display:flex;gap:16px;background:#fff;border:1px solid #dde;border-radius:6px;padding:12px}
.step h2{font-size:15px;margin:0 0 6px}.shot{position:relative;flex:0 0 auto;width:240px;align-self:flex-start}.shot img{width:100%;display:block;border:1px solid #ccd;border-radius:4px}
.mark{position:absolute;width:18px;height:18px;margin:-10px 0 0 -10px;border:3px solid #e74c3c;border-radius:50%;background:rgba(231,76,60,.25)}
.mark b{position:absolute;left:18px;top:-4px;font:700 11px sans-serif;color:#e74c3c;background:#fff;padding:0 2px}
.body{flex:1;min-width:0}.thought{white-space:pre-wrap}.code{background:#272b36;color:#e6e6e6}.output{background:#eef1f5}
.c{color:#8b949e}.s{color:#a5d6a7}.k{color:#ff9e64}.n{color:#f9c859}.f{color:#7dcfff}
ul.actions{list-style:none;padding:0;margin:6px 0}ul.actions li{font:12px ui-monospace,monospace;padding:2px 0;border-bottom:1px dotted #dde}
li.failed{color:#c0392b}li.watcher{color:#8a6d1f}.effect{color:#555}.error{color:#c0392b;white-space:pre-wrap}.note{color:#555;font-style:italic;margin:2px 0}
.meta{font-size:12px;color:#666}.missing{width:240px;height:120px;display:flex;align-items:center;justify-content:center;background:#eee;color:#888;border-radius:4px}
table{border-collapse:collapse;background:#fff}td,th{border:1px solid #dde;padding:4px 8px;text-align:left}
";

/// The page's head and opening body.
pub fn page_start(title: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\
         <title>codeact · {}</title><style>{STYLE}{}</style></head><body>\n",
        escape(title),
        super::tree_view::STYLE
    )
}

fn outcome_class(outcome: &str) -> &'static str {
    match outcome.to_ascii_lowercase().as_str() {
        "success" | "passed" | "pass" | "ended" => "ok",
        "" | "running" => "open",
        _ => "bad",
    }
}

/// A marker per action that hit a point, numbered in order.
fn markers(step: &StepView, size: (u32, u32)) -> String {
    let (w, h) = (f64::from(size.0.max(1)), f64::from(size.1.max(1)));
    let mut out = String::new();
    for (k, a) in step.actions.iter().filter(|a| !a.is_watcher()).enumerate() {
        if let Some((x, y)) = a.point {
            let (left, top) = (100.0 * f64::from(x) / w, 100.0 * f64::from(y) / h);
            if (0.0..=100.0).contains(&left) && (0.0..=100.0).contains(&top) {
                let _ = write!(
                    out,
                    "<span class=\"mark\" style=\"left:{left:.2}%;top:{top:.2}%\" title=\"{}\"><b>{}</b></span>",
                    escape(&a.tool),
                    k + 1
                );
            }
        }
    }
    out
}

fn action_line(a: &ActionView) -> String {
    let class = if a.is_watcher() {
        " class=\"watcher\""
    } else if a.failed {
        " class=\"failed\""
    } else {
        ""
    };
    let effect =
        a.effect.as_deref().map(|e| format!(" <span class=\"effect\">· {}</span>", escape(e))).unwrap_or_default();
    format!(
        "<li{class}>{}({}) → {}{effect} <span class=\"meta\">{:.0} ms</span></li>",
        escape(&a.tool),
        escape(&a.args.join(", ")),
        escape(&a.result),
        a.ms
    )
}

/// The thought of a reply: its text before the first code fence.
fn thought_of(reply: &str) -> &str {
    reply.split("```").next().unwrap_or("").trim()
}

/// The whole report. `sections` is what the run's mode adds after the header (HTML
/// it escaped itself); `image` gives a screenshot's `src` and original size.
pub fn render(view: &RunView, sections: &str, image: &mut dyn FnMut(&str) -> Option<Shown>) -> String {
    let title = if view.title.is_empty() { "codeact run" } else { &view.title };
    let mut out = page_start(title);
    let outcome = view.outcome.clone().unwrap_or_else(|| if view.finished { String::new() } else { "running".into() });
    let _ = write!(
        out,
        "<header><h1>{}</h1><span class=\"outcome {}\">{}</span> {}<dl>",
        escape(title),
        outcome_class(&outcome),
        escape(&outcome),
        escape(view.reason.as_deref().unwrap_or(""))
    );
    let total_tokens: u64 = view.steps.iter().map(|s| s.prompt_tokens + s.completion_tokens).sum();
    let wall: f64 = view.steps.iter().map(|s| s.wall_ms).sum();
    let mut facts = view.facts.clone();
    if view.script_run {
        facts.push(("actions".into(), view.steps.iter().map(|s| s.actions.len()).sum::<usize>().to_string()));
    } else {
        facts.push(("steps".into(), view.steps.len().to_string()));
        facts.push(("tokens".into(), total_tokens.to_string()));
    }
    facts.push(("time".into(), format!("{:.1} s", wall / 1000.0)));
    for (k, v) in &facts {
        let _ = write!(out, "<dt>{}</dt><dd>{}</dd>", escape(k), escape(v));
    }
    out.push_str("</dl>");
    if let Some(replay) = &view.replay {
        let _ = write!(out, "<code class=\"replay\">{}</code>", escape(replay));
    }
    out.push_str("</header>\n");
    out.push_str(sections);
    if view.script_run {
        out.push_str(&super::script_view::render_script(view, image));
        out.push_str("</body></html>\n");
        return out;
    }
    out.push_str("<section id=\"timeline\">");
    let longest = view.steps.iter().map(|s| s.wall_ms).fold(1.0, f64::max);
    for s in &view.steps {
        let px = |ms: f64| 600.0 * ms / longest;
        let _ = write!(
            out,
            "<a href=\"#step-{n}\"><span>step {n}</span><span class=\"bar\"><i class=\"llm\" style=\"width:{:.1}px\"></i><i class=\"dev\" style=\"width:{:.1}px\"></i><i class=\"ovh\" style=\"width:{:.1}px\"></i></span><span class=\"meta\">{:.0} ms</span></a>",
            px(s.llm_ms),
            px(s.device_ms),
            px(s.overhead_ms),
            s.wall_ms,
            n = s.number
        );
    }
    out.push_str("<p class=\"meta\"><i class=\"llm\" style=\"display:inline-block;width:10px;height:8px\"></i> LLM <i class=\"dev\" style=\"display:inline-block;width:10px;height:8px\"></i> device <i class=\"ovh\" style=\"display:inline-block;width:10px;height:8px\"></i> overhead</p></section>\n");
    out.push_str(&super::tree_view::render(view, image));
    out.push_str("<main>\n");
    for s in &view.steps {
        let _ = write!(out, "<article class=\"step\" id=\"step-{0}\" data-step=\"{0}\">", s.number);
        // The screen the step saw, with what it hit; else the last screen it left.
        let (shot, marked) = match &s.seen {
            Some(seen) => (Some(seen.as_str()), true),
            None => (s.actions.iter().rev().find_map(|a| a.screenshot.as_deref()), false),
        };
        match shot.and_then(&mut *image) {
            Some((src, size)) => {
                let marks = if marked { markers(s, size) } else { String::new() };
                let _ = write!(
                    out,
                    "<div class=\"shot\"><img src=\"{}\" alt=\"screen of step {}\">{marks}</div>",
                    escape(&src),
                    s.number
                );
            }
            None => out.push_str("<div class=\"shot missing\">no screenshot kept</div>"),
        }
        let _ = write!(out, "<div class=\"body\"><h2>Step {}</h2>", s.number);
        if let Some(reply) = &s.reply {
            let thought = thought_of(reply);
            if !thought.is_empty() {
                let _ = write!(out, "<p class=\"thought\">{}</p>", escape(thought));
            }
        }
        if let Some(code) = &s.code {
            let _ = write!(out, "<pre class=\"code\">{}</pre>", highlight(code));
        }
        if !s.output.is_empty() {
            let _ = write!(out, "<pre class=\"output\">{}</pre>", escape(&s.output));
        }
        if !s.actions.is_empty() {
            out.push_str("<ul class=\"actions\">");
            for a in &s.actions {
                out.push_str(&action_line(a));
            }
            out.push_str("</ul>");
        }
        for e in &s.errors {
            let _ = write!(out, "<p class=\"error\">{}</p>", escape(e));
        }
        for n in &s.notes {
            let _ = write!(out, "<p class=\"note\">{}</p>", escape(n));
        }
        let _ = writeln!(
            out,
            "<p class=\"meta\">{:.0} ms: LLM {:.0}, device {:.0}, overhead {:.0} · tokens {} prompt + {} reply</p></div></article>",
            s.wall_ms, s.llm_ms, s.device_ms, s.overhead_ms, s.prompt_tokens, s.completion_tokens
        );
    }
    out.push_str("</main></body></html>\n");
    out
}

/// An index page: a table of rows (each cell's text, the first linked to a path
/// below the page's folder, through [`relative_href`]).
pub fn index(title: &str, head: &[&str], rows: &[(Option<std::path::PathBuf>, Vec<String>)]) -> String {
    let mut out = page_start(title);
    let _ = write!(out, "<header><h1>{}</h1></header><main><table><tr>", escape(title));
    for h in head {
        let _ = write!(out, "<th>{}</th>", escape(h));
    }
    out.push_str("</tr>\n");
    for (link, cells) in rows {
        out.push_str("<tr>");
        let href = link.as_deref().and_then(relative_href);
        for (i, cell) in cells.iter().enumerate() {
            if let (0, Some(href)) = (i, &href) {
                let _ = write!(out, "<td><a href=\"{}\">{}</a></td>", escape(href), escape(cell));
            } else {
                let _ = write!(out, "<td>{}</td>", escape(cell));
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table></main></body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_written_by_others_is_escaped() {
        assert_eq!(
            escape("<img src=x onerror=\"a\">&'\u{1b}"),
            "&lt;img src=x onerror=&quot;a&quot;&gt;&amp;&#39;\\u{1b}"
        );
        let code = highlight("let x = \"</pre><script>\"; // <b>\ntap(1, 2);");
        assert!(!code.contains("<script>") && !code.contains("<b>"), "{code}");
        assert!(
            code.contains("<span class=\"k\">let</span>") && code.contains("<span class=\"f\">tap</span>"),
            "{code}"
        );
    }
}
