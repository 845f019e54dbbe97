//! What a newcomer writes first, from the README, and what codeact promises a test
//! engineer: the README's REPL session saved and run as a script; a secret a script
//! reads back never on the terminal; an anchor that could mean two places refused;
//! an element from `find()` passed back to a tool; a suite sharing a helper folder
//! and a `codeact.toml` found from the scripts' folder up; a wait that times out
//! saying what is near; `phone_state` filled alike on every platform.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("codeact-first-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn codeact_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_codeact"));
    command.args(args).current_dir(dir).env_remove("CODEACT_CONFIG");
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("run codeact")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// The REPL chapter's example transcript.
fn repl_example() -> String {
    let chapter =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/src/repl.md")).expect("the REPL chapter");
    let start = chapter.find("$ codeact repl --device sim").expect("the REPL example");
    let block = &chapter[start..];
    block[..block.find("```").expect("end of the example")].to_string()
}

/// The lines the book's REPL example types (after its prompts), as typed: no
/// `;`, a function over several lines, the `# ...` notes left out.
fn readme_repl_lines() -> Vec<String> {
    repl_example()
        .lines()
        .filter_map(|l| l.strip_prefix("rhai> ").or_else(|| l.strip_prefix("  ... ")))
        .map(|l| l.split("  # ").next().unwrap_or(l).trim_end().to_string())
        .filter(|l| !l.starts_with(":save"))
        .collect()
}

/// The lines the chapter's REPL example shows as answers (not typed, no time in them).
fn readme_repl_answers() -> Vec<String> {
    repl_example()
        .lines()
        .filter(|l| !l.starts_with("rhai> ") && !l.starts_with("  ... ") && !l.starts_with("$ "))
        .filter(|l| !l.contains(" ms)"))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_readmes_repl_example_saved_runs_as_a_script() {
    let dir = scratch("repl-save");
    let lines = readme_repl_lines();
    assert!(lines.iter().any(|l| l.starts_with("fn toggle")), "{lines:?}");
    let mut repl = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["repl", "--device", "sim", "--no-history"])
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("repl");
    let mut stdin = repl.stdin.take().expect("stdin");
    // A snippet before :reset is not the saved script's.
    let _ = writeln!(stdin, "let before_reset = 1\n:reset");
    for line in &lines {
        let _ = writeln!(stdin, "{line}");
    }
    let _ = writeln!(stdin, ":save test.rhai\n:quit");
    drop(stdin);
    let out = repl.wait_with_output().expect("repl ends");
    assert!(text(&out).contains("saved"), "{}", text(&out));
    // What the chapter shows the REPL answering is what it answers (times aside).
    let answers = readme_repl_answers();
    assert!(answers.iter().any(|l| l.contains("selector:")), "{answers:?}");
    for shown in answers {
        assert!(text(&out).contains(&shown), "the chapter shows {shown:?}; the REPL said:\n{}", text(&out));
    }
    let saved = std::fs::read_to_string(dir.join("test.rhai")).expect("saved");
    assert!(!saved.contains("before_reset"), ":reset starts the script over:\n{saved}");
    let out = codeact_in(&dir, &["exec", "test.rhai", "--device", "sim"], &[]);
    assert!(out.status.success(), "the saved script passes:\n{saved}\n{}", text(&out));
}

#[test]
fn a_secret_read_back_by_a_script_never_reaches_the_terminal() {
    let dir = scratch("secret");
    let secret = "correct-horse-battery-9";
    let script = "start_app(\"com.example.notes\");\ntap(#{desc: \"New note\"});\ntype_secret(\"PW\");\n\
                  print(\"typed: \" + find(#{editable: true}).text);\n\
                  print(shell(\"printf 'correct-horse-%s' battery-9\").output);\n\
                  let rebuilt = \"correct-\" + \"horse-\" + \"battery-9\";\nprint(rebuilt);\n\
                  debug(rebuilt);\nthrow rebuilt;\n";
    std::fs::write(dir.join("s.rhai"), script).expect("write");
    for json in [false, true] {
        let args = if json {
            vec!["exec", "s.rhai", "--device", "sim", "--json"]
        } else {
            vec!["exec", "s.rhai", "--device", "sim"]
        };
        let out = codeact_in(&dir, &args, &[("CODEACT_SECRET_PW", secret)]);
        assert_eq!(out.status.code(), Some(2), "the throw ends it: {}", text(&out));
        assert!(!text(&out).contains(secret), "json {json}: the secret printed:\n{}", text(&out));
        assert!(text(&out).contains("typed: "), "{}", text(&out));
    }
}

#[test]
fn an_anchor_that_names_two_places_is_refused_with_both() {
    let dir = scratch("anchor");
    let open = "start_app(\"com.android.settings\", \".DisplaySettings\");\n";
    std::fs::write(dir.join("guess.rhai"), format!("{open}tap(#{{class: \"Switch\", right_of: \"Dark theme\"}});\n"))
        .expect("write");
    let out = codeact_in(&dir, &["exec", "guess.rhai", "--device", "sim", "--json"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let said = text(&out);
    assert!(said.contains("right_of: \\\"Dark theme\\\" matches 2 places"), "{said}");
    assert!(said.contains("(id display_art)") && said.contains("(id title)"), "both places named: {said}");
    assert!(!said.contains("checked → unchecked") && !said.contains("unchecked → checked"), "nothing flipped: {said}");
    // Said which: the right switch, and only it.
    let chosen = format!(
        "{open}tap(#{{class: \"Switch\", right_of: #{{text: \"Dark theme\"}}}});\n\
         assert_visible(#{{id: \"dark_theme\", checked: true}});\n\
         assert_visible(#{{id: \"adaptive_brightness\", checked: true}});\n\
         tap(#{{class: \"Switch\", right_of: #{{label: \"Dark theme\", nth: 1}}}});\n\
         assert_visible(#{{id: \"dark_theme\", checked: false}});\n"
    );
    std::fs::write(dir.join("chosen.rhai"), chosen).expect("write");
    let out = codeact_in(&dir, &["exec", "chosen.rhai", "--device", "sim"], &[]);
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn an_element_from_find_names_that_element_to_every_tool() {
    let dir = scratch("element");
    let script = "start_app(\"com.android.settings\", \".DisplaySettings\");\n\
                  let s = find(#{id: \"dark_theme\"});\ntap(s);\nassert_visible(#{id: \"dark_theme\", checked: true});\n\
                  let again = wait_for(s, 1000);\nprint(again.id);\nlong_press(ui_state[again.index]);\n\
                  let forged = s; forged.signature = \"nope\";\ntap(forged);\n";
    std::fs::write(dir.join("el.rhai"), script).expect("write");
    let out = codeact_in(&dir, &["exec", "el.rhai", "--device", "sim"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("dark_theme"), "{}", text(&out));
    assert!(!text(&out).contains("unknown selector key"), "{}", text(&out));
    assert!(text(&out).contains("line 9") && text(&out).contains("signature or bounds were changed"), "{}", text(&out));
}

#[test]
fn a_suite_shares_a_helper_folder_and_its_codeact_toml_from_anywhere() {
    let dir = scratch("suite");
    for sub in ["suite/tests/deeper", "suite/lib", "elsewhere", "shared"] {
        std::fs::create_dir_all(dir.join(sub)).expect("folders");
    }
    std::fs::write(
        dir.join("suite/lib/steps.rhai"),
        "/// Opens Settings.\nfn settings() { start_app(\"com.android.settings\"); }\n",
    )
    .expect("write");
    std::fs::write(dir.join("shared/tools.rhai"), "/// Says hello to NAME.\nfn greet(name) { \"hello \" + name }\n")
        .expect("write");
    std::fs::write(dir.join("codeact.toml"), "tools_from = [\"shared/tools.rhai\"]\n").expect("write");
    std::fs::write(
        dir.join("suite/tests/deeper/t.rhai"),
        "import \"../../lib/steps\" as steps;\nsteps::settings();\nprint(greet(\"suite\"));\n",
    )
    .expect("write");
    std::fs::write(dir.join("suite/tests/escape.rhai"), "import \"../../elsewhere/x\" as x;\n").expect("write");
    std::fs::write(dir.join("elsewhere/x.rhai"), "fn x() { 1 }\n").expect("write");
    // From a folder far from the config, naming the suite: the config and the lib are found.
    let out = codeact_in(&dir.join("elsewhere"), &["exec", "../suite/tests/deeper/t.rhai", "--device", "sim"], &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hello suite\n");
    // The helper folder is no test; an import leaving the suite is refused.
    let out = codeact_in(&dir, &["exec", "suite", "--device", "sim"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let said = text(&out);
    assert!(said.contains("PASS suite/tests/deeper/t.rhai"), "{said}");
    assert!(!said.contains("steps.rhai ("), "lib/steps.rhai is a module, not a test: {said}");
    assert!(said.contains("only files inside") && said.contains("escape.rhai"), "{said}");
}

#[test]
fn a_wait_that_times_out_says_what_is_near_and_that_values_are_literal() {
    let dir = scratch("wait");
    let script = "start_app(\"com.android.settings\", \".DisplaySettings\");\nwait_for(#{text: \"\\\\d+%\"}, 300);\n";
    std::fs::write(dir.join("w.rhai"), script).expect("write");
    let out = codeact_in(&dir, &["exec", "w.rhai", "--device", "sim"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let said = text(&out);
    assert!(said.contains("nearest on screen:"), "{said}");
    assert!(said.contains("as a regex it matches TextView \"40%\"") && said.contains("text_matches"), "{said}");
}

/// Each `phone_state` field, read on each platform's virtual phone, at home and in
/// an app's text field: every field there, and alike.
#[test]
fn phone_state_is_filled_alike_on_every_platform() {
    let dir = scratch("phone-state");
    let script = "start_app(\"com.example.notes\");\ntap(#{desc: \"New note\"});\nrefresh();\n\
                  print(phone_state.to_json());\n";
    std::fs::write(dir.join("p.rhai"), script).expect("write");
    let mut seen = Vec::new();
    for device in ["sim", "sim:ios", "sim:harmony"] {
        let out = codeact_in(&dir, &["exec", "p.rhai", "--device", device], &[]);
        assert!(out.status.success(), "{device}: {}", text(&out));
        let state: serde_json::Value =
            serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).expect("phone_state as JSON");
        for field in ["app", "package", "screen", "platform", "screen_width", "screen_height"] {
            let value = &state[field];
            assert!(!value.is_null() && value != "" && value != 0, "{device}: {field} is empty: {state}");
        }
        assert_eq!(state["keyboard_shown"], true, "{device}: {state}");
        // An empty field holds nothing, though Android's dump writes its hint there
        // (documented).
        let empty = if device == "sim" { ["", "Title"].as_slice() } else { [""].as_slice() };
        assert!(empty.iter().any(|e| state["focused_text"] == *e), "{device}: {state}");
        seen.push((state["app"].clone(), state["screen"].clone()));
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]), "the same app and screen on every platform: {seen:?}");
}
