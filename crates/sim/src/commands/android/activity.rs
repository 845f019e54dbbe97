//! `am`, `monkey` and `pm`: starting and stopping apps, broadcasts (including the
//! ADBKeyboard ones that type any Unicode text) and the package list.

use base64::Engine as _;

use crate::device::SimDevice;
use crate::shell::Output;
use crate::shell::{fail, ok};
use crate::world::{ADB_KEYBOARD_IME, ActivityStart};

pub(crate) use crate::world::short_component;

/// Drops `--user N` (and `--uid N`) pairs: there is one user, 0.
fn without_user<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut skip = false;
    for a in args {
        if skip {
            skip = false;
        } else if matches!(*a, "--user" | "--uid") {
            skip = true;
        } else {
            out.push(*a);
        }
    }
    out
}

pub(crate) fn am(device: &SimDevice, args: &[&str]) -> Output {
    let args = &without_user(args)[..];
    let Some((&sub, rest)) = args.split_first() else {
        return fail(
            "usage: am [subcommand] [options]\n  start [-W] -n <PACKAGE>/<ACTIVITY>\n  force-stop <PACKAGE>\n  broadcast -a <ACTION> [--es KEY VALUE] [--ei KEY N]\n",
            255,
        );
    };
    match sub {
        "start" | "start-activity" if super::install::starts_helper(device, rest) => {
            super::install::start_helper(device, rest)
        }
        "start" | "start-activity" => start(device, rest),
        "force-stop" | "kill" => {
            let Some(package) = rest.iter().find(|a| !a.starts_with('-')) else {
                return fail("Error: no package specified\n", 255);
            };
            super::install::stop_helper(device, package);
            if package.starts_with("io.appium.uiautomator2.server") {
                device.agents().stop_uia2();
            }
            let mut world = device.world();
            if let Some(app) = world.catalog.app_index(package) {
                world.force_stop(app);
            }
            ok("")
        }
        "broadcast" => broadcast(device, rest),
        _ => fail(&format!("Error: Unknown command: {sub}\n"), 255),
    }
}

/// Parsed `am start` intent options.
#[derive(Default)]
struct Intent {
    action: Option<String>,
    categories: Vec<String>,
    component: Option<String>,
    /// `-d URI`.
    data: Option<String>,
    wait: bool,
    has_extras: bool,
}

/// An option of `am start` without its value, in `am`'s words.
#[derive(Debug, thiserror::Error)]
#[error("Error: No value given for {0}")]
struct MissingValue(String);

fn parse_intent(args: &[&str]) -> Result<Intent, MissingValue> {
    let mut intent = Intent::default();
    let mut i = 0;
    while i < args.len() {
        let value = |n: usize| args.get(i + n).map(|s| s.to_string()).ok_or_else(|| MissingValue(args[i].to_string()));
        match args[i] {
            "-n" => {
                intent.component = Some(value(1)?);
                i += 1;
            }
            "-a" => {
                intent.action = Some(value(1)?);
                i += 1;
            }
            "-c" => {
                intent.categories.push(value(1)?);
                i += 1;
            }
            "-W" => intent.wait = true,
            "-S"
            | "-R"
            | "--activity-clear-top"
            | "--activity-new-task"
            | "--activity-single-top"
            | "--activity-clear-task" => {}
            "-d" => {
                intent.data = Some(value(1)?);
                i += 1;
            }
            "-t" | "-f" | "--user" | "-p" => i += 1,
            "--es" | "--ei" | "--ez" | "--el" | "--ef" | "--eu" | "--esa" => {
                intent.has_extras = true;
                i += 2;
            }
            arg if !arg.starts_with('-') && intent.component.is_none() && arg.contains('/') => {
                intent.component = Some(arg.to_string())
            }
            _ => {}
        }
        i += 1;
    }
    Ok(intent)
}

fn describe(intent: &Intent) -> String {
    let mut parts = Vec::new();
    if let Some(a) = &intent.action {
        parts.push(format!("act={a}"));
    }
    if !intent.categories.is_empty() {
        parts.push(format!("cat=[{}]", intent.categories.join(",")));
    }
    if let Some(d) = &intent.data {
        parts.push(format!("dat={d}"));
    }
    if let Some(c) = &intent.component {
        parts.push(format!("cmp={c}"));
    }
    if intent.has_extras {
        parts.push("(has extras)".into());
    }
    format!("Intent {{ {} }}", parts.join(" "))
}

fn start(device: &SimDevice, args: &[&str]) -> Output {
    let intent = match parse_intent(args) {
        Ok(i) => i,
        Err(e) => return fail(&format!("{e}\n"), 255),
    };
    let starting = format!("Starting: {}\n", describe(&intent));
    if intent.component.is_none()
        && let Some(uri) = &intent.data
    {
        let mut world = device.world();
        return match world.catalog.link_for(uri) {
            Some((app, activity, param)) => {
                world.start_activity(app, &activity, param);
                ok(starting)
            }
            None => {
                let mut out = ok(starting);
                out.stderr =
                    format!("Error: Activity not started, unable to resolve {}\n", describe(&intent)).into_bytes();
                out.code = 255;
                out
            }
        };
    }
    let Some(component) = &intent.component else {
        let mut out = ok(starting);
        out.stderr = format!("Error: Activity not started, unable to resolve {}\n", describe(&intent)).into_bytes();
        out.code = 255;
        return out;
    };
    let Some((package, activity)) = component.split_once('/') else {
        return fail(&format!("Error: Bad component name: {component}\n"), 255);
    };
    let mut world = device.world();
    let app = world.catalog.app_index(package);
    let started = app.map_or(ActivityStart::NotFound, |app| world.start_activity(app, activity, String::new()));
    let mut text = starting;
    match started {
        ActivityStart::NotFound => {
            let mut out = ok(text);
            out.stderr = format!("Error type 3\nError: Activity class {{{component}}} does not exist.\n").into_bytes();
            out.code = 255;
            return out;
        }
        ActivityStart::BroughtToFront => {
            text.push_str("Warning: Activity not started, its current task has been brought to the front\n");
        }
        ActivityStart::Launched => {}
    }
    if intent.wait {
        let full = world.activity();
        text.push_str(&format!(
            "Status: ok\nLaunchState: COLD\nActivity: {}\nTotalTime: 180\nWaitTime: 182\nComplete\n",
            short_component(package, &full)
        ));
    }
    ok(text)
}

fn broadcast(device: &SimDevice, args: &[&str]) -> Output {
    let mut action = None;
    let mut extras: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i] {
            "-a" => {
                action = args.get(i + 1).map(|s| s.to_string());
                i += 1;
            }
            "--es" | "--ei" | "--ez" | "--el" => {
                if let (Some(k), Some(v)) = (args.get(i + 1), args.get(i + 2)) {
                    extras.push((k.to_string(), v.to_string()));
                }
                i += 2;
            }
            "-n" | "-p" | "--user" | "-f" => i += 1,
            _ => {}
        }
        i += 1;
    }
    let extra = |key: &str| extras.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let component = args.windows(2).find(|w| w[0] == "-n").map(|w| w[1]);
    if let Some(out) = component.and_then(|c| super::settings_helper::broadcast(device, c, action.as_deref(), &extra)) {
        return out;
    }
    let mut world = device.world();
    // ADBKeyboard only listens while it is the current input method.
    if world.ime == ADB_KEYBOARD_IME {
        match action.as_deref() {
            Some("ADB_INPUT_TEXT") => {
                if let Some(text) = extra("msg") {
                    world.type_text(&text);
                }
            }
            Some("ADB_INPUT_B64") => {
                let decoded = extra("msg")
                    .and_then(|m| base64::engine::general_purpose::STANDARD.decode(m.trim()).ok())
                    .and_then(|b| String::from_utf8(b).ok());
                if let Some(text) = decoded {
                    world.type_text(&text);
                }
            }
            Some("ADB_CLEAR_TEXT") => {
                world.clear_text();
            }
            Some("ADB_INPUT_CODE") => {
                if let Some(code) = extra("code").and_then(|c| c.parse().ok()) {
                    world.key(code);
                }
            }
            _ => {}
        }
    }
    let act = action.map(|a| format!("act={a} ")).unwrap_or_default();
    let extras_note = if extras.is_empty() { "" } else { " (has extras)" };
    ok(format!("Broadcasting: Intent {{ {act}flg=0x400000{extras_note} }}\nBroadcast completed: result=0\n"))
}

pub(crate) fn monkey(device: &SimDevice, args: &[&str]) -> Output {
    let mut text = String::new();
    for a in args {
        text.push_str(&format!("  bash arg: {a}\n"));
    }
    let package = args.iter().position(|a| *a == "-p").and_then(|i| args.get(i + 1));
    let Some(package) = package else {
        return fail("** Error: no package specified; monkey needs -p PACKAGE here\n", 255);
    };
    let mut world = device.world();
    let launched = world.catalog.app_index(package).is_some_and(|app| world.launch(app));
    if !launched {
        return Output {
            stdout: text.into_bytes(),
            stderr: b"** No activities found to run, monkey aborted.\n".to_vec(),
            code: 252,
        };
    }
    text.push_str("Events injected: 1\n## Network stats: elapsed time=8ms (0ms mobile, 0ms wifi, 8ms not connected)\n");
    ok(text)
}

pub(crate) fn pm(device: &SimDevice, args: &[&str]) -> Output {
    let args = &without_user(args)[..];
    let world = device.world();
    let catalog = world.catalog.clone();
    drop(world);
    let Some((&sub, rest)) = args.split_first() else {
        return fail(
            "usage: pm list packages [-3] [-s] [-f] [FILTER]\n       pm path PACKAGE\n       pm clear PACKAGE\n",
            255,
        );
    };
    let extra: Vec<String> = device.world().installed.keys().cloned().collect();
    let installed = || {
        catalog
            .apps
            .iter()
            .map(|a| (a.package.clone(), a.system))
            .chain(catalog.world.system_packages.iter().map(|p| (p.clone(), true)))
            .chain(extra.iter().map(|p| (p.clone(), false)))
    };
    let apk = crate::apk::path_of;
    match (sub, rest.first()) {
        ("list", Some(&"packages")) => {
            let flags: Vec<&str> = rest[1..].iter().copied().filter(|a| a.starts_with('-')).collect();
            let filter = rest[1..].iter().find(|a| !a.starts_with('-')).copied().unwrap_or("");
            let mut text = String::new();
            for (package, system) in installed() {
                if (flags.contains(&"-3") && system) || (flags.contains(&"-s") && !system) || !package.contains(filter)
                {
                    continue;
                }
                if flags.contains(&"-f") {
                    text.push_str(&format!("package:{}={package}\n", apk(&package, system)));
                } else {
                    text.push_str(&format!("package:{package}\n"));
                }
            }
            ok(text)
        }
        ("path", Some(package)) => match installed().find(|(p, _)| p == package) {
            Some((p, system)) => ok(format!("package:{}\n", apk(&p, system))),
            None => fail("", 1),
        },
        // `cmd package resolve-activity --brief PACKAGE`: the launcher activity, as
        // DroidRun's start_app reads it (the component on the second line).
        ("resolve-activity", _) => {
            let Some(package) = rest.iter().find(|a| !a.starts_with('-')) else {
                return fail("Error: package name not specified\n", 255);
            };
            let app = catalog.apps.iter().find(|a| &a.package == package);
            match app.and_then(|a| a.launcher.as_deref().map(|l| (a, l))) {
                Some((app, launcher)) => {
                    let short = launcher.strip_prefix(app.package.as_str()).filter(|s| s.starts_with('.'));
                    let component = format!("{}/{}", app.package, short.unwrap_or(launcher));
                    ok(format!(
                        "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\n{component}\n"
                    ))
                }
                None => ok("No activity found\n"),
            }
        }
        ("clear", Some(package)) => {
            let mut world = device.world();
            match world.catalog.app_index(package) {
                Some(app) => {
                    world.clear_app_data(app);
                    ok("Success\n")
                }
                None => fail("Failed\n", 1),
            }
        }
        ("install-create", _) => fail(
            "Failure [INSTALL_FAILED_INVALID_APK: the virtual phone takes one APK at a time (adb install FILE), not install sessions]\n",
            1,
        ),
        _ => fail(&format!("Unknown command: {sub}\n"), 255),
    }
}
