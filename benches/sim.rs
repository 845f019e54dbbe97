//! Virtual-device benchmarks: ADB round trips through adb_client's TCP device, and
//! screenshot rendering. Run with `cargo bench --bench sim`.

use std::hint::black_box;

use adb_client::ADBDeviceExt;
use adb_client::tcp::ADBTcpDevice;
use codeact::sim::{self, SimConfig, VirtualDevice, render};
use criterion::{Criterion, criterion_group, criterion_main};

const TEST_KEY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/test_adbkey");

fn adb_round_trips(c: &mut Criterion) {
    let Ok(vd) = VirtualDevice::start(SimConfig::default()) else {
        eprintln!("cannot start the virtual device; skipping ADB benchmarks");
        return;
    };
    let Ok(mut device) = ADBTcpDevice::new_with_custom_private_key(vd.addr(), TEST_KEY) else {
        eprintln!("adb_client cannot connect; skipping ADB benchmarks");
        return;
    };
    let mut run = |cmd: &str| {
        let mut out = Vec::new();
        let _ = device.shell_command(&cmd, Some(&mut out), None);
        out
    };
    run("am start -n com.android.settings/.Settings");
    let dump_len = run("uiautomator dump /dev/tty").len();
    eprintln!("Settings dump: {dump_len} bytes");
    let mut group = c.benchmark_group("adb_client");
    group.bench_function("shell echo", |b| b.iter(|| black_box(run("echo hi"))));
    group.bench_function("uiautomator dump /dev/tty (Settings)", |b| {
        b.iter(|| black_box(run("uiautomator dump /dev/tty")))
    });
    group.bench_function("screencap -p 1080x2400", |b| b.iter(|| black_box(run("screencap -p"))));
    group.finish();
}

fn rendering(c: &mut Criterion) {
    let Ok(device) = sim::build_device(SimConfig::default(), None) else { return };
    {
        let mut world = device.world();
        if let Some(settings) = world.catalog.app_index("com.android.settings") {
            world.start_activity(settings, ".Settings", String::new());
        }
    }
    let screen = device.world().screen();
    let mut group = c.benchmark_group("render 1080x2400");
    group.bench_function("layout", |b| b.iter(|| black_box(device.world().screen())));
    group.bench_function("render", |b| b.iter(|| black_box(render::render(&screen))));
    group.bench_function("render + PNG encode", |b| {
        b.iter(|| black_box(render::encode_png(&render::render(&screen)).map(|p| p.len())))
    });
    group.finish();
}

fn device_layer(c: &mut Criterion) {
    use codeact::device::{Device, DeviceSpec, open};
    let Ok(mut device) = open(&DeviceSpec::Sim, std::time::Duration::from_secs(10)) else { return };
    let _ = device.start_app("com.android.settings", None);
    let mut group = c.benchmark_group("device (direct TCP)");
    group.bench_function("observe (Settings)", |b| b.iter(|| black_box(device.observe().map(|o| o.ui.len()))));
    group.bench_function("tap", |b| b.iter(|| black_box(device.tap(5, 5))));
    group.bench_function("screenshot", |b| b.iter(|| black_box(device.screenshot().map(|p| p.len()))));
    group.finish();
}

criterion_group!(benches, adb_round_trips, rendering, device_layer);
criterion_main!(benches);
