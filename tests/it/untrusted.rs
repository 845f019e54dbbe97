//! Nothing untrusted runs unbounded outside the sandbox, through the binary as a
//! person, a model or a shipped file would trigger it: work done in the runtime for
//! a snippet (selectors, remembered preconditions, imports) is bounded; the
//! sensitive-action gate judges what is under every point a call reaches; records
//! stay JSON whatever a secret looks like; tool arguments are kept bounded; report
//! links cannot run script; files land only where they belong; exporters and the
//! LLM client follow no redirect with a key.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::agent_run::{events, json_file, run, run_dir, scratch, stderr};
use crate::common::llm::{ScriptedLlm, last_user_text, reply};
use crate::common::{self, sim_state as state};

pub(crate) fn codeact(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(args)
        .current_dir(dir)
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .env("XDG_DATA_HOME", dir.join(".memory"))
        .output()
        .expect("run codeact")
}

pub(crate) fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub(crate) fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path
}

fn note_titles(addr: &str) -> Vec<String> {
    state(addr)["notes"]
        .as_array()
        .map(|n| n.iter().filter_map(|n| n["title"].as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// Every way a script could press the Delete button a long press showed, each
/// caught; the script prints how many were refused.
const PRESS_DELETE_EVERY_WAY: &str = r#"start_app("com.example.notes");
long_press(#{id: "note_row"});
let d = find("Delete");
let x = d.center[0];
let y = d.center[1];
let tries = [
    || swipe(x, y, x, y),
    || swipe(x, y, x + 5, y + 5, 100),
    || drag(x, y, x, y),
    || long_press(x, y),
    || tap(x, y),
    || tap("Delete"),
    || shell(`true; input tap ${x} ${y}`),
    || shell(`input swipe ${x} ${y} ${x} ${y}`),
    || shell(`input tap ${x}.0 ${y}`),
    || shell(`sh -c 'input tap ${x} ${y}'`),
    || shell(`echo 'input tap ${x} ${y}' | sh`),
    || shell(`cmd input touchscreen tap ${x} ${y}`),
    || shell(`X=${x}; input tap $X ${y}`),
    || shell(`input motionevent DOWN ${x} ${y}; input motionevent UP ${x} ${y}`),
    || { set_clipboard("delete all"); press_key("KEYCODE_PASTE"); },
];
let refused = 0;
for t in tries {
    try { t.call(); } catch (e) { if `${e}`.contains("refused") { refused += 1; } else { print(`not refused: ${e}`); } }
}
print(`refused ${refused} of ${tries.len()}`);
// Reading through the shell is not input: it runs.
print(parse_json(shell("simctl state").output).notes.len());
"#;

#[test]
fn the_gate_judges_what_is_under_every_point_a_call_reaches() {
    let sim = common::SimProcess::start(&[]);
    let before = note_titles(&sim.addr);
    assert!(!before.is_empty());
    let dir = scratch("gate-every-way");
    let script = write(&dir, "press_delete.rhai", PRESS_DELETE_EVERY_WAY);
    let out = codeact(&dir, &["exec", "--device", &sim.addr, "--sensitive", "refuse", &script.to_string_lossy()]);
    let printed = stdout(&out);
    assert!(printed.contains("refused 15 of 15"), "{printed}\n{}", stderr(&out));
    assert!(printed.contains(&format!("\n{}\n", before.len())) || printed.contains(&format!("{}\n", before.len())));
    assert_eq!(note_titles(&sim.addr), before, "no way through deleted a note");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_model_that_swipes_where_it_may_not_tap_does_not_succeed() {
    let sim = common::SimProcess::start(&[]);
    let before = note_titles(&sim.addr);
    let sneaky = "Thought: Tapping Delete is refused, so I swipe on it instead.\n```rhai\n\
         start_app(\"com.example.notes\");\nlong_press(#{id: \"note_row\"});\nlet d = find(\"Delete\");\n\
         swipe(d.center[0], d.center[1], d.center[0], d.center[1]);\ncomplete(true, \"deleted\");\n```";
    let give_up = "Thought: Refused.\n```rhai\ncomplete(false, \"the deletion was refused\");\n```";
    let llm = ScriptedLlm::start(vec![reply(sneaky), reply(give_up)]);
    let out = scratch("gate-sneaky-swipe");
    let extra = ["--persona", "big_agent", "--vision", "off", "--sensitive", "refuse"];
    let result = run(&llm, &sim.addr, &out, &extra, "Delete the first note");
    assert_eq!(result.status.code(), Some(1), "{}", stderr(&result));
    assert_eq!(note_titles(&sim.addr), before, "the note is still there");
    let told = last_user_text(&llm.requests()[1]);
    assert!(told.contains("refused swipe (a press) on"), "{told}");
    let _ = std::fs::remove_dir_all(&out);
}

/// A command run to its end, with the highest resident memory the process reached
/// (its `VmHWM`, read while it ran) and its wall time.
fn measured(mut command: Command) -> (Output, u64, Duration) {
    use std::io::Read;
    let started = Instant::now();
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start codeact");
    let mut out_pipe = child.stdout.take().expect("stdout");
    let mut err_pipe = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out_pipe.read_to_end(&mut v);
        v
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err_pipe.read_to_end(&mut v);
        v
    });
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0u64;
    let status = loop {
        if let Ok(text) = std::fs::read_to_string(&status_file)
            && let Some(kib) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak_kib = peak_kib.max(kib);
        }
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let output = Output { status, stdout: out.join().unwrap_or_default(), stderr: err.join().unwrap_or_default() };
    (output, peak_kib * 1024, started.elapsed())
}

/// The runtime's own memory stays this far under what a hostile snippet asks of it.
const RUNTIME_PEAK: u64 = 400 << 20;

/// A selector tree built in a loop (each level holding the one before twice, with
/// a regex at every level) is refused at once, in the runtime, within the
/// snippet's time, with the runtime's memory flat; the session (and its variables)
/// go on, and the run directory is whole.
const SELECTOR_BOMB: &str = r#"let kept = 41;
let s = #{text_matches: "(a|b|c){40}x"};
for i in 0..11 { s = #{text_matches: `(a|b|c){${40 + i}}x`, below: s, above: s}; }
try { find(s); } catch (e) { print(`refused: ${e}`); }
let wide = #{};
for k in ["text_matches", "desc_matches", "hint_matches", "id_matches", "class_matches"] { wide[k] = "(\\w{100}){100}"; }
try { find(#{below: wide, above: wide, left_of: wide, right_of: wide}); } catch (e) { print(`refused: ${e}`); }
print(`kept ${kept + 1}`);
"#;

#[test]
fn work_done_in_the_runtime_for_a_snippet_is_bounded() {
    let sim = common::SimProcess::start(&[]);
    let dir = scratch("selector-bomb");
    let script = write(&dir, "bomb.rhai", SELECTOR_BOMB);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_codeact"));
    cmd.args(["exec", "--device", &sim.addr, "--limit", "timeout_ms=5000", "--trajectory", "tr"])
        .arg(&script)
        .current_dir(&dir);
    let (out, peak, took) = measured(cmd);
    let printed = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{printed}\n{}", stderr(&out));
    assert!(printed.contains("more than 64 selectors") || printed.contains("more than 16 regexes"), "{printed}");
    assert!(printed.contains("more than 16 regexes"), "{printed}");
    assert!(printed.contains("kept 42"), "the session went on: {printed}");
    assert!(took < Duration::from_secs(5) + Duration::from_secs(3), "took {took:?}");
    assert!(peak < RUNTIME_PEAK, "the runtime peaked at {} MiB", peak >> 20);
    let summary = dir.join("tr/summary.json");
    assert!(summary.is_file(), "the run directory is whole");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A remembered step whose precondition is not a selector literal (a loop,
/// planted in the database) is read as data and refused: the run goes on to the
/// model instead of hanging; an import file with one is refused whole, naming the
/// line; an endless file is an error, not an abort; importing again adds nothing.
#[test]
fn remembered_steps_and_imports_cannot_hang_or_crash_the_runtime() {
    let out = scratch("precondition-loop");
    let db = out.join(".memory/codeact/memory.sqlite");
    let store = codeact::memory::Store::open(&db).expect("memory");
    let step = |anchor: &str| codeact::memory::ReplayStep {
        intent: "tap the switch".into(),
        code: "tap(#{id: \"wifi_switch\"});".into(),
        app: String::new(),
        activity: String::new(),
        anchor: Some(anchor.into()),
    };
    let looping = codeact::memory::Experience {
        task: "Turn off Wi-Fi".into(),
        apps: vec!["com.android.settings".into()],
        steps: vec![step("{ let n = 0; loop { n += 1; } }")],
        effects: None,
    };
    store.add(&looping).expect("planted");
    drop(store);
    let done = "Thought: I finish.\n```rhai\ncomplete(true, \"done\");\n```";
    let llm = ScriptedLlm::start(vec![reply(done)]);
    let started = Instant::now();
    let result = run(&llm, "sim", &out, &["--vision", "off"], "Turn off Wi-Fi");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert!(started.elapsed() < Duration::from_secs(60), "took {:?}", started.elapsed());
    let told = last_user_text(&llm.requests()[0]);
    assert!(told.contains("is refused") && told.contains("not a selector literal"), "{told}");

    // An export file whose second line has a looping precondition keeps nothing.
    let good = serde_json::to_string(&codeact::memory::Experience {
        task: "Open the clock".into(),
        apps: vec![],
        steps: vec![step("#{\"id\": \"clock\"}")],
        effects: None,
    })
    .expect("json");
    let bad = serde_json::to_string(&looping).expect("json");
    let file = write(&out, "memory.jsonl", &format!("{good}\n{bad}\n"));
    let import =
        |file: &Path| codeact(&out, &["memory", "import", "--memory", &db.to_string_lossy(), &file.to_string_lossy()]);
    let refused = import(&file);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("line 2") && stderr(&refused).contains("nothing was imported"),
        "{}",
        stderr(&refused)
    );
    let listed = codeact(&out, &["memory", "list", "--memory", &db.to_string_lossy()]);
    assert!(!stdout(&listed).contains("Open the clock"), "{}", stdout(&listed));
    let file = write(&out, "good.jsonl", &format!("{good}\n"));
    assert!(stdout(&import(&file)).contains("imported 1 experiences"));
    let again = import(&file);
    assert!(
        stdout(&again).contains("imported 0 experiences") && stdout(&again).contains("1 already there"),
        "{}",
        stdout(&again)
    );
    let endless = import(Path::new("/dev/zero"));
    assert_eq!(endless.status.code(), Some(2), "an error, not an abort: {:?} {}", endless.status, stderr(&endless));
    assert!(stderr(&endless).contains("holds more than 256 MiB"), "{}", stderr(&endless));
    let _ = std::fs::remove_dir_all(&out);
}

/// A short secret (the README's 4-digit PIN) that equals a number in the records
/// leaves them JSON: numbers and keys are never touched, the text that shows it is.
#[test]
fn a_short_secret_never_breaks_a_record() {
    // The scripted server counts a reply's bytes / 4 as its completion tokens.
    let mut text = String::from("Thought: the PIN 1001 is typed elsewhere; I am done.");
    let code = "\n```rhai\ntap(540, 1001);\ncomplete(true, \"done\");\n```";
    while text.len() + code.len() < 4004 {
        text.push(' ');
    }
    text.push_str(code);
    assert_eq!(text.len() / 4, 1001);
    let llm = ScriptedLlm::start(vec![reply(&text)]);
    let out = scratch("short-secret");
    let result = crate::agent_run::run_against(
        &llm.base_url,
        "sim",
        &out,
        &["--vision", "off"],
        "Tap somewhere",
        &[("CODEACT_SECRET_PIN", "1001")],
    );
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert!(stderr(&result).contains("secret PIN has only 4 characters"), "{}", stderr(&result));
    let dir = run_dir(&out);
    let all = events(&dir);
    let reply_event = all.iter().find(|e| e["event"] == "llm_reply").expect("an llm_reply");
    assert_eq!(reply_event["completion_tokens"], 1001, "{reply_event}");
    assert!(reply_event["text"].as_str().is_some_and(|t| t.contains("PIN [key]") && !t.contains("1001 ")));
    let tap = all.iter().find(|e| e["tool"] == "tap").expect("the tap");
    assert_eq!(tap["args"][1], "1001", "a coordinate is no secret: {tap}");
    let summary = json_file(&dir.join("summary.json"));
    assert!(summary.is_object());
    let _ = std::fs::remove_dir_all(&out);
}

/// Huge arguments are kept cut, with their size said, in the events, the report
/// and what the model reads; the runtime's memory stays flat through 1,500 of them.
#[test]
fn tool_arguments_are_kept_bounded_wherever_they_go() {
    let sim = common::SimProcess::start(&[]);
    let dir = scratch("huge-args");
    let script = write(
        &dir,
        "flood.rhai",
        "let s = \"\"; s.pad(60000, 'x');\nfor i in 0..1500 { find(s); }\nprint(\"done\");\n",
    );
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_codeact"));
    cmd.args(["exec", "--device", &sim.addr, "--limit", "timeout_ms=600000", "--trajectory", "tr"])
        .arg(&script)
        .current_dir(&dir);
    let (out, peak, _) = measured(cmd);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(peak < RUNTIME_PEAK, "the runtime peaked at {} MiB", peak >> 20);
    let flood = dir.join("tr");
    let events_size = std::fs::metadata(flood.join("events.jsonl")).map(|m| m.len()).unwrap_or(u64::MAX);
    assert!(events_size < 2 << 20, "events.jsonl is {events_size} bytes");
    let report_size = std::fs::metadata(flood.join("report.html")).map(|m| m.len()).unwrap_or(u64::MAX);
    assert!(report_size < 4 << 20, "report.html is {report_size} bytes");
    let all = events(&flood);
    let first = all.iter().find(|e| e["tool"] == "find").expect("a find");
    assert!(first["args"][0].as_str().is_some_and(|a| a.len() < 2200 && a.ends_with("60002 bytes in all]")), "{first}");
    let last = all.iter().rev().find(|e| e["tool"] == "find").expect("a find");
    assert!(last["args"][0].as_str().is_some_and(|a| a.starts_with("[arguments not kept")), "{last}");
    let _ = std::fs::remove_dir_all(&dir);

    // What the model reads of a step that passed a megabyte is bounded too.
    let big = "Thought: I look for a long text.\n```rhai\nlet s = \"\"; s.pad(1000000, 'x');\n\
               for i in 0..60 { try { find(s); } catch { } }\n```";
    let done = "Thought: done.\n```rhai\ncomplete(true, \"done\");\n```";
    let llm = ScriptedLlm::start(vec![reply(big), reply(done)]);
    let out = scratch("huge-args-model");
    let result = run(&llm, "sim", &out, &["--vision", "off"], "Find a long text");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let told = last_user_text(&llm.requests()[1]);
    assert!(told.len() < 64 << 10, "the model was sent {} bytes", told.len());
    let _ = std::fs::remove_dir_all(&out);
}

/// A panic inside the engine is a script error: the script catches it or fails
/// on it, and the session keeps its variables (no restarted engine).
#[test]
fn an_engine_panic_keeps_the_session() {
    let dir = scratch("engine-panic");
    let script = write(
        &dir,
        "self.rhai",
        "let kept = 41;\nlet m = #{};\nm.f = |x| m;\ntry { print(m.to_json()); } catch (e) { print(`caught: ${e}`); }\nprint(`kept ${kept + 1}`);\n",
    );
    let out = codeact(&dir, &["exec", "--device", "sim", &script.to_string_lossy()]);
    let printed = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{printed}\n{}", stderr(&out));
    assert!(printed.contains("caught: to_json") && printed.contains("kept 42"), "{printed}");
    assert!(!stderr(&out).contains("restarted"), "{}", stderr(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A collector or a provider that redirects elsewhere gets nothing followed: the
/// key and the spans (or the prompt) never reach the other host.
#[test]
fn no_key_follows_a_redirect() {
    let elsewhere = Loopback::start(None);
    let redirector = Loopback::start(Some(format!("http://{}", elsewhere.addr)));
    let dir = scratch("redirects");
    let script = write(&dir, "tap.rhai", "tap(10, 10);\n");
    let otlp = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "--device", "sim", "--otlp", &format!("http://{}", redirector.addr)])
        .arg(&script)
        .env("OTEL_EXPORTER_OTLP_HEADERS", "api_key=collector-key-0123456789")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_HEADERS")
        .current_dir(&dir)
        .output()
        .expect("codeact exec --otlp");
    assert_eq!(otlp.status.code(), Some(0), "{}", stderr(&otlp));
    assert!(stderr(&otlp).contains("not sent"), "the failed export is reported: {}", stderr(&otlp));
    assert!(!stderr(&otlp).contains("collector-key-0123456789"), "{}", stderr(&otlp));

    let llm = crate::agent_run::run_against(
        &format!("http://{}/v1", redirector.addr),
        "sim",
        &dir,
        &["--vision", "off"],
        "Turn off Wi-Fi",
        &[],
    );
    assert_eq!(llm.status.code(), Some(2), "{}", stderr(&llm));
    let said = format!("{}{}", stdout(&llm), stderr(&llm));
    assert!(said.contains("answered with a redirect"), "the error says what happened: {said}");
    assert!(elsewhere.got().is_empty(), "the other host got {:?}", elsewhere.got());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A server on loopback that answers every request with `307` to `to` (when
/// given) or records it (when not): the requests it got, with their headers.
struct Loopback {
    addr: std::net::SocketAddr,
    got: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    _thread: std::thread::JoinHandle<()>,
}

impl Loopback {
    fn start(redirect_to: Option<String>) -> Self {
        use axum::http::{HeaderMap, StatusCode, Uri, header};
        use axum::response::IntoResponse;
        let got: std::sync::Arc<std::sync::Mutex<Vec<String>>> = Default::default();
        let seen = got.clone();
        let app = axum::Router::new().fallback(move |uri: Uri, headers: HeaderMap| {
            let redirect_to = redirect_to.clone();
            let seen = seen.clone();
            async move {
                match redirect_to {
                    Some(to) => {
                        (StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, format!("{to}{uri}"))]).into_response()
                    }
                    None => {
                        let mut line = uri.to_string();
                        for (k, v) in &headers {
                            line.push_str(&format!(" {k}={}", v.to_str().unwrap_or("")));
                        }
                        seen.lock().unwrap_or_else(|e| e.into_inner()).push(line);
                        StatusCode::OK.into_response()
                    }
                }
            }
        });
        let (addr, thread) = crate::common::llm::serve(app);
        Self { addr, got, _thread: thread }
    }

    fn got(&self) -> Vec<String> {
        self.got.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}
