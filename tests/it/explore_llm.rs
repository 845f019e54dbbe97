//! `codeact explore --strategy llm` end to end: a scripted OpenAI-compatible
//! server on loopback plays the planner, the actor and the reflector (each its
//! own model name, through async-openai's real HTTP path); the cycle runs on the
//! virtual phone — the planner's task done by the agent, what it changed observed,
//! the reviewer's note steering the next plan —, the completed task's test passes
//! `codeact exec` (and on a layout variant fails naming the step), and a second exploration reads back what the first kept in
//! memory (widget knowledge, the task done, the note) and replays the task
//! without asking the actor.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::llm::{ScriptedLlm, calls, reply};
use crate::common::{self, AdbServer};

const ADD_MILK: &str = "TASK: Add a note titled Milk";
const ACTOR_ADDS_MILK: &str = "Thought: the + button opens the editor; I fill the title and save.\n```rhai\n\
     tap(#{id: \"add_note\"});\nset_text(#{id: \"note_title\"}, \"Milk\");\ntap(#{id: \"save_note\"});\n\
     wait_for(#{text: \"Milk\"}, 3000);\ncomplete(true, \"the note Milk is in the list\");\n```";
const NOTE: &str = "The list and the editor are covered; open a saved note to reach its view and edit screens.";

fn explore(llm: &ScriptedLlm, out: &Path, memory: &Path) -> (Output, Value) {
    explore_on("sim", llm, out, memory, &[])
}

fn explore_on(device: &str, llm: &ScriptedLlm, out: &Path, memory: &Path, extra: &[&str]) -> (Output, Value) {
    let ran = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["explore", "--app", "com.example.notes", "--device", device, "--strategy", "llm", "--json"])
        .args(extra)
        .args(["--base-url", &llm.base_url, "--model", "actor-m", "--planner-model", "planner-m"])
        .args(["--reflector-model", "reflector-m", "--reflect-every", "1", "--no-screenshots"])
        .args(["--out", out.to_str().unwrap(), "--memory", memory.to_str().unwrap()])
        .env("OPENAI_API_KEY", "sk-codeact-explore-test")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("CODEACT_MODEL")
        .env_remove("CODEACT_CONFIG")
        .env("XDG_DATA_HOME", out.join(".data"))
        .output()
        .expect("run codeact explore");
    let said = format!("{}{}", String::from_utf8_lossy(&ran.stdout), String::from_utf8_lossy(&ran.stderr));
    let summary: Value = serde_json::from_slice(&ran.stdout).unwrap_or_else(|e| panic!("{e}: {said}"));
    (ran, summary)
}

/// `codeact exec TEST` in the exploration's folder `dir`.
fn exec_in(dir: &Path, test: &str, device: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", test, "--device", device])
        .current_dir(dir)
        .output()
        .expect("run codeact exec")
}

fn user_text(request: &Value) -> String {
    request["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_llm_cycle_plans_acts_observes_reflects_and_a_second_run_starts_from_memory() {
    let out = tempfile::tempdir().unwrap();
    let memory = out.path().join("memory.sqlite");
    let llm = ScriptedLlm::per_model(vec![
        ("planner-m", vec![reply(ADD_MILK), reply("DONE: the notes list and the editor are explored")]),
        ("actor-m", vec![reply(ACTOR_ADDS_MILK)]),
        ("reflector-m", vec![reply(NOTE)]),
    ]);
    let (ran, summary) = explore(&llm, out.path(), &memory);
    let said = String::from_utf8_lossy(&ran.stderr).to_string();
    assert_eq!(ran.status.code(), Some(0), "{said}\n{summary}");
    assert_eq!(summary["strategy"], "llm");
    assert_eq!(summary["stopped"], "nothing_left", "{summary}");
    let tasks = summary["tasks"].as_array().expect("tasks");
    assert_eq!(tasks.len(), 1, "{summary}");
    assert_eq!(tasks[0]["goal"], "Add a note titled Milk");
    assert_eq!(tasks[0]["success"], true, "{summary}");
    // Coverage from what the agent's steps saw and opened.
    let reached = &summary["coverage"]["reached"];
    for activity in ["com.example.notes.NotesListActivity", "com.example.notes.NoteEditorActivity"] {
        assert!(reached.get(activity).is_some(), "{activity}: {summary}");
    }
    assert!(summary["coverage"]["widgets"].as_u64().unwrap() >= 3, "{summary}");

    // The planner saw the user and the activities; the reviewer saw what the task
    // changed; the planner's next request carried the reviewer's note.
    let planner = llm.requests_for("planner-m");
    assert_eq!(planner.len(), 2, "{planner:?}");
    let first = user_text(&planner[0]);
    assert!(first.contains("Tess the tester") && first.contains("Activities not reached yet"), "{first}");
    assert!(first.contains("NoteViewActivity") && first.contains("add_note"), "the screen and the activities: {first}");
    let reviewer = user_text(&llm.requests_for("reflector-m")[0]);
    assert!(reviewer.contains("Add a note titled Milk [done]"), "{reviewer}");
    assert!(reviewer.contains("tap(#{\"id\": \"add_note\"}) → opened .NoteEditorActivity"), "the observer: {reviewer}");
    let second = user_text(&planner[1]);
    assert!(second.contains(NOTE), "the note steers the planner: {second}");
    assert!(second.contains("Add a note titled Milk [done]"), "{second}");

    // The task's test replays without a model, on a fresh phone.
    let dir = Path::new(summary["dir"].as_str().unwrap()).to_path_buf();
    let test = summary["tests"][0]["file"].as_str().expect("a test for the task").to_string();
    let script = std::fs::read_to_string(dir.join(&test)).unwrap();
    assert!(script.contains("start_app(\"com.example.notes\", #{clear: true});"), "{script}");
    let exec = exec_in(&dir, &test, "sim");
    let exec_said = format!("{}{}", String::from_utf8_lossy(&exec.stdout), String::from_utf8_lossy(&exec.stderr));
    assert_eq!(exec.status.code(), Some(0), "{script}\n{exec_said}");
    // On a layout variant (the ids renamed) it fails naming the step that diverged.
    let sim = common::SimProcess::start(&[]);
    let adb = AdbServer::start();
    adb.connect(&sim.addr);
    adb.shell(&sim.addr, "simctl variant 2");
    let variant = exec_in(&dir, &test, &sim.addr);
    let variant_said =
        format!("{}{}", String::from_utf8_lossy(&variant.stdout), String::from_utf8_lossy(&variant.stderr));
    assert_eq!(variant.status.code(), Some(1), "{variant_said}");
    assert!(variant_said.contains("// step 1"), "the failing line names its step: {variant_said}");
    for file in ["events.jsonl", "summary.json", "report.html", "tests/index.md", "graph.json"] {
        assert!(dir.join(file).is_file(), "{file}");
    }
    let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    for kind in ["\"planned\"", "\"task\"", "\"reflection\""] {
        assert!(events.contains(kind), "{kind} in {events}");
    }

    // A second exploration: the planner reads what the first kept, and the same
    // task replays from memory without the actor.
    let again = ScriptedLlm::per_model(vec![
        ("planner-m", vec![reply(ADD_MILK), reply("DONE: nothing new")]),
        ("actor-m", vec![reply("Thought: not expected\n```rhai\ncomplete(false, \"asked\");\n```")]),
        ("reflector-m", vec![reply(NOTE)]),
    ]);
    let (ran, summary) = explore(&again, out.path(), &memory);
    assert_eq!(ran.status.code(), Some(0), "{}\n{summary}", String::from_utf8_lossy(&ran.stderr));
    let first = user_text(&again.requests_for("planner-m")[0]);
    assert!(first.contains("Tasks completed by earlier explorations:\n- Add a note titled Milk"), "{first}");
    assert!(first.contains("tap(#{\"id\": \"add_note\"}) → opened .NoteEditorActivity"), "widget knowledge: {first}");
    assert!(first.contains(NOTE), "the earlier note: {first}");
    assert_eq!(summary["tasks"][0]["success"], true, "{summary}");
    assert!(again.requests_for("actor-m").is_empty(), "replayed from memory, the actor not asked");
}

#[test]
fn a_crash_the_agent_runs_into_is_a_finding_with_a_reproduction() {
    let out = tempfile::tempdir().unwrap();
    let sim = common::SimProcess::start(&[]);
    let adb = AdbServer::start();
    adb.connect(&sim.addr);
    adb.shell(&sim.addr, "simctl fault crash-on com.example.notes add_note");
    let llm = ScriptedLlm::per_model(vec![
        ("planner-m", vec![reply(ADD_MILK), reply("DONE: the app crashes")]),
        ("actor-m", vec![reply(ACTOR_ADDS_MILK)]),
        ("reflector-m", vec![reply(NOTE)]),
    ]);
    let memory = out.path().join("memory.sqlite");
    let (ran, summary) = explore_on(&sim.addr, &llm, out.path(), &memory, &["--task-steps", "2"]);
    assert_eq!(ran.status.code(), Some(1), "a finding: {}\n{summary}", String::from_utf8_lossy(&ran.stderr));
    let finding = &summary["findings"][0];
    assert_eq!(finding["kind"], "crash", "{summary}");
    assert!(finding["title"].as_str().unwrap().contains("keeps stopping"), "{summary}");
    assert_eq!(finding["reproduced"], true, "{summary}");
    assert_eq!(summary["tasks"][0]["success"], false, "{summary}");
    assert!(summary["tests"].as_array().unwrap().is_empty(), "a failed task is no test: {summary}");
    // The reproduction fails while the crash is planted.
    let dir = Path::new(summary["dir"].as_str().unwrap()).to_path_buf();
    let script = finding["script"].as_str().unwrap();
    let text = std::fs::read_to_string(dir.join(script)).unwrap();
    assert!(text.contains("tap(#{\"id\": \"add_note\"}); // step 1"), "{text}");
    assert_eq!(finding["action"], "tap(#{\"id\": \"add_note\"})", "{summary}");
    let replay = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", script, "--device", &sim.addr])
        .current_dir(&dir)
        .output()
        .expect("run codeact exec");
    assert_eq!(replay.status.code(), Some(1), "{text}\n{}", String::from_utf8_lossy(&replay.stderr));
}

#[test]
fn with_actor_tree_each_task_is_a_tree_of_sub_goals_and_its_test_keeps_the_tree() {
    let out = tempfile::tempdir().unwrap();
    let memory = out.path().join("memory.sqlite");
    let split = "Thought: two stages.\n{\"subgoals\": [{\"goal\": \"Open the note editor\", \"expect\": \"the note \
                 editor\"}, {\"goal\": \"Save the note Milk\", \"expect\": \"Milk in the notes list\"}]}";
    let open = "Thought: the + button.\n```rhai\ntap(#{id: \"add_note\"});\nwait_for(#{id: \"note_title\"}, 3000);\n\
                complete(true, \"the editor\");\n```";
    let save = "Thought: fill and save.\n```rhai\nset_text(#{id: \"note_title\"}, \"Milk\");\ntap(#{id: \
                \"save_note\"});\nwait_for(#{text: \"Milk\"}, 3000);\ncomplete(true, \"saved\");\n```";
    let llm = ScriptedLlm::per_model(vec![
        ("planner-m", vec![reply(ADD_MILK), reply("DONE: the notes list and the editor are explored")]),
        ("actor-m", vec![reply(split), reply(open), reply(save)]),
        ("reflector-m", vec![reply(NOTE)]),
    ]);
    let (ran, summary) = explore_on("sim", &llm, out.path(), &memory, &["--actor", "tree"]);
    assert_eq!(ran.status.code(), Some(0), "{}\n{summary}", String::from_utf8_lossy(&ran.stderr));
    let dir = Path::new(summary["dir"].as_str().unwrap()).to_path_buf();
    let task_events: String = std::fs::read_dir(dir.join("tasks"))
        .unwrap()
        .flatten()
        .filter_map(|d| std::fs::read_to_string(d.path().join("events.jsonl")).ok())
        .collect();
    assert_eq!(summary["tasks"][0]["success"], true, "{summary}\n{task_events}");
    assert_eq!(llm.requests_for("actor-m").len(), 3, "the split and one call per sub-goal");
    for done in
        ["\"goal\":\"Open the note editor\",\"path\":\"1.1\",\"state\":\"done\"", "\"path\":\"1.2\",\"state\":\"done\""]
    {
        assert!(task_events.contains(done), "{done} in {task_events}");
    }
    let test = summary["tests"][0]["file"].as_str().expect("a test for the task").to_string();
    let script = std::fs::read_to_string(dir.join(&test)).unwrap();
    assert!(script.contains("// ── node 1.2 Save the note Milk"), "{script}");
    let exec = exec_in(&dir, &test, "sim");
    assert_eq!(exec.status.code(), Some(0), "{script}\n{}", String::from_utf8_lossy(&exec.stderr));
}

/// `--actions json`: the actor acts by function calls; the task's test is code
/// that replays without a model, as with `--actions code`.
#[test]
fn an_actor_that_calls_functions_does_the_task_and_leaves_a_test_in_code() {
    let out = tempfile::tempdir().unwrap();
    let memory = out.path().join("memory.sqlite");
    let llm = ScriptedLlm::per_model(vec![
        ("planner-m", vec![reply(ADD_MILK), reply("DONE: the notes list and the editor are explored")]),
        (
            "actor-m",
            vec![calls(&[
                ("tap", r#"{"sel": {"id": "add_note"}}"#),
                ("set_text", r#"{"sel": {"id": "note_title"}, "text": "Milk"}"#),
                ("tap", r#"{"sel": {"id": "save_note"}}"#),
                ("wait_for", r#"{"sel": {"text": "Milk"}, "timeout_ms": 3000}"#),
                ("complete", r#"{"success": true, "reason": "the note Milk is in the list"}"#),
            ])],
        ),
        ("reflector-m", vec![reply(NOTE)]),
    ]);
    let (ran, summary) = explore_on("sim", &llm, out.path(), &memory, &["--actions", "json"]);
    assert_eq!(ran.status.code(), Some(0), "{}\n{summary}", String::from_utf8_lossy(&ran.stderr));
    assert_eq!(summary["tasks"][0]["success"], true, "{summary}");
    let actor = llm.requests_for("actor-m");
    assert!(actor.iter().all(|r| r["tools"].is_array()), "the actor is offered functions");
    assert!(llm.requests_for("planner-m").iter().all(|r| r.get("tools").is_none()), "the planner answers in words");
    let dir = Path::new(summary["dir"].as_str().unwrap()).to_path_buf();
    let test = summary["tests"][0]["file"].as_str().expect("a test for the task").to_string();
    let exec = exec_in(&dir, &test, "sim");
    assert_eq!(exec.status.code(), Some(0), "{}", String::from_utf8_lossy(&exec.stderr));
}
