//! report.html end to end: a `codeact run` through the scripted LLM writes one in its
//! run directory, with a card per step, the screenshot seen and what the model
//! wrote escaped; a real headless Chromium renders it (its DOM has every step, its
//! screenshot shows the cards and images); a 100-step run stays within 20 MB;
//! `codeact exec` with several scripts and `codeact eval` link each run's report (the
//! eval's JUnit cases too, with their steps).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::agent_run::{run, run_dir, scratch, stderr};
use crate::common::llm::{ScriptedLlm, reply};

/// Chromium headless as this machine allows it: no sandbox (root), no network.
pub(crate) fn chromium(args: &[&str], profile: &Path) -> std::process::Output {
    Command::new(crate::common::programs::chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .output()
        .expect("run chromium")
}

/// The distinct colours of a PNG (a blank or unstyled page has few).
fn colours(png: &Path) -> usize {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png).expect("the screenshot")));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().unwrap_or(0)];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let step = info.color_type.samples();
    let mut seen = std::collections::HashSet::new();
    for px in buf[..info.buffer_size()].chunks(step) {
        seen.insert(px.to_vec());
    }
    seen.len()
}

fn tap_step(n: usize) -> crate::common::llm::Canned {
    reply(&format!(
        "Thought: step {n}: I flip Wi-Fi <b>bold</b> <script>alert(1)</script>.\n```rhai\ntap(#{{id: \"wifi_switch\"}});\n```"
    ))
}

#[test]
fn a_run_writes_a_report_chromium_renders_with_every_step() {
    let out = scratch("report");
    let llm = ScriptedLlm::start(vec![
        reply("Thought: Settings first.\n```rhai\nstart_app(\"com.android.settings\");\n```"),
        tap_step(2),
        reply("Thought: done.\n```rhai\ncomplete(true, \"flipped\");\n```"),
    ]);
    let extra = ["--persona", "big_agent", "--vision", "off", "--no-memory"];
    let result = run(&llm, "sim", &out, &extra, "Flip Wi-Fi");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let dir = run_dir(&out);
    let page = std::fs::read_to_string(dir.join("report.html")).expect("report.html in the run directory");
    assert!(String::from_utf8_lossy(&result.stdout).contains("report: "), "the run says where its report is");
    let summary = crate::agent_run::json_file(&dir.join("summary.json"));
    assert_eq!(summary["report"].as_str(), dir.join("report.html").to_str(), "summary.json names it");
    assert_eq!(page.matches("<article class=\"step\"").count(), 3);
    assert_eq!(page.matches("src=\"data:image/jpeg;base64,").count(), 3, "each step's screen, embedded");
    assert!(page.contains("class=\"mark\""), "the tap is marked on the screen it hit");
    assert!(
        !page.contains("<script") && page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the model's text is escaped"
    );
    assert!(page.contains("codeact exec ") && page.contains("script.selectors.rhai"), "the replay command");
    assert!(!page.contains("http://") && !page.contains("https://"), "nothing is fetched: it works offline");

    let profile = out.join("chromium-profile");
    let url = format!("file://{}", dir.join("report.html").display());
    let dom = chromium(&["--dump-dom", &url], &profile);
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert_eq!(dom.matches("data-step=").count(), 3, "{dom}");
    let shot = out.join("report.png");
    let taken = chromium(&[&format!("--screenshot={}", shot.display()), "--window-size=1200,1400", &url], &profile);
    assert!(shot.is_file(), "{}", String::from_utf8_lossy(&taken.stderr));
    assert!(colours(&shot) > 200, "the page shows cards and screenshots, not a blank page");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_hundred_step_report_stays_under_twenty_megabytes() {
    let out = scratch("report-100");
    let mut replies = vec![reply("Thought: Settings first.\n```rhai\nstart_app(\"com.android.settings\");\n```")];
    replies.extend((2..=100).map(tap_step));
    replies.push(reply("Thought: done.\n```rhai\ncomplete(true, \"flipped\");\n```"));
    let llm = ScriptedLlm::start(replies);
    let extra =
        ["--persona", "big_agent", "--vision", "off", "--no-memory", "--max-steps", "100", "--error-threshold", "0"];
    let result = run(&llm, "sim", &out, &extra, "Flip Wi-Fi a hundred times");
    let dir = run_dir(&out);
    let size = std::fs::metadata(dir.join("report.html")).map(|m| m.len()).unwrap_or(0);
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap_or_default();
    assert_eq!(page.matches("<article class=\"step\"").count(), 100, "{}", stderr(&result));
    assert!(size > 0 && size < 20 * 1024 * 1024, "{size} bytes");
    println!("a 100-step report: {size} bytes");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn exec_and_eval_reports_link_each_run() {
    let out: PathBuf = scratch("report-index");
    let runs = out.join("scripts");
    let exec = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "scripts/turn_off_wifi.rhai", "scripts/add_note.rhai", "--device", "sim", "--trajectory"])
        .arg(&runs)
        .arg("--junit")
        .arg(out.join("junit.xml"))
        .output()
        .expect("codeact exec");
    assert!(exec.status.success(), "{}", String::from_utf8_lossy(&exec.stderr));
    let index = std::fs::read_to_string(runs.join("report.html")).expect("an index of the scripts");
    assert!(index.contains("2 passed, 0 failed, 0 errors</span>"), "the totals: {index}");
    assert!(index.contains("id=\"v-FAIL\"") && index.contains("class=\"bar\""), "filters and a time chart: {index}");
    for name in ["turn_off_wifi", "add_note"] {
        assert!(index.contains(&format!("href=\"./{name}/report.html\"")), "{index}");
        assert!(runs.join(name).join("report.html").is_file());
    }
    let junit = std::fs::read_to_string(out.join("junit.xml")).unwrap_or_default();
    assert_eq!(junit.matches("<property name=\"report\"").count(), 2, "each case links its report: {junit}");
    let eval_out = out.join("eval");
    let eval = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["eval", "--agent", "oracle", "--tasks", "settings_wifi_*", "--out"])
        .arg(&eval_out)
        .output()
        .expect("codeact eval");
    assert!(eval.status.success(), "{}", String::from_utf8_lossy(&eval.stderr));
    let index = std::fs::read_to_string(eval_out.join("report.html")).expect("the eval's report");
    let links = index.matches("/report.html\"").count();
    assert_eq!(links, 3, "every instance is linked: {index}");
    // Its JUnit cases link their reports and list what each step did.
    let junit = std::fs::read_to_string(eval_out.join("junit.xml")).expect("the eval's junit.xml");
    assert_eq!(junit.matches("<property name=\"report\"").count(), 3, "{junit}");
    assert_eq!(junit.matches("<system-out>").count(), 3, "{junit}");
    assert_eq!(junit.matches("\nstep 1").count(), 3, "a step per oracle script: {junit}");
    assert!(junit.contains("\n  start_app(&quot;com.android.settings&quot;) -&gt; ok"), "its actions: {junit}");
    let _ = std::fs::remove_dir_all(&out);
}

/// A 15-action script's report: a card per action with the screen after it (the
/// tap marked), a chart of their times, a playback of the 15 screens; each screen
/// is in the page once, linked from the run folder, within the stated budget;
/// Chromium renders it.
#[test]
fn an_exec_report_has_a_card_and_a_screen_per_action() {
    let out = scratch("report-exec");
    std::fs::create_dir_all(&out).expect("dir");
    let script = out.join("fifteen.rhai");
    let mut code = String::from("start_app(\"com.android.settings\");\n");
    for k in 0..14 {
        let id = if k % 2 == 0 { "wifi_switch" } else { "bluetooth_switch" };
        code.push_str(&format!("tap(#{{id: \"{id}\"}});\n"));
    }
    std::fs::write(&script, code).expect("script");
    let runs = out.join("run");
    let exec = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", script.to_str().expect("p"), "--device", "sim", "--trajectory"])
        .arg(&runs)
        .output()
        .expect("codeact exec");
    assert!(exec.status.success(), "{}", String::from_utf8_lossy(&exec.stderr));
    let page_path = runs.join("report.html");
    let page = std::fs::read_to_string(&page_path).expect("report.html");
    assert_eq!(page.matches("data-action=").count(), 15, "a card per action");
    // The run folder's own screenshots, linked: nothing re-encoded after the run.
    assert_eq!(page.matches("background-image:url(\"./screenshots/").count(), 15, "each screen once");
    assert_eq!(page.matches("<div class=\"frame f").count(), 30, "each screen in its card and in the playback");
    assert!(page.contains("aria-label=\"the screen after action 15\""), "{page}");
    assert!(page.contains("class=\"mark\""), "the taps are marked");
    assert!(page.contains("@keyframes codeact-play") && !page.contains("<script"), "a playback without script");
    let size = page.len();
    assert!(size < 15 * script_view_budget(), "{size} bytes for 15 screens");
    println!("a 15-action exec report: {size} bytes");

    let profile = out.join("chromium-profile");
    let url = format!("file://{}", page_path.display());
    let dom = chromium(&["--dump-dom", &url], &profile);
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert_eq!(dom.matches("data-action=").count(), 15, "{dom}");
    let shot = out.join("report.png");
    let taken = chromium(&[&format!("--screenshot={}", shot.display()), "--window-size=1200,2400", &url], &profile);
    assert!(shot.is_file(), "{}", String::from_utf8_lossy(&taken.stderr));
    assert!(colours(&shot) > 200, "the cards show their screens, not blank frames");
    let _ = std::fs::remove_dir_all(&out);
}

/// The budget the book states for an exec report: 2 KB of page a screen (the
/// screens themselves are the run folder's).
fn script_view_budget() -> usize {
    2 * 1024
}
