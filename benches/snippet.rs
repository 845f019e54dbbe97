//! What running a snippet costs: a 10-call snippet through the sandbox's worker
//! process and the tool catalog against a recording null device (the runtime's own
//! overhead; goal ≤ 150 µs), against the virtual device through each front door —
//! ADB, WebDriverAgent, hdc (what a script really waits for) — and what starting a
//! session's worker costs; and a snippet after the sandbox sat idle (an agent's
//! case) beside the same snippet back to back.
//!
//! With `CODEACT_DROIDRUN_EXECUTOR` naming DroidRun 0.3.9's `executer.py` (from its
//! wheel, unmodified: `pip download droidrun==0.3.9 --no-deps`, then unzip
//! `droidrun/agent/utils/executer.py`), its `SimpleCodeExecutor` runs the same 10-call
//! `tap_by_index` snippet against a stub tool in the same run (its three imports
//! stubbed, `CODEACT_PYTHON` or `python3`), warm and after 20 ms idle, and both
//! medians are printed side by side with their ratios.
//! Run with `cargo bench --bench snippet`.

#[path = "common/dumps.rs"]
#[allow(dead_code)]
mod dumps;

use std::hint::black_box;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use codeact::config::{FileConfig, Flags};
use codeact::device::{Device, DeviceError, DeviceSpec, Observation, PhoneState, ShellOutput};
use codeact::session::Session;
use criterion::{Criterion, criterion_group, criterion_main};

/// Ten tool calls of the kinds scripts make most.
const SNIPPET: &str = r#"
tap(540, 1200);
tap(0.5, 0.25);
swipe(540, 1800, 540, 600);
input_text("hello");
press_key("enter");
back();
tap_by_index(0);
long_press(100, 200);
home();
remember("done");
"#;

/// Ten calls that all succeed on the virtual phone, typing and held gestures
/// included (a swipe of 300 ms and a long press, which each platform holds for its
/// own time: 800 ms over ADB and WDA, uitest's 1.5 s over hdc).
const DEVICE_SNIPPET: &str = r#"
start_app("com.example.notes");
tap(#{desc: "New note"});
input_text("hello");
press_key("enter");
swipe(540, 1800, 540, 600);
back();
back();
long_press(100, 200);
home();
remember("done");
"#;

/// Ten calls without held gestures, for the virtual device (a swipe and a long press
/// are acted out for their whole duration: 300 + 800 ms of DEVICE_SNIPPET).
const QUICK_SNIPPET: &str = r#"
home();
tap(0.5, 0.1);
back();
refresh();
tap_by_index(0);
press_key("enter");
back();
home();
remember("done");
wait(0);
"#;

/// The snippet the comparison with other executors runs: ten calls of one tool.
const TEN_TAPS_BY_INDEX: &str = "tap_by_index(0);\ntap_by_index(0);\ntap_by_index(0);\ntap_by_index(0);\n\
     tap_by_index(0);\ntap_by_index(0);\ntap_by_index(0);\ntap_by_index(0);\ntap_by_index(0);\ntap_by_index(0);\n";

/// How long a snippet waits before it runs in the cold case: an agent's snippet
/// comes after seconds of model time, when both sides of the sandbox sleep.
const IDLE: Duration = Duration::from_millis(20);

/// A device that answers at once and only records what it was asked.
struct RecordingNullDevice {
    observation: Observation,
    calls: Arc<Mutex<Vec<String>>>,
}

impl RecordingNullDevice {
    fn note(&self, call: String) -> Result<(), DeviceError> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner()).push(call);
        Ok(())
    }
}

impl Device for RecordingNullDevice {
    fn name(&self) -> &str {
        "null"
    }
    fn observe(&mut self) -> Result<Observation, DeviceError> {
        self.note("observe".into())?;
        Ok(self.observation.clone())
    }
    fn screenshot(&mut self) -> Result<Vec<u8>, DeviceError> {
        Ok(Vec::new())
    }
    fn tap(&mut self, x: i32, y: i32) -> Result<(), DeviceError> {
        self.note(format!("tap {x} {y}"))
    }
    fn long_press(&mut self, x: i32, y: i32, ms: u32) -> Result<(), DeviceError> {
        self.note(format!("long_press {x} {y} {ms}"))
    }
    fn swipe(&mut self, x1: i32, y1: i32, x2: i32, y2: i32, ms: u32) -> Result<(), DeviceError> {
        self.note(format!("swipe {x1} {y1} {x2} {y2} {ms}"))
    }
    fn drag(&mut self, x1: i32, y1: i32, x2: i32, y2: i32, ms: u32) -> Result<(), DeviceError> {
        self.note(format!("drag {x1} {y1} {x2} {y2} {ms}"))
    }
    fn input_text(&mut self, text: &str) -> Result<(), DeviceError> {
        self.note(format!("text {text}"))
    }
    fn clear_text(&mut self) -> Result<(), DeviceError> {
        self.note("clear".into())
    }
    fn press_key(&mut self, key: &str) -> Result<(), DeviceError> {
        self.note(format!("key {key}"))
    }
    fn start_app(&mut self, package: &str, _activity: Option<&str>) -> Result<(), DeviceError> {
        self.note(format!("start {package}"))
    }
    fn clear_app_data(&mut self, package: &str) -> Result<(), DeviceError> {
        self.note(format!("clear {package}"))
    }
    fn open_url(&mut self, uri: &str) -> Result<(), DeviceError> {
        self.note(format!("open {uri}"))
    }
    fn stop_app(&mut self, package: &str) -> Result<(), DeviceError> {
        self.note(format!("stop {package}"))
    }
    fn list_packages(&mut self, _system: bool) -> Result<Vec<String>, DeviceError> {
        Ok(Vec::new())
    }
    fn shell(&mut self, _command: &str) -> Result<ShellOutput, DeviceError> {
        Ok(ShellOutput::default())
    }
    fn timeout(&self) -> Duration {
        Duration::from_secs(1)
    }
}

fn settings(extra: &str) -> codeact::config::Settings {
    let file = FileConfig::parse(extra, std::path::Path::new("bench.toml")).unwrap_or_default();
    let mut settings = file.resolve(&Flags::default()).unwrap_or_else(|e| panic!("bench settings: {e}"));
    // The engine's worker process is the codeact binary.
    settings.worker = codeact::isolation::WorkerProgram(env!("CARGO_BIN_EXE_codeact").into());
    settings
}

fn null_device(c: &mut Criterion) {
    // Each screen also has the focused text field `input_text` types into (and reads
    // back: the null device shows the typed text already).
    let field = r#"<node index="0" text="hello" resource-id="p:id/field" class="android.widget.EditText" package="p" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="true" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,2000][1080,2200]" />"#;
    let one_button = format!(
        r#"<hierarchy rotation="0"><node index="0" text="OK" resource-id="ok" class="android.widget.Button" package="p" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,200]" />{field}</hierarchy>"#
    );
    let one_button = codeact::ui::parse(one_button.as_bytes(), (1080, 2400)).unwrap_or_default();
    let mut group = c.benchmark_group("10-call snippet, recording null device");
    let mut screens = vec![("one-button screen", one_button)];
    for (screen, dump) in dumps::settings() {
        let dump = dump.replacen("</hierarchy>", &format!("{field}</hierarchy>"), 1);
        let ui = codeact::ui::parse(dump.as_bytes(), (1080, 2400))
            .unwrap_or_else(|e| panic!("the {screen} does not parse: {e}"));
        screens.push((screen, ui));
    }
    for (screen, ui) in screens {
        let focused = ui.elements.iter().rposition(|e| e.focused);
        let observation = Observation {
            phone: PhoneState { package: "com.android.settings".into(), focused, ..PhoneState::default() },
            screen: (1080, 2400),
            ui,
            ..Observation::default()
        };
        for (name, toml) in [("no settle", "[tools]\nsettle_ms = 0\n"), ("settle on", "")] {
            let calls = Arc::new(Mutex::new(Vec::new()));
            let device = RecordingNullDevice { observation: observation.clone(), calls: calls.clone() };
            let Ok(mut session) = Session::open_on(Box::new(device), &settings(toml)) else { return };
            let check = session.eval(SNIPPET);
            assert!(check.error.is_none(), "{:?}", check.error);
            assert_eq!(check.actions.len(), 10);
            if name == "no settle" && screen == "one-button screen" {
                group.bench_function("an empty snippet (the sandbox alone)", |b| {
                    b.iter(|| black_box(session.eval("1;")))
                });
            }
            group.bench_function(format!("{screen}, {name}"), |b| {
                b.iter(|| {
                    calls.lock().map(|mut c| c.clear()).unwrap_or_default();
                    black_box(session.eval(SNIPPET).actions.len())
                })
            });
        }
    }
    group.finish();
}

fn virtual_device(c: &mut Criterion) {
    // The same phone through each front door: its adbd, its WebDriverAgent, its hdc
    // server.
    // iOS types Return only into a field (there is no key to press without one).
    let quick_ios = QUICK_SNIPPET.replace("press_key(\"enter\")", "press_key(\"home\")");
    let doors = [
        (DeviceSpec::Sim, "ADB"),
        (DeviceSpec::SimIos, "WebDriverAgent (iOS)"),
        (DeviceSpec::SimHarmony, "hdc (HarmonyOS)"),
    ];
    for (spec, door) in doors {
        let quick = if spec == DeviceSpec::SimIos { quick_ios.as_str() } else { QUICK_SNIPPET };
        let Ok(device) = codeact::device::open(&spec, Duration::from_secs(10)) else {
            eprintln!("cannot start the virtual device ({door}); skipping");
            continue;
        };
        let Ok(mut session) = Session::open_on(device, &settings("")) else { continue };
        let check = session.eval(quick);
        assert!(check.error.is_none() && check.actions.len() == 10, "{door}: {:?}", check.error);
        let mut group = c.benchmark_group(format!("10-call snippet, virtual device over {door}"));
        group.sample_size(10);
        let full = session.eval(DEVICE_SNIPPET);
        assert!(full.error.is_none() && full.actions.len() == 10, "{door}: {:?}", full.error);
        for (name, snippet) in
            [("taps and keys, settle on", quick), ("typing, a swipe and a long press", DEVICE_SNIPPET)]
        {
            group.bench_function(name, |b| b.iter(|| black_box(session.eval(snippet).actions.len())));
        }
        group.finish();
    }
}

/// A session on a one-button screen of the null device, checked to run
/// [`TEN_TAPS_BY_INDEX`].
fn ten_taps_session() -> Option<Session> {
    let one_button = r#"<hierarchy rotation="0"><node index="0" text="OK" resource-id="ok" class="android.widget.Button" package="p" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,200]" /></hierarchy>"#;
    let ui = codeact::ui::parse(one_button.as_bytes(), (1080, 2400)).unwrap_or_default();
    let observation = Observation { screen: (1080, 2400), ui, ..Observation::default() };
    let device = RecordingNullDevice { observation, calls: Arc::default() };
    let mut session = Session::open_on(Box::new(device), &settings("[tools]\nsettle_ms = 0\n")).ok()?;
    let check = session.eval(TEN_TAPS_BY_INDEX);
    assert!(check.error.is_none() && check.actions.len() == 10, "{:?}", check.error);
    Some(session)
}

/// A snippet after the sandbox has been idle (the agent's case: seconds of model
/// time between snippets), against the same snippet back to back. Only the
/// snippet is timed, not the idle wait before it.
fn cold_and_warm(c: &mut Criterion) {
    let Some(mut session) = ten_taps_session() else { return };
    let mut group = c.benchmark_group("10 tap_by_index calls, recording null device");
    group.bench_function("warm (back to back)", |b| b.iter(|| black_box(session.eval(TEN_TAPS_BY_INDEX))));
    group.sample_size(30);
    for (name, code) in
        [("cold (after 20 ms idle)", TEN_TAPS_BY_INDEX), ("cold, an empty snippet (the sandbox alone)", "1;")]
    {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut spent = Duration::ZERO;
                for _ in 0..iters {
                    std::thread::sleep(IDLE);
                    let started = std::time::Instant::now();
                    black_box(session.eval(code));
                    spent += started.elapsed();
                }
                spent
            })
        });
    }
    group.finish();
}

/// DroidRun's executor, timed by itself: warm and cold medians in µs on one line.
const DROIDRUN: &str = r#"
import sys, types, asyncio, time, importlib.util, statistics
stubs = {n: types.ModuleType(n) for n in ["droidrun", "droidrun.agent", "droidrun.agent.utils",
    "droidrun.agent.utils.async_utils", "llama_index", "llama_index.core", "llama_index.core.workflow",
    "droidrun.tools", "droidrun.tools.adb"]}
stubs["droidrun.agent.utils.async_utils"].async_to_sync = lambda f: (lambda *a, **k: asyncio.run(f(*a, **k)))
stubs["llama_index.core.workflow"].Context = object
stubs["droidrun.tools.adb"].AdbTools = type("AdbTools", (), {})
sys.modules.update(stubs)
spec = importlib.util.spec_from_file_location("executer", sys.argv[1])
ex = importlib.util.module_from_spec(spec); spec.loader.exec_module(ex)
class Store:
    async def get(self, key, default=None): return default
class Ctx:
    store = Store()
    def write_event_to_stream(self, ev): pass
def tap_by_index(index: int) -> str: return f"Tapped element with index {index}"
code = "\n".join(["tap_by_index(0)"] * 10)
runs, idle = int(sys.argv[2]), float(sys.argv[3])
async def main():
    e = ex.SimpleCodeExecutor(loop=asyncio.get_event_loop(), locals={}, tools={"tap_by_index": tap_by_index},
                              tools_instance=None, globals={"__builtins__": __builtins__})
    warm, cold = [], []
    for _ in range(50):
        await e.execute(Ctx(), code)
    for _ in range(runs):
        t = time.perf_counter(); await e.execute(Ctx(), code); warm.append(time.perf_counter() - t)
    for _ in range(runs):
        time.sleep(idle)
        t = time.perf_counter(); await e.execute(Ctx(), code); cold.append(time.perf_counter() - t)
    print(f"{statistics.median(warm) * 1e6:.1f} {statistics.median(cold) * 1e6:.1f}")
asyncio.run(main())
"#;

/// How many runs each side's medians are taken over.
const SIDE_BY_SIDE_RUNS: usize = 200;

/// The median of `runs` timings of `f`, each after `idle` (none: back to back).
fn median_us(runs: usize, idle: Option<Duration>, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            if let Some(idle) = idle {
                std::thread::sleep(idle);
            }
            let started = std::time::Instant::now();
            f();
            started.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// DroidRun's executor and ours on the same snippet, warm and cold, in one run.
fn droidrun_side_by_side(c: &mut Criterion) {
    let _ = c;
    let Ok(executer) = std::env::var("CODEACT_DROIDRUN_EXECUTOR") else {
        eprintln!("(set CODEACT_DROIDRUN_EXECUTOR to DroidRun 0.3.9's executer.py for its executor side by side)");
        return;
    };
    let python = std::env::var("CODEACT_PYTHON").unwrap_or_else(|_| "python3".into());
    let (runs, idle) = (SIDE_BY_SIDE_RUNS.to_string(), IDLE.as_secs_f64().to_string());
    let theirs = match std::process::Command::new(&python).args(["-c", DROIDRUN, &executer, &runs, &idle]).output() {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).to_string(),
        Ok(o) => return eprintln!("DroidRun's executor failed: {}", String::from_utf8_lossy(&o.stderr)),
        Err(e) => return eprintln!("cannot run {python}: {e}"),
    };
    let parsed: Vec<f64> = theirs.split_whitespace().filter_map(|v| v.parse().ok()).collect();
    let [their_warm, their_cold] = parsed[..] else { return eprintln!("DroidRun's executor said: {theirs}") };
    let Some(mut session) = ten_taps_session() else { return };
    for _ in 0..50 {
        black_box(session.eval(TEN_TAPS_BY_INDEX));
    }
    let warm = median_us(SIDE_BY_SIDE_RUNS, None, || drop(black_box(session.eval(TEN_TAPS_BY_INDEX))));
    let cold = median_us(SIDE_BY_SIDE_RUNS, Some(IDLE), || drop(black_box(session.eval(TEN_TAPS_BY_INDEX))));
    println!(
        "10 tap_by_index calls, median of {SIDE_BY_SIDE_RUNS} runs | codeact | DroidRun 0.3.9 SimpleCodeExecutor | ratio"
    );
    println!("warm (back to back) | {warm:.1} µs | {their_warm:.1} µs | {:.2}×", warm / their_warm);
    println!("cold (after 20 ms idle) | {cold:.1} µs | {their_cold:.1} µs | {:.2}×", cold / their_cold);
}

/// What opening a session costs: its engine's worker process is spawned, set up and
/// ready (and killed again when the session is dropped).
fn session_start(c: &mut Criterion) {
    let mut group = c.benchmark_group("session start");
    group.sample_size(20);
    let settings = settings("");
    group.bench_function("worker process spawned and set up", |b| {
        b.iter(|| {
            let device = RecordingNullDevice { observation: Observation::default(), calls: Arc::default() };
            black_box(Session::open_on(Box::new(device), &settings).map(|s| s.worker_start_time()))
        })
    });
    group.finish();
}

criterion_group!(benches, cold_and_warm, droidrun_side_by_side, null_device, virtual_device, session_start);
criterion_main!(benches);
