//! The device layer on the virtual device over ADB (direct TCP): one observation of
//! the Settings screen (one shell round trip), a tap, a screenshot.
//! Run with `cargo bench --bench device`.

use std::hint::black_box;
use std::time::Duration;

use codeact::device::{DeviceSpec, open};
use criterion::{Criterion, criterion_group, criterion_main};

fn device_layer(c: &mut Criterion) {
    let Ok(mut device) = open(&DeviceSpec::Sim, Duration::from_secs(10)) else {
        eprintln!("cannot start the virtual device; skipping");
        return;
    };
    let _ = device.start_app("com.android.settings", None);
    let mut group = c.benchmark_group("device (direct TCP)");
    group.bench_function("observe (Settings)", |b| b.iter(|| black_box(device.observe().map(|o| o.ui.len()))));
    group.bench_function("tap", |b| b.iter(|| black_box(device.tap(5, 5))));
    group.bench_function("screenshot", |b| b.iter(|| black_box(device.screenshot().map(|p| p.len()))));
    group.finish();
}

criterion_group!(benches, device_layer);
criterion_main!(benches);
