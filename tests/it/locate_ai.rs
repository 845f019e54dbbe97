//! Locating by description through a scripted vision endpoint on loopback (real
//! HTTP through async-openai): the point is used, kept for the screen (a second
//! question costs no request), recorded, and an agent's run replays without the
//! model; hostile answers (outside the screen, not JSON, 10 MB) and a missing or
//! forbidden locator are clear errors.

use std::path::Path;
use std::process::{Command, Output};

use crate::agent_run::{run_dir, scratch};
use crate::common;
use common::llm::{Canned, ScriptedLlm, last_user_text, reply};

/// The Notes icon on the launcher (810..1080 × 420..714 of 1080 × 2400), on the grid.
const NOTES_ICON: &str = r#"{"x": 875, "y": 210, "confidence": 0.9}"#;

fn exec(script: &Path, device: &str, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", script.to_str().unwrap_or_default(), "--device", device, "--keep-state"])
        .args(extra)
        .env_remove("OPENAI_BASE_URL")
        .env_remove("OPENAI_API_KEY")
        .env_remove("CODEACT_MODEL")
        .env_remove("CODEACT_CONFIG")
        .output()
        .expect("codeact exec")
}

fn said(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn a_described_element_is_located_once_per_screen_and_tapped() {
    let sim = common::SimProcess::start(&[]);
    let llm = ScriptedLlm::start(vec![reply(&format!("Sure:\n```json\n{NOTES_ICON}\n```"))]);
    let dir = scratch("locate-ai");
    let script = dir.join("ai.rhai");
    std::fs::write(
        &script,
        "let e = locate(\"the notes app icon\");\nprint(`at ${e.center} on ${e.under.text} sure ${e.confidence} cached ${e.cached}`);\n\
         let again = find(#{ai: \"the notes app icon\"});\nprint(`again ${again.center}`);\n\
         tap(#{ai: \"the notes app icon\"});\nwait_for(#{desc: \"New note\"});\n",
    )
    .expect("script");
    let out = exec(&script, &sim.addr, &["--base-url", &llm.base_url, "--model", "vision"]);
    let text = said(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("at [944, 504] on Notes sure 0.9 cached false"), "{text}");
    assert!(text.contains("again [944, 504]"), "{text}");
    assert!(
        text.contains(
            "found by the model vision (\"the notes app icon\") at (944, 504), sure 0.90, on TextView \"Notes\""
        ),
        "{text}"
    );
    assert!(text.contains("opened com.example.notes"), "{text}");
    // One question for three lookups on the same screen.
    let asked = llm.requests();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(last_user_text(&asked[0]).contains("\"the notes app icon\""));
    let image = &asked[0]["messages"][0]["content"][1]["image_url"]["url"];
    assert!(image.as_str().is_some_and(|u| u.starts_with("data:image/png;base64,")), "the screenshot goes with it");
    // A chain answered by the tree asks nothing.
    let chain = dir.join("chain.rhai");
    std::fs::write(&chain, "press_key(\"home\");\ntap(#{text: \"Notes\", ai: \"the notes app icon\"});\n")
        .expect("script");
    let out = exec(&chain, &sim.addr, &["--base-url", &llm.base_url, "--model", "vision"]);
    assert!(out.status.success() && said(&out).contains("found by the tree: TextView \"Notes\""), "{}", said(&out));
    assert_eq!(llm.requests().len(), 1, "the tree answered first");
}

#[test]
fn hostile_or_missing_locators_are_clear_errors() {
    let sim = common::SimProcess::start(&[]);
    let dir = scratch("locate-hostile");
    let script = dir.join("tap.rhai");
    std::fs::write(&script, "tap(#{ai: \"the notes app icon\"});\n").expect("script");
    let huge = format!("{{\"x\": \"{}\"}}", "9".repeat(10 * 1024 * 1024));
    for (answer, says) in [
        (reply(r#"{"x": 1500, "y": 20}"#), "outside the screen (1500, 20 on the 0–1000 grid)"),
        (reply("It is the yellow icon near the top."), "is not the JSON asked for"),
        (reply(&huge), "cannot be used"),
        (reply(r#"{"found": false}"#), "the model says \"the notes app icon\" is not on the screen"),
        (Canned::Status(500, "overloaded".into()), "the locator model failed"),
    ] {
        let llm = ScriptedLlm::start(vec![answer]);
        let out = exec(
            &script,
            &sim.addr,
            &["--base-url", &llm.base_url, "--model", "vision", "--limit", "timeout_ms=20000"],
        );
        let text = said(&out);
        assert!(!out.status.success(), "{says}: {}", &text[..text.len().min(2000)]);
        assert!(text.contains(says), "{says}: {}", &text[..text.len().min(2000)]);
        assert!(text.len() < 20_000, "a 10 MB answer is not echoed: {} bytes", text.len());
    }
    // No model anywhere: how to give one.
    let out = exec(&script, &sim.addr, &[]);
    assert!(
        said(&out).contains("no model to locate by description: give a vision model with --base-url"),
        "{}",
        said(&out)
    );
    // A persona without `locate` does not let selectors ask it.
    let persona = dir.join("no_locate.toml");
    std::fs::write(
        &persona,
        "name = \"no_locate\"\ndescription = \"taps only\"\ntools = [\"tap\", \"complete\"]\ncontext = [\"ui_state\"]\nprompt = \"{tool_descriptions}\"\n",
    )
    .expect("persona");
    let llm = ScriptedLlm::start(vec![reply(NOTES_ICON)]);
    let out = exec(
        &script,
        &sim.addr,
        &["--base-url", &llm.base_url, "--model", "vision", "--persona", persona.to_str().unwrap_or_default()],
    );
    assert!(said(&out).contains("this persona does not let the model locate by description"), "{}", said(&out));
    assert!(llm.requests().is_empty());
}

#[test]
fn an_agents_described_tap_replays_without_the_model() {
    let sim = common::SimProcess::start(&[]);
    let out = scratch("locate-agent");
    let llm = ScriptedLlm::per_model(vec![
        (
            "scripted",
            vec![reply(
                "Open Notes by its icon.\n```rhai\ntap(#{ai: \"the notes app icon\"});\nwait_for(#{desc: \"New note\"});\ncomplete(true, \"Notes is open\");\n```",
            )],
        ),
        ("vision", vec![reply(NOTES_ICON)]),
    ]);
    let ran = crate::agent_run::run(&llm, &sim.addr, &out, &["--locator-model", "vision"], "Open Notes");
    assert!(ran.status.success(), "{}", crate::agent_run::stderr(&ran));
    assert_eq!(llm.requests_for("vision").len(), 1);
    let dir = run_dir(&out);
    let events = std::fs::read_to_string(dir.join("events.jsonl")).expect("events");
    assert!(
        events.contains("\"located\":{\"replay\":\"#{text: \\\"Notes\\\"}\",\"way\":\"model\"}"),
        "recorded: {events}"
    );
    let replay = std::fs::read_to_string(dir.join("script.selectors.rhai")).expect("selectors script");
    assert!(replay.contains("tap(#{text: \"Notes\"});") && !replay.contains("ai:"), "{replay}");
    crate::agent_run::shell(&sim.addr, "input keyevent KEYCODE_HOME");
    let again = exec(&dir.join("script.selectors.rhai"), &sim.addr, &[]);
    assert!(again.status.success(), "replayed with no model configured: {}", said(&again));
}
