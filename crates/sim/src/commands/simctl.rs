//! `simctl`: the virtual device's test and benchmark hooks, reached through
//! `adb shell simctl ...` like any other command. Never delayed, dropped or hung by
//! the faults it injects, so a test can always read state and clear them.

use std::time::Duration;

use crate::device::SimDevice;
use crate::shell::Output;
use crate::shell::{fail, ok};
use crate::world::FaultDialog;

const HELP: &str = r#"usage: simctl COMMAND
  state                 print the world as JSON (foreground app, settings, contacts, messages, notes, alarms, ...)
  reset                 back to the initial world: state, files and faults
  set KEY VALUE...      set a state value (e.g. settings.wifi false, timer.minutes 5);
                        true/false are booleans, digits stay a number where the key holds one
  add COLLECTION JSON   add a record, e.g. add messages '{"to":"Bob Smith","text":"Hi","inbound":true}'
  empty COLLECTION      remove every record of a collection (contacts, messages, notes, alarms, events, expenses)
  launch PACKAGE        open an app at its launcher activity
  time                  print the device clock (it starts at 2023-10-15 15:34:00 UTC on boot and reset)
  clipboard             print the system clipboard (exactly, no newline added)
  clipboard set TEXT... put TEXT (the words joined by spaces) on the clipboard
  file PATH TEXT...     write TEXT (the words joined by spaces) and a newline to PATH,
                        its folders made (a file under /sdcard or /data/local/tmp)
  mkdir PATH            make a folder and its parents (under /sdcard or /data/local/tmp)
  drawn                 print what is drawn but in no page source (a game's sprites) as
                        JSON lines: {"picture","desc","bounds":[left,top,right,bottom]}
  stats                 print the number of command lines served (simctl excluded) as JSON
  faults                print the injected faults (they act at every door: on shell
                        lines, screen grabs, file transfers, on-device agents'
                        requests and WebDriverAgent calls alike, each one command)
  fault latency MS      add MS of latency before every command
  fault drop N          after N more commands, drop the connection on the next one
  fault hang N          after N more commands, never answer the next one
  fault dialog [KIND]   show a blocker at the next screen change: anr (the default),
                        crash, permission, rate, update
  fault crash-on PACKAGE WIDGET
                        a tap on WIDGET (its resource id, bare or PACKAGE:id/NAME, its
                        text or its description) crashes the app: "LABEL keeps
                        stopping", FATAL EXCEPTION in logcat, its task gone
  fault anr-on PACKAGE WIDGET
                        a tap on WIDGET makes the app stop responding: "LABEL isn't
                        responding", ANR in logcat
  fault agent KIND      make the on-device agents (uiautomator2's server, the Portal) misbehave:
                        stale (the tree stays as it is now), empty (a tree with no
                        nodes), garbage (bytes that are not HTTP), hang (no answer)
  fault clear           remove every fault (slow-ui and dump-latency too)
  portal token TOKEN    the mobilerun Portal asks for this bearer token (as Portals
                        from 0.4 do; `none`, the default, asks for none). The Portal
                        runs while `settings put secure enabled_accessibility_services
                        com.droidrun.portal/.service.DroidrunAccessibilityService` says so
  slow-ui MS            after each change the screen settles in steps over MS
                        (uiautomator dump waits until it has, at most 10 s)
  variant [N]           print, or set, the apps' layout variant as an update would:
                        0 as written, 1 items reordered, 2 also ids renamed,
                        3 also a one-time "What's new" dialog per app (data kept)
  dump-latency MS       make `uiautomator dump` take MS, as on a phone
"#;

/// Delays are capped at a minute: a fault must never wedge the device for good.
const MAX_DELAY_MS: u64 = 60_000;

fn millis(arg: Option<&&str>) -> Option<Duration> {
    arg.and_then(|a| a.parse::<u64>().ok()).filter(|ms| *ms <= MAX_DELAY_MS).map(Duration::from_millis)
}

fn count(arg: Option<&&str>) -> Option<u32> {
    arg.and_then(|a| a.parse::<u32>().ok())
}

/// The drawn-only nodes on screen now, one JSON object per line (the ground truth a
/// test checks picture locating against).
fn drawn(device: &SimDevice) -> Output {
    fn walk(node: &crate::screen::Node, out: &mut String) {
        if node.drawn_only {
            let picture = match &node.role {
                crate::screen::Role::Sprite { emblem, .. } => emblem.name(),
                _ => "",
            };
            let b = node.bounds;
            let line = serde_json::json!({
                "picture": picture,
                "desc": node.content_desc,
                "bounds": [b.left, b.top, b.right, b.bottom],
            });
            out.push_str(&line.to_string());
            out.push('\n');
        }
        for child in &node.children {
            walk(child, out);
        }
    }
    let screen = device.world().screen();
    let mut out = String::new();
    for window in &screen.windows {
        walk(window, &mut out);
    }
    ok(out)
}

pub(crate) fn simctl(device: &SimDevice, args: &[&str]) -> Output {
    match args {
        ["drawn"] => drawn(device),
        ["state"] => {
            let report = device.world().report();
            match serde_json::to_string_pretty(&report) {
                Ok(json) => ok(json + "\n"),
                Err(e) => fail(&format!("simctl: cannot encode state: {e}\n"), 1),
            }
        }
        // Files for a test's set-up on every door (iOS has no shell to write them).
        ["file", path, text @ ..] => {
            let fs = device.fs();
            let parent = path.rsplit_once('/').map(|(p, _)| p).filter(|p| !p.is_empty()).unwrap_or("/");
            let written =
                fs.mkdir(parent, true).and_then(|()| fs.write(path, format!("{}\n", text.join(" ")).as_bytes()));
            match written {
                Ok(()) => ok(""),
                Err(e) => fail(&format!("simctl: cannot write {path}: {e}\n"), 1),
            }
        }
        ["mkdir", path] => match device.fs().mkdir(path, true) {
            Ok(()) => ok(""),
            Err(e) => fail(&format!("simctl: cannot make {path}: {e}\n"), 1),
        },
        ["clipboard"] => {
            let world = device.world();
            ok(world.read(crate::world::CLIPBOARD, &None).map(|v| v.to_string()).unwrap_or_default())
        }
        ["clipboard", "set", text @ ..] => {
            let mut world = device.world();
            world.write(crate::world::CLIPBOARD, crate::world::Value::Str(text.join(" ")), &None);
            ok("")
        }
        ["set", key, value @ ..] if !value.is_empty() => {
            let mut world = device.world();
            if !world.state.contains_key(*key) {
                return fail(&format!("simctl: no state key {key}; `simctl state` lists them\n"), 2);
            }
            world.set_value(key, &value.join(" "));
            ok("")
        }
        ["add", collection, json @ ..] if !json.is_empty() => {
            let record = match serde_json::from_str::<crate::world::Record>(&json.join(" ")) {
                Ok(r) => r,
                Err(e) => {
                    return fail(
                        &format!("simctl: add needs a JSON object of strings, numbers and booleans: {e}\n"),
                        2,
                    );
                }
            };
            let mut world = device.world();
            if !world.add_record(collection, record) {
                return fail(
                    &format!("simctl: no collection {collection} (files live in /sdcard: use adb push or echo)\n"),
                    2,
                );
            }
            ok("")
        }
        ["empty", collection] => {
            let mut world = device.world();
            if !world.empty_collection(collection) {
                return fail(&format!("simctl: no collection {collection}\n"), 2);
            }
            ok("")
        }
        ["launch", package] => {
            let mut world = device.world();
            match world.catalog.app_index(package) {
                Some(app) if world.launch(app) => ok(""),
                _ => fail(&format!("simctl: no app {package} with a launcher activity\n"), 2),
            }
        }
        ["time"] => {
            let now = device.world().now_secs();
            ok(format!("{}\n", crate::world::template::clock_text(now, "%Y-%m-%d %H:%M:%S")))
        }
        ["variant"] => ok(format!("{}\n", device.variant())),
        ["variant", n] => match n.parse::<u32>() {
            Ok(n) if n <= crate::world::variant::MAX_VARIANT => {
                device.set_variant(n);
                ok("")
            }
            _ => fail(&format!("simctl: variant {n}: use 0 to {}\n", crate::world::variant::MAX_VARIANT), 2),
        },
        ["stats"] => ok(format!("{}\n", serde_json::json!({ "commands": device.commands_served() }))),
        ["reset"] => {
            device.reset();
            ok("")
        }
        ["faults"] => {
            let f = device.faults().clone();
            let world = device.world();
            let json = serde_json::json!({
                "latency_ms": f.latency.as_millis() as u64,
                "drop_after": f.drop_after,
                "hang_after": f.hang_after,
                "dump_latency_ms": f.dump_latency.as_millis() as u64,
                "slow_ui_ms": world.slow_ui.as_millis() as u64,
                "dialog_armed": world.fault_dialog_armed.map(|k| k.name()),
                "agent": device.agents().fault().name(),
                "portal_running": device.agents().portal_running(),
                "u2_running": device.agents().listening(crate::device::agents::U2_PORT),
                "fail_on": world.crash_on.iter().map(|t| serde_json::json!({
                    "fault": t.failure.name(), "package": t.package, "widget": t.widget,
                })).collect::<Vec<_>>(),
            });
            ok(format!("{json}\n"))
        }
        ["fault", "latency", ms] => match millis(Some(ms)) {
            Some(d) => {
                device.faults().latency = d;
                ok("")
            }
            None => {
                fail("simctl: fault latency needs milliseconds (at most 60000), e.g. `simctl fault latency 200`\n", 2)
            }
        },
        ["fault", kind @ ("drop" | "hang"), n] => match count(Some(n)) {
            Some(n) => {
                let mut f = device.faults();
                if *kind == "drop" {
                    f.drop_after = Some(n)
                } else {
                    f.hang_after = Some(n)
                }
                ok("")
            }
            None => fail("simctl: fault drop|hang needs a command count, e.g. `simctl fault drop 0`\n", 2),
        },
        ["fault", "dialog"] => {
            device.world().fault_dialog_armed = Some(FaultDialog::Anr);
            ok("")
        }
        ["fault", "dialog", kind] => match FaultDialog::parse(kind) {
            Some(kind) => {
                device.world().fault_dialog_armed = Some(kind);
                ok("")
            }
            None => fail(
                &format!("simctl: no fault dialog {kind:?}; the kinds are anr, crash, permission, rate, update\n"),
                2,
            ),
        },
        ["fault", kind @ ("crash-on" | "anr-on"), package, widget @ ..] if !widget.is_empty() => {
            use crate::world::misbehave::{Failure, MAX_TRIGGERS, Trigger};
            let mut world = device.world();
            if world.catalog.app_index(package).is_none() {
                return fail(
                    &format!(
                        "simctl: no app {package} (`pm list packages` lists them)
"
                    ),
                    2,
                );
            }
            if world.crash_on.len() >= MAX_TRIGGERS {
                return fail(
                    &format!(
                        "simctl: at most {MAX_TRIGGERS} widgets fail; `simctl fault clear` first
"
                    ),
                    2,
                );
            }
            let failure = if *kind == "crash-on" { Failure::Crash } else { Failure::Anr };
            world.crash_on.push(Trigger { package: package.to_string(), widget: widget.join(" "), failure });
            ok("")
        }
        ["fault", "crash-on" | "anr-on", ..] => fail(
            "simctl: fault crash-on|anr-on needs PACKAGE WIDGET, e.g. `simctl fault crash-on com.example.notes save`\n",
            2,
        ),
        ["fault", "agent", kind] => {
            use crate::device::agents::AgentFault;
            let fault = match *kind {
                "stale" => AgentFault::Stale {
                    u2: crate::doors::agents::u2::hierarchy(device),
                    portal: crate::doors::agents::portal::full_tree(device, true),
                },
                "empty" => AgentFault::Empty,
                "garbage" => AgentFault::Garbage,
                "hang" => AgentFault::Hang,
                _ => return fail("simctl: fault agent needs stale, empty, garbage or hang\n", 2),
            };
            *device.agents().fault() = fault;
            ok("")
        }
        ["portal", "token", token] => {
            let token = (*token != "none").then(|| token.to_string());
            device.agents().set_portal_token(token);
            ok("")
        }
        ["fault", "clear"] => {
            device.clear_faults();
            ok("")
        }
        ["slow-ui", ms] => match millis(Some(ms)) {
            Some(d) => {
                device.world().slow_ui = d;
                ok("")
            }
            None => fail("simctl: slow-ui needs milliseconds (at most 60000), e.g. `simctl slow-ui 800`\n", 2),
        },
        ["dump-latency", ms] => match millis(Some(ms)) {
            Some(d) => {
                device.faults().dump_latency = d;
                ok("")
            }
            None => {
                fail("simctl: dump-latency needs milliseconds (at most 60000), e.g. `simctl dump-latency 1500`\n", 2)
            }
        },
        [] | ["help"] | ["--help"] => ok(HELP),
        _ => fail(&format!("simctl: unknown command: {}\n{HELP}", args.join(" ")), 2),
    }
}
