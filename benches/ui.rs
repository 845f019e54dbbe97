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

/// DroidRun's indexed line for the same element, to compare sizes:
/// `3. Button: "id", "text" - (l,t,r,b)`.
fn droidrun_line(i: usize, e: &codeact::ui::Element) -> String {
    let class = e.class.rsplit('.').next().unwrap_or("");
    let b = e.bounds;
    format!(
        "{}. {class}: \"{}\", \"{}\" - ({},{},{},{})\n",
        i + 1,
        e.resource_id,
        e.text,
        b.left,
        b.top,
        b.right,
        b.bottom
    )
}

/// DroidRun's phone-state block, which precedes its element list.
fn droidrun_header(package: &str, activity: &str) -> String {
    format!(
        "**Current Phone State:**\n• **App:** {package} ({activity})\n• **Keyboard:** Hidden\n• **Focused Element:** None\n\n"
    )
}

fn render_fixtures(c: &mut Criterion) {
    let bpe = tiktoken_rs::o200k_base_singleton();
    let mut ratios = Vec::new();
    let mut token_ratios = Vec::new();
    eprintln!("{:<44} {:>6} {:>8} {:>9} {:>6}", "dump", "listed", "ours", "DroidRun", "ratio");
    let mut group = c.benchmark_group("ui::screen_text");
    for (name, bytes) in dumps::all() {
        let Ok(tree) = codeact::ui::parse(&bytes, (1080, 2400)) else { continue };
        let ours = codeact::ui::screen_text::screen_text(&tree, "p", "p.A", false);
        // DroidRun lists every non-tiny on-screen node.
        let theirs: String = tree
            .elements
            .iter()
            .filter(|e| e.visible && e.bounds.width() > 5 && e.bounds.height() > 5)
            .enumerate()
            .map(|(i, e)| droidrun_line(i, e))
            .collect();
        if !theirs.is_empty() {
            ratios.push(ours.len() as f64 / theirs.len() as f64);
            let theirs = droidrun_header("p", "p.A") + theirs.as_str();
            let (a, b) = (bpe.encode_ordinary(&ours).len(), bpe.encode_ordinary(&theirs).len());
            token_ratios.push(a as f64 / b as f64);
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
    if let (Some(bytes), Some(tokens)) = (ratios.get(ratios.len() / 2), token_ratios.get(token_ratios.len() / 2)) {
        eprintln!(
            "compact text / DroidRun format over {} dumps, median: {tokens:.2} in o200k tokens, {bytes:.2} in bytes",
            ratios.len()
        );
    }
}

criterion_group!(benches, parse_fixtures, render_fixtures);
criterion_main!(benches);
