//! Fuzz targets for what the runtime reads from scripts, models and files: snippets
//! in the sandbox worker, code extraction from replies, selectors, remembered
//! preconditions, memory exports, report links, and the shell input the gate reads.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::pages::sim_dumps;
use crate::*;

pub(crate) fn fuzz_snippet(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
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
    let mut session = match codeact::session::Session::open_on(device, &settings) {
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

pub(crate) fn fuzz_extract(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
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

pub(crate) fn fuzz_selector(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
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

pub(crate) fn fuzz_precondition(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
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

pub(crate) fn fuzz_memory_import(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
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

pub(crate) fn fuzz_report_links(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
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

pub(crate) fn fuzz_shell_input(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
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
