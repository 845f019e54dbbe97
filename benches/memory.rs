//! Memory retrieval per step: with 10,000 experiences in the store, the exact-task
//! lookup a run makes to decide on a replay, and the BM25 search for worked
//! examples (goal: well under 1 ms each), the widget hints a step looks up, and the
//! embedding scan `--embeddings` makes once per run. Run with
//! `cargo bench --bench memory`.

use codeact::memory::{Experience, ReplayStep, Store, WidgetFact, WidgetHints};
use criterion::{Criterion, criterion_group, criterion_main};

const EXPERIENCES: usize = 10_000;

const VERBS: &[&str] = &["Turn off", "Turn on", "Open", "Delete", "Add", "Rename", "Send", "Find", "Share", "Set"];
const NAMES: &[&str] = &[
    "Ann", "Bob", "Carlos", "Diana", "Emma", "Felix", "Grace", "Hannah", "Isabella", "Jack", "Julia", "Liam", "Mia",
    "Noah", "Olivia", "Priya", "Sofia", "Tom", "Yuki", "Zhang",
];
const NOUNS: &[&str] = &[
    "alarm", "note", "contact", "message", "expense", "event", "timer", "folder", "photo", "playlist", "reminder",
    "document", "recipe", "invoice", "ticket", "booking", "podcast", "bookmark", "password", "calendar",
];
const APPS: &[&str] = &["com.android.settings", "com.example.notes", "com.android.contacts", "com.android.deskclock"];

/// Tasks as people write them: a verb, a named thing, a time (10,000 distinct).
fn experience(i: usize) -> Experience {
    let (verb, name, noun) = (VERBS[i % 10], NAMES[(i / 10) % 20], NOUNS[(i / 200) % 20]);
    let task = format!("{verb} the {noun} for {name} at {}:{:02}", 6 + i % 12, (i / 4000) * 15 % 60);
    let app = APPS[i % APPS.len()].to_string();
    let step = ReplayStep {
        intent: "open the app".into(),
        code: format!("start_app(\"{app}\");\ntap(#{{text: \"{name}\"}});"),
        app: String::new(),
        activity: String::new(),
        anchor: None,
    };
    Experience { task, apps: vec![app], steps: vec![step.clone(), step], effects: None }
}

fn retrieval(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("codeact-bench-memory-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let Ok(store) = Store::open(&dir.join("memory.sqlite")) else { return };
    for i in 0..EXPERIENCES {
        if store.add(&experience(i)).is_err() {
            return;
        }
    }
    let mut group = c.benchmark_group(format!("memory retrieval ({EXPERIENCES} experiences)"));
    group.bench_function("2 worked examples, every word common (newest first)", |b| {
        b.iter(|| store.similar("Turn on the alarm", 2).map(|r| r.len()).unwrap_or(0))
    });
    group.bench_function("exact task lookup (replay or not)", |b| {
        b.iter(|| store.find_task("Turn off the alarm for Ann at 7:00").ok().flatten().map(|r| r.id))
    });
    group.bench_function("2 worked examples (BM25 over task and app words)", |b| {
        b.iter(|| store.similar("Delete the reminder for Grace in the notes app", 2).map(|r| r.len()).unwrap_or(0))
    });
    group.bench_function("app card of the app in front", |b| b.iter(|| store.card("com.example.notes").ok()));
    group.bench_function("widget hints for the screen in front (5,000 facts loaded once per run)", |b| {
        let facts: Vec<WidgetFact> = (0..5000)
            .map(|i| WidgetFact {
                app: APPS[i % APPS.len()].into(),
                screen: format!(".Screen{}", i % 50),
                element: format!("tap(#{{\"id\": \"button_{i}\"}})"),
                effect: "opened .Detail".into(),
            })
            .collect();
        let hints = WidgetHints::new(facts);
        let screen = (0..40).map(|i| format!("{i} Button #button_{} \"Item {i}\"\n", i * 50)).collect::<String>();
        b.iter(|| hints.for_screen("com.android.settings", ".Screen0", &screen).len())
    });
    // --embeddings: one vector per experience (768 floats, as nomic-embed-text), one
    // nearest-neighbour scan per run.
    let dims = 768;
    let vector = |i: usize| -> Vec<f32> { (0..dims).map(|d| ((i * 31 + d * 17) % 101) as f32 / 101.0).collect() };
    for i in 0..EXPERIENCES {
        if store.set_embedding(i as i64 + 1, "embedder", &vector(i)).is_err() {
            return;
        }
    }
    group.sample_size(20);
    group.bench_function("2 worked examples by embedding (cosine over 10,000 vectors, once per run)", |b| {
        let query = vector(4242);
        b.iter(|| store.nearest("a new task", "embedder", &query, 2).map(|r| r.len()).unwrap_or(0))
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, retrieval);
criterion_main!(benches);
