//! Parse time of every real dump in ../shared/fixtures/real-dumps (and the
//! largest one on its own). Run with `cargo bench --bench ui`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/fixtures/real-dumps");

fn parse_fixtures(c: &mut Criterion) {
    let Ok(entries) = std::fs::read_dir(FIXTURES) else {
        eprintln!("{FIXTURES} not found; nothing to measure");
        return;
    };
    let mut files: Vec<(String, Vec<u8>)> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .filter_map(|p| Some((p.file_name()?.to_string_lossy().into_owned(), std::fs::read(&p).ok()?)))
        .collect();
    files.sort();
    let mut group = c.benchmark_group("ui::parse");
    for (name, bytes) in &files {
        group.bench_function(format!("{name} ({} KB)", bytes.len() / 1024), |b| {
            b.iter(|| black_box(codeact::ui::parse(bytes, (1080, 2400)).map(|t| t.len())))
        });
    }
    group.finish();
}

criterion_group!(benches, parse_fixtures);
criterion_main!(benches);
