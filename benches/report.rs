//! report.html of a real run: a 200-action `codeact exec --trajectory` on the
//! virtual phone (its wall time, printed once),
//! then what writing that run's report costs after it, with the screenshots linked
//! (what exec writes) and embedded (each one decoded, scaled and re-encoded).
//! Run with `cargo bench --bench report`.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use codeact::report::{Assets, RunReport};
use criterion::{Criterion, criterion_group, criterion_main};

const ACTIONS: usize = 200;

/// Runs a script of `ACTIONS` taps (and its `start_app`) with `--trajectory` into
/// `dir`; prints its wall time.
fn run_dir(dir: &Path) -> bool {
    let _ = std::fs::create_dir_all(dir);
    let script = dir.join("taps.rhai");
    let code = format!(
        "start_app(\"com.android.settings\");\nfor i in 0..{} {{\n    tap(#{{id: \"wifi_switch\"}});\n    tap(#{{id: \"bluetooth_switch\"}});\n}}\n",
        ACTIONS / 2
    );
    if std::fs::write(&script, code).is_err() {
        return false;
    }
    let started = Instant::now();
    let run = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", &script.display().to_string(), "--device", "sim", "--trajectory"])
        .arg(dir.join("run"))
        .output();
    let took = started.elapsed();
    match run {
        Ok(out) if out.status.success() => {
            // Its peak memory: `/usr/bin/time -v codeact exec ...` says it (the
            // bench's own children include more than this one run).
            println!("codeact exec, {ACTIONS} actions, --trajectory, report written: {:.2} s", took.as_secs_f64());
            true
        }
        _ => false,
    }
}

fn report(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("codeact-bench-report-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    if !run_dir(&dir) {
        println!("the run could not be made: no report to measure");
        return;
    }
    let run = dir.join("run");
    let mut group = c.benchmark_group(format!("report.html of a {ACTIONS}-action run, after it"));
    group.sample_size(10);
    group.bench_function("linked screenshots (what exec writes)", |b| {
        b.iter(|| RunReport::of_dir(&run, Assets::Linked).write().is_ok())
    });
    group.bench_function("embedded screenshots (each decoded, scaled, re-encoded)", |b| {
        b.iter(|| RunReport::of_dir(&run, Assets::Embedded).write().is_ok())
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, report);
criterion_main!(benches);
