//! Parse and render time of every dump (the virtual phone's the repository keeps, and
//! real phones' when a folder of them is there: `common/dumps.rs`), and the compact
//! screen text's size in o200k tokens (GPT-4o's tokenizer) against DroidRun's indexed
//! format for the same dump. Run with `cargo bench --bench ui`.

#[path = "common/dumps.rs"]
#[allow(dead_code)]
mod dumps;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

fn parse_fixtures(c: &mut Criterion) {
    let files = dumps::all();
    let mut group = c.benchmark_group("ui::parse");
    for (name, bytes) in &files {
        group.bench_function(format!("{name} ({} KB)", bytes.len() / 1024), |b| {
            b.iter(|| black_box(codeact::ui::parse(bytes, (1080, 2400)).map(|t| t.len())))
        });
    }
    group.finish();
}

/// What DroidRun 0.3.9 shows its model for the same screen, built as its Portal
/// (v0.3, `getVisibleElements`) and its prompt (`chat_utils._format_ui_elements`) do:
/// the active window's nodes that are on screen and larger than 5 px, depth first,
/// indexed from 1; a node that does not qualify cuts off its subtree; each line is
/// `INDENT INDEX. CLASS: "resource-id", "text" - (l, t, r, b)`, two spaces of indent
/// per level, the class without its package, the text falling back to the
/// description, the id's name, then the class.
fn droidrun_elements(tree: &codeact::ui::UiTree) -> String {
    fn walk(tree: &codeact::ui::UiTree, id: usize, level: usize, next: &mut usize, out: &mut String) {
        let Some(e) = tree.get(id) else { return };
        let b = e.bounds;
        let on_screen = b.right > 0 && b.bottom > 0 && b.left < 1080 && b.top < 2400;
        if !(on_screen && b.width() > 5 && b.height() > 5) {
            return;
        }
        let class = e.class.rsplit('.').next().unwrap_or("");
        let id_name = e.resource_id.rsplit('/').next().unwrap_or("");
        let text = [e.text.as_str(), e.content_desc.as_str(), id_name, class]
            .into_iter()
            .find(|t| !t.is_empty())
            .unwrap_or("");
        let mut line = format!("{}{}.", "  ".repeat(level), *next);
        *next += 1;
        if !class.is_empty() {
            line.push_str(&format!(" {class}:"));
        }
        let details: Vec<String> =
            [e.resource_id.as_str(), text].iter().filter(|d| !d.is_empty()).map(|d| format!("\"{d}\"")).collect();
        if !details.is_empty() {
            line.push_str(&format!(" {}", details.join(", ")));
        }
        line.push_str(&format!(" - ({}, {}, {}, {})\n", b.left, b.top, b.right, b.bottom));
        out.push_str(&line);
        for child in &e.children {
            walk(tree, *child, level + 1, next, out);
        }
    }
    let mut out = String::new();
    let mut next = 1;
    // The active window: the last root (a dialog over its app), as the Portal's
    // rootInActiveWindow is.
    if let Some(root) = tree.roots.last() {
        walk(tree, *root, 0, &mut next, &mut out);
    }
    out
}

/// DroidRun's phone-state block and the schema line that precede its element list.
fn droidrun_header(package: &str, app: &str) -> String {
    format!(
        "\n**Current Phone State:**\n• **App:** {app} ({package})\n• **Keyboard:** Hidden\n• **Focused Element:** None\n        \n\
         Current Clickable UI elements from the device in the schema 'index. className: resourceId, text - bounds(x1,y1,x2,y2)':\n"
    )
}

fn render_fixtures(c: &mut Criterion) {
    let bpe = tiktoken_rs::o200k_base_singleton();
    let mut ratios = Vec::new();
    let mut token_ratios = Vec::new();
    // Real phones' dumps alone: what the prompt-size target is measured on.
    let mut real_ratios = Vec::new();
    eprintln!("{:<44} {:>6} {:>8} {:>9} {:>6}", "dump", "listed", "ours", "DroidRun", "ratio");
    let mut group = c.benchmark_group("ui::screen_text");
    for (name, bytes) in dumps::all() {
        let Ok(tree) = codeact::ui::parse(&bytes, (1080, 2400)) else { continue };
        let ours = codeact::ui::screen_text::screen_text(&tree, "p", "p.A", false);
        let theirs = droidrun_elements(&tree);
        if !theirs.is_empty() {
            let theirs = droidrun_header("p", "P") + theirs.as_str();
            ratios.push(ours.len() as f64 / theirs.len() as f64);
            let (a, b) = (bpe.encode_ordinary(&ours).len(), bpe.encode_ordinary(&theirs).len());
            token_ratios.push(a as f64 / b as f64);
            if name.starts_with("real/") {
                real_ratios.push(a as f64 / b as f64);
            }
            let listed = codeact::ui::screen_text::listed(&tree).len();
            eprintln!("{name:<44} {listed:>6} {a:>8} {b:>9} {:>6.2}", a as f64 / b as f64);
        }
        group.bench_function(name, |b| {
            b.iter(|| black_box(codeact::ui::screen_text::screen_text(&tree, "p", "p.A", false).len()))
        });
    }
    group.finish();
    ratios.sort_by(f64::total_cmp);
    token_ratios.sort_by(f64::total_cmp);
    real_ratios.sort_by(f64::total_cmp);
    if let Some(median) = median(&real_ratios) {
        eprintln!(
            "compact text / DroidRun format over the {} real dumps, median: {median:.2} in o200k tokens",
            real_ratios.len()
        );
    }
    if let (Some(bytes), Some(tokens)) = (ratios.get(ratios.len() / 2), token_ratios.get(token_ratios.len() / 2)) {
        eprintln!(
            "compact text / DroidRun format over {} dumps, median: {tokens:.2} in o200k tokens, {bytes:.2} in bytes",
            ratios.len()
        );
    }
}

/// The median of sorted values (the mean of the middle two for an even count).
fn median(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

criterion_group!(benches, parse_fixtures, render_fixtures);
criterion_main!(benches);
