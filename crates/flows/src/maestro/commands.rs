//! Maestro's commands as Rhai, one at a time, each under a comment naming its
//! line in the flow. Waiting is Maestro's: a tap or an assertion waits up to 17 s
//! for its element (7 s when `optional`), as Maestro's lookups do; `launchApp`
//! stops the app first unless `stopApp: false`. A command codeact has no
//! counterpart for is an error naming it and its line. Not here: selectors and
//! texts (`selectors.rs`), reading files (`mod.rs`).

use std::path::{Path, PathBuf};

pub use super::budget::Budget;
use super::budget::screenshot_name;
use super::error::FlowError;
use super::selectors::{boolean, number, point, selector, text_expr};
use super::yaml::{FlowFile, Node, Value};
use codeact_engine::emit::rhai::string as rhai_string;
use codeact_tools::call::ToolCall;

/// How long Maestro looks for an element before a command fails.
pub const LOOKUP_MS: i64 = 17_000;
/// How long it looks for an optional one.
pub const OPTIONAL_LOOKUP_MS: i64 = 7_000;

/// Reads the flows `runFlow` names.
pub trait FlowFiles {
    /// The flow `name` names, relative to the folder `from`, and where it is.
    fn read(&self, from: &Path, name: &str, line: usize) -> Result<(PathBuf, FlowFile), FlowError>;
}

/// What the commands need from their flow.
pub struct Context<'a> {
    /// The flow's `appId`.
    pub app_id: Option<String>,
    /// Variables the commands read (`${NAME}`).
    pub names: &'a mut Vec<String>,
    pub files: &'a dyn FlowFiles,
    /// The flow's folder: where the files it runs are found.
    pub dir: PathBuf,
    /// What the whole conversion has produced so far.
    pub budget: &'a Budget,
    /// The inlined flow file these commands are from (`None`: the flow itself),
    /// as `runFlow` named it: each command's marker names its line there.
    pub file: Option<String>,
}

fn unsupported(line: usize, what: &str, why: &'static str) -> FlowError {
    FlowError::Unsupported { line, what: what.to_string(), why }
}

/// The command's name and its argument (`- back` has none).
fn split(command: &Node) -> Result<(&str, Option<&Node>), FlowError> {
    match &command.value {
        Value::Text(name) => Ok((name, None)),
        Value::Map(entries) if entries.len() == 1 => Ok((&entries[0].0, Some(&entries[0].1))),
        _ => Err(unsupported(command.line, "this command", "a command is `- name` or `- name: argument`")),
    }
}

/// The app a command names, else the flow's.
fn app_of(arg: Option<&Node>, key: &str, cx: &mut Context, line: usize) -> Result<String, FlowError> {
    let named = match arg {
        Some(n) if n.text().is_some() => n.text(),
        Some(n) => n.get(key).and_then(Node::text),
        None => None,
    };
    match named.or(cx.app_id.as_deref()) {
        Some(app) => text_expr(app, line, cx.names),
        None => {
            Err(unsupported(line, "this command", "it needs an app: give appId in the flow's config or the command"))
        }
    }
}

/// A key of the command's map.
fn key<'n>(arg: Option<&'n Node>, name: &str) -> Option<&'n Node> {
    arg.and_then(|a| a.get(name))
}

fn optional(arg: Option<&Node>) -> Result<bool, FlowError> {
    key(arg, "optional").map_or(Ok(false), |n| boolean(n, "optional"))
}

/// `body` as is, or run and its failure ignored when the command is optional.
fn maybe_optional(body: String, optional: bool, pad: &str) -> String {
    if !optional {
        return body;
    }
    let inner: String = body.lines().map(|l| format!("    {l}\n")).collect();
    format!("{pad}try {{\n{inner}{pad}}} catch (e) {{\n{pad}    print(`optional step skipped: ${{e}}`);\n{pad}}}\n")
}

/// A direction word as codeact's.
fn direction(node: &Node) -> Result<&'static str, FlowError> {
    match node.text().map(str::to_ascii_uppercase).as_deref() {
        Some("DOWN") => Ok("down"),
        Some("UP") => Ok("up"),
        Some("LEFT") => Ok("left"),
        Some("RIGHT") => Ok("right"),
        _ => Err(unsupported(node.line, "this direction", "a direction is UP, DOWN, LEFT or RIGHT")),
    }
}

/// A swipe across the screen in a direction, as Maestro draws it (the finger moves that way).
fn swipe_for(direction: &str) -> &'static str {
    match direction {
        "left" => "0.9, 0.5, 0.1, 0.5",
        "right" => "0.1, 0.5, 0.9, 0.5",
        "up" => "0.5, 0.8, 0.5, 0.2",
        _ => "0.5, 0.2, 0.5, 0.8",
    }
}

/// A key Maestro's pressKey names, as press_key's.
fn key_name(name: &str) -> Option<&'static str> {
    Some(match name.to_ascii_lowercase().as_str() {
        "enter" => "enter",
        "home" => "home",
        "back" => "back",
        "backspace" => "delete",
        "tab" => "tab",
        "escape" => "KEYCODE_ESCAPE",
        "volume up" => "KEYCODE_VOLUME_UP",
        "volume down" => "KEYCODE_VOLUME_DOWN",
        "power" | "lock" => "KEYCODE_POWER",
        "remote dpad up" => "KEYCODE_DPAD_UP",
        "remote dpad down" => "KEYCODE_DPAD_DOWN",
        "remote dpad left" => "KEYCODE_DPAD_LEFT",
        "remote dpad right" => "KEYCODE_DPAD_RIGHT",
        "remote dpad center" => "KEYCODE_DPAD_CENTER",
        "remote media play pause" => "KEYCODE_MEDIA_PLAY_PAUSE",
        _ => return None,
    })
}

/// The Rhai for one command, each line after `pad`.
pub fn command(node: &Node, cx: &mut Context, pad: &str, depth: usize) -> Result<String, FlowError> {
    let line = node.line;
    cx.budget.command(line)?;
    let (name, arg) = split(node)?;
    let marker = match &cx.file {
        None => format!("line {line}: {name}"),
        Some(file) => format!("line {line} of {file}: {name}"),
    };
    let mut out = format!("{pad}{}\n", codeact_engine::emit::rhai::comment(&marker));
    let text_arg = |cx: &mut Context| -> Result<String, FlowError> {
        let t = arg.and_then(Node::text).ok_or_else(|| unsupported(line, name, "it takes a text"))?;
        text_expr(t, line, cx.names)
    };
    let body = match name {
        "launchApp" => {
            let app = app_of(arg, "appId", cx, line)?;
            let mut body = String::new();
            if key(arg, "stopApp").map_or(Ok(true), |n| boolean(n, "stopApp"))? {
                body.push_str(&format!("{pad}stop_app({app});\n"));
            }
            if key(arg, "clearState").map_or(Ok(false), |n| boolean(n, "clearState"))? {
                body.push_str(&format!("{pad}clear_app_data({app});\n"));
            }
            for unsupported_key in ["arguments", "launchArguments"] {
                if key(arg, unsupported_key).is_some() {
                    return Err(unsupported(
                        line,
                        &format!("launchApp's `{unsupported_key}`"),
                        "codeact starts an app without extras",
                    ));
                }
            }
            if let Some(p) = key(arg, "permissions") {
                let all_allowed = p.get("all").and_then(Node::text) == Some("allow")
                    && matches!(&p.value, Value::Map(m) if m.len() == 1);
                if !all_allowed {
                    return Err(unsupported(
                        p.line,
                        "launchApp's `permissions`",
                        "codeact answers permission dialogs with its watchers (as `all: allow`)",
                    ));
                }
            }
            body.push_str(&format!("{pad}start_app({app});\n"));
            body
        }
        "tapOn" | "longPressOn" => {
            let arg = arg.ok_or_else(|| unsupported(line, name, "it needs a selector or a point"))?;
            let tool = if name == "tapOn" { "tap" } else { "long_press" };
            let optional = optional(Some(arg))?;
            let body = match arg.get("point").and_then(Node::text) {
                Some(p) if matches!(&arg.value, Value::Map(m) if m.iter().all(|(k, _)| ["point", "label", "optional", "retryTapIfNoChange", "waitToSettleTimeoutMs"].contains(&k.as_str()))) =>
                {
                    format!("{pad}{tool}({});\n", point(p, line)?)
                }
                Some(_) => {
                    return Err(unsupported(
                        line,
                        "a point inside an element",
                        "codeact taps an element's centre; give the point alone",
                    ));
                }
                None => {
                    let sel = selector(arg, cx.names)?;
                    let wait = if optional { OPTIONAL_LOOKUP_MS } else { LOOKUP_MS };
                    let times = key(Some(arg), "repeat").map_or(Ok(1), |n| number(n, "repeat"))?;
                    let once = format!("{pad}wait_for({sel}, {wait});\n{pad}{tool}({sel});\n");
                    match times {
                        1 => once,
                        n => format!(
                            "{pad}for maestro_repeat in 0..{n} {{\n{}{pad}}}\n",
                            once.lines().map(|l| format!("    {l}\n")).collect::<String>()
                        ),
                    }
                }
            };
            maybe_optional(body, optional, pad)
        }
        "inputText" => format!("{pad}input_text({});\n", text_arg(cx)?),
        "eraseText" => {
            let n = match arg {
                None => 50,
                Some(a) if a.text().is_some() => number(a, name)?,
                Some(a) => a.get("charactersToErase").map_or(Ok(50), |n| number(n, "charactersToErase"))?,
            };
            format!("{pad}erase({n});\n")
        }
        "assertVisible" | "assertNotVisible" => {
            let arg = arg.ok_or_else(|| unsupported(line, name, "it needs a selector"))?;
            let tool = if name == "assertVisible" { "assert_visible" } else { "assert_not_visible" };
            let optional = optional(Some(arg))?;
            let wait = if optional { OPTIONAL_LOOKUP_MS } else { LOOKUP_MS };
            maybe_optional(format!("{pad}{tool}({}, {wait});\n", selector(arg, cx.names)?), optional, pad)
        }
        "extendedWaitUntil" => {
            let arg = arg.ok_or_else(|| unsupported(line, name, "it needs visible: or notVisible:"))?;
            let timeout = key(Some(arg), "timeout").map_or(Ok(LOOKUP_MS), |n| number(n, "timeout"))?;
            let body = match (arg.get("visible"), arg.get("notVisible")) {
                (Some(sel), None) => format!("{pad}wait_for({}, {timeout});\n", selector(sel, cx.names)?),
                (None, Some(sel)) => format!("{pad}wait_gone({}, {timeout});\n", selector(sel, cx.names)?),
                _ => return Err(unsupported(line, name, "it takes one of visible: or notVisible:")),
            };
            maybe_optional(body, optional(Some(arg))?, pad)
        }
        "scroll" => format!("{pad}swipe(0.5, 0.7, 0.5, 0.3, 400);\n"),
        "scrollUntilVisible" => {
            let arg = arg.ok_or_else(|| unsupported(line, name, "it needs an element"))?;
            let (element, dir) = match arg.get("element") {
                Some(el) => (el, arg.get("direction").map_or(Ok("down"), direction)?),
                None => (arg, "down"),
            };
            let sel = selector(element, cx.names)?;
            let body = match dir {
                "down" | "up" => format!("{pad}scroll_until_visible({sel}, \"{dir}\");\n"),
                side => format!(
                    "{pad}{{\n{pad}    let swipes = 0;\n{pad}    while find({sel}) == () && swipes < 15 {{\n{pad}        swipe({}, 400);\n{pad}        swipes += 1;\n{pad}    }}\n{pad}    assert_visible({sel}, 0);\n{pad}}}\n",
                    swipe_for(if side == "left" { "right" } else { "left" })
                ),
            };
            maybe_optional(body, optional(Some(arg))?, pad)
        }
        "swipe" => {
            let arg = arg.ok_or_else(|| unsupported(line, name, "it needs a direction, or start and end"))?;
            let ms = key(Some(arg), "duration").map_or(Ok(400), |n| number(n, "duration"))?;
            match (
                arg.get("from"),
                arg.get("direction"),
                arg.get("start").and_then(Node::text),
                arg.get("end").and_then(Node::text),
            ) {
                (Some(from), Some(d), _, _) => {
                    format!("{pad}swipe_on({}, \"{}\");\n", selector(from, cx.names)?, direction(d)?)
                }
                (None, Some(d), _, _) => format!("{pad}swipe({}, {ms});\n", swipe_for(direction(d)?)),
                (None, None, Some(start), Some(end)) => {
                    format!("{pad}swipe({}, {}, {ms});\n", point(start, line)?, point(end, line)?)
                }
                _ => return Err(unsupported(line, name, "it takes direction:, or start: and end: points")),
            }
        }
        "back" => format!("{pad}back();\n"),
        "hideKeyboard" => format!("{pad}hide_keyboard();\n"),
        "pressKey" => {
            let k = arg.and_then(Node::text).ok_or_else(|| unsupported(line, name, "it takes a key name"))?;
            let code = key_name(k).ok_or_else(|| unsupported(line, &format!("pressKey {k:?}"), "codeact presses Enter, Home, Back, Backspace, Tab, Escape, Volume Up/Down, Power, Lock and Remote Dpad keys"))?;
            format!("{pad}press_key({});\n", rhai_string(code))
        }
        "openLink" => {
            let link = match arg {
                Some(a) if a.text().is_some() => a,
                Some(a) => a.get("link").ok_or_else(|| unsupported(line, name, "it takes a link"))?,
                None => return Err(unsupported(line, name, "it takes a link")),
            };
            format!("{pad}open_url({});\n", text_expr(link.text().unwrap_or_default(), line, cx.names)?)
        }
        // The runtime settles every screen before it reads it: one read waits the animation out.
        "waitForAnimationToEnd" => format!("{pad}refresh();\n"),
        "takeScreenshot" => {
            let shot = match arg {
                Some(a) if a.text().is_some() => a.text(),
                Some(a) => {
                    if a.get("cropOn").is_some() {
                        return Err(unsupported(line, "cropOn", "codeact saves the whole screen"));
                    }
                    a.get("path").and_then(Node::text)
                }
                None => None,
            };
            let path = shot.ok_or_else(|| unsupported(line, name, "it takes the file's path"))?;
            let name = screenshot_name(path, line, cx.budget)?;
            format!("{pad}screenshot({});\n", rhai_string(&name))
        }
        "stopApp" | "killApp" => format!("{pad}stop_app({});\n", app_of(arg, "appId", cx, line)?),
        "clearState" => format!("{pad}clear_app_data({});\n", app_of(arg, "appId", cx, line)?),
        "copyTextFrom" => {
            let arg = arg.ok_or_else(|| unsupported(line, name, "it needs a selector"))?;
            let sel = selector(arg, cx.names)?;
            format!("{pad}let maestro_copied_text = wait_for({sel}, {LOOKUP_MS}).text;\n")
        }
        "pasteText" => format!("{pad}input_text(maestro_copied_text);\n"),
        "runFlow" => run_flow(arg, cx, pad, depth, line)?,
        "repeat" => {
            let arg = arg.ok_or_else(|| unsupported(line, name, "it needs times: or while:, and commands:"))?;
            let inner = commands_of(arg, cx, pad, depth, line)?;
            match (arg.get("times"), arg.get("while")) {
                (Some(t), None) => {
                    format!("{pad}for maestro_repeat in 0..{} {{\n{inner}{pad}}}\n", number(t, "times")?)
                }
                (None, Some(cond)) => format!("{pad}while {} {{\n{inner}{pad}}}\n", condition(cond, cx)?),
                _ => return Err(unsupported(line, name, "it takes times: or while: (visible: / notVisible:)")),
            }
        }
        "evalScript" | "runScript" | "assertTrue" => {
            return Err(unsupported(
                line,
                name,
                "codeact runs no JavaScript: write the step in Rhai (`codeact convert` prints the flow as a script to edit)",
            ));
        }
        "assertWithAI" | "assertNoDefectsWithAI" | "extractTextWithAI" => {
            return Err(unsupported(line, name, "use a selector assertion, or #{ai: ...} selectors in a Rhai script"));
        }
        other => return Err(FlowError::UnknownCommand { line, command: other.to_string() }),
    };
    out.push_str(&body);
    cx.budget.written(line, out.len())?;
    Ok(out)
}

/// A `when:`/`while:` condition: `visible:` or `notVisible:`.
fn condition(cond: &Node, cx: &mut Context) -> Result<String, FlowError> {
    match (cond.get("visible"), cond.get("notVisible")) {
        (Some(sel), None) => Ok(format!("{} != ()", ToolCall::find(&selector(sel, cx.names)?).expr())),
        (None, Some(sel)) => Ok(format!("{} == ()", ToolCall::find(&selector(sel, cx.names)?).expr())),
        _ => Err(unsupported(
            cond.line,
            "this condition",
            "codeact checks visible: or notVisible: (and platform: in when:)",
        )),
    }
}

/// The commands of a `commands:` list, one level in.
fn commands_of(arg: &Node, cx: &mut Context, pad: &str, depth: usize, line: usize) -> Result<String, FlowError> {
    let Some(Value::List(items)) = arg.get("commands").map(|c| &c.value) else {
        return Err(unsupported(line, "this block", "it needs a commands: list"));
    };
    let inner_pad = format!("{pad}    ");
    let mut out = String::new();
    for item in items {
        out.push_str(&command(item, cx, &inner_pad, depth + 1)?);
    }
    Ok(out)
}

/// `runFlow`: another file's commands, or inline ones, under a condition.
fn run_flow(arg: Option<&Node>, cx: &mut Context, pad: &str, depth: usize, line: usize) -> Result<String, FlowError> {
    let arg = arg.ok_or_else(|| unsupported(line, "runFlow", "it takes a file, or file:/commands:"))?;
    if depth > 16 {
        return Err(unsupported(line, "runFlow", "flows run flows more than 16 deep (a circle?)"));
    }
    let inner_pad = format!("{pad}    ");
    let env: Vec<(String, Node)> = match arg.get("env").map(|e| &e.value) {
        Some(Value::Map(m)) => m.clone(),
        _ => Vec::new(),
    };
    let mut body = String::new();
    for (k, v) in &env {
        let value = v.text().ok_or_else(|| unsupported(v.line, k, "an env value is a text"))?;
        body.push_str(&format!(
            "{inner_pad}let {} = {};\n",
            super::error::variable(k, v.line)?,
            text_expr(value, v.line, cx.names)?
        ));
    }
    let file = arg.text().or_else(|| arg.get("file").and_then(Node::text));
    match file {
        Some(file) => {
            cx.budget.inline_file(line)?;
            let (path, flow) = cx.files.read(&cx.dir, file, line)?;
            let app_id = flow.config.as_ref().and_then(|c| c.get("appId")).and_then(Node::text).map(str::to_string);
            let mut sub = Context {
                app_id: app_id.or_else(|| cx.app_id.clone()),
                names: cx.names,
                files: cx.files,
                dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
                budget: cx.budget,
                file: Some(file.to_string()),
            };
            body.push_str(&flow_body(&flow, &mut sub, &inner_pad, depth + 1)?);
        }
        None => body.push_str(&commands_of(arg, cx, pad, depth, line)?),
    }
    let when = match arg.get("when") {
        None => None,
        Some(w) => match w.get("platform").and_then(Node::text) {
            Some(p) if p.eq_ignore_ascii_case("android") => None,
            Some(_) => return Ok(format!("{pad}// skipped: runs on another platform\n")),
            None => Some(condition(w, cx)?),
        },
    };
    Ok(match when {
        Some(cond) => format!("{pad}if {cond} {{\n{body}{pad}}}\n"),
        None => format!("{pad}{{\n{body}{pad}}}\n"),
    })
}

/// A flow's own part: its env (defaults a caller's variables override), its
/// onFlowStart, its commands, and its onFlowComplete, which runs even when a
/// command failed (the failure is thrown again after it).
pub fn flow_body(flow: &FlowFile, cx: &mut Context, pad: &str, depth: usize) -> Result<String, FlowError> {
    let config = flow.config.as_ref();
    let mut out = String::new();
    if let Some(Value::Map(env)) = config.and_then(|c| c.get("env")).map(|e| &e.value) {
        for (k, v) in env {
            let value = v.text().ok_or_else(|| unsupported(v.line, k, "an env value is a text"))?;
            let name = super::error::variable(k, v.line)?;
            let value = text_expr(value, v.line, cx.names)?;
            out.push_str(&format!(
                "{pad}let {name} = if is_def_var({}) {{ {name} }} else {{ {value} }};\n",
                rhai_string(&name)
            ));
        }
    }
    let hook = |key: &str, cx: &mut Context| -> Result<String, FlowError> {
        let mut code = String::new();
        if let Some(node) = config.and_then(|c| c.get(key)) {
            let Value::List(items) = &node.value else {
                return Err(unsupported(node.line, key, "it takes a list of commands"));
            };
            for item in items {
                code.push_str(&command(item, cx, pad, depth + 1)?);
            }
        }
        Ok(code)
    };
    out.push_str(&hook("onFlowStart", cx)?);
    let mut commands = String::new();
    for item in &flow.commands {
        commands.push_str(&command(item, cx, pad, depth)?);
    }
    let complete = hook("onFlowComplete", cx)?;
    if complete.is_empty() {
        out.push_str(&commands);
    } else {
        let inner: String = commands.lines().map(|l| format!("    {l}\n")).collect();
        out.push_str(&format!("{pad}let maestro_failure = ();\n{pad}try {{\n{inner}{pad}}} catch (e) {{\n{pad}    maestro_failure = e;\n{pad}}}\n"));
        out.push_str(&complete);
        out.push_str(&format!("{pad}if maestro_failure != () {{\n{pad}    throw maestro_failure;\n{pad}}}\n"));
    }
    Ok(out)
}
