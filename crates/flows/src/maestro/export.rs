//! A run's actions written as a Maestro flow (`--export maestro`): each action the
//! script or the model took, in order, as the Maestro command that does the same
//! (an index tap as the selector recorded for the element it hit). Maestro waits
//! for an element before a tap, so a `wait_for` right before a tap on the same
//! selector is the tap's; `stop_app` + `start_app` is `launchApp`. Reads change
//! nothing and are left out; an action Maestro has no command for (a shell
//! command, a watcher's tap, a canvas picture) stays in the flow as a comment and
//! is named in the notes. Converting the flow back gives the same calls.

use rhai::{Dynamic, Map};

use super::commands::LOOKUP_MS;
use super::selectors::maestro_text;
use codeact_engine::emit::yaml;
use codeact_engine::sandbox::Action;

/// A flow and what it could not say.
#[derive(Debug, Clone)]
pub struct Exported {
    pub yaml: String,
    /// Actions written as comments only.
    pub left_out: Vec<String>,
}

/// A literal as Maestro's text regex matches it (a `.` matches itself).
fn literal_regex(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if "*+?[](){}|^$\\".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// An argument recorded as a Rhai literal, read back (literals only: nothing runs).
fn value_of(arg: &str) -> Option<Dynamic> {
    let mut engine = rhai::Engine::new_raw();
    engine.set_max_expr_depths(32, 32);
    engine.set_max_string_size(64 * 1024);
    engine.eval_expression::<Dynamic>(arg).ok()
}

/// A codeact selector as a Maestro one (flow-style YAML), when Maestro can say it.
fn selector(sel: &Dynamic, depth: usize) -> Option<String> {
    if depth > 8 {
        return None;
    }
    if let Some(text) = sel.clone().try_cast::<rhai::ImmutableString>() {
        return Some(yaml::string(&literal_regex(&text)));
    }
    let map = sel.clone().try_cast::<Map>()?;
    let mut keys = Vec::new();
    for (key, value) in &map {
        let text = || value.clone().try_cast::<rhai::ImmutableString>().map(|s| s.to_string());
        let pair = match key.as_str() {
            "text" | "desc" | "hint" | "label" => format!("text: {}", yaml::string(&literal_regex(&text()?))),
            "text_contains" | "desc_contains" | "hint_contains" | "label_contains" => {
                format!("text: {}", yaml::string(&format!(".*{}.*", literal_regex(&text()?))))
            }
            "text_starts_with" | "desc_starts_with" | "hint_starts_with" | "label_starts_with" => {
                format!("text: {}", yaml::string(&format!("{}.*", literal_regex(&text()?))))
            }
            "text_matches" | "desc_matches" | "hint_matches" | "label_matches" => {
                format!("text: {}", yaml::string(&maestro_text(&text()?)))
            }
            "id" => format!("id: {}", yaml::string(&literal_regex(&text()?))),
            "id_matches" => format!("id: {}", yaml::string(&maestro_text(&text()?))),
            "id_contains" => format!("id: {}", yaml::string(&format!(".*{}.*", literal_regex(&text()?)))),
            "nth" => format!("index: {}", value.as_int().ok()?),
            "checked" | "enabled" | "focused" | "selected" => format!("{key}: {}", value.as_bool().ok()?),
            "below" | "above" => format!("{key}: {}", selector(value, depth + 1)?),
            "left_of" => format!("leftOf: {}", selector(value, depth + 1)?),
            "right_of" => format!("rightOf: {}", selector(value, depth + 1)?),
            "inside" => format!("childOf: {}", selector(value, depth + 1)?),
            "has" => format!("containsChild: {}", selector(value, depth + 1)?),
            _ => return None,
        };
        keys.push(pair);
    }
    (!keys.is_empty()).then(|| format!("{{{}}}", keys.join(", ")))
}

/// A coordinate as Maestro's: a fraction as a percentage, pixels as they are.
fn coordinate(v: &Dynamic) -> Option<String> {
    if let Ok(f) = v.as_float() {
        return Some(format!("{}%", (f * 1000.0).round() / 10.0));
    }
    v.as_int().ok().map(|i| i.to_string())
}

fn point(x: &Dynamic, y: &Dynamic) -> Option<String> {
    Some(yaml::string(&format!("{}, {}", coordinate(x)?, coordinate(y)?)))
}

/// A key as Maestro's pressKey names it.
fn key_name(key: &str) -> Option<&'static str> {
    Some(match key.to_ascii_lowercase().as_str() {
        "enter" | "keycode_enter" | "66" => "Enter",
        "home" | "keycode_home" | "3" => "Home",
        "back" | "keycode_back" | "4" => "Back",
        "delete" | "backspace" | "keycode_del" | "67" => "Backspace",
        "tab" | "keycode_tab" | "61" => "Tab",
        "keycode_escape" => "Escape",
        "keycode_volume_up" => "Volume Up",
        "keycode_volume_down" => "Volume Down",
        "keycode_power" => "Power",
        _ => return None,
    })
}

/// The Maestro command for one action; `Ok(None)` for a read, which changes nothing.
fn command(a: &Action) -> Result<Option<String>, ()> {
    let args: Vec<Dynamic> = a.args.iter().map(|x| value_of(x).ok_or(())).collect::<Result<_, _>>()?;
    let text =
        |i: usize| args.get(i).and_then(|v| v.clone().try_cast::<rhai::ImmutableString>()).map(|s| s.to_string());
    let ms = |i: usize| args.get(i).and_then(|v| v.as_int().ok());
    let target = || a.capture.target.as_deref().and_then(value_of);
    let line = match (a.tool.as_str(), args.len()) {
        ("tap" | "long_press", 1) => {
            let verb = if a.tool == "tap" { "tapOn" } else { "longPressOn" };
            format!("{verb}: {}", selector(&args[0], 0).ok_or(())?)
        }
        ("tap" | "long_press", 2 | 3) => {
            let verb = if a.tool == "tap" { "tapOn" } else { "longPressOn" };
            format!("{verb}: {{point: {}}}", point(&args[0], &args[1]).ok_or(())?)
        }
        ("tap_by_index" | "long_press_by_index", 1) => {
            let verb = if a.tool == "tap_by_index" { "tapOn" } else { "longPressOn" };
            format!("{verb}: {}", selector(&target().ok_or(())?, 0).ok_or(())?)
        }
        ("input_text", 1) => format!("inputText: {}", yaml::string(&text(0).ok_or(())?)),
        ("erase", 1) => format!("eraseText: {}", ms(0).ok_or(())?),
        ("clear_text", 0) => "eraseText: 1000".into(),
        ("set_text", 2) => {
            let sel = selector(&args[0], 0).ok_or(())?;
            format!("tapOn: {sel}\n- eraseText: 1000\n- inputText: {}", yaml::string(&text(1).ok_or(())?))
        }
        ("assert_visible" | "assert_not_visible", 1 | 2) => {
            let verb = if a.tool == "assert_visible" { "assertVisible" } else { "assertNotVisible" };
            format!("{verb}: {}", selector(&args[0], 0).ok_or(())?)
        }
        ("wait_for" | "wait_gone", 1 | 2) => {
            let key = if a.tool == "wait_for" { "visible" } else { "notVisible" };
            let timeout = ms(1).unwrap_or(5000);
            format!("extendedWaitUntil: {{{key}: {}, timeout: {timeout}}}", selector(&args[0], 0).ok_or(())?)
        }
        ("scroll_until_visible", 1 | 2) => {
            let dir = text(1).unwrap_or_else(|| "down".into()).to_ascii_uppercase();
            format!("scrollUntilVisible: {{element: {}, direction: {dir}}}", selector(&args[0], 0).ok_or(())?)
        }
        ("swipe", 4 | 5) => format!(
            "swipe: {{start: {}, end: {}, duration: {}}}",
            point(&args[0], &args[1]).ok_or(())?,
            point(&args[2], &args[3]).ok_or(())?,
            ms(4).unwrap_or(300)
        ),
        ("swipe_on", 2) => format!(
            "swipe: {{from: {}, direction: {}}}",
            selector(&args[0], 0).ok_or(())?,
            text(1).ok_or(())?.to_ascii_uppercase()
        ),
        ("back", 0) => "back".into(),
        ("home" | "go_home", 0) => "pressKey: Home".into(),
        ("press_key", 1) => {
            format!("pressKey: {}", key_name(&text(0).or_else(|| ms(0).map(|n| n.to_string())).ok_or(())?).ok_or(())?)
        }
        ("hide_keyboard", 0) => "hideKeyboard".into(),
        ("open_url", 1) => format!("openLink: {}", yaml::string(&text(0).ok_or(())?)),
        ("start_app", 1) => format!("launchApp: {{appId: {}, stopApp: false}}", yaml::string(&text(0).ok_or(())?)),
        ("start_app", 2) => {
            // `#{clear: true}` is Maestro's clearState; an activity it cannot name.
            let options = args[1].clone().try_cast::<Map>().ok_or(())?;
            let clear = match (options.len(), options.get("clear").map(|c| c.as_bool())) {
                (1, Some(Ok(clear))) => clear,
                _ => return Err(()),
            };
            format!("launchApp: {{appId: {}, clearState: {clear}, stopApp: false}}", yaml::string(&text(0).ok_or(())?))
        }
        // By the package it opened (a label is no appId): what was in front after it.
        ("open_app", 1) => {
            let app = a.capture.screen.as_ref().map(|s| s.app.clone()).filter(|p| !p.is_empty()).ok_or(())?;
            format!("launchApp: {{appId: {}, stopApp: false}}", yaml::string(&app))
        }
        ("stop_app", 1) => format!("stopApp: {}", yaml::string(&text(0).ok_or(())?)),
        ("clear_app_data", 1) => format!("clearState: {}", yaml::string(&text(0).ok_or(())?)),
        ("screenshot", 0) => "takeScreenshot: \"screenshot\"".into(),
        ("screenshot", 1) => format!("takeScreenshot: {}", yaml::string(&text(0).ok_or(())?)),
        ("refresh", 0) => "waitForAnimationToEnd".into(),
        (
            "find" | "find_all" | "locate" | "memory" | "remember" | "answer" | "complete" | "get_clipboard"
            | "list_packages" | "wait",
            _,
        ) => return Ok(None),
        _ => return Err(()),
    };
    Ok(Some(line))
}

/// The flow for `actions` of a run on `app_id`'s app (when one is known).
pub fn flow(actions: &[Action], app_id: Option<&str>, title: &str) -> Exported {
    let mut lines: Vec<String> = Vec::new();
    let mut left_out = Vec::new();
    let mut i = 0;
    while i < actions.len() {
        let a = &actions[i];
        // The next call of the flow's own: a watcher's (the keyboard hidden before a
        // tap) or a failed one is no command, so a wait before a tap stays the tap's.
        let next_at = (i + 1..actions.len()).find(|&k| !actions[k].is_watcher() && actions[k].succeeded());
        let next = next_at.map(|k| &actions[k]);
        i += 1;
        if a.is_watcher() || !a.succeeded() {
            if a.is_watcher() {
                lines.push(yaml::comment(&format!("a watcher acted here: {}", a.summary())));
            }
            continue;
        }
        // A wait right before a tap on the same selector: Maestro's tap waits itself.
        let tap_follows = next.is_some_and(|n| {
            matches!(n.tool.as_str(), "tap" | "long_press") && n.args.len() == 1 && a.args.first() == n.args.first()
        });
        if a.tool == "wait_for"
            && a.args.get(1).is_none_or(|t| t.parse::<i64>().is_ok_and(|t| t <= LOOKUP_MS))
            && tap_follows
        {
            continue;
        }
        // stop + start of one app: Maestro's launchApp (which stops it first).
        let app = a.args.first().and_then(|arg| value_of(arg)).and_then(|v| v.try_cast::<rhai::ImmutableString>());
        if let Some(app) = app.filter(|_| a.tool == "stop_app")
            && let Some(k) = next_at.filter(|&k| actions[k].tool == "start_app" && actions[k].args == a.args)
        {
            lines.push(format!("- launchApp: {}", yaml::string(&app)));
            i = k + 1;
            continue;
        }
        match command(a) {
            Ok(Some(line)) => lines.push(format!("- {line}")),
            Ok(None) => {}
            Err(()) => {
                let call = format!("{}({})", a.tool, a.args.join(", "));
                lines.push(yaml::comment(&format!("not in Maestro: {call}")));
                left_out.push(call);
            }
        }
    }
    let mut yaml = String::new();
    if let Some(app) = app_id {
        yaml.push_str(&format!("appId: {}\n", yaml::string(app)));
    }
    yaml.push_str(&format!("name: {}\n---\n", yaml::string(title)));
    for line in lines {
        yaml.push_str(&line);
        yaml.push('\n');
    }
    Exported { yaml, left_out }
}

/// The app a flow of `actions` is about (Maestro needs its `appId`): the first one
/// a call opened (by package, or `open_app`'s by what it opened), else the first
/// in front after an action.
fn app_of(actions: &[Action]) -> Option<String> {
    let in_front = |a: &Action| a.capture.screen.as_ref().map(|s| s.app.clone()).filter(|p| !p.is_empty());
    let opened = actions.iter().filter(|a| a.succeeded()).find_map(|a| match a.tool.as_str() {
        "start_app" | "stop_app" | "clear_app_data" => a
            .args
            .first()
            .and_then(|arg| value_of(arg))
            .and_then(|v| v.try_cast::<rhai::ImmutableString>())
            .map(|s| s.to_string()),
        "open_app" => in_front(a),
        _ => None,
    });
    opened.or_else(|| actions.iter().find_map(in_front))
}

/// A run folder's actions as a Maestro flow (`--export maestro`), or why they
/// could not be written: what every mode hands back for its front door to say.
#[derive(Debug)]
pub struct FlowWritten {
    /// The run folder.
    pub dir: std::path::PathBuf,
    /// `flow.yaml` and what it holds (the actions Maestro has no command for).
    pub written: std::io::Result<(std::path::PathBuf, Exported)>,
}

/// Writes the run folder `dir`'s actions as `flow.yaml` titled `title`.
pub fn write_flow_of(dir: &std::path::Path, title: &str) -> FlowWritten {
    FlowWritten { dir: dir.to_path_buf(), written: write_run_flow(dir, title) }
}

/// The flow of a run directory's actions (`events.jsonl`), its app the first one
/// started, and where it was written (`flow.yaml` beside the events).
pub fn write_run_flow(dir: &std::path::Path, title: &str) -> std::io::Result<(std::path::PathBuf, Exported)> {
    use codeact_record::trajectory::Event;
    let actions: Vec<Action> = codeact_record::trajectory::read_events(dir)
        .into_iter()
        .filter_map(|e| match e {
            Event::Action { tool, args, result, failure, target, screen, .. } => Some(Action {
                tool: tool.into_owned(),
                args: args.into_owned(),
                result: result.into_owned(),
                failure,
                started_ms: 0.0,
                duration_ms: 0.0,
                capture: codeact_engine::sandbox::Capture {
                    target: target.map(|t| t.into_owned()),
                    screen: screen.map(|s| s.into_owned()),
                    ..Default::default()
                },
            }),
            _ => None,
        })
        .collect();
    let exported = flow(&actions, app_of(&actions).as_deref(), title);
    let path = dir.join("flow.yaml");
    codeact_base::files::write_replacing(&path, exported.yaml.as_bytes())?;
    Ok((path, exported))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn action(tool: &str, args: &[&str]) -> Action {
        Action::with_effect(tool, args, "")
    }

    #[test]
    fn actions_become_commands_and_back() {
        let actions = [
            action("stop_app", &["\"com.x\""]),
            action("start_app", &["\"com.x\""]),
            action("wait_for", &["\"Log in\"", "17000"]),
            action("tap", &["\"Log in\""]),
            action("input_text", &["\"héllo \\\"you\\\"\""]),
            action("tap", &["#{\"id\": \"send\", \"below\": \"To\", \"nth\": 1}"]),
            action("tap", &["0.5", "0.25"]),
            action("find", &["\"x\""]),
            action("shell", &["\"rm -rf /\""]),
            action("assert_visible", &["\"Price (€)\"", "17000"]),
            // A record no call makes (an edited events file): a comment, no panic.
            action("stop_app", &[]),
            action("start_app", &[]),
        ];
        let out = flow(&actions, Some("com.x"), "t");
        let y = &out.yaml;
        assert!(
            y.starts_with("appId: \"com.x\"\nname: \"t\"\n---\n- launchApp: \"com.x\"\n- tapOn: \"Log in\"\n"),
            "{y}"
        );
        assert!(y.contains("- inputText: \"héllo \\\"you\\\"\"\n"), "{y}");
        assert!(
            y.contains("- tapOn: {id: \"send\", below: \"To\", index: 1}\n")
                || y.contains("- tapOn: {below: \"To\", id: \"send\", index: 1}\n"),
            "{y}"
        );
        assert!(y.contains("- tapOn: {point: \"50%, 25%\"}\n"), "{y}");
        assert!(y.contains("# not in Maestro: shell(\"rm -rf /\")\n") && out.left_out.len() == 3, "{y}");
        assert!(y.contains("- assertVisible: \"Price \\\\(€\\\\)\"\n"), "{y}");
        // Back through the converter: the same calls.
        let script = super::super::convert(std::path::Path::new("x.yaml"), y).unwrap().script;
        assert!(script.contains("stop_app(\"com.x\");\nstart_app(\"com.x\");"), "{script}");
        assert!(script.contains("tap(\"Log in\");") && script.contains("tap(0.5000, 0.2500);"), "{script}");
        assert!(script.contains("assert_visible(#{label_matches: \"(?is)Price \\\\(€\\\\)\"}, 17000);"), "{script}");
    }

    /// A watcher that acted between a wait and its tap (the keyboard hidden first)
    /// does not make the wait a command of its own: the flow exports the same
    /// again after a replay.
    #[test]
    fn a_watcher_between_a_wait_and_its_tap_is_no_command() {
        let actions = [
            action("wait_for", &["\"Save\"", "17000"]),
            action("watcher", &["\"keyboard\""]),
            action("tap", &["\"Save\""]),
            action("stop_app", &["\"com.x\""]),
            action("watcher", &["\"dialog\""]),
            action("start_app", &["\"com.x\""]),
        ];
        let y = flow(&actions, Some("com.x"), "t").yaml;
        assert!(!y.contains("extendedWaitUntil"), "{y}");
        assert!(y.contains("- tapOn: \"Save\"\n- launchApp: \"com.x\"\n"), "{y}");
    }
}
