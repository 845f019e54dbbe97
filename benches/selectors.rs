//! What resolving a selector costs on a Settings screen (the virtual phone's, and a
//! real phone's when the real dumps are there: `common/dumps.rs`): parsing the
//! selector and finding its element, as every `tap(sel)`, `find`, `wait_for` poll
//! does. Run with `cargo bench --bench selectors`.

#[path = "common/dumps.rs"]
#[allow(dead_code)]
mod dumps;

use std::hint::black_box;

use codeact::tools::select::Selector;
use criterion::{Criterion, criterion_group, criterion_main};
use rhai::{Dynamic, Map};

fn map(pairs: &[(&str, &str)]) -> Dynamic {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert((*k).into(), Dynamic::from(v.to_string()));
    }
    Dynamic::from(m)
}

fn resolve(c: &mut Criterion) {
    for (screen, xml) in dumps::settings() {
        let tree = codeact::ui::parse(xml.as_bytes(), (1080, 2400))
            .unwrap_or_else(|e| panic!("the {screen} does not parse: {e}"));
        let label = tree
            .elements
            .iter()
            .filter(|e| e.visible && !e.text.is_empty())
            .nth(5)
            .map(|e| e.text.clone())
            .unwrap_or_else(|| panic!("the {screen} has fewer than 6 texts"));
        let mut group = c.benchmark_group(format!("selector: parse and find on the {screen}"));
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
}

criterion_group!(benches, resolve);
criterion_main!(benches);
