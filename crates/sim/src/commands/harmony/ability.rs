//! `aa` (the ability assistant: start, force-stop, the mission list) and `bm` (the
//! bundle manager: list, describe, clean) in the words HarmonyOS prints. Both exit 0
//! even when they fail, as the real tools do: callers read the text (`error:`).
//!
//! An app's activities are its abilities: the ability name is the activity's class
//! name without the leading dot (`.DisplaySettings` → `DisplaySettings`), and `aa
//! start -a` also takes the class's last part (`activities.MainActivity` or
//! `MainActivity`). The launcher is the system's home, not a mission.

use serde_json::json;

use crate::device::SimDevice;
use crate::shell::Output;
use crate::shell::ok;
use crate::world::{ActivityStart, LAUNCHER_PACKAGE, spec::AppSpec};

/// The ability an activity is shown as.
pub(super) fn ability_of(activity: &str) -> String {
    activity.trim_start_matches('.').to_string()
}

/// The activity of `app` that `ability` names: exactly, with its leading dot, or by
/// the class's last part when only one activity ends so.
fn resolve_ability(app: &AppSpec, ability: &str) -> Option<String> {
    let ability = ability.trim_start_matches('.');
    let activities: Vec<&str> = app.screens.iter().map(|s| s.activity.as_str()).collect();
    if let Some(a) = activities.iter().find(|a| ability_of(a) == ability || app.full_activity(a) == ability) {
        return Some(a.to_string());
    }
    let by_last: Vec<&&str> = activities.iter().filter(|a| a.rsplit('.').next() == Some(ability)).collect();
    match by_last.as_slice() {
        [one] => Some(one.to_string()),
        _ => None,
    }
}

const AA_USAGE: &str = "usage: aa <command> <options>\nThese are common aa commands list:\n  help                        list available commands\n  start                       start ability with options\n  stop-service                stop service with options\n  dump                        dump the ability info\n  force-stop                  force stop the process with bundle name\n";

const START_FAILED: &str = "error: failed to start ability.\n";

/// The value after `flag` in `args`.
fn option<'a>(args: &[&'a str], flag: &str) -> Option<&'a str> {
    args.iter().position(|a| *a == flag).and_then(|i| args.get(i + 1)).copied()
}

pub(super) fn aa(device: &SimDevice, args: &[&str]) -> Output {
    match args.split_first() {
        Some((&"start", rest)) => start(device, rest),
        Some((&"force-stop", rest)) => match rest.first() {
            Some(bundle) => {
                let mut world = device.world();
                match world.catalog.app_index(bundle) {
                    Some(app) => {
                        world.force_stop(app);
                        ok("force stop process successfully.\n")
                    }
                    None => ok("error: failed to force stop process.\nerror: get bundle info failed.\n"),
                }
            }
            None => ok(format!("error: option requires a value.\n{AA_USAGE}")),
        },
        Some((&"dump", rest)) if rest.first().is_some_and(|a| matches!(*a, "-l" | "--mission-list")) => {
            ok(mission_list(device))
        }
        Some((&"help", _)) | None => ok(AA_USAGE),
        Some((sub, _)) => ok(format!("error: {sub} is not a valid command.\n{AA_USAGE}")),
    }
}

/// `aa start -b BUNDLE -a ABILITY [-m MODULE]`, or `aa start -U URI`.
fn start(device: &SimDevice, args: &[&str]) -> Output {
    let not_found =
        || ok(format!("{START_FAILED}Error Code:10104001  Error Message:The specified ability does not exist\n"));
    let mut world = device.world();
    if let Some(uri) = option(args, "-U") {
        return match world.catalog.link_for(uri) {
            Some((app, activity, param)) => {
                world.start_activity(app, &activity, param);
                ok("start ability successfully.\n")
            }
            None => ok(format!("{START_FAILED}Error Code:10104001  Error Message:No ability matches the want\n")),
        };
    }
    let (Some(bundle), Some(ability)) = (option(args, "-b"), option(args, "-a")) else {
        return not_found();
    };
    let Some(app) = world.catalog.app_index(bundle) else {
        return ok(format!("{START_FAILED}Error Code:10104001  Error Message:The specified ability does not exist\n"));
    };
    let Some(activity) = resolve_ability(&world.catalog.apps[app], ability) else { return not_found() };
    match world.start_activity(app, &activity, String::new()) {
        ActivityStart::NotFound => not_found(),
        _ => ok("start ability successfully.\n"),
    }
}

/// `aa dump -l`: one mission per task, the front one `#FOREGROUND`.
fn mission_list(device: &SimDevice) -> String {
    let world = device.world();
    let mut out = String::from("User ID #100\n  current mission lists:{\n");
    let count = world.tasks.len();
    for (i, task) in world.tasks.iter().enumerate() {
        let Some(top) = task.stack.last() else { continue };
        let Some(app) = world.catalog.apps.get(top.app) else { continue };
        if app.package == LAUNCHER_PACKAGE {
            continue;
        }
        let activity = app.screens.get(top.screen).map(|s| s.activity.as_str()).unwrap_or("");
        let ability = ability_of(activity);
        let bundle = &app.package;
        let state = if i + 1 == count { "FOREGROUND" } else { "BACKGROUND" };
        out.push_str(&format!(
            "    Mission ID #{id}  mission name #[#{bundle}:entry:{ability}]  lockedState #0  mission affinity #[]\n      AbilityRecord ID #{record}\n        app name [{bundle}]\n        main name [{ability}]\n        bundle name [{bundle}]\n        ability type [PAGE]\n        state #{state}  start time [{start}]\n        app state #{state}\n        ready #1  window attached #0  launcher #0\n        callee connections:\n        isKeepAlive: false\n",
            id = 100 + task.id,
            record = 40 + task.id,
            start = 150_000 + task.id * 37,
        ));
    }
    out.push_str(" }\n");
    out
}

const BM_USAGE: &str = "usage: bm <command> <options>\nThese are common bm commands list:\n  help         list available commands\n  install      install a bundle with options\n  uninstall    uninstall a bundle with options\n  dump         dump the bundle info\n  clean        clean the bundle data\n";

pub(super) fn bm(device: &SimDevice, args: &[&str]) -> Output {
    let world = device.world();
    let catalog = world.catalog.clone();
    drop(world);
    match args.split_first() {
        Some((&"dump", rest)) if rest.first() == Some(&"-a") => {
            let mut out = String::from("ID: 100:\n");
            let bundles = catalog
                .apps
                .iter()
                .map(|a| a.package.as_str())
                .chain(catalog.world.system_packages.iter().map(String::as_str));
            for bundle in bundles {
                out.push_str(&format!("\t{bundle}\n"));
            }
            ok(out)
        }
        Some((&"dump", rest)) if option(rest, "-n").is_some() => {
            let bundle = option(rest, "-n").unwrap_or("");
            match catalog.apps.iter().find(|a| a.package == bundle) {
                Some(app) => ok(format!("{bundle}:\n{}\n", bundle_info(app))),
                None => ok("error: failed to get information and the parameters may be wrong.\n"),
            }
        }
        Some((&"clean", rest)) => {
            let Some(bundle) = option(rest, "-n") else {
                return ok(format!("error: option requires a value.\n{BM_USAGE}"));
            };
            let (data, cache) = (rest.contains(&"-d"), rest.contains(&"-c"));
            if !data && !cache {
                return ok("error: you must specify '-c' or '-d' for 'bm clean' option.\n");
            }
            let mut world = device.world();
            match world.catalog.app_index(bundle) {
                Some(app) if data => {
                    world.clear_app_data(app);
                    ok("clean bundle data files successfully.\n")
                }
                Some(_) => ok("clean bundle cache files successfully.\n"),
                None if data => ok("error: failed to clean bundle data files.\n"),
                None => ok("error: failed to clean bundle cache files.\n"),
            }
        }
        Some((&"install", _)) => ok(
            "error: failed to install bundle.\ncode:9568269 error: the virtual phone runs only the apps described in its data files; add one there (codeact sim --world DIR)\n",
        ),
        Some((&"help", _)) | None => ok(BM_USAGE),
        Some((sub, _)) => ok(format!("error: {sub} is not a valid command.\n{BM_USAGE}")),
    }
}

/// `bm dump -n BUNDLE`'s JSON, with the fields clients read: the main ability, the
/// entry module and each ability (the main one with the home skill).
fn bundle_info(app: &AppSpec) -> String {
    let main = app.launcher.as_deref().map(ability_of).unwrap_or_default();
    let abilities: Vec<serde_json::Value> = app
        .screens
        .iter()
        .map(|s| {
            let name = ability_of(&s.activity);
            let skills = if name == main {
                json!([{"actions": ["action.system.home"], "entities": ["entity.system.home"]}])
            } else {
                json!([])
            };
            json!({"bundleName": app.package, "moduleName": "entry", "name": name, "label": s.title, "skills": skills, "visible": name == main})
        })
        .collect();
    let info = json!({
        "applicationInfo": {"bundleName": app.package, "label": app.label, "isSystemApp": app.system},
        "entryModuleName": "entry",
        "mainEntry": "entry",
        "name": app.package,
        "versionCode": 1000000,
        "versionName": "1.0.0",
        "hapModuleInfos": [{"moduleName": "entry", "name": "entry", "mainAbility": main, "mainElementName": main, "abilityInfos": abilities}],
    });
    serde_json::to_string_pretty(&info).unwrap_or_default()
}
