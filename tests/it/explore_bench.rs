//! The exploration benchmark and the random explorer end to end: `codeact eval
//! --explore` runs random and systematic exploration on real apps of the virtual
//! phone at two budgets with crashes planted, the table and bench.json add up,
//! systematic is ahead of random on activities and crashes; the llm explorer joins
//! the table with a scripted model on loopback; `codeact explore --strategy random`
//! is the same walk for the same seed and another for another; a plan that tries to
//! smuggle a shell command in is refused.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::llm::{ScriptedLlm, reply};

fn codeact(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(args)
        .env_remove("CODEACT_CONFIG")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("CODEACT_MODEL")
        .output()
        .expect("run codeact")
}

fn said(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn bench(out: &Path) -> Value {
    let text = std::fs::read_to_string(out.join("bench.json")).expect("bench.json");
    serde_json::from_str(&text).expect("bench.json is JSON")
}

fn total<'a>(bench: &'a Value, budget: u64, strategy: &str) -> &'a Value {
    bench["totals"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["budget"] == budget && t["strategy"] == strategy))
        .unwrap_or_else(|| panic!("no totals for {strategy} at {budget}: {bench}"))
}

#[test]
fn systematic_exploration_is_ahead_of_random_at_both_budgets() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("bench");
    let ran = codeact(&[
        "eval",
        "--explore",
        "--apps",
        "notes,shop,maps",
        "--budgets",
        "60,150",
        "--parallel",
        "2",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(ran.status.code(), Some(0), "{}", said(&ran));
    let stdout = String::from_utf8_lossy(&ran.stdout);
    assert!(stdout.contains("| budget | strategy | apps | activities |"), "{stdout}");
    assert!(std::fs::read_to_string(dir.join("bench.md")).unwrap().contains("| com.codeact.maps | 150 | systematic |"));
    let b = bench(&dir);
    let rows = b["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 3 * 2 * 2, "three apps, two explorers, two budgets");
    for r in rows {
        assert!(r["error"].is_null(), "{r}");
        assert!(r["planted"].as_u64().unwrap() >= 1, "{r}");
        // Within the budget (a form filled before a tap is several actions at once).
        assert!(r["actions"].as_u64().unwrap() <= r["budget"].as_u64().unwrap() + 10, "{r}");
        assert!(Path::new(r["dir"].as_str().unwrap()).join("events.jsonl").is_file(), "{r}");
        for c in r["crashes"].as_array().unwrap() {
            assert!(c["at_action"].as_u64().unwrap() <= r["actions"].as_u64().unwrap(), "{r}");
        }
    }
    for budget in [60, 150] {
        let (random, systematic) = (total(&b, budget, "random"), total(&b, budget, "systematic"));
        let n = |t: &Value, k: &str| t[k].as_u64().unwrap();
        assert!(n(systematic, "activities") > n(random, "activities"), "{budget}: {systematic} / {random}");
        assert!(n(systematic, "crashes_found") > n(random, "crashes_found"), "{budget}: {systematic} / {random}");
        assert_eq!(n(systematic, "crashes_planted"), 6, "two in each of notes, shop and maps");
    }
    // A second run into the same folder is refused and loses nothing.
    let again = codeact(&["eval", "--explore", "--apps", "maps", "--budgets", "5", "--out", dir.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(2), "{}", said(&again));
    assert_eq!(bench(&dir)["rows"].as_array().unwrap().len(), 12);
}

#[test]
fn the_llm_explorer_joins_the_table_with_a_scripted_model() {
    let llm = ScriptedLlm::start(vec![
        reply("TASK: Add a note titled Milk"),
        reply(
            "I add it.\n```rhai\ntap(#{id: \"add_note\"});\nset_text(#{id: \"note_title\"}, \"Milk\");\n\
             tap(#{id: \"save_note\"});\ncomplete(true, \"added\");\n```",
        ),
        reply("DONE: the list and the editor are covered"),
    ]);
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("bench");
    let ran = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["eval", "--explore", "--apps", "com.example.notes", "--budgets", "40"])
        .args(["--explorers", "random,systematic,llm", "--parallel", "1", "--out", dir.to_str().unwrap()])
        .args(["--base-url", &llm.base_url, "--model", "scripted"])
        .env("OPENAI_API_KEY", "sk-codeact-bench-test")
        .env("XDG_DATA_HOME", out.path().join(".data"))
        .env_remove("CODEACT_CONFIG")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("CODEACT_MODEL")
        .output()
        .expect("run codeact");
    assert_eq!(ran.status.code(), Some(0), "{}", said(&ran));
    let b = bench(&dir);
    let llm_row = b["rows"].as_array().unwrap().iter().find(|r| r["strategy"] == "llm").expect("an llm row");
    assert!(llm_row["activities"].as_u64().unwrap() >= 2, "the list and the editor: {llm_row}");
    assert!(!said(&ran).contains("sk-codeact-bench-test"), "the key is never printed");
    let model_less = codeact(&[
        "eval",
        "--explore",
        "--explorers",
        "llm",
        "--apps",
        "notes",
        "--out",
        out.path().join("none").to_str().unwrap(),
    ]);
    assert_eq!(model_less.status.code(), Some(2), "{}", said(&model_less));
    assert!(said(&model_less).contains("model"), "says a model is needed: {}", said(&model_less));
}

/// The events of a random exploration, as the actions it sent.
fn random_actions(seed: &str, out: &Path) -> Vec<String> {
    let ran = codeact(&[
        "explore",
        "--app",
        "com.codeact.shop",
        "-d",
        "sim",
        "--strategy",
        "random",
        "--seed",
        seed,
        "--budget",
        "40",
        "--no-screenshots",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    let summary: Value = serde_json::from_slice(&ran.stdout).unwrap_or_else(|e| panic!("{e}: {}", said(&ran)));
    assert_eq!(summary["strategy"], "random");
    assert!(summary["actions"].as_u64().unwrap() >= 40, "{summary}");
    let events = std::fs::read_to_string(Path::new(summary["dir"].as_str().unwrap()).join("events.jsonl")).unwrap();
    events
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event"] == "action")
        .map(|e| format!("{} {}", e["tool"], e["args"]))
        .collect()
}

#[test]
fn the_random_explorer_repeats_itself_for_a_seed_and_not_for_another() {
    let out = tempfile::tempdir().unwrap();
    let first = random_actions("7", out.path());
    assert_eq!(first, random_actions("7", out.path()), "the same seed, the same events");
    assert_ne!(first, random_actions("8", out.path()), "another seed, other events");
    assert!(first.iter().any(|a| a.starts_with("\"tap\"")) && first.iter().any(|a| a.starts_with("\"swipe\"")));
}

#[test]
fn a_plan_that_is_not_words_is_refused_before_a_phone_starts() {
    let out = tempfile::tempdir().unwrap();
    let plan = out.path().join("plan.toml");
    std::fs::write(&plan, "[[app]]\npackage = \"com.example.notes\"\ncrashes = [\"x; simctl reset\"]\n").unwrap();
    let ran = codeact(&[
        "eval",
        "--explore",
        "--plan",
        plan.to_str().unwrap(),
        "--out",
        out.path().join("b").to_str().unwrap(),
    ]);
    assert_eq!(ran.status.code(), Some(2), "{}", said(&ran));
    assert!(said(&ran).contains("is not a resource id"), "{}", said(&ran));
    let none =
        codeact(&["eval", "--explore", "--apps", "nothing-like-it", "--out", out.path().join("c").to_str().unwrap()]);
    assert!(said(&none).contains("the plan's apps are: com.example.notes"), "{}", said(&none));
}
