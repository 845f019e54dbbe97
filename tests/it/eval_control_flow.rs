//! The control-flow category of the built-in suite: at least 16 templates, and a seed
//! that changes how many targets a bulk or filter template has, so no fixed sequence
//! of taps solves one (the oracle's action count differs between instances). Not the
//! suite's soundness on every platform (`eval_suite.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;

#[test]
fn control_flow_templates_vary_their_targets_with_the_seed() {
    let templates = codeact::eval::load(None).unwrap_or_default();
    let flow: Vec<&str> =
        templates.iter().filter(|t| t.category.as_deref() == Some("control_flow")).map(|t| t.id.as_str()).collect();
    assert!(flow.len() >= 16, "{flow:?}");
    let bulk = "flow_notes_delete_mentioning,flow_alarms_delete_off,flow_contacts_text_domain,\
                flow_expenses_delete_over,flow_shop_under_limit_to_cart,flow_music_like_shorter,flow_alarm_ensure";
    let out = tempfile::tempdir().expect("a temp dir");
    let run = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["eval", "--agent", "oracle", "--instances", "4", "--tasks", bulk, "--out"])
        .arg(out.path().join("eval"))
        .env_remove("CODEACT_CONFIG")
        .output()
        .expect("run codeact eval");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let text = std::fs::read_to_string(out.path().join("eval/results.json")).expect("results.json");
    let results: Value = serde_json::from_str(&text).expect("JSON");
    let mut actions: BTreeMap<String, BTreeSet<u64>> = BTreeMap::new();
    for r in results["results"].as_array().into_iter().flatten() {
        assert_eq!(r["score"], 1.0, "{}: {}", r["task"], r["error"]);
        actions
            .entry(r["task"].as_str().unwrap_or_default().to_string())
            .or_default()
            .insert(r["actions"].as_u64().unwrap_or(0));
    }
    assert_eq!(actions.len(), bulk.split(',').count(), "{actions:?}");
    for (task, counts) in &actions {
        assert!(counts.len() > 1, "{task}: every instance took {counts:?} actions: the seed does not vary its targets");
    }
}
