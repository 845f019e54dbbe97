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
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

mod adb;
mod apk;
mod doors;
mod pages;
mod runtime;

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
            "dump" => pages::fuzz_dump(&mut rng, budget, seeds_dir.as_deref(), &findings),
            "snippet" => runtime::fuzz_snippet(&mut rng, budget, &findings),
            "adb-client" => adb::fuzz_adb_client(&mut rng, budget, &findings),
            "adb-sim" => adb::fuzz_adb_sim(&mut rng, budget, &findings),
            "selector" => runtime::fuzz_selector(&mut rng, budget, &findings),
            "precondition" => runtime::fuzz_precondition(&mut rng, budget, &findings),
            "memory-import" => runtime::fuzz_memory_import(&mut rng, budget, &findings),
            "report-links" => runtime::fuzz_report_links(&mut rng, budget, &findings),
            "shell-input" => runtime::fuzz_shell_input(&mut rng, budget, &findings),
            "uitest-layout" => pages::fuzz_uitest_layout(&mut rng, budget, &findings),
            "wda-source" => pages::fuzz_wda_source(&mut rng, budget, &findings),
            "hdc-client" => doors::fuzz_hdc_client(&mut rng, budget, &findings),
            "hdc-sim" => doors::fuzz_hdc_sim(&mut rng, budget, &findings),
            "apk-manifest" => apk::fuzz_manifest(&mut rng, budget, &findings),
            "apk-zip" => apk::fuzz_zip(&mut rng, budget, &findings),
            _ => runtime::fuzz_extract(&mut rng, budget, &findings),
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
