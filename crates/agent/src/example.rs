//! The worked example at the end of the system prompt, the same two steps in either
//! action format, for a task that is not the model's own and changes nothing on the
//! phone ("How many of my alarms are on?"), begun on the home screen: open the app,
//! read what the next screen lists, answer, finish. Measured with a 0.5B code model
//! (`scripts/real-model.sh`): a small model copies the example whatever the task, so
//! an example that acts (tap element 4, turn on Airplane mode) acts on every task
//! and even "solves" some by accident (Airplane mode turns Wi-Fi off); one that only
//! reads cannot. Written only with the tools the persona has; text only.

/// The screen lines the example's second step shows (as an observation lists them).
const ALARM_LINES: &str = "3 Switch #alarm_row_switch [on] @943,829` and `6 Switch #alarm_row_switch [off] @943,1018";

/// How the example opens the Clock, in each format, with the tools `has` allows.
fn opener(has: &dyn Fn(&str) -> bool) -> Option<(&'static str, &'static str)> {
    if has("open_app") {
        Some(("open_app(\"Clock\");", "open_app {\"name\": \"Clock\"}"))
    } else if has("start_app") {
        Some(("start_app(\"com.android.deskclock\");", "start_app {\"package\": \"com.android.deskclock\"}"))
    } else {
        None
    }
}

/// The example for `--actions code`: two replies, each under the screen it answers.
pub fn code(has: &dyn Fn(&str) -> bool) -> String {
    let Some((open, _)) = opener(has).filter(|_| has("answer")) else { return String::new() };
    format!(
        "\nExample, for another task (\"How many of my alarms are on?\"), not yours:\n\
         Step 1, on the home screen:\n\
         Thought: Alarms are in the Clock app, which is not open; I open it first.\n\
         ```rhai\n{open}\n```\n\
         Step 2, the screen lists `{ALARM_LINES}`:\n\
         Thought: I count the switches that are on, answer and finish.\n\
         ```rhai\nlet on = 0;\nfor e in ui_state {{ if e.class == \"Switch\" && e.checked {{ on += 1; }} }}\n\
         answer(`${{on}}`);\ncomplete(true, `${{on}} alarms are on`);\n```\n"
    )
}

/// The example for `--actions json`: the same two turns, as the calls they make.
pub fn calls(has: &dyn Fn(&str) -> bool) -> String {
    let Some((_, open)) = opener(has).filter(|_| has("answer")) else { return String::new() };
    format!(
        "\nExample, for another task (\"How many of my alarms are on?\"), not yours:\n\
         Turn 1, on the home screen: the Clock app is not open, so call {open}.\n\
         Turn 2, the screen lists `{ALARM_LINES}`: one switch is on, so call answer {{\"text\": \"1\"}}, \
         then complete {{\"success\": true, \"reason\": \"1 alarm is on\"}}.\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_formats_show_the_same_two_steps_with_the_tools_there_are() {
        let all = |_: &str| true;
        let (snippets, called) = (code(&all), calls(&all));
        assert!(snippets.contains("open_app(\"Clock\");") && snippets.contains("answer(`${on}`);"));
        assert!(called.contains("open_app {\"name\": \"Clock\"}") && called.contains("answer {\"text\": \"1\"}"));
        assert!(snippets.contains(ALARM_LINES) && called.contains(ALARM_LINES));
        let no_open_app = |t: &str| t != "open_app";
        assert!(code(&no_open_app).contains("start_app(\"com.android.deskclock\");\n"));
        assert!(calls(&no_open_app).contains("start_app {\"package\": \"com.android.deskclock\"}"));
        let no_answer = |t: &str| t != "answer";
        assert!(code(&no_answer).is_empty() && calls(&no_answer).is_empty());
    }

    #[test]
    fn the_code_example_parses_as_rhai() {
        let example = code(&|_| true);
        let engine = rhai::Engine::new_raw();
        let blocks: Vec<&str> = example.split("```rhai\n").skip(1).filter_map(|b| b.split("```").next()).collect();
        assert_eq!(blocks.len(), 2, "{example}");
        for block in blocks {
            assert!(engine.compile(block).is_ok(), "{block}");
        }
    }
}
