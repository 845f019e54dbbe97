//! The virtual device as a client sees it, through adb_client's TCP device: a shell
//! round trip, a hierarchy dump, and a screenshot (layout, drawing and PNG encoding of
//! a 1080x2400 screen; the raw `screencap` skips the encoding).
//! Run with `cargo bench -p codeact-sim`.

use std::hint::black_box;

use adb_client::ADBDeviceExt;
use adb_client::tcp::ADBTcpDevice;
use codeact_sim::{SimConfig, VirtualDevice};
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
    group.bench_function("screencap (raw) 1080x2400", |b| b.iter(|| black_box(run("screencap").len())));
    group.bench_function("screencap -p 1080x2400", |b| b.iter(|| black_box(run("screencap -p").len())));
    group.finish();
}

criterion_group!(benches, adb_round_trips);
criterion_main!(benches);
