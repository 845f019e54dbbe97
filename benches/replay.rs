//! Replaying a recorded script on the virtual phone: 20 actions on Settings — an app
//! start, taps by selector on switches and rows, Back and Home — as `codeact exec`
//! runs them, each settled and checked, inside one session (what a replay costs
//! beyond starting the process), read through `uiautomator dump` and through
//! uiautomator2's server. The phone is reset before each run, untimed.
//! Run with `cargo bench --bench replay`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use codeact::config::{FileConfig, Flags};
use codeact::device::{DeviceSpec, ObserveWith, open_observing};
use codeact::session::Session;
use criterion::{Criterion, criterion_group, criterion_main};

/// Twenty actions, as a recorded run's export makes them.
const TWENTY_ACTIONS: &str = r#"
start_app("com.android.settings");
tap(#{id: "wifi_switch"});
tap(#{id: "bluetooth_switch"});
tap(#{id: "wifi_switch"});
tap(#{id: "bluetooth_switch"});
tap(#{text: "Apps"});
press_key("back");
tap(#{text: "Mobile network"});
press_key("back");
tap(#{text: "Connected devices"});
press_key("back");
tap(#{id: "airplane_switch"});
tap(#{id: "airplane_switch"});
tap(#{text: "Notifications"});
press_key("back");
tap(#{text: "Battery"});
press_key("back");
press_key("home");
start_app("com.android.settings");
tap(#{id: "wifi_switch"});
"#;

/// The phone as new, the u2 server's jar in place, on the home screen.
const RESET: &str = r#"shell("simctl reset"); shell("simctl file /data/local/tmp/u2.jar u2-server-jar"); home();"#;

fn session_observing(with: ObserveWith) -> Option<Session> {
    let device = open_observing(&DeviceSpec::Sim, Duration::from_secs(10), with).ok()?;
    let mut settings = FileConfig::default().resolve(&Flags::default()).ok()?;
    // The engine's worker process is the codeact binary.
    settings.worker = codeact::isolation::WorkerProgram(env!("CARGO_BIN_EXE_codeact").into());
    let mut session = Session::open_on(device, &settings).ok()?;
    let reset = session.eval(RESET);
    let check = session.eval(TWENTY_ACTIONS);
    match (reset.error, check.error, check.actions.len()) {
        (None, None, 20) => Some(session),
        (reset, check, n) => {
            eprintln!("the replay does not run with {}: {reset:?} {check:?} ({n} actions)", with.name());
            None
        }
    }
}

fn replay(c: &mut Criterion) {
    let mut group = c.benchmark_group("replay: 20 actions on Settings");
    group.sample_size(20);
    for with in [ObserveWith::Dump, ObserveWith::U2] {
        let Some(mut session) = session_observing(with) else { continue };
        group.bench_function(with.name(), |b| {
            b.iter_custom(|runs| {
                let mut timed = Duration::ZERO;
                for _ in 0..runs {
                    session.eval(RESET);
                    let started = Instant::now();
                    black_box(session.eval(TWENTY_ACTIONS).actions.len());
                    timed += started.elapsed();
                }
                timed
            })
        });
    }
    group.finish();
}

criterion_group!(benches, replay);
criterion_main!(benches);
