//! The device layer on the virtual device over ADB (direct TCP): one observation of
//! the Settings screen, a tap, a screenshot; and one agent step (observe, then tap)
//! per observer: `uiautomator dump` with `input` against uiautomator2's server and
//! the mobilerun Portal (`--observe dump` / `u2` / `portal`). On the virtual phone a dump costs what the
//! server's tree does, so the step figures show codeact's own cost per backend; a
//! phone adds its dump (1–3 s) and `input`'s JVM (~200 ms) to the dump path only.
//! Run with `cargo bench --bench device`.

use std::hint::black_box;
use std::time::Duration;

use codeact::device::{Device, DeviceSpec, ObserveWith, open, open_observing};
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

/// A virtual phone with uiautomator2's server jar in place and the Portal on,
/// observed as `with`.
fn phone_observing(with: ObserveWith) -> Option<Box<dyn Device>> {
    let mut device = open_observing(&DeviceSpec::Sim, Duration::from_secs(10), with).ok()?;
    device.shell("simctl file /data/local/tmp/u2.jar u2-server-jar").ok()?;
    device
        .shell(
            "settings put secure enabled_accessibility_services \
             com.droidrun.portal/com.droidrun.portal.service.DroidrunAccessibilityService",
        )
        .ok()?;
    device.start_app("com.android.settings", None).ok()?;
    // The first look finds (and starts) the server: not timed.
    let seen = device.observe().ok()?;
    let expected = match with {
        ObserveWith::U2 => codeact::device::ObservedVia::U2,
        ObserveWith::Portal => codeact::device::ObservedVia::Portal,
        _ => seen.via,
    };
    (seen.via == expected && seen.fallback.is_none()).then_some(device)
}

fn agent_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("step: observe + tap (Settings)");
    for with in [ObserveWith::Dump, ObserveWith::U2, ObserveWith::Portal] {
        let Some(mut device) = phone_observing(with) else {
            eprintln!("cannot observe the virtual device with {}; skipping", with.name());
            continue;
        };
        group.bench_function(with.name(), |b| {
            b.iter(|| {
                let seen = device.observe().map(|o| o.ui.len());
                black_box((seen, device.tap(5, 5)))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, device_layer, agent_step);
criterion_main!(benches);
