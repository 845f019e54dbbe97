//! Fuzzing on the stable toolchain: mutates seed inputs and feeds them, for a bounded
//! time, to the parts that read untrusted bytes. A finding is a panic (any thread),
//! which the run counts, prints and saves; it ends with executions per target.
//!
//! ```text
//! cargo run --release --example fuzz -- all --seconds 600
//! cargo run --release --example fuzz -- dump --seconds 60 --seeds path/to/dumps/
//! ```
//!
//! Targets: `dump` (the UI dump parser), `snippet` (compile + run in a session's
//! sandbox worker, every limit on, tools on the virtual phone), `adb-client` (our ADB
//! client, direct and through a server, against a loopback peer that answers fuzzed
//! bytes), `adb-sim` (the virtual phone's ADB server, fed fuzzed requests), `extract`
//! (code extraction from model replies), `selector` (selectors built from maps, as
//! a script hands them to a tool, compiled and matched on a real screen: each must
//! end within a bound), `precondition` (a remembered step's precondition, read as
//! a literal), `memory-import` (the lines of a memory export file), `report-links`
//! (run folders and links made from hostile file names: a link never leaves its
//! folder nor becomes another scheme), `shell-input` (the input a shell command
//! injects, as the sensitive-action gate reads it), `uitest-layout` (HarmonyOS's
//! `uitest dumpLayout` JSON parser), `wda-source` (the parser of WebDriverAgent's iOS
//! page source), `hdc-client` and `hdc-sim` (HarmonyOS's wire, in `doors.rs`),
//! `apk-manifest` and `apk-zip` (APK reading: binary manifests and whole archives,
//! in `apk.rs`).
//! Without coverage feedback it is
//! a plain mutation fuzzer: inputs whose outcome is new join the corpus.

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use codeact::device::adb::transport::{Deadline, DirectConnection, ServerConnection};

mod apk;
mod doors;

static PANICS: AtomicU64 = AtomicU64::new(0);

const TARGETS: &[&str] = &[
    "dump",
    "snippet",
    "adb-client",
    "adb-sim",
    "extract",
    "selector",
    "precondition",
    "memory-import",
    "report-links",
    "shell-input",
    "uitest-layout",
    "wda-source",
    "hdc-client",
    "hdc-sim",
    "apk-manifest",
    "apk-zip",
];

fn main() {
    if let Some(code) = codeact::isolation::serve_if_worker() {
        std::process::exit(code);
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let target = args.first().cloned().unwrap_or_else(|| "all".into());
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let seconds: u64 = flag("--seconds").and_then(|s| s.parse().ok()).unwrap_or(60);
    let seed: u64 = flag("--seed").and_then(|s| s.parse().ok()).unwrap_or(0x5eed);
    let seeds_dir = flag("--seeds").map(PathBuf::from);
    let findings = std::env::temp_dir().join("codeact-fuzz-findings");
    let targets: Vec<&str> = if target == "all" { TARGETS.to_vec() } else { vec![target.as_str()] };
    if let Some(bad) = targets.iter().find(|t| !TARGETS.contains(t)) {
        eprintln!("unknown target {bad:?}; the targets are all, {}", TARGETS.join(", "));
        std::process::exit(2);
    }
    std::panic::set_hook(Box::new(|info| {
        PANICS.fetch_add(1, Ordering::Relaxed);
        eprintln!("PANIC: {info}");
    }));
    let mut total_panics = 0;
    for name in targets {
        let budget = Duration::from_secs(seconds);
        let before = PANICS.load(Ordering::Relaxed);
        let mut rng = Rng(seed);
        let stats = match name {
            "dump" => fuzz_dump(&mut rng, budget, seeds_dir.as_deref(), &findings),
            "snippet" => fuzz_snippet(&mut rng, budget, &findings),
            "adb-client" => fuzz_adb_client(&mut rng, budget, &findings),
            "adb-sim" => fuzz_adb_sim(&mut rng, budget, &findings),
            "selector" => fuzz_selector(&mut rng, budget, &findings),
            "precondition" => fuzz_precondition(&mut rng, budget, &findings),
            "memory-import" => fuzz_memory_import(&mut rng, budget, &findings),
            "report-links" => fuzz_report_links(&mut rng, budget, &findings),
            "shell-input" => fuzz_shell_input(&mut rng, budget, &findings),
            "uitest-layout" => fuzz_uitest_layout(&mut rng, budget, &findings),
            "wda-source" => fuzz_wda_source(&mut rng, budget, &findings),
            "hdc-client" => doors::fuzz_hdc_client(&mut rng, budget, &findings),
            "hdc-sim" => doors::fuzz_hdc_sim(&mut rng, budget, &findings),
            "apk-manifest" => apk::fuzz_manifest(&mut rng, budget, &findings),
            "apk-zip" => apk::fuzz_zip(&mut rng, budget, &findings),
            _ => fuzz_extract(&mut rng, budget, &findings),
        };
        let panics = PANICS.load(Ordering::Relaxed) - before;
        total_panics += panics;
        println!(
            "{name}: {} executions in {:.0} s ({:.0}/s), corpus {}, panics {panics}{}",
            stats.execs,
            stats.elapsed.as_secs_f64(),
            stats.execs as f64 / stats.elapsed.as_secs_f64().max(0.001),
            stats.corpus,
            stats.note
        );
    }
    std::process::exit(if total_panics == 0 { 0 } else { 1 });
}

struct Stats {
    execs: u64,
    elapsed: Duration,
    corpus: usize,
    note: String,
}

/// splitmix64: enough randomness for mutations, reproducible from `--seed`.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
}

/// One to four random edits of `input`: bit flips, random bytes, deletions,
/// duplications, a splice from another corpus entry, a dictionary token.
fn mutate(rng: &mut Rng, input: &[u8], corpus: &[Vec<u8>], dict: &[&[u8]]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = out.len();
        match rng.below(8) {
            0 if len > 0 => {
                let i = rng.below(len);
                out[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                out[i] = rng.next() as u8;
            }
            2 if len > 0 => {
                let start = rng.below(len);
                let end = (start + 1 + rng.below(16)).min(len);
                out.drain(start..end);
            }
            3 if len > 0 => {
                let start = rng.below(len);
                let end = (start + 1 + rng.below(64)).min(len);
                let chunk = out[start..end].to_vec();
                let at = rng.below(out.len() + 1);
                out.splice(at..at, chunk);
            }
            4 if !corpus.is_empty() => {
                let other = &corpus[rng.below(corpus.len())];
                if !other.is_empty() {
                    let start = rng.below(other.len());
                    let end = (start + 1 + rng.below(256)).min(other.len());
                    let at = rng.below(out.len() + 1);
                    out.splice(at..at, other[start..end].iter().copied());
                }
            }
            5 if !dict.is_empty() => {
                let token = dict[rng.below(dict.len())];
                let at = rng.below(out.len() + 1);
                out.splice(at..at, token.iter().copied());
            }
            6 if len > 0 => out.truncate(rng.below(len)),
            _ => {
                let at = rng.below(out.len() + 1);
                out.insert(at, rng.next() as u8);
            }
        }
    }
    out.truncate(1 << 20);
    out
}

/// The loop every target shares: mutate, run under `catch_unwind`, keep inputs with
/// a new outcome, save the ones that panicked.
fn drive(
    name: &str,
    rng: &mut Rng,
    budget: Duration,
    mut corpus: Vec<Vec<u8>>,
    dict: &[&[u8]],
    findings: &std::path::Path,
    mut run: impl FnMut(&[u8]) -> String,
) -> Stats {
    let started = Instant::now();
    let mut seen: HashSet<String> = HashSet::new();
    let mut execs = 0u64;
    if corpus.is_empty() {
        corpus.push(Vec::new());
    }
    while started.elapsed() < budget {
        let base = corpus[rng.below(corpus.len())].clone();
        let input = mutate(rng, &base, &corpus, dict);
        let before = PANICS.load(Ordering::Relaxed);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&input)));
        execs += 1;
        if outcome.is_err() || PANICS.load(Ordering::Relaxed) != before {
            let _ = std::fs::create_dir_all(findings);
            let file = findings.join(format!("{name}-{execs}.bin"));
            let _ = std::fs::write(&file, &input);
            eprintln!("{name}: a panic; input saved to {}", file.display());
            continue;
        }
        if let Ok(o) = outcome
            && seen.insert(o)
            && corpus.len() < 4096
        {
            corpus.push(input);
        }
    }
    Stats { execs, elapsed: started.elapsed(), corpus: corpus.len(), note: String::new() }
}

fn fuzz_dump(rng: &mut Rng, budget: Duration, seeds: Option<&std::path::Path>, findings: &std::path::Path) -> Stats {
    let mut corpus: Vec<Vec<u8>> = Vec::new();
    if let Some(dir) = seeds {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            if let Ok(bytes) = std::fs::read(entry.path()) {
                corpus.push(bytes);
            }
        }
    }
    corpus.extend(sim_dumps());
    let dict: &[&[u8]] = &[
        b"<node ",
        b"</node>",
        b"bounds=\"[0,0][1080,2400]\" ",
        b"text=\"",
        b"&amp;",
        b"&#x1F600;",
        b"<!DOCTYPE x [<!ENTITY a \"aaaa\">]>",
        b"<![CDATA[",
        b"\"",
        b"checked=\"true\" ",
        b"\xef\xbb\xbf",
        b"\xff\xfe",
        b"[-2147483648,99999999999][",
    ];
    drive("dump", rng, budget, corpus, dict, findings, |input| match codeact::ui::parse(input, (1080, 2400)) {
        Ok(tree) => format!("ok {}", tree.elements.len().min(64)),
        Err(e) => format!("err {}", e.to_string().chars().take(40).collect::<String>()),
    })
}

/// A few screens of the virtual phone, dumped.
fn sim_dumps() -> Vec<Vec<u8>> {
    let Ok(mut device) = codeact::device::open(&codeact::device::DeviceSpec::Sim, Duration::from_secs(10)) else {
        return Vec::new();
    };
    let mut dumps = Vec::new();
    for package in ["", "com.android.settings", "com.android.messaging", "com.android.contacts"] {
        if !package.is_empty() {
            let _ = device.start_app(package, None);
        }
        if let Ok(obs) = device.observe() {
            dumps.push(obs.dump.into_bytes());
        }
    }
    dumps
}

fn fuzz_snippet(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
    use codeact::config::{FileConfig, Flags};
    let hostile = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/hostile");
    let mut corpus: Vec<Vec<u8>> = std::fs::read_dir(&hostile)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read(e.path()).ok())
        .collect();
    corpus.push(b"let a = [3, 1, 2]; a.sort(|x, y| x - y); print(a); tap(0.5, 0.5); find(\"Wi-Fi\");".to_vec());
    corpus.push(b"fn f(n) { if n < 2 { n } else { f(n - 1) + f(n - 2) } } let m = #{a: f(10)}; m.to_json()".to_vec());
    let dict: &[&[u8]] = &[
        b"loop { }",
        b".sort(|a, b| a - b)",
        b".map(|x| x)",
        b"complete(true, \"x\");",
        b"ui_state",
        b"|| ",
        b".curry(",
        b"#{",
        b"[",
        b"\"",
        b"fn f() { f() }",
        b".pad(1000000, \"x\")",
        b"throw ",
        b"try { } catch (e) { }",
        b"sleep(0.01);",
        b"wait_for(\"x\", 10);",
        b"\n",
    ];
    let flags = Flags {
        limits: vec!["timeout_ms=300".into(), "max_operations=100000".into(), "max_memory_mb=256".into()],
        ..Flags::default()
    };
    let Ok(mut settings) = FileConfig::default().resolve(&flags) else {
        return Stats { execs: 0, elapsed: Duration::ZERO, corpus: 0, note: ", settings failed".into() };
    };
    settings.tools.settle.enabled = false;
    let device = match codeact::device::open(&codeact::device::DeviceSpec::Sim, Duration::from_secs(10)) {
        Ok(d) => d,
        Err(e) => return Stats { execs: 0, elapsed: Duration::ZERO, corpus: 0, note: format!(", no sim: {e}") },
    };
    let mut session = match codeact::session::Session::new(device, &settings) {
        Ok(s) => s,
        Err(e) => return Stats { execs: 0, elapsed: Duration::ZERO, corpus: 0, note: format!(", no session: {e}") },
    };
    let deaths = std::cell::Cell::new(0u64);
    let mut stats = drive("snippet", rng, budget, corpus, dict, findings, |input| {
        let code = String::from_utf8_lossy(input);
        let r = session.eval(&code);
        match &r.error {
            Some(e) => {
                if e.message.contains("engine was restarted") {
                    deaths.set(deaths.get() + 1);
                }
                format!("{:?} {}", e.kind, e.message.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            }
            None => format!("ok {}", r.actions.len().min(8)),
        }
    });
    stats.note = format!(", engine restarts (contained) {}", deaths.get());
    stats
}

fn fuzz_extract(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
    let corpus = vec![
        b"Thought: tap it\n```rhai\ntap(1, 2);\n```\nmore".to_vec(),
        b"```\nlet x = 1;\n```\n```rust\nprint(x);\n```".to_vec(),
        b"no code at all".to_vec(),
        b"```rhai\nunterminated".to_vec(),
    ];
    let dict: &[&[u8]] = &[b"```", b"```rhai", b"~~~", b"\n", b"\r\n", b"Thought:", b"`", b"\xe2\x80\xae"];
    drive("extract", rng, budget, corpus, dict, findings, |input| {
        let e = codeact::llm::extract::extract(&String::from_utf8_lossy(input));
        let _ = e.headline();
        format!("{} {}", e.code.is_some(), e.code.map_or(0, |c| c.lines().count().min(16)))
    })
}

/// A loopback peer that answers each connection with the next fuzzed bytes.
struct EvilPeer {
    addr: String,
    reply: Arc<std::sync::Mutex<Vec<u8>>>,
    stop: Arc<AtomicBool>,
}

impl EvilPeer {
    fn start() -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?.to_string();
        let reply = Arc::new(std::sync::Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (r, s) = (reply.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if s.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(mut stream) = stream else { continue };
                let bytes = r.lock().map(|b| b.clone()).unwrap_or_default();
                let _ = stream.set_read_timeout(Some(Duration::from_millis(20)));
                let mut sink = [0u8; 4096];
                let _ = stream.read(&mut sink);
                let _ = stream.write_all(&bytes);
                // Read whatever the client says next, then close.
                let _ = stream.read(&mut sink);
            }
        });
        Ok(Self { addr, reply, stop })
    }
}

impl Drop for EvilPeer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(&self.addr);
    }
}

fn fuzz_adb_client(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
    let Ok(peer) = EvilPeer::start() else {
        return Stats { execs: 0, elapsed: Duration::ZERO, corpus: 0, note: ", no loopback".into() };
    };
    let cnxn = adb_wire::message::encode(
        adb_wire::message::A_CNXN,
        0x0100_0001,
        256 * 1024,
        b"device::ro.product.model=fuzz;features=shell_v2",
    );
    let mut okay = adb_wire::message::encode(adb_wire::message::A_OKAY, 1, 1, b"");
    let mut shell = cnxn.clone();
    shell.extend_from_slice(&okay);
    shell.extend(adb_wire::message::encode(adb_wire::message::A_WRTE, 1, 1, &adb_wire::shell_v2::packet(1, b"hi")));
    okay.clear();
    let corpus = vec![
        cnxn,
        shell,
        b"OKAY0024emulator-5554\tdevice\nabc\tdevice\n".to_vec(),
        b"OKAYOKAYhello".to_vec(),
        b"FAIL0010device not found".to_vec(),
    ];
    let dict: &[&[u8]] =
        &[b"OKAY", b"FAIL", b"CNXN", b"OPEN", b"WRTE", b"CLSE", b"AUTH", b"ffff", b"0000", b"\xff\xff\xff\xff"];
    let reply = peer.reply.clone();
    let addr = peer.addr.clone();
    let mut turn = 0u64;
    drive("adb-client", rng, budget, corpus, dict, findings, |input| {
        if let Ok(mut r) = reply.lock() {
            *r = input.to_vec();
        }
        turn += 1;
        let deadline = || Deadline::after(Duration::from_millis(200));
        match turn % 3 {
            0 => match DirectConnection::connect(&addr, deadline()) {
                Ok(mut c) => {
                    format!("direct {:?}", c.shell("echo hi", deadline()).map(|o| o.stdout.len().min(8)).is_ok())
                }
                Err(e) => {
                    format!("direct err {}", e.to_string().split_whitespace().take(3).collect::<Vec<_>>().join(" "))
                }
            },
            1 => match ServerConnection::list(&addr, deadline()) {
                Ok(list) => format!("list {}", list.len().min(8)),
                Err(e) => {
                    format!("list err {}", e.to_string().split_whitespace().take(3).collect::<Vec<_>>().join(" "))
                }
            },
            _ => match ServerConnection::new(&addr, "emulator-5554").shell("echo hi", deadline()) {
                Ok(o) => format!("shell {}", o.stdout.len().min(8)),
                Err(e) => {
                    format!("shell err {}", e.to_string().split_whitespace().take(3).collect::<Vec<_>>().join(" "))
                }
            },
        }
    })
}

fn fuzz_adb_sim(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
    let sim = match codeact_sim::VirtualDevice::start(codeact_sim::SimConfig::default()) {
        Ok(sim) => sim,
        Err(e) => return Stats { execs: 0, elapsed: Duration::ZERO, corpus: 0, note: format!(", no sim: {e}") },
    };
    let addr = sim.addr();
    use adb_wire::message::{A_CNXN, A_OKAY, A_OPEN, A_WRTE, encode};
    let cnxn = encode(A_CNXN, 0x0100_0001, 256 * 1024, b"host::features=shell_v2");
    let mut open_shell = cnxn.clone();
    open_shell.extend(encode(A_OPEN, 1, 0, b"shell,v2,raw:echo hi\0"));
    let mut sync = cnxn.clone();
    sync.extend(encode(A_OPEN, 2, 0, b"sync:\0"));
    sync.extend(encode(A_WRTE, 2, 1, b"STAT\x0c\0\0\0/sdcard/a.txt"));
    let mut okay = open_shell.clone();
    okay.extend(encode(A_OKAY, 1, 1, b""));
    let corpus = vec![cnxn, open_shell, sync, okay];
    let dict: &[&[u8]] =
        &[b"shell:", b"sync:", b"exec:", b"STAT", b"SEND", b"RECV", b"DATA", b"DONE", b"\0", b"\xff\xff\xff\xff"];
    let mut stats = drive("adb-sim", rng, budget, corpus, dict, findings, |input| {
        let Ok(mut stream) = TcpStream::connect(addr) else { return "no connect".into() };
        let _ = stream.set_read_timeout(Some(Duration::from_millis(30)));
        let _ = stream.set_write_timeout(Some(Duration::from_millis(100)));
        let _ = stream.write_all(input);
        let mut buf = vec![0u8; 64 * 1024];
        let got = stream.read(&mut buf).unwrap_or(0);
        format!("{}", got.min(64) / 8)
    });
    // The server must still serve a real client after all that.
    let alive = DirectConnection::connect(&addr.to_string(), Deadline::after(Duration::from_secs(5)))
        .and_then(|mut c| c.shell("echo alive", Deadline::after(Duration::from_secs(5))));
    stats.note = match alive {
        Ok(o) if o.stdout_text().contains("alive") => ", the sim still answers".into(),
        other => {
            PANICS.fetch_add(1, Ordering::Relaxed);
            format!(", THE SIM STOPPED ANSWERING: {other:?}")
        }
    };
    stats
}

/// How long one selector may take to compile and match on a real screen, at most:
/// past it, the input counts as a finding (the runtime works for a snippet).
const SELECTOR_BOUND: Duration = Duration::from_millis(1500);

/// A Rhai value read from bytes: strings, booleans, integers and maps whose keys
/// are mostly selector keys, nested (maps repeat an earlier value, as a loop that
/// builds a tree does).
fn value_from(bytes: &[u8], at: &mut usize, depth: usize, earlier: &mut Vec<rhai::Dynamic>) -> rhai::Dynamic {
    const KEYS: &[&str] = &[
        "text",
        "text_contains",
        "text_matches",
        "desc",
        "desc_matches",
        "id",
        "id_matches",
        "class",
        "hint",
        "hint_matches",
        "clickable",
        "checked",
        "below",
        "above",
        "left_of",
        "right_of",
        "inside",
        "has",
        "nth",
        "no_scroll",
        "index",
        "app",
        "class_matches",
        "colour",
    ];
    const PATTERNS: &[&str] = &["(a|b|c){40}x", "(\\w{100}){100}", "Wi-.*", "(", ".*.*.*.*=", "[^x]{1000}", "\\d+"];
    fn take(bytes: &[u8], at: &mut usize) -> u8 {
        let b = bytes.get(*at).copied().unwrap_or(0);
        *at += 1;
        b
    }
    let kind = take(bytes, at);
    let value = match kind % 6 {
        _ if depth > 6 || earlier.len() > 64 => rhai::Dynamic::from("x"),
        0 => rhai::Dynamic::from(PATTERNS[take(bytes, at) as usize % PATTERNS.len()].to_string()),
        1 => {
            let len = take(bytes, at) as usize;
            let text: String = (0..len).map(|_| char::from(b'a' + take(bytes, at) % 26)).collect();
            rhai::Dynamic::from(text.repeat(1 + (take(bytes, at) as usize % 4) * 1000))
        }
        2 => rhai::Dynamic::from(take(bytes, at).is_multiple_of(2)),
        3 => rhai::Dynamic::from(i64::from(take(bytes, at)) - 8),
        4 if !earlier.is_empty() => earlier[take(bytes, at) as usize % earlier.len()].clone(),
        _ => {
            let mut map = rhai::Map::new();
            for _ in 0..take(bytes, at) % 6 {
                let key = KEYS[take(bytes, at) as usize % KEYS.len()];
                let v = value_from(bytes, at, depth + 1, earlier);
                map.insert(key.into(), v);
            }
            rhai::Dynamic::from(map)
        }
    };
    earlier.push(value.clone());
    value
}

fn fuzz_selector(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
    let screens: Vec<codeact::ui::UiTree> =
        sim_dumps().iter().filter_map(|d| codeact::ui::parse(d, (1080, 2400)).ok()).collect();
    let Some(screen) = screens.into_iter().max_by_key(|t| t.elements.len()) else {
        return Stats { execs: 0, elapsed: Duration::ZERO, corpus: 0, note: ", no screen".into() };
    };
    let corpus =
        vec![vec![5, 3, 12, 0, 0, 12, 4, 0], vec![5, 4, 2, 1, 3, 5, 2, 14, 4, 0, 13, 4, 1], vec![1, 4, 7, 7, 7, 7]];
    let slowest = std::cell::Cell::new(Duration::ZERO);
    let mut stats = drive("selector", rng, budget, corpus, &[], findings, |input| {
        let mut earlier = Vec::new();
        // Each value is a tree: a loop in a script repeats earlier levels.
        let mut at = 0;
        let mut value = value_from(input, &mut at, 0, &mut earlier);
        // At most 12 levels: the engine's map limit stops a script's tree there.
        let mut levels = 0;
        while at < input.len() && levels < 12 {
            levels += 1;
            let mut map = rhai::Map::new();
            map.insert("below".into(), value.clone());
            map.insert("above".into(), value);
            map.insert("text_matches".into(), value_from(input, &mut at, 0, &mut earlier));
            value = rhai::Dynamic::from(map);
        }
        let started = Instant::now();
        let outcome = match codeact::tools::select::Selector::from_dynamic_until(&value, started + SELECTOR_BOUND) {
            Ok(sel) => format!("ok {}", sel.find_all(&screen).len().min(4)),
            Err(e) => format!("err {}", e.to_string().split_whitespace().take(4).collect::<Vec<_>>().join(" ")),
        };
        let took = started.elapsed();
        slowest.set(slowest.get().max(took));
        assert!(took < SELECTOR_BOUND * 2, "a selector took {took:?}");
        outcome
    });
    stats.note = format!(", slowest {:.1} ms", slowest.get().as_secs_f64() * 1000.0);
    stats
}

fn fuzz_precondition(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
    let corpus = vec![
        b"#{\"id\": \"wifi_switch\"}".to_vec(),
        b"#{text: \"OK\", below: #{desc: \"Navigate up\"}, nth: 1}".to_vec(),
        b"\"Wi-Fi\"".to_vec(),
        b"{ let n = 0; loop { n += 1; } }".to_vec(),
    ];
    let dict: &[&[u8]] = &[
        b"loop {}",
        b"while true {}",
        b"|| ",
        b"#{",
        b"}",
        b"\"",
        b"if true { 1 } else { 2 }",
        b"x.pad(99999999, \"a\")",
        b"[",
        b"fn f() {}",
        b"import \"a\"",
        b"eval(\"1\")",
    ];
    let slowest = std::cell::Cell::new(Duration::ZERO);
    let mut stats = drive("precondition", rng, budget, corpus, dict, findings, |input| {
        let started = Instant::now();
        let outcome = match codeact::tools::select::Selector::from_source(&String::from_utf8_lossy(input)) {
            Ok(_) => "ok".to_string(),
            Err(e) => format!("err {}", e.to_string().split_whitespace().take(3).collect::<Vec<_>>().join(" ")),
        };
        let took = started.elapsed();
        slowest.set(slowest.get().max(took));
        assert!(took < SELECTOR_BOUND, "a precondition took {took:?}");
        outcome
    });
    stats.note = format!(", slowest {:.1} ms", slowest.get().as_secs_f64() * 1000.0);
    stats
}

fn fuzz_memory_import(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
    let good = br##"{"task":"Turn off Wi-Fi","apps":["com.android.settings"],"steps":[{"intent":"flip","code":"tap(#{id: \"wifi_switch\"});","app":"com.android.settings","activity":".Settings","anchor":"#{\"id\": \"wifi_switch\"}"}]}"##;
    let mut two = good.to_vec();
    two.push(b'\n');
    two.extend_from_slice(good);
    let corpus = vec![good.to_vec(), two];
    let dict: &[&[u8]] = &[
        b"\n",
        b"\"anchor\":\"loop {}\"",
        b"\"steps\":[]",
        b"{",
        b"}",
        b"\\u0000",
        b"\"task\":\"\"",
        b"null",
        b"1e999",
    ];
    drive("memory-import", rng, budget, corpus, dict, findings, |input| {
        match codeact::memory::parse_export(&String::from_utf8_lossy(input)) {
            Ok(experiences) => {
                for e in &experiences {
                    assert!(e.check().is_ok(), "an accepted experience must check");
                }
                format!("ok {}", experiences.len().min(4))
            }
            Err(e) => format!("err {}", e.to_string().split_whitespace().take(4).collect::<Vec<_>>().join(" ")),
        }
    })
}

fn fuzz_report_links(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
    let corpus = vec![
        b"javascript:alert(1)<!--".to_vec(),
        b"..".to_vec(),
        b"...".to_vec(),
        b"a\"b#c?d e%41".to_vec(),
        b"x<img src=x onerror=alert(1)>".to_vec(),
        "\u{202e}evil\u{0}".as_bytes().to_vec(),
    ];
    let dict: &[&[u8]] =
        &[b"/", b"\\", b"..", b".", b":", b"%", b"#", b"?", b"\0", b"\n", b"javascript:", b"data:", b"//"];
    drive("report-links", rng, budget, corpus, dict, findings, |input| {
        let name = String::from_utf8_lossy(input);
        let folder = codeact::files::safe_component(&name, "script");
        assert!(
            !folder.is_empty() && folder != "." && folder != ".." && !folder.contains(['/', '\\', '\0']),
            "{folder:?}"
        );
        assert!(folder.len() <= 104, "{} bytes", folder.len());
        let rel = std::path::Path::new(&folder).join("report.html");
        let href = codeact::report::html::relative_href(&rel).expect("a safe folder always links");
        assert!(href.starts_with("./") && !href.contains(':') && !href.contains("/../"), "{href}");
        let decoded = percent_encoding::percent_decode_str(&href[2..]).decode_utf8_lossy().into_owned();
        assert_eq!(std::path::Path::new(&decoded), rel, "the link leads to the folder's report");
        // A raw name never links.
        if let Some(raw) = codeact::report::html::relative_href(std::path::Path::new(&*name)) {
            assert!(raw.starts_with("./") && !raw.contains(':') && !raw.contains('"'), "{raw}");
        }
        format!("{}", folder.len().min(16))
    })
}

fn fuzz_shell_input(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
    let corpus = vec![
        b"input tap 540 1200".to_vec(),
        b"true; timeout 5 /system/bin/input touchscreen -d 0 swipe 1 2 3 4".to_vec(),
        b"sh -c 'su 0 input keyevent 66'".to_vec(),
        b"echo 'input tap 1 2' | sh".to_vec(),
        b"X=1 input text \"a%sb\" 2>&1 > /dev/null".to_vec(),
    ];
    let dict: &[&[u8]] = &[
        b"input ",
        b"tap ",
        b"swipe ",
        b";",
        b"&&",
        b"|",
        b"'",
        b"\"",
        b"\\",
        b"$(",
        b"`",
        b"sh -c ",
        b"su ",
        b"<<",
        b"> /dev/input/event0",
        b"#",
        b"\n",
    ];
    drive(
        "shell-input",
        rng,
        budget,
        corpus,
        dict,
        findings,
        |input| match codeact::tools::shell_input::injected_input(&String::from_utf8_lossy(input)) {
            Ok(found) => format!("ok {}", found.len().min(4)),
            Err(e) => format!("err {}", e.0.split_whitespace().take(3).collect::<Vec<_>>().join(" ")),
        },
    )
}

fn fuzz_uitest_layout(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
    let corpus = vec![
        br#"DumpLayout saved to:/data/local/tmp/l.json
{"attributes":{"bounds":"[0,0][1260,2720]","type":""},"children":[{"attributes":{"bundleName":"com.example","bounds":"[0,123][1260,2720]","type":"root"},"children":[{"attributes":{"bounds":"[1080,250][1212,330]","checkable":"true","checked":"true","id":"wifi_switch","type":"Toggle","text":"WLAN"},"children":[]}]}]}"#
            .to_vec(),
    ];
    let dict: &[&[u8]] = &[
        b"{\"attributes\":{",
        b"\"children\":[",
        b"]}",
        b"\"bounds\":\"[0,0][1,1]\",",
        b"\"type\":\"TextInput\",",
        b"\"checked\":\"true\",",
        b"\\u0000",
        b"\\ud800",
        b"1e999",
        b"[-2147483648,99999999999][",
    ];
    drive("uitest-layout", rng, budget, corpus, dict, findings, |input| {
        match codeact::ui::parse_uitest(input, (1260, 2720)) {
            Ok(tree) => format!("ok {}", tree.elements.len().min(64)),
            Err(e) => format!("err {}", e.to_string().chars().take(40).collect::<String>()),
        }
    })
}

fn fuzz_wda_source(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
    let corpus = vec![
        br#"<?xml version="1.0" encoding="UTF-8"?>
<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Settings" label="Settings" enabled="true" visible="true" x="0" y="0" width="393" height="852" index="0" traits="" bundleId="com.apple.Preferences">
  <XCUIElementTypeCell type="XCUIElementTypeCell" name="Wi-Fi" label="Wi-Fi" enabled="true" visible="true" x="16" y="123" width="361" height="52" index="0" traits="Button, Selected">
    <XCUIElementTypeSwitch type="XCUIElementTypeSwitch" value="1" name="wifi_switch" label="Wi-Fi" enabled="true" visible="true" x="310" y="133" width="51" height="31" index="1" traits="Button"/>
    <XCUIElementTypeTextField type="XCUIElementTypeTextField" value="Name" name="Name" label="" x="1" y="2" width="3" height="4" placeholderValue="Name"/>
  </XCUIElementTypeCell>
</XCUIElementTypeApplication>"#
            .to_vec(),
    ];
    let dict: &[&[u8]] = &[
        b"<XCUIElementTypeOther type=\"XCUIElementTypeOther\" ",
        b"</XCUIElementTypeOther>",
        b"x=\"1e308\" ",
        b"width=\"-inf\" ",
        b"value=\"1\" ",
        b"traits=\"Selected\" ",
        b"&amp;",
        b"&#x1F600;",
        b"<!DOCTYPE x [<!ENTITY a \"aaaa\">]>",
        b"\xef\xbb\xbf",
    ];
    drive("wda-source", rng, budget, corpus, dict, findings, |input| {
        match codeact::ui::parse_xcui(input, 3.0, (1179, 2556)) {
            Ok(tree) => format!("ok {}", tree.elements.len().min(64)),
            Err(e) => format!("err {}", e.to_string().chars().take(40).collect::<String>()),
        }
    })
}
