//! `--strategy tree` end to end with a scripted server: a three-level tree (a
//! branch whose child branches) does a task across two apps; a failed sub-goal
//! makes its parent split again, and the new split succeeds; a model that always
//! splits is held by the depth and step limits and the run ends clearly; sub-goals
//! given as one plain call run unasked, in one step; the reviewer judges nodes
//! (success, partial, failure) and its reflection on a failure is read in the next
//! run; the report draws the tree and the exported script keeps it. Judged by
//! `simctl state`, the node events, the summary and the files.

use crate::agent_run::{events, json_file, run, run_dir, scratch, stderr};
use crate::common::llm::{ScriptedLlm, reply};
use crate::common::{self, sim_state as state};

fn code(thought: &str, code: &str) -> crate::common::llm::Canned {
    reply(&format!("Thought: {thought}\n```rhai\n{code}\n```"))
}

fn split(goals: &[&str]) -> crate::common::llm::Canned {
    let items: Vec<String> = goals.iter().map(|g| format!("{{\"goal\": \"{g}\", \"expect\": \"{g} done\"}}")).collect();
    reply(&format!("Thought: this needs stages.\n{{\"subgoals\": [{}]}}", items.join(", ")))
}

/// A first split whose one sub-goal gives up, then a second split that works.
fn fails_then_splits_again() -> Vec<crate::common::llm::Canned> {
    vec![
        split(&["Open the Wi-Fi app"]),
        code("There is none.", "complete(false, \"there is no Wi-Fi app\");"),
        split(&["Open Settings and turn off Wi-Fi"]),
        code(
            "Settings has it.",
            "start_app(\"com.android.settings\");\ntap(#{id: \"wifi_switch\"});\ncomplete(true, \"Wi-Fi is off\");",
        ),
    ]
}

/// `codeact run` with the tree flags, `extra` and a memory database, expected to succeed.
fn run_remembering(
    llm: &ScriptedLlm,
    device: &str,
    name: &str,
    memory: &std::path::Path,
    task: &str,
    extra: &[&str],
) -> std::path::PathBuf {
    let out = scratch(name);
    let mut flags: Vec<&str> = EXTRA.to_vec();
    flags.extend(["--memory", memory.to_str().unwrap_or_default()]);
    flags.extend(extra);
    let result = run(llm, device, &out, &flags, task);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    out
}

const EXTRA: [&str; 8] =
    ["--strategy", "tree", "--persona", "big_agent", "--vision", "off", "--verify-completion", "off"];

/// The node events of the run in `out`: (path, state).
fn nodes(out: &std::path::Path) -> Vec<(String, String)> {
    events(&run_dir(out))
        .into_iter()
        .filter(|e| e["event"] == "node")
        .map(|e| (e["path"].as_str().unwrap_or("").to_string(), e["state"].as_str().unwrap_or("").to_string()))
        .collect()
}

#[test]
fn a_three_level_tree_does_a_task_across_two_apps() {
    let sim = common::SimProcess::start(&[]);
    let llm = ScriptedLlm::start(vec![
        split(&["Turn off Wi-Fi in Settings", "Add a note titled Wifi off"]),
        split(&["Open Settings", "Tap the Wi-Fi switch"]),
        code("Open it.", "start_app(\"com.android.settings\");\ncomplete(true, \"Settings is open\");"),
        code("The switch is there.", "tap(#{id: \"wifi_switch\"});\ncomplete(true, \"Wi-Fi is off\");"),
        code(
            "Notes.",
            "start_app(\"com.example.notes\");\ntap(#{id: \"add_note\"});\nset_text(#{id: \"note_title\"}, \"Wifi off\");\n\
             tap(#{id: \"save_note\"});\nwait_for(#{text: \"Wifi off\"}, 3000);\ncomplete(true, \"noted\");",
        ),
    ]);
    let out = scratch("tree-three-levels");
    let result = run(&llm, &sim.addr, &out, &EXTRA, "Turn off Wi-Fi and note it in Notes");
    let said = stderr(&result);
    assert_eq!(result.status.code(), Some(0), "{said}");
    assert!(said.contains("split into: 1. Turn off Wi-Fi in Settings") && !said.contains("asked again"), "{said}");
    let phone = state(&sim.addr);
    assert_eq!(phone["settings"]["wifi"], false, "{phone}");
    assert!(phone.to_string().contains("Wifi off"), "the note: {phone}");
    let seen = nodes(&out);
    let done: Vec<&str> = seen.iter().filter(|(_, s)| s == "done").map(|(p, _)| p.as_str()).collect();
    assert_eq!(done, ["1.1.1", "1.1.2", "1.1", "1.2", "1"], "{seen:?}");
    let branched: Vec<&str> = seen.iter().filter(|(_, s)| s == "branch").map(|(p, _)| p.as_str()).collect();
    assert_eq!(branched, ["1", "1.1"]);
    // The deepest node may not split: its prompt says so.
    let third = crate::common::llm::last_user_text(&llm.requests()[2]);
    assert!(third.contains("node 1.1.1") && third.contains("cannot be split further"), "{third}");
    let summary = json_file(&run_dir(&out).join("summary.json"));
    assert_eq!(summary["strategy"], "tree");
    assert_eq!(summary["steps"], 5);
    // Seen as a tree: the report draws every node, the script keeps a section per node.
    let report = std::fs::read_to_string(run_dir(&out).join("report.html")).unwrap_or_default();
    for path in ["1", "1.1", "1.1.1", "1.1.2", "1.2"] {
        assert!(report.contains(&format!("data-node=\"{path}\"")), "node {path} in the report");
    }
    let script = std::fs::read_to_string(run_dir(&out).join("script.rhai")).unwrap_or_default();
    let sections: Vec<&str> = script.lines().filter(|l| l.starts_with("// ── node")).collect();
    assert_eq!(
        sections,
        [
            "// ── node 1 Turn off Wi-Fi and note it in Notes",
            "// ── node 1.1 Turn off Wi-Fi in Settings",
            "// ── node 1.1.1 Open Settings",
            "// ── node 1.1.2 Tap the Wi-Fi switch",
            "// ── node 1.2 Add a note titled Wifi off"
        ],
        "{script}"
    );
}

#[test]
fn sub_goals_given_as_one_call_run_unasked_together_in_one_step() {
    let sim = common::SimProcess::start(&[]);
    let split = "Thought: go home, open Settings, then the switch.\n{\"subgoals\": [\
        {\"goal\": \"Go home\", \"do\": \"home()\"}, \
        {\"goal\": \"Open Settings\", \"do\": \"open_app(\\\"Settings\\\")\"}, \
        {\"goal\": \"Turn off Wi-Fi\", \"expect\": \"Wi-Fi off\", \"do\": \"tap(\\\"Wi-Fi\\\")\"}]}";
    let llm = ScriptedLlm::start(vec![
        reply(split),
        code("The switch.", "tap(#{id: \"wifi_switch\"});\ncomplete(true, \"Wi-Fi is off\");"),
    ]);
    let out = scratch("tree-fire-and-forget");
    let result = run(&llm, &sim.addr, &out, &EXTRA, "Turn off Wi-Fi");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert_eq!(state(&sim.addr)["settings"]["wifi"], false);
    assert_eq!(llm.requests().len(), 2, "the split and the one sub-goal that is not a plain call");
    let all = events(&run_dir(&out));
    let fired: Vec<&serde_json::Value> =
        all.iter().filter(|e| e["event"] == "node" && e["detail"] == "run without a model call").collect();
    assert_eq!(fired.len(), 2, "{all:?}");
    // One step ran both, without a look or a model call; the tap was the model's.
    let code_of = |step: u64| all.iter().find(|e| e["event"] == "code" && e["step"] == step).map(|e| e["code"].clone());
    assert_eq!(code_of(2), Some("home();\nopen_app(\"Settings\");".into()), "step 1 split the goal");
    let asked_in_2 = all.iter().any(|e| (e["event"] == "llm_request" || e["event"] == "observation") && e["step"] == 2);
    assert!(!asked_in_2, "{all:?}");
    assert_eq!(json_file(&run_dir(&out).join("summary.json"))["steps"], 3);
    let script = std::fs::read_to_string(run_dir(&out).join("script.rhai")).unwrap_or_default();
    assert!(script.contains("// ── node 1.1 + 1.2 Go home; Open Settings\n"), "{script}");
}

#[test]
fn the_reviewer_judges_each_node_and_its_reflection_on_a_failure_is_read_in_the_next_run() {
    let memory = scratch("tree-review-db").join("memory.sqlite");
    let sim = common::SimProcess::start(&[]);
    let reviewer = "Reflection: the agent claimed success without tapping the switch; tap #{id: wifi_switch}.";
    let llm = ScriptedLlm::per_model(vec![
        (
            "scripted",
            vec![
                split(&["Open Settings", "Turn off Wi-Fi"]),
                code("Open it.", "start_app(\"com.android.settings\");\ncomplete(true, \"Settings is open\");"),
                code("Surely off.", "complete(true, \"Wi-Fi is off\");"),
                split(&["Turn off Wi-Fi"]),
                code("Now really.", "tap(#{id: \"wifi_switch\"});\ncomplete(true, \"Wi-Fi is off\");"),
            ],
        ),
        (
            "reviewer",
            vec![
                reply("SUCCESS\nSettings is open."),
                reply("FAILURE\nThe Wi-Fi switch is still on."),
                reply(reviewer),
                reply("PARTIAL: the switch is off, the page was not checked."),
            ],
        ),
    ]);
    // Not the sub-goal's words: the run's own experience is kept under its task.
    let reviewed = ["--reflector-model", "reviewer"];
    let out = run_remembering(&llm, &sim.addr, "tree-review-1", &memory, "Disable Wi-Fi please", &reviewed);
    assert_eq!(state(&sim.addr)["settings"]["wifi"], false);
    let ended: Vec<(String, String)> = nodes(&out).into_iter().filter(|(_, s)| s != "start" && s != "branch").collect();
    let expected = [("1.1", "done"), ("1.2", "failed"), ("1.3", "partial"), ("1", "done")];
    assert_eq!(ended, expected.map(|(p, s)| (p.to_string(), s.to_string())), "children numbered on across re-splits");
    assert_eq!(llm.requests_for("reviewer").len(), 4, "three judgements and one reflection");
    let resplit = crate::common::llm::last_user_text(&llm.requests_for("scripted")[3]);
    assert!(resplit.contains(reviewer), "the parent splits again knowing the reflection: {resplit}");
    let judged = crate::common::llm::last_user_text(&llm.requests_for("reviewer")[1]);
    assert!(judged.contains("Stage goal: Turn off Wi-Fi") && judged.contains("The screen now:"), "{judged}");
    let report = std::fs::read_to_string(run_dir(&out).join("report.html")).unwrap_or_default();
    assert!(report.contains("the reviewer judged it done in part"), "the partial verdict in the report");

    // The next run at the same goal reads the reviewer's reflection; the partial
    // node was not kept as a way to replay.
    let sim = common::SimProcess::start(&[]);
    let llm = ScriptedLlm::start(vec![
        split(&["Turn off Wi-Fi"]),
        code(
            "Tap it this time.",
            "start_app(\"com.android.settings\");\ntap(#{id: \"wifi_switch\"});\ncomplete(true, \"off\");",
        ),
    ]);
    let out = run_remembering(&llm, &sim.addr, "tree-review-2", &memory, "Switch Wi-Fi off", &[]);
    let prompt = crate::common::llm::last_user_text(&llm.requests()[1]);
    assert!(prompt.contains("Earlier: this goal failed once: the reviewer judged it not done"), "{prompt}");
    assert!(prompt.contains(reviewer), "the reviewer's reflection: {prompt}");
    assert!(!nodes(&out).iter().any(|(_, s)| s == "replayed"));
}

#[test]
fn a_failed_sub_goal_makes_its_parent_split_again() {
    let sim = common::SimProcess::start(&[]);
    let llm = ScriptedLlm::start(fails_then_splits_again());
    let out = scratch("tree-resplit");
    let result = run(&llm, &sim.addr, &out, &EXTRA, "Turn off Wi-Fi");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert_eq!(state(&sim.addr)["settings"]["wifi"], false);
    let seen = nodes(&out);
    assert!(seen.contains(&("1.1".into(), "failed".into())), "{seen:?}");
    assert_eq!(seen.iter().filter(|(p, s)| p == "1" && s == "branch").count(), 2, "{seen:?}");
    // The second split was asked with what happened to the first.
    let resplit = crate::common::llm::last_user_text(&llm.requests()[2]);
    assert!(resplit.contains("failed (the model gave up: there is no Wi-Fi app)"), "{resplit}");
}

#[test]
fn a_model_that_always_splits_is_held_by_the_depth_and_step_limits() {
    let sim = common::SimProcess::start(&[]);
    let llm = ScriptedLlm::start(vec![split(&["Go deeper", "And deeper"])]);
    let out = scratch("tree-always-splits");
    let mut extra = EXTRA.to_vec();
    extra.extend(["--max-steps", "12", "--tree-depth", "3"]);
    let result = run(&llm, &sim.addr, &out, &extra, "Turn off Wi-Fi");
    assert_eq!(result.status.code(), Some(1), "a failure, not a hang or a crash: {}", stderr(&result));
    let summary = json_file(&run_dir(&out).join("summary.json"));
    assert!(summary["steps"].as_u64().unwrap() <= 12, "{summary}");
    let deepest = nodes(&out).iter().map(|(p, _)| p.split('.').count()).max().unwrap_or(0);
    assert_eq!(deepest, 3, "no node below --tree-depth");
    assert!(llm.requests().len() <= 12);
}

#[test]
fn a_sub_goal_learned_in_one_task_is_replayed_in_another_and_a_failure_note_is_read_back() {
    let memory = scratch("tree-memory-db").join("memory.sqlite");
    let first = common::SimProcess::start(&[]);
    let llm = ScriptedLlm::start(fails_then_splits_again());
    run_remembering(&llm, &first.addr, "tree-memory-1", &memory, "Turn off Wi-Fi", &[]);

    // Another task on a fresh phone: the learned sub-goal replays with no model call,
    // and the goal that failed before shows its note.
    let second = common::SimProcess::start(&[]);
    let llm = ScriptedLlm::start(vec![
        split(&["Open Settings and turn off Wi-Fi", "Open the Wi-Fi app"]),
        code("It failed before; Settings did it.", "complete(true, \"Wi-Fi is handled in Settings\");"),
    ]);
    let out = run_remembering(&llm, &second.addr, "tree-memory-2", &memory, "Turn off Wi-Fi, the way that works", &[]);
    assert_eq!(state(&second.addr)["settings"]["wifi"], false, "the replayed node turned it off");
    assert_eq!(llm.requests().len(), 2, "the root's split and the second sub-goal only");
    let seen = nodes(&out);
    assert!(seen.contains(&("1.1".into(), "replayed".into())), "{seen:?}");
    let prompt = crate::common::llm::last_user_text(&llm.requests()[1]);
    assert!(prompt.contains("this goal failed once") && prompt.contains("there is no Wi-Fi app"), "{prompt}");
}
