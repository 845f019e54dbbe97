//! What resolving a selector costs on a real screen (the Settings dump beside the
//! checkout, skipped without it): parsing the selector and finding its element, as
//! every `tap(sel)`, `find`, `wait_for` poll does. Run with `cargo bench --bench
//! selectors`.

use std::hint::black_box;

use codeact::tools::select::Selector;
use criterion::{Criterion, criterion_group, criterion_main};
use rhai::{Dynamic, Map};

const SETTINGS_DUMP: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/fixtures/real-dumps/01-settings-developer-options.xml");

fn map(pairs: &[(&str, &str)]) -> Dynamic {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert((*k).into(), Dynamic::from(v.to_string()));
    }
    Dynamic::from(m)
}

fn resolve(c: &mut Criterion) {
    let Ok(bytes) = std::fs::read(SETTINGS_DUMP) else {
        eprintln!("{SETTINGS_DUMP} not found; nothing to measure");
        return;
    };
    let Ok(tree) = codeact::ui::parse(&bytes, (1080, 2400)) else { return };
    let Some(label) = tree.elements.iter().filter(|e| e.visible && !e.text.is_empty()).nth(5).map(|e| e.text.clone())
    else {
        return;
    };
    let mut group = c.benchmark_group("selector: parse and find on the Settings dump");
    for (name, sel) in [
        ("a string (text)", Dynamic::from(label.clone())),
        ("#{text: ..}", map(&[("text", &label)])),
        ("#{class: ..., below: ...}", map(&[("class", "TextView"), ("below", &label)])),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let found = Selector::from_dynamic(&sel).ok().and_then(|s| s.find(&tree).map(|e| e.id));
                black_box(found)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, resolve);
criterion_main!(benches);
