//! System tools: `wm`, `dumpsys`, `getprop`, `settings`, `ime`, `svc` and
//! `cmd wifi`, printing what an Android 14 device prints.

use super::activity::short_component;
use super::token;
use crate::device::SimDevice;
use crate::shell::Output;
use crate::shell::{fail, ok};
use crate::world::template::Value;
use crate::world::{ADB_KEYBOARD_IME, LATIN_IME, PORTAL_IME, ScreenInstance, World};

pub(crate) fn wm(device: &SimDevice, args: &[&str]) -> Output {
    let c = device.config();
    match args {
        ["size"] => ok(format!("Physical size: {}x{}\n", c.width, c.height)),
        ["density"] => ok(format!("Physical density: {}\n", c.density)),
        ["size", _] | ["density", _] => fail(
            "Error: the virtual device's screen is fixed for its life; restart it with `codeact sim --size WxH --density DPI`\n",
            255,
        ),
        _ => fail("usage: wm size|density\n", 255),
    }
}

/// `ActivityRecord{hash u0 pkg/.Act tN}` for one screen of a task.
fn activity_record(world: &World, task_id: u32, inst: &ScreenInstance) -> Option<String> {
    let app = world.catalog.apps.get(inst.app)?;
    let full = app.full_activity(&app.screens.get(inst.screen)?.activity);
    Some(format!(
        "ActivityRecord{{{} u0 {} t{task_id}}}",
        token(&format!("r{full}")),
        short_component(&app.package, &full)
    ))
}

pub(crate) fn dumpsys(device: &SimDevice, args: &[&str]) -> Output {
    if let ["package", package, ..] = args
        && !package.starts_with('-')
    {
        return super::install::dumpsys_package(device, package);
    }
    if let ["activity", "services", name, ..] = args {
        return super::install::dumpsys_services(device, name);
    }
    if let ["activity", "processes" | "p", ..] = args {
        return super::process::dumpsys_processes(device);
    }
    let world = device.world();
    let top = world.tasks.last().and_then(|t| Some((t.id, t.stack.last()?)));
    let record = top.and_then(|(id, inst)| activity_record(&world, id, inst)).unwrap_or_else(|| "null".into());
    let package = world.foreground_package();
    let activity = world.activity();
    let window = if package.is_empty() {
        "null".to_string()
    } else {
        format!("Window{{{} u0 {package}/{activity}}}", token(&activity))
    };
    let ime_window = format!("Window{{{} u0 InputMethod}}", token("ime"));
    match args {
        ["window", ..] => {
            let c = device.config();
            let dp = |px: u32| px * 160 / c.density.max(1);
            let mut text = String::from("WINDOW MANAGER WINDOWS (dumpsys window windows)\n");
            if world.keyboard_shown {
                text.push_str(&format!("  Window #1 {ime_window}:\n    mHasSurface=true isReadyForDisplay()=true\n"));
            }
            text.push_str(&format!("  Window #0 {window}:\n    mHasSurface=true isReadyForDisplay()=true\n"));
            text.push_str(&format!(
                "\n  mGlobalConfiguration={{1.0 ?mcc?mnc [en_US] ldltr sw{}dp w{}dp h{}dp {}dpi nrml long port}}\n",
                dp(c.width.min(c.height)),
                dp(c.width),
                dp(c.height),
                c.density
            ));
            text.push_str(&format!("  mCurrentFocus={window}\n  mFocusedApp={record}\n"));
            let ime = if world.keyboard_shown { ime_window.as_str() } else { "null" };
            text.push_str(&format!("  mInputMethodWindow={ime}\n"));
            ok(text)
        }
        ["activity", "top", ..] => {
            let mut text = String::from("TASK dumpsys activity top\n");
            if let Some((id, inst)) = top {
                let app = world.catalog.apps.get(inst.app).map(|a| a.package.clone()).unwrap_or_default();
                text.push_str(&format!(
                    "TASK {app} id={id} userId=0\n  ACTIVITY {} {} pid=4242\n",
                    short_component(&package, &activity),
                    token(&format!("r{activity}"))
                ));
            }
            ok(text)
        }
        ["activity"] | ["activity", "activities" | "a" | "recents" | "r", ..] => {
            let mut text = String::from(
                "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\nDisplay #0 (activities from top to bottom):\n",
            );
            for task in world.tasks.iter().rev() {
                let Some(app) = world.catalog.apps.get(task.app) else { continue };
                text.push_str(&format!(
                    "  * Task{{{} #{} type=standard A=10{:03}:{} U=0 visible=true}}\n",
                    token(&app.package),
                    task.id,
                    task.app,
                    app.package
                ));
                for (n, inst) in task.stack.iter().enumerate().rev() {
                    if let Some(r) = activity_record(&world, task.id, inst) {
                        text.push_str(&format!("    * Hist  #{n}: {r}\n"));
                    }
                }
            }
            text.push_str(&format!(
                "\n  ResumedActivity: {record}\n  topResumedActivity={record}\n    mResumedActivity: {record}\n"
            ));
            ok(text)
        }
        ["input_method", ..] => ok(format!(
            "Current Input Method Manager state:\n  Input Methods: mMethodMapUpdateCount=2\n  mCurMethodId={}\n  \
             mCurrentUserId=0\n  mCurToken=Token{{{} android.os.Binder}}\n  mImeWindowVis={}\n  mInputShown={}\n  \
             mServedInputConnection={}\n",
            world.ime,
            token(&world.ime),
            if world.keyboard_shown { 3 } else { 0 },
            world.keyboard_shown,
            if world.focus.is_some() { "active" } else { "null" }
        )),
        [service, ..] => fail(&format!("Can't find service: {service}\n"), 0),
        [] => ok("Currently running services:\n  activity\n  input_method\n  window\n"),
    }
}

fn props(device: &SimDevice) -> Vec<(String, String)> {
    let c = device.config();
    [
        ("ro.build.version.release", "14".to_string()),
        ("ro.build.version.sdk", "34".to_string()),
        ("ro.build.version.security_patch", "2023-11-05".to_string()),
        ("ro.build.type", "user".to_string()),
        ("ro.build.fingerprint", format!("codeact/{0}/{0}:14/UP1A.231105.001/1:user/release-keys", c.product)),
        ("ro.product.brand", "codeact".to_string()),
        ("ro.product.manufacturer", "CodeAct".to_string()),
        ("ro.product.model", c.model.clone()),
        ("ro.product.name", c.product.clone()),
        ("ro.product.device", c.product.clone()),
        ("ro.product.cpu.abi", "x86_64".to_string()),
        ("ro.serialno", c.serial.clone()),
        ("ro.sf.lcd_density", c.density.to_string()),
        ("ro.adb.secure", "0".to_string()),
        ("ro.debuggable", "0".to_string()),
        ("persist.sys.locale", "en-US".to_string()),
        ("sys.boot_completed", "1".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

pub(crate) fn getprop(device: &SimDevice, args: &[&str]) -> Output {
    let all = props(device);
    match args.first() {
        Some(key) => {
            let value = all.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
            let fallback = args.get(1).map(|s| s.to_string()).unwrap_or_default();
            ok(format!("{}\n", value.unwrap_or(fallback)))
        }
        None => ok(all.iter().map(|(k, v)| format!("[{k}]: [{v}]\n")).collect::<String>()),
    }
}

/// Android settings keys backed by world state: (namespace, key, state key).
const SETTINGS: &[(&str, &str, &str)] = &[
    ("global", "airplane_mode_on", "settings.airplane_mode"),
    ("global", "wifi_on", "settings.wifi"),
    ("global", "bluetooth_on", "settings.bluetooth"),
    ("system", "screen_brightness", "settings.brightness"),
    ("system", "show_battery_percent", "settings.battery_percentage"),
    ("global", "private_dns_mode", "settings.private_dns_mode"),
    ("global", "private_dns_specifier", "settings.private_dns_host"),
    ("secure", "bluetooth_name", "settings.bt_name"),
];

fn setting_text(world: &World, key: &str) -> String {
    match world.state.get(key) {
        Some(Value::Bool(b)) => if *b { "1" } else { "0" }.to_string(),
        // Brightness is a percentage in the world, 0–255 in Android settings.
        Some(Value::Int(i)) => (((*i).clamp(0, 100) * 255 + 50) / 100).to_string(),
        Some(v) => v.to_string(),
        None => "null".into(),
    }
}

/// The look is fixed for the phone's life, like its screen size.
const LOOK_IS_FIXED: &str =
    "Error: the virtual device's look is fixed for its life; restart it with `codeact sim --dark --font-scale X`\n";

/// `cmd uimode night [yes|no]`: reads the theme (it cannot change while running).
pub(crate) fn uimode(device: &SimDevice, args: &[&str]) -> Output {
    match args {
        ["night"] => ok(format!("Night mode: {}\n", if device.config().dark { "yes" } else { "no" })),
        ["night", _] => fail(LOOK_IS_FIXED, 255),
        _ => fail("usage: cmd uimode night [yes|no]\n", 255),
    }
}

/// How many settings the phone does not model it keeps (each at most 4 KiB).
const OTHER_SETTINGS: usize = 256;

fn codeact_clip(value: &str) -> String {
    value.chars().take(4096).collect()
}

pub(crate) fn settings(device: &SimDevice, args: &[&str]) -> Output {
    match args {
        ["get", "system", "font_scale"] => return ok(format!("{:?}\n", device.config().font_scale.clamp(0.5, 2.0))),
        ["put", "system", "font_scale", _] => return fail(LOOK_IS_FIXED, 255),
        _ => {}
    }
    let mut world = device.world();
    match args {
        ["get", "secure", "enabled_accessibility_services"] => {
            ok(format!("{}\n", device.agents().accessibility_services()))
        }
        ["put", "secure", "enabled_accessibility_services", value] => {
            device.agents().set_accessibility_services(value);
            ok("")
        }
        ["get", ns, key] => {
            if *ns == "secure" && *key == "default_input_method" {
                return ok(format!("{}\n", world.ime));
            }
            if *ns == "secure" && *key == "enabled_input_methods" {
                return ok(format!("{ADB_KEYBOARD_IME}:{LATIN_IME}:{PORTAL_IME}\n"));
            }
            match SETTINGS.iter().find(|(n, k, _)| n == ns && k == key) {
                Some((_, _, state)) => ok(format!("{}\n", setting_text(&world, state))),
                None => {
                    ok(format!("{}\n", world.other_settings.get(&format!("{ns}/{key}")).map_or("null", String::as_str)))
                }
            }
        }
        ["put", ns, key, value] => {
            if *ns == "secure" && *key == "default_input_method" {
                world.ime = value.to_string();
                return ok("");
            }
            if let Some((_, _, state)) = SETTINGS.iter().find(|(n, k, _)| n == ns && k == key) {
                let new = match world.state.get(*state) {
                    Some(Value::Int(_)) => {
                        Value::Int(value.parse::<i64>().map(|v| (v.clamp(0, 255) * 100 + 127) / 255).unwrap_or(0))
                    }
                    Some(Value::Str(_)) => Value::Str(value.to_string()),
                    _ => Value::Bool(*value != "0"),
                };
                world.write(state, new, &None);
            } else if matches!(*ns, "system" | "secure" | "global") && world.other_settings.len() < OTHER_SETTINGS {
                world.other_settings.insert(format!("{ns}/{key}"), codeact_clip(value));
            }
            ok("")
        }
        // What the phone does not model it keeps as text, as Android's settings
        // provider does (test frameworks set hidden-API policies and put them back).
        ["delete", ns, key] if !SETTINGS.iter().any(|(n, k, _)| n == ns && k == key) => {
            let gone = world.other_settings.remove(&format!("{ns}/{key}")).is_some();
            ok(format!("Deleted {} rows\n", usize::from(gone)))
        }
        ["delete", ..] => fail("settings: this setting is the phone's own and cannot be deleted\n", 1),
        ["list", ns] => {
            let mut text = String::new();
            for (_, k, state) in SETTINGS.iter().filter(|(n, _, _)| n == ns) {
                text.push_str(&format!("{k}={}\n", setting_text(&world, state)));
            }
            ok(text)
        }
        _ => fail(
            "usage:  settings [--user <USER_ID> | current] get namespace key\n        settings put namespace key value\n        settings delete namespace key\n        settings list namespace\n",
            255,
        ),
    }
}

pub(crate) fn ime(device: &SimDevice, args: &[&str]) -> Output {
    let mut installed = vec![ADB_KEYBOARD_IME, LATIN_IME, PORTAL_IME];
    installed.extend(super::settings_helper::input_methods(device));
    let mut world = device.world();
    match args {
        ["list", ..] => {
            let mut text = String::new();
            for id in installed {
                if args.contains(&"-s") {
                    text.push_str(&format!("{id}\n"));
                } else {
                    let (pkg, _) = id.split_once('/').unwrap_or((id, ""));
                    text.push_str(&format!("{id}:\n  mId={id} mSettingsActivity=null\n  mIsDefaultResId=0x0\n  Service:\n    packageName={pkg}\n"));
                }
            }
            ok(text)
        }
        ["set", id] | ["enable", id] | ["disable", id] if !installed.contains(id) => {
            fail(&format!("Unknown input method {id} cannot be selected for user #0\n"), 255)
        }
        ["enable", id] => ok(format!("Input method {id}: already enabled for user #0\n")),
        ["disable", id] => ok(format!("Input method {id}: now disabled for user #0\n")),
        ["set", id] => {
            world.ime = id.to_string();
            ok(format!("Input method {id} selected for user #0\n"))
        }
        ["reset"] => {
            world.ime = ADB_KEYBOARD_IME.to_string();
            ok(format!("Reset current and enabled IMEs for user #0\n  Selected: {ADB_KEYBOARD_IME}\n"))
        }
        _ => fail("ime <command>:\n  list [-a] [-s]\n  enable ID\n  disable ID\n  set ID\n  reset\n", 255),
    }
}

fn set_radio(device: &SimDevice, key: &str, on: bool) {
    device.world().write(key, Value::Bool(on), &None);
}

pub(crate) fn svc(device: &SimDevice, args: &[&str]) -> Output {
    match args {
        ["wifi", state @ ("enable" | "disable")] => {
            set_radio(device, "settings.wifi", *state == "enable");
            ok("")
        }
        ["bluetooth", state @ ("enable" | "disable")] => {
            set_radio(device, "settings.bluetooth", *state == "enable");
            ok("")
        }
        _ => fail("Available commands:\n    wifi enable|disable\n    bluetooth enable|disable\n", 255),
    }
}

pub(crate) fn cmd_wifi(device: &SimDevice, args: &[&str]) -> Output {
    match args {
        ["set-wifi-enabled", state @ ("enabled" | "disabled")] => {
            set_radio(device, "settings.wifi", *state == "enabled");
            ok("")
        }
        ["status"] => {
            let on = device.world().state.get("settings.wifi").is_some_and(|v| v.truthy());
            ok(if on { "Wifi is enabled\n" } else { "Wifi is disabled\n" })
        }
        _ => fail("usage: cmd wifi set-wifi-enabled enabled|disabled | status\n", 255),
    }
}
