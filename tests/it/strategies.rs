//! The strategies and roles end to end, with a scripted server that answers each
//! role from its own list (the planner, actor and reflector are given different
//! model names): a plan with a replan after a failing item, an app-level plan that
//! carries a phone number from Contacts into Messages, and reflections that reach
//! the actor's later prompts. Judged by `simctl state`, the events and the prompts.

use crate::agent_run::{events, json_file, run, run_dir, scratch, shell, stderr};
use crate::common::llm::{ScriptedLlm, last_user_text, reply};
use crate::common::{self, sim_state as state};

fn code(thought: &str, code: &str) -> crate::common::llm::Canned {
    reply(&format!("Thought: {thought}\n```rhai\n{code}\n```"))
}

const ROLES: [&str; 4] = ["--planner-model", "planner", "--reflector-model", "reflector"];

#[test]
fn a_failing_plan_item_makes_the_planner_plan_again() {
    let sim = common::SimProcess::start(&[]);
    let llm = ScriptedLlm::per_model(vec![
        (
            "planner",
            vec![
                reply(
                    "{\"steps\": [{\"goal\": \"Open the Wi-Fi app\", \"expect\": \"a Wi-Fi app\"}, {\"goal\": \"Turn Wi-Fi off\"}]}",
                ),
                reply(
                    "```json\n{\"steps\": [{\"goal\": \"Open Settings\", \"expect\": \"the Settings list\"}, \
                       {\"goal\": \"Turn off Wi-Fi\", \"expect\": \"the Wi-Fi switch off\"}]}\n```",
                ),
            ],
        ),
        (
            "scripted",
            vec![
                code("There is no Wi-Fi app.", "complete(false, \"there is no Wi-Fi app on this phone\");"),
                code("Settings has it.", "start_app(\"com.android.settings\");\ncomplete(true, \"Settings is open\");"),
                code("The switch is there.", "tap(#{id: \"wifi_switch\"});\ncomplete(true, \"Wi-Fi is off\");"),
            ],
        ),
        ("reflector", vec![reply("Progress is fine.")]),
    ]);
    let out = scratch("plan");
    let extra = ["--strategy", "plan", "--persona", "big_agent", "--vision", "off", "--verify-completion", "off"];
    let extra: Vec<&str> = extra.iter().chain(ROLES.iter()).copied().collect();
    let result = run(&llm, &sim.addr, &out, &extra, "Turn off Wi-Fi");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert_eq!(state(&sim.addr)["settings"]["wifi"], false);

    let planner = llm.requests_for("planner");
    assert_eq!(planner.len(), 2, "one plan, one replan");
    let replan = last_user_text(&planner[1]);
    assert!(replan.contains("Open the Wi-Fi app: failed") && replan.contains("there is no Wi-Fi app"), "{replan}");
    assert!(replan.contains("Current screen"), "the planner sees the screen: {replan}");
    let actor = llm.requests_for("scripted");
    assert_eq!(actor.len(), 3);
    let third = last_user_text(&actor[2]);
    assert!(third.contains("1. [done] Open Settings") && third.contains("2. [NOW] Turn off Wi-Fi"), "{third}");

    let dir = run_dir(&out);
    let plans: Vec<_> = events(&dir).into_iter().filter(|e| e["event"] == "plan").collect();
    assert_eq!((plans.len(), plans[1]["replan"].as_u64()), (2, Some(1)));
    let summary = json_file(&dir.join("summary.json"));
    assert_eq!(summary["strategy"], "plan");
    assert_eq!(summary["roles"]["planner"]["calls"], 2);
    assert_eq!(summary["roles"]["planner"]["model"], "planner");
    assert_eq!(summary["roles"]["actor"]["calls"], 3);
    let roles = &summary["roles"];
    let sum: u64 =
        ["actor", "planner", "reflector"].iter().filter_map(|r| roles[r]["tokens"]["total_tokens"].as_u64()).sum();
    assert_eq!(summary["tokens"]["total_tokens"].as_u64(), Some(sum), "the summary counts every role");

    // The replay goes on past the completions that ended plan items.
    shell(&sim.addr, "simctl reset");
    let replay = std::process::Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", dir.join("script.selectors.rhai").to_str().unwrap_or_default(), "--device", &sim.addr])
        .output()
        .expect("codeact exec");
    assert!(replay.status.success(), "{}", String::from_utf8_lossy(&replay.stderr));
    assert_eq!(state(&sim.addr)["settings"]["wifi"], false, "the replay reaches the same state");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn an_app_level_plan_carries_a_phone_number_from_contacts_into_messages() {
    let sim = common::SimProcess::start(&[]);
    let plan = "{\"apps\": [\
        {\"app\": \"Contacts\", \"goal\": \"find Alice Johnson's phone number\", \"carry\": [\"phone\"]}, \
        {\"app\": \"Messages\", \"goal\": \"send the number in phone to Bob Smith\"}]}";
    let llm = ScriptedLlm::per_model(vec![
        ("planner", vec![reply(plan)]),
        (
            "scripted",
            vec![
                code("I open Contacts.", "start_app(\"com.android.contacts\");\ncomplete(true, \"Contacts is open\");"),
                code(
                    "I look Alice up and keep her number.",
                    "set_text(#{id: \"search_view\"}, \"Alice Johnson\");\n\
                     tap(#{id: \"contact_row\", has: #{text: \"Alice Johnson\"}});\nrefresh();\n\
                     let phone = ui_state.filter(|e| e.text.starts_with(\"+\"))[0].text;\n\
                     complete(true, `found ${phone}`);",
                ),
                code(
                    "I open Messages.",
                    "start_app(\"com.google.android.apps.messaging\");\ncomplete(true, \"Messages is open\");",
                ),
                code(
                    "I send the number to Bob.",
                    "tap(#{desc: \"Start chat\"});\ninput_text(\"Bob Smith\");\n\
                     tap(#{id: \"contact_picker_row\", has: #{text: \"Bob Smith\"}});\n\
                     set_text(#{id: \"compose_message_text\"}, phone);\ntap(#{desc: \"Send SMS\"});\n\
                     complete(true, \"sent\");",
                ),
            ],
        ),
        ("reflector", vec![reply("On track.")]),
    ]);
    let out = scratch("hierarchical");
    let extra = ["--strategy", "hierarchical", "--vision", "off", "--verify-completion", "off"];
    let extra: Vec<&str> = extra.iter().chain(ROLES.iter()).copied().collect();
    let result = run(&llm, &sim.addr, &out, &extra, "Send Bob Smith the phone number of Alice Johnson");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let sent = state(&sim.addr)["messages"].as_array().cloned().unwrap_or_default();
    assert!(
        sent.iter().any(|m| m["to"] == "Bob Smith" && m["text"] == "+1 415-555-0102"),
        "Bob got Alice's number: {sent:?}"
    );
    let actor = llm.requests_for("scripted");
    assert_eq!(actor.len(), 4, "an opener and an actor per app");
    let system = |r: &serde_json::Value| r["messages"][0]["content"].as_str().unwrap_or("").to_string();
    assert!(system(&actor[0]).contains("Your only job is to open the app"), "app_starter opens");
    assert!(system(&actor[1]).contains("You are a UI expert"), "ui_expert acts");
    let messages_task = actor[3]["messages"][1]["content"].as_str().unwrap_or("").to_string();
    assert!(messages_task.contains("phone = ") && messages_task.contains("415-555-0102"), "{messages_task}");
    let phases: Vec<_> = events(&run_dir(&out)).into_iter().filter(|e| e["event"] == "phase").collect();
    let personas: Vec<&str> = phases.iter().filter_map(|p| p["persona"].as_str()).collect();
    assert_eq!(personas, ["app_starter", "ui_expert", "app_starter", "ui_expert"]);
    let _ = std::fs::remove_dir_all(&out);

    // A sub-agent is held to its own tools, though the sandbox has both sets.
    let llm = ScriptedLlm::per_model(vec![
        ("planner", vec![reply(plan)]),
        ("scripted", vec![code("I tap.", "tap(#{text: \"Contacts\"});"), code("", "complete(false, \"stuck\");")]),
    ]);
    let out = scratch("hierarchical-tools");
    let extra = ["--strategy", "hierarchical", "--vision", "off", "--planner-model", "planner"];
    let result = run(&llm, &sim.addr, &out, &extra, "Send Bob Smith the phone number of Alice Johnson");
    assert_ne!(result.status.code(), Some(0));
    let told = last_user_text(&llm.requests_for("scripted")[1]);
    assert!(told.contains("tap is not one of the app_starter sub-agent's tools"), "{told}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn reflections_come_after_failed_steps_and_every_n_actions_and_reach_the_actor() {
    let sim = common::SimProcess::start(&[]);
    let llm = ScriptedLlm::per_model(vec![
        (
            "scripted",
            vec![
                code("I tap Wi-Fi.", "tap(\"Wi-Fi switch that is not here\");"),
                code("Settings first.", "start_app(\"com.android.settings\");"),
                code(
                    "Now the switch.",
                    "tap(#{id: \"wifi_switch\"});\nwait_for(#{id: \"wifi_switch\", checked: false});",
                ),
                code("Done.", "complete(true, \"Wi-Fi is off\");"),
            ],
        ),
        (
            "reflector",
            vec![
                reply("The first tap failed: Wi-Fi is in Settings, open it first."),
                reply("```rhai\ntap(1);\n```\nSettings is open; tap the Wi-Fi switch next."),
            ],
        ),
    ]);
    let out = scratch("reflect");
    let extra = ["--persona", "big_agent", "--vision", "off", "--reflect-every", "2", "--reflector-model", "reflector"];
    let result = run(&llm, &sim.addr, &out, &extra, "Turn off Wi-Fi");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let reflector = llm.requests_for("reflector");
    // After the failed step 1, and after steps 2 and 3 (two actions).
    assert_eq!(reflector.len(), 2, "{}", stderr(&result));
    assert!(last_user_text(&reflector[0]).contains("nothing on screen matches"), "the reflector reads the failure");
    let actor = llm.requests_for("scripted");
    let second = last_user_text(&actor[1]);
    assert!(second.contains("A reviewer's notes") && second.contains("open it first"), "{second}");
    let fourth = last_user_text(&actor[3]);
    assert!(fourth.contains("tap the Wi-Fi switch next") && !fourth.contains("tap(1)"), "{fourth}");
    let summary = json_file(&run_dir(&out).join("summary.json"));
    assert_eq!(
        (summary["roles"]["reflector"]["calls"].as_u64(), summary["strategy"].as_str()),
        (Some(2), Some("react"))
    );
    let _ = std::fs::remove_dir_all(&out);
}
