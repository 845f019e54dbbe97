//! Memory end to end: a successful run is kept in the SQLite store and the next run
//! of the same task replays it without the model; a step that no longer fits (another
//! app in front, an id renamed by a layout variant) goes to the model alone, and the
//! healed run is kept; two runs at once share the store.

use crate::agent_run::{events, json_file, run, run_dir, scratch, shell, stderr};
use crate::common::llm::{ScriptedLlm, last_user_text, reply};
use crate::common::{self, sim_state as state};

fn code(thought: &str, code: &str) -> crate::common::llm::Canned {
    reply(&format!("Thought: {thought}\n```rhai\n{code}\n```"))
}

/// The README's memory example with a step that opens the app and taps in it: its
/// precondition is the screen it started on (none to find: it opens the app first),
/// so after a reset the replay does it again, with no model and nothing diverging.
#[test]
fn a_step_that_opens_an_app_and_acts_in_it_replays_after_a_reset() {
    let sim = common::SimProcess::start(&[]);
    let out = scratch("memory-open-and-tap");
    let memory = out.join("memory.sqlite");
    let memory = memory.to_str().unwrap_or_default();
    let replies = || {
        vec![code(
            "Open Settings and switch Wi-Fi off.",
            "start_app(\"com.android.settings\");\ntap(#{id: \"wifi_switch\"});\n\
             wait_for(#{id: \"wifi_switch\", checked: false});\ncomplete(true, \"Wi-Fi is off\");",
        )]
    };
    let first = ScriptedLlm::per_model(vec![("scripted", replies())]);
    let extra = ["--vision", "off", "--memory", memory];
    let result = run(&first, &sim.addr, &out, &extra, "Turn off Wi-Fi");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    shell(&sim.addr, "simctl reset");
    let second = ScriptedLlm::per_model(vec![("scripted", vec![code("Done.", "complete(true, \"done\");")])]);
    let result = run(&second, &sim.addr, &out, &extra, "Turn off Wi-Fi");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert_eq!(second.requests().len(), 0, "the replay asks the model nothing: {}", stderr(&result));
    assert_eq!(state(&sim.addr)["settings"]["wifi"], false, "judged on the phone");
    let kinds: Vec<String> =
        events(&run_dir(&out)).iter().filter_map(|e| e["event"].as_str().map(str::to_string)).collect();
    assert!(!kinds.contains(&"diverged".to_string()), "{kinds:?}");
}

/// The README's memory example, where the replay meets a layout whose ids were
/// renamed: a heal that completes without switching Wi-Fi off fails the run (exit 1)
/// and is kept aside unverified, the experience staying as it was; a heal that does
/// switch it off is kept, and one that ends elsewhere is kept when the run's own
/// reviewer judges it did the task. Judged on the phone's state.
#[test]
fn a_heal_is_kept_only_when_it_does_what_the_remembered_run_did() {
    let sim = common::SimProcess::start(&[]);
    let out = scratch("memory-verified-heal");
    let memory = out.join("memory.sqlite");
    let memory = memory.to_str().unwrap_or_default();
    let extra = ["--vision", "off", "--memory", memory];
    let first = ScriptedLlm::per_model(vec![(
        "scripted",
        vec![code(
            "Open Settings and switch Wi-Fi off.",
            "start_app(\"com.android.settings\");\ntap(#{id: \"wifi_switch\"});\n\
             wait_for(#{id: \"wifi_switch\", checked: false});\ncomplete(true, \"Wi-Fi is off\");",
        )],
    )]);
    let result = run(&first, &sim.addr, &out, &extra, "Turn off Wi-Fi");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let memory_cli = |args: &[&str]| {
        let ran = std::process::Command::new(env!("CARGO_BIN_EXE_codeact"))
            .args(["memory"])
            .args(args)
            .args(["--memory", memory])
            .output()
            .expect("codeact memory");
        (ran.status.code(), String::from_utf8_lossy(&ran.stdout).into_owned(), stderr(&ran))
    };
    let (_, shown, _) = memory_cli(&["show", "1"]);
    assert!(
        shown.contains("what it did: \"Wi-Fi\" off (Switch (id wifi_switch)); ended on com.android.settings/.Settings"),
        "{shown}"
    );

    // Ids renamed: the step errs and goes to the model, which only claims success.
    shell(&sim.addr, "simctl reset");
    shell(&sim.addr, "simctl variant 2");
    let liar =
        ScriptedLlm::per_model(vec![("scripted", vec![code("It is done.", "complete(true, \"Wi-Fi is off\");")])]);
    let result = run(&liar, &sim.addr, &out, &extra, "Turn off Wi-Fi");
    let err = stderr(&result);
    assert_eq!(result.status.code(), Some(1), "{err}");
    assert_eq!(liar.requests().len(), 1, "{err}");
    assert_eq!(state(&sim.addr)["settings"]["wifi"], true, "judged on the phone: still on");
    let summary = json_file(&run_dir(&out).join("summary.json"));
    let reason = summary["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("without what the remembered run of this task did: \"Wi-Fi\" off"), "{reason}");
    let note = summary["memory"].as_str().unwrap_or_default();
    assert!(note.contains("kept unverified (candidate 1"), "{note}");
    let (_, listed, _) = memory_cli(&["list"]);
    assert!(listed.contains("1 unverified heal"), "{listed}");
    let (_, shown, _) = memory_cli(&["show", "1"]);
    assert!(shown.contains("tap(#{id: \"wifi_switch\"})"), "the experience is as it was: {shown}");
    assert!(
        shown.contains("unverified heal, candidate 1") && shown.contains("it did not end with \"Wi-Fi\" off"),
        "{shown}"
    );

    // A heal that switches it off (under its new id) is the same effect: kept.
    shell(&sim.addr, "simctl reset");
    let healer = ScriptedLlm::per_model(vec![(
        "scripted",
        vec![code(
            "The switch is now switch_wifi.",
            "tap(#{id: \"switch_wifi\"});\nwait_for(#{id: \"switch_wifi\", checked: false});\ncomplete(true, \"Wi-Fi is off\");",
        )],
    )]);
    let result = run(&healer, &sim.addr, &out, &extra, "Turn off Wi-Fi");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert_eq!(state(&sim.addr)["settings"]["wifi"], false);
    let summary = json_file(&run_dir(&out).join("summary.json"));
    assert_eq!(summary["memory"], "replayed experience 1, healed by the model (it ends with what it recorded)");
    let (_, shown, _) = memory_cli(&["show", "1"]);
    assert!(shown.contains("switch_wifi"), "{shown}");

    // Back on the first layout the kept heal diverges again; this heal switches Wi-Fi
    // off but ends on the home screen: not what was recorded, so the run's own
    // reviewer (never the model that healed) is asked, and its verdict keeps it.
    shell(&sim.addr, "simctl reset");
    shell(&sim.addr, "simctl variant 0");
    let elsewhere = ScriptedLlm::per_model(vec![
        (
            "scripted",
            vec![
                code(
                    "The switch is wifi_switch again; then I go home.",
                    "tap(#{id: \"wifi_switch\"});\nwait_for(#{id: \"wifi_switch\", checked: false});\npress_key(\"home\");\n\
                     complete(true, \"Wi-Fi is off\");",
                ),
                code("Done.", "complete(true, \"Wi-Fi is off\");"),
            ],
        ),
        ("judge", vec![reply("VERIFIED\nWi-Fi is off; where it ends does not matter.")]),
    ]);
    let reviewed = ["--vision", "off", "--memory", memory, "--reflector-model", "judge"];
    let result = run(&elsewhere, &sim.addr, &out, &reviewed, "Turn off Wi-Fi");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert_eq!(state(&sim.addr)["settings"]["wifi"], false);
    let asked = elsewhere.requests_for("judge");
    assert_eq!(asked.len(), 1, "{}", stderr(&result));
    let evidence = last_user_text(&asked[0]);
    assert!(evidence.contains("Missing from this run: ending on com.android.settings/.Settings"), "{evidence}");
    let summary = json_file(&run_dir(&out).join("summary.json"));
    let note = summary["memory"].as_str().unwrap_or_default();
    assert!(note.contains("the reviewer judged it did the task (Wi-Fi is off; where it ends"), "{note}");

    // A person may still accept a heal kept aside; an unknown one says how to list them.
    let (code_accepted, accepted, _) = memory_cli(&["accept", "1"]);
    assert_eq!((code_accepted, accepted.trim()), (Some(0), "experience 1 now has the steps of heal 1"));
    let (code_again, _, again) = memory_cli(&["accept", "1"]);
    assert!(code_again != Some(0) && again.contains("codeact memory show"), "{again}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_second_run_of_a_task_replays_it_from_memory_without_the_model() {
    let sim = common::SimProcess::start(&[]);
    let out = scratch("memory");
    let memory = out.join("memory.sqlite");
    let memory = memory.to_str().unwrap_or_default();
    let replies = || {
        vec![
            code("Settings has Wi-Fi.", "start_app(\"com.android.settings\");"),
            code(
                "The switch is element 6.",
                "tap_by_index(6);\nwait_for(#{id: \"wifi_switch\", checked: false});\ncomplete(true, \"Wi-Fi is off\");",
            ),
        ]
    };
    let first = ScriptedLlm::per_model(vec![("scripted", replies())]);
    let extra = ["--persona", "big_agent", "--vision", "off", "--memory", memory];
    let result = run(&first, &sim.addr, &out, &extra, "Turn off Wi-Fi");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert!(String::from_utf8_lossy(&result.stdout).contains("memory: kept as experience 1"));

    shell(&sim.addr, "simctl reset");
    let second = ScriptedLlm::per_model(vec![("scripted", replies())]);
    let result = run(&second, &sim.addr, &out, &extra, "turn off wi-fi");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert_eq!(second.requests().len(), 0, "the replay asks the model nothing");
    assert_eq!(state(&sim.addr)["settings"]["wifi"], false);
    let dir = run_dir(&out);
    let kinds: Vec<String> = events(&dir).iter().filter_map(|e| e["event"].as_str().map(str::to_string)).collect();
    assert_eq!(kinds.iter().filter(|k| *k == "replayed").count(), 2, "{kinds:?}");
    assert!(kinds.contains(&"recall".to_string()));
    let summary = json_file(&dir.join("summary.json"));
    assert_eq!(summary["memory"], "replayed experience 1");
    // A replayed step is recorded like an asked one: it ends with step_end and its
    // timings, which the report shows.
    let all = events(&dir);
    for replayed in all.iter().filter(|e| e["event"] == "replayed") {
        let end = all.iter().find(|e| e["event"] == "step_end" && e["step"] == replayed["step"]);
        let end = end.unwrap_or_else(|| panic!("no step_end for replayed step {}: {all:?}", replayed["step"]));
        assert!(
            end["wall_ms"].as_f64().unwrap_or(0.0) > 0.0 && end["device_ms"].as_f64().unwrap_or(0.0) > 0.0,
            "{end}"
        );
        assert_eq!(end["llm_ms"].as_f64(), Some(0.0), "{end}");
    }
    let view = codeact::report::RunView::read(&dir);
    assert_eq!(view.steps.len(), 2);
    assert!(view.steps.iter().all(|s| s.wall_ms > 0.0 && s.device_ms > 0.0), "{:?}", view.steps);

    // A step that opens an app replays from any screen.
    shell(&sim.addr, "simctl reset");
    shell(&sim.addr, "am start -n com.android.deskclock/.DeskClock");
    let unused = ScriptedLlm::per_model(vec![("scripted", replies())]);
    let result = run(&unused, &sim.addr, &out, &extra, "Turn off Wi-Fi");
    assert_eq!((result.status.code(), unused.requests().len()), (Some(0), 0), "{}", stderr(&result));

    // Under a layout update (ids renamed), the step whose element moved is the one
    // the model sees, with its intent and code; the healed run replays with no model
    // call after that.
    shell(&sim.addr, "simctl reset");
    shell(&sim.addr, "simctl variant 2");
    let heal = code(
        "The switch is now switch_wifi.",
        "tap(#{id: \"switch_wifi\"});\nwait_for(#{id: \"switch_wifi\", checked: false});\ncomplete(true, \"Wi-Fi is off\");",
    );
    let healer = ScriptedLlm::per_model(vec![("scripted", vec![heal])]);
    let result = run(&healer, &sim.addr, &out, &extra, "Turn off Wi-Fi");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert_eq!(healer.requests().len(), 1, "one diverging step, one request: {}", stderr(&result));
    let healing = last_user_text(&healer.requests()[0]);
    assert!(healing.contains("Step 2 of 2 cannot be replayed") && healing.contains("wifi_switch"), "{healing}");
    let summary = json_file(&run_dir(&out).join("summary.json"));
    assert_eq!(summary["memory"], "replayed experience 1, healed by the model (it ends with what it recorded)");
    assert_eq!(state(&sim.addr)["settings"]["wifi"], false);
    shell(&sim.addr, "simctl reset");
    let nobody = ScriptedLlm::per_model(vec![("scripted", vec![code("", "complete(false, \"unused\");")])]);
    let result = run(&nobody, &sim.addr, &out, &extra, "Turn off Wi-Fi");
    assert_eq!((result.status.code(), nobody.requests().len()), (Some(0), 0), "the healed run replays as is");
    shell(&sim.addr, "simctl variant 0");

    // Two runs at once share the database safely.
    shell(&sim.addr, "simctl reset");
    let (a, b) =
        (ScriptedLlm::per_model(vec![("scripted", replies())]), ScriptedLlm::per_model(vec![("scripted", replies())]));
    let extra_new = ["--persona", "big_agent", "--vision", "off", "--memory", memory];
    std::thread::scope(|s| {
        let one = s.spawn(|| run(&a, "sim", &out, &extra_new, "Turn off Wi-Fi on phone A"));
        let two = s.spawn(|| run(&b, "sim", &out, &extra_new, "Turn off Wi-Fi on phone B"));
        for r in [one.join(), two.join()] {
            let r = r.expect("a run");
            assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
        }
    });
    let list = std::process::Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["memory", "list", "--memory", memory])
        .output()
        .expect("codeact memory list");
    let listed = String::from_utf8_lossy(&list.stdout);
    assert!(listed.contains("phone A") && listed.contains("phone B"), "{listed}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn similar_runs_become_worked_examples_and_app_cards_reach_the_prompt() {
    let out = scratch("memory-examples");
    let memory = out.join("memory.sqlite");
    let memory = memory.to_str().unwrap_or_default();
    let wifi = ScriptedLlm::per_model(vec![(
        "scripted",
        vec![code(
            "Settings, then the switch.",
            "start_app(\"com.android.settings\");\ntap(#{id: \"wifi_switch\"});\nwait_for(#{id: \"wifi_switch\", checked: false});\ncomplete(true, \"off\");",
        )],
    )]);
    let extra = ["--persona", "big_agent", "--vision", "off", "--memory", memory];
    assert_eq!(run(&wifi, "sim", &out, &extra, "Turn off Wi-Fi").status.code(), Some(0));
    let card = out.join("card.md");
    std::fs::write(&card, "Switches sit at the right of their row; Bluetooth is under Network.").expect("card");
    let set = std::process::Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["memory", "card", "com.android.settings", "--set", card.to_str().unwrap_or_default()])
        .args(["--memory", memory])
        .output()
        .expect("codeact memory card");
    assert!(set.status.success(), "{}", String::from_utf8_lossy(&set.stderr));

    let bluetooth = ScriptedLlm::per_model(vec![(
        "scripted",
        vec![
            code("Settings first.", "start_app(\"com.android.settings\");"),
            code(
                "The switch.",
                "tap(#{id: \"bluetooth_switch\"});\nwait_for(#{id: \"bluetooth_switch\", checked: true});\ncomplete(true, \"on\");",
            ),
        ],
    )]);
    let result = run(&bluetooth, "sim", &out, &extra, "Turn on Bluetooth");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let requests = bluetooth.requests();
    let first = requests[0]["messages"][1]["content"].as_str().unwrap_or("").to_string();
    assert!(first.contains("Worked examples") && first.contains("Task: Turn off Wi-Fi"), "{first}");
    assert!(first.contains("tap(#{id: \"wifi_switch\"})"), "{first}");
    assert!(!last_user_text(&requests[0]).contains("Notes on this app"), "the launcher has no card");
    assert!(last_user_text(&requests[1]).contains("Bluetooth is under Network"), "the Settings card shows in Settings");

    // What tapping the switch did is widget knowledge: a later run sees it as a hint
    // on the same screen.
    let again = ScriptedLlm::per_model(vec![(
        "scripted",
        vec![
            code("Settings first.", "start_app(\"com.android.settings\");"),
            code("Done.", "complete(true, \"checked\");"),
        ],
    )]);
    let result = run(&again, "sim", &out, &extra, "Is Bluetooth on?");
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let in_settings = last_user_text(&again.requests()[1]);
    assert!(
        in_settings.contains("What acting on elements of this screen did in earlier runs")
            && in_settings.contains("bluetooth_switch\"}) → Switch (id bluetooth_switch) unchecked → checked"),
        "{in_settings}"
    );
    assert!(!last_user_text(&again.requests()[0]).contains("earlier runs:"), "the launcher has no knowledge");
    let _ = std::fs::remove_dir_all(&out);
}

/// `codeact exec --heal` with the scripted server and the given device.
fn exec_heal(llm: &ScriptedLlm, device: &str, script: &std::path::Path, out: &std::path::Path) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", script.to_str().unwrap_or_default(), "--device", device, "--heal"])
        .args(["--base-url", &llm.base_url, "--model", "scripted"])
        .args(["--trajectory", out.to_str().unwrap_or_default()])
        .env("OPENAI_API_KEY", "sk-codeact-heal-test-KEY-00000")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("CODEACT_MODEL")
        .env_remove("CODEACT_CONFIG")
        .output()
        .expect("codeact exec --heal")
}

#[test]
fn exec_heal_hands_only_the_step_that_errs_to_the_model_and_keeps_the_healed_script() {
    let sim = common::SimProcess::start(&[]);
    let out = scratch("exec-heal");
    let script = out.join("wifi.rhai");
    let original = "// Turn off Wi-Fi.\nstart_app(\"com.android.settings\");\n// Flip the Wi-Fi switch\ntap(#{id: \"wifi_switch\"});\nwait_for(#{text: \"Wi-Fi\", enabled: true});\n";
    std::fs::write(&script, original).expect("script");
    shell(&sim.addr, "simctl variant 2");
    let healer = ScriptedLlm::per_model(vec![(
        "scripted",
        vec![code("Renamed.", "tap(#{id: \"switch_wifi\"});\ncomplete(true, \"step done\");")],
    )]);
    let result = exec_heal(&healer, &sim.addr, &script, &out.join("runs"));
    let said = String::from_utf8_lossy(&result.stdout).into_owned();
    assert_eq!(result.status.code(), Some(0), "{said}{}", stderr(&result));
    assert_eq!(healer.requests().len(), 1, "one step errs, one request");
    let asked = last_user_text(&healer.requests()[0]);
    assert!(asked.contains("Step 2 of 3 cannot be replayed") && asked.contains("Flip the Wi-Fi switch"), "{asked}");
    assert!(said.contains("passed after 4 steps, 1 LLM call"), "{said}");
    assert_eq!(state(&sim.addr)["settings"]["wifi"], false, "the step after the healed one ran too");
    let healed = std::fs::read_to_string(out.join("wifi.healed.rhai")).expect("the healed script beside the original");
    // A patch, not a transcript: the original with only the statement that diverged
    // replaced, comments and all; the diff is printed and saved beside it.
    let expected = original.replace("tap(#{id: \"wifi_switch\"});", "tap(#{id: \"switch_wifi\"});");
    assert_eq!(healed, expected);
    let diff = std::fs::read_to_string(out.join("wifi.healed.diff")).expect("the diff beside it");
    assert!(diff.contains("-tap(#{id: \"wifi_switch\"});\n+tap(#{id: \"switch_wifi\"});"), "{diff}");
    assert!(said.contains("+tap(#{id: \"switch_wifi\"});"), "the diff is printed: {said}");
    assert_eq!(std::fs::read_to_string(&script).unwrap_or_default(), original, "the original is never changed");

    // The healed script runs as is under the same layout.
    shell(&sim.addr, "simctl reset");
    let again = std::process::Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", out.join("wifi.healed.rhai").to_str().unwrap_or_default(), "--device", &sim.addr])
        .output()
        .expect("codeact exec");
    assert!(again.status.success(), "{}", stderr(&again));

    // A step the model cannot heal fails the script; nothing is written.
    shell(&sim.addr, "simctl reset");
    let _ = std::fs::remove_file(out.join("wifi.healed.rhai"));
    let _ = std::fs::remove_file(out.join("wifi.healed.diff"));
    let stuck =
        ScriptedLlm::per_model(vec![("scripted", vec![code("No idea.", "complete(false, \"cannot find it\");")])]);
    let result = exec_heal(&stuck, &sim.addr, &script, &out.join("runs"));
    assert_eq!(result.status.code(), Some(1), "{}", stderr(&result));
    assert!(!out.join("wifi.healed.rhai").exists());
    shell(&sim.addr, "simctl variant 0");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn embeddings_find_worked_examples_that_share_no_word_with_the_task() {
    let out = scratch("memory-embeddings");
    let memory = out.join("memory.sqlite");
    let memory = memory.to_str().unwrap_or_default();
    let with_embeddings = ["--persona", "big_agent", "--vision", "off", "--memory", memory, "--embeddings", "embedder"];
    let wifi = ScriptedLlm::per_model(vec![(
        "scripted",
        vec![code(
            "Settings, then the switch.",
            "start_app(\"com.android.settings\");\ntap(#{id: \"wifi_switch\"});\ncomplete(true, \"off\");",
        )],
    )]);
    assert_eq!(run(&wifi, "sim", &out, &with_embeddings, "Turn off Wi-Fi").status.code(), Some(0));
    assert_eq!(wifi.embedding_requests().len(), 1);
    assert_eq!(wifi.embedding_requests()[0]["model"], "embedder");

    // BM25 alone: "Disable wireless" shares no word with "Turn off Wi-Fi".
    let give_up = || ScriptedLlm::per_model(vec![("scripted", vec![code("Stop.", "complete(false, \"not now\");")])]);
    let plain = give_up();
    let bm25 = ["--persona", "big_agent", "--vision", "off", "--memory", memory];
    assert_eq!(run(&plain, "sim", &out, &bm25, "Disable wireless").status.code(), Some(1));
    let first = plain.requests()[0]["messages"][1]["content"].as_str().unwrap_or("").to_string();
    assert!(!first.contains("Worked examples"), "{first}");

    // By meaning, it is the nearest.
    let near = give_up();
    assert_eq!(run(&near, "sim", &out, &with_embeddings, "Disable wireless").status.code(), Some(1));
    let first = near.requests()[0]["messages"][1]["content"].as_str().unwrap_or("").to_string();
    assert!(first.contains("Worked examples") && first.contains("Task: Turn off Wi-Fi"), "{first}");
    assert_eq!(near.embedding_requests()[0]["input"], "Disable wireless");
    let _ = std::fs::remove_dir_all(&out);
}
