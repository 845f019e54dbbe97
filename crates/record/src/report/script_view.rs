//! A script's report (`codeact exec --trajectory`): its code, what it printed and how
//! it ended, then one card per action — the screen after it with the point it acted
//! on marked, the call, its result and effect, its time — a chart of the actions'
//! times, and a playback of the screens one after another (CSS only: the page runs
//! no script). Each screen is in the page once, as a style class the card and the
//! playback share. Not the agent's report (`html.rs`).

use std::fmt::Write as _;

use super::escape::escape;
use super::images::Shown;
use super::model::{ActionView, RunView};

/// The most screens a page embeds (about 35 KB each): later cards link their
/// screenshot file instead, and the playback ends there. A page stays under ~12 MB.
pub const MAX_FRAMES: usize = 300;

/// How long the playback shows each screen.
const FRAME_SECONDS: f64 = 1.2;

const STYLE: &str = "
.frame{position:relative;width:240px;background-size:100% 100%;background-repeat:no-repeat;border:1px solid #ccd;border-radius:4px;flex:0 0 auto;align-self:flex-start}
.act{align-items:flex-start}.act h2 code{font-size:13px}.act.failed h2{color:#c0392b}.act .shotless{width:240px;flex:0 0 auto;color:#888;font-size:12px}
#actions{padding:12px 24px;background:#fff;border-bottom:1px solid #dde}#actions a{display:flex;align-items:center;gap:8px;color:inherit;text-decoration:none;font:11px ui-monospace,monospace;height:14px}
#actions a span:first-child{width:220px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis}
#playback{padding:12px 24px}#playback .stage{position:relative;width:240px}
#playback .frame{position:absolute;left:0;top:0;visibility:hidden;animation:codeact-play var(--cycle) step-end infinite}
#playback .stage:hover .frame{animation-play-state:paused}#playback .frame .caption{position:absolute;left:0;right:0;bottom:0;background:rgba(29,35,48,.8);color:#fff;font:11px ui-monospace,monospace;padding:3px 5px}
";

/// The classes of the screens the page embeds, in order, and their CSS.
struct Frames {
    css: String,
    /// Per screenshot path: its class and original size.
    known: Vec<(String, String, (u32, u32))>,
}

impl Frames {
    /// The class showing `rel`, adding it to the page's style the first time.
    fn class_of(&mut self, rel: &str, image: &mut dyn FnMut(&str) -> Option<Shown>) -> Option<(String, (u32, u32))> {
        if let Some((_, class, size)) = self.known.iter().find(|(r, _, _)| r == rel) {
            return Some((class.clone(), *size));
        }
        if self.known.len() >= MAX_FRAMES {
            return None;
        }
        let (src, size) = image(rel)?;
        // Inside <style> nothing is unescaped: only characters a data URI or a
        // percent-encoded relative path has may go in.
        let safe = src.chars().all(|c| c.is_ascii_alphanumeric() || "+/=:;,._%-".contains(c));
        if !safe {
            return None;
        }
        let class = format!("f{}", self.known.len() + 1);
        let _ = write!(self.css, ".{class}{{background-image:url(\"{src}\")}}");
        self.known.push((rel.to_string(), class.clone(), size));
        Some((class, size))
    }
}

/// The mark on a screen where an action acted, in percent of its size.
fn mark(a: &ActionView, number: usize, size: (u32, u32)) -> String {
    let Some((x, y)) = a.point else { return String::new() };
    let (w, h) = (f64::from(size.0.max(1)), f64::from(size.1.max(1)));
    let (left, top) = (100.0 * f64::from(x) / w, 100.0 * f64::from(y) / h);
    if !(0.0..=100.0).contains(&left) || !(0.0..=100.0).contains(&top) {
        return String::new();
    }
    format!(
        "<span class=\"mark\" style=\"left:{left:.2}%;top:{top:.2}%\" title=\"{} acted here\"><b>{number}</b></span>",
        escape(&a.tool)
    )
}

fn call(a: &ActionView) -> String {
    format!("{}({})", a.tool, a.args.join(", "))
}

/// The script's page body (after the header): the chart, the playback, the code
/// card and a card per action. Its own style goes first.
pub fn render_script(view: &RunView, image: &mut dyn FnMut(&str) -> Option<Shown>) -> String {
    let actions: Vec<&ActionView> = view.steps.iter().flat_map(|s| s.actions.iter()).collect();
    let mut frames = Frames { css: String::new(), known: Vec::new() };
    let mut cards = String::new();
    let mut playback = String::new();
    let mut shown = 0usize;
    for (k, a) in actions.iter().enumerate() {
        let number = k + 1;
        let class = if a.failed { "step act failed" } else { "step act" };
        let _ = write!(cards, "<article class=\"{class}\" id=\"action-{number}\" data-action=\"{number}\">");
        let framed = a.screenshot.as_deref().and_then(|rel| frames.class_of(rel, image));
        match (&framed, a.screenshot.as_deref().and_then(|rel| super::escape::relative_href(std::path::Path::new(rel))))
        {
            (Some((frame, size)), _) => {
                let marked = mark(a, number, *size);
                let _ = write!(
                    cards,
                    "<div class=\"frame {frame}\" role=\"img\" aria-label=\"the screen after action {number}\" style=\"aspect-ratio:{}/{}\">{marked}</div>",
                    size.0.max(1),
                    size.1.max(1)
                );
                let _ = write!(
                    playback,
                    "<div class=\"frame {frame}\" style=\"aspect-ratio:{}/{};animation-delay:{:.1}s\">{marked}<span class=\"caption\">{number}. {}</span></div>",
                    size.0.max(1),
                    size.1.max(1),
                    shown as f64 * FRAME_SECONDS,
                    escape(&call(a))
                );
                shown += 1;
            }
            (None, Some(href)) => {
                let _ =
                    write!(cards, "<p class=\"shotless\"><a href=\"{}\">the screen after it</a></p>", escape(&href));
            }
            (None, None) => cards.push_str("<p class=\"shotless\">no screenshot (it did not act on the screen)</p>"),
        }
        let effect = a.effect.as_deref().map(|e| format!("<p class=\"effect\">{}</p>", escape(e))).unwrap_or_default();
        let _ = writeln!(
            cards,
            "<div class=\"body\"><h2>{number}. <code>{}</code></h2><p>→ {}</p>{effect}<p class=\"meta\">{:.0} ms</p></div></article>",
            escape(&call(a)),
            escape(&a.result),
            a.ms
        );
    }
    let mut out = format!("<style>{STYLE}{}", frames.css);
    if shown > 0 {
        // Each screen shows for one slot of the cycle, after those before it.
        let slot = 100.0 / shown as f64;
        let _ = write!(
            out,
            "#playback{{--cycle:{:.1}s}}#playback .stage{{aspect-ratio:{}/{}}}@keyframes codeact-play{{0%{{visibility:visible}}{slot:.4}%{{visibility:hidden}}100%{{visibility:hidden}}}}",
            shown as f64 * FRAME_SECONDS,
            frames.known[0].2.0.max(1),
            frames.known[0].2.1.max(1)
        );
    }
    out.push_str("</style>\n<section id=\"actions\">");
    let longest = actions.iter().map(|a| a.ms).fold(1.0, f64::max);
    for (k, a) in actions.iter().enumerate() {
        let _ = write!(
            out,
            "<a href=\"#action-{n}\"><span>{n}. {}</span><span class=\"bar\"><i class=\"dev\" style=\"width:{:.1}px\"></i></span><span class=\"meta\">{:.0} ms</span></a>",
            escape(&call(a)),
            (400.0 * a.ms / longest).max(1.0),
            a.ms,
            n = k + 1
        );
    }
    let _ = writeln!(out, "<p class=\"meta\">{} actions, each bar its time</p></section>", actions.len());
    if shown > 0 {
        let _ = writeln!(
            out,
            "<section id=\"playback\"><h2>Playback</h2><p class=\"meta\">{shown} screens, {FRAME_SECONDS} s each; point at it to pause</p><div class=\"stage\">{playback}</div></section>"
        );
    }
    out.push_str("<main>\n<article class=\"step\" data-step=\"1\"><div class=\"body\"><h2>Script</h2>");
    if let Some(code) = &view.script {
        let _ = write!(out, "<pre class=\"code\">{}</pre>", super::code::highlight(code));
    }
    for s in &view.steps {
        if !s.output.is_empty() {
            let _ = write!(out, "<pre class=\"output\">{}</pre>", escape(&s.output));
        }
        for e in &s.errors {
            let _ = write!(out, "<p class=\"error\">{}</p>", escape(e));
        }
        for n in &s.notes {
            let _ = write!(out, "<p class=\"note\">{}</p>", escape(n));
        }
    }
    if !view.kept.is_empty() {
        out.push_str("<p class=\"note\">Kept from the failure:");
        for file in &view.kept {
            let what = match file.as_str() {
                "failure.png" => "the screen it failed on",
                "logcat.txt" => "the device log (logcat)",
                "screenrecord.mp4" => "the screen recording",
                other => other,
            };
            if let Some(href) = super::escape::relative_href(std::path::Path::new(file)) {
                let _ = write!(out, " <a href=\"{}\">{what}</a>", escape(&href));
            }
        }
        out.push_str("</p>");
    }
    out.push_str("</div></article>\n");
    out.push_str(&cards);
    out.push_str("</main>");
    out
}
