//! `uitest`: HarmonyOS's UI test tool, as scripts use it from a shell — `dumpLayout`
//! (the layout as JSON in a file), `uiInput` (clicks, swipes, drags, keys, text) and
//! `screenCap` — with its success words (`DumpLayout saved to:…`, `No Error`) and
//! its argument checks (a coordinate must be positive; a velocity outside 200–40000
//! px/s falls back to 600). Like the real tool it exits 0 whatever happened: the
//! words say. Learned from `openharmony/testfwk_arkxtest` (`ui_input.cpp`,
//! `server_main.cpp`; public source); no code copied.

use std::time::Duration;

use super::ability::ability_of;
use crate::device::SimDevice;
use crate::page_source::uitest as layout;
use crate::render;
use crate::shell::ok;
use crate::shell::{Output, ShellEnv};
use adb_wire::keycodes;

const USAGE: &str = "usage: uitest <command> [options]\nhelp                                            print help messages\nscreenCap                                       screen capture\ndumpLayout                                      get the ui tree of the current window\nuiInput                                         inject UI input events\n--version                                       print current tool version\n";

const INPUT_USAGE: &str = "usage: uitest uiInput <command> [args]\n   click/doubleClick/longClick <x> <y>\n   swipe/drag <from_x> <from_y> <to_x> <to_y> [velocity]\n   fling <from_x> <from_y> <to_x> <to_y> [velocity] [stepLength]\n   dircFling [direction] [velocity] [stepLength]\n   inputText <x> <y> <text>\n   text <text>\n   keyEvent <keyID/Back/Home/Power>\n   keyEvent <keyID_0> <keyID_1> [keyID_2]\n";

const NO_ERROR: &str = "No Error\n";
/// A long click holds this long, as uitest's does.
const LONG_CLICK_MS: u64 = 1_500;
/// A swipe's speed when none (or one out of range) is given, in px/s.
const DEFAULT_VELOCITY: f64 = 600.0;
/// Gestures never block the shell longer than this, whatever the caller asked.
const MAX_GESTURE_MS: u64 = 10_000;

pub(super) fn uitest(device: &SimDevice, args: &[&str], env: &ShellEnv) -> Output {
    match args.split_first() {
        Some((&"dumpLayout", rest)) => dump_layout(device, rest, env),
        Some((&"uiInput", rest)) => ui_input(device, rest, env),
        Some((&"screenCap", rest)) => screen_cap(device, rest, env),
        Some((&"--version", _)) => ok("7.0.0.1\n"),
        _ => ok(USAGE),
    }
}

/// The value after `flag`.
fn option<'a>(args: &[&'a str], flag: &str) -> Option<&'a str> {
    args.iter().position(|a| *a == flag).and_then(|i| args.get(i + 1)).copied()
}

fn micros(device: &SimDevice) -> i64 {
    device.world().now_secs() * 1_000_000
}

fn dump_layout(device: &SimDevice, args: &[&str], env: &ShellEnv) -> Output {
    let path = option(args, "-p")
        .map(str::to_string)
        .unwrap_or_else(|| format!("/data/local/tmp/layout_{}.json", micros(device)));
    let latency = device.faults().dump_latency;
    if !latency.is_zero() && !env.sleep(latency) {
        return ok("DumpLayout failed:timeout waiting for the window to be idle\n");
    }
    let json = {
        let world = device.world();
        let ability = world.top().map(|(_, s, _)| ability_of(&s.activity)).unwrap_or_default();
        layout::to_json(&world.screen(), &world.foreground_package(), &ability)
    };
    match env.fs.write(&path, json.as_bytes()) {
        Ok(()) => ok(format!("DumpLayout saved to:{path}\n")),
        Err(e) => ok(format!("DumpLayout failed:cannot write {path}: {e}\n")),
    }
}

fn screen_cap(device: &SimDevice, args: &[&str], env: &ShellEnv) -> Output {
    let path =
        option(args, "-p").map(str::to_string).unwrap_or_else(|| format!("/data/local/tmp/{}.png", micros(device)));
    let saved = render::encode_png(&device.frame())
        .map_err(|e| e.to_string())
        .and_then(|png| env.fs.write(&path, &png).map_err(|e| e.to_string()));
    match saved {
        Ok(()) => ok(format!("ScreenCap saved to {path}\n")),
        Err(e) => ok(format!("ScreenCap failed: {e}\n")),
    }
}

/// A coordinate as uitest reads it (`atoi`): it must come out positive.
fn coordinate(s: &str) -> Option<i32> {
    let digits: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse::<i64>().ok().filter(|v| *v > 0).map(|v| v.min(100_000) as i32)
}

fn points(args: &[&str]) -> Result<Vec<i32>, Output> {
    args.iter()
        .map(|a| coordinate(a).ok_or_else(|| ok("Please confirm that the coordinate values are correct. \n")))
        .collect()
}

fn ui_input(device: &SimDevice, args: &[&str], env: &ShellEnv) -> Output {
    let Some((&action, rest)) = args.split_first() else {
        return ok(format!("Missing parameter. \n{INPUT_USAGE}"));
    };
    let result = match action {
        "click" | "doubleClick" | "longClick" => click(device, action, rest, env),
        "swipe" | "drag" | "fling" => gesture(device, action, rest, env),
        "keyEvent" => key_event(device, rest),
        "text" => match rest {
            [text] | [text, _] => {
                device.world().type_text(text);
                Ok(())
            }
            [] => Err(ok(format!("Missing parameter. \n{INPUT_USAGE}"))),
            _ => Err(ok(format!(" Too many parameters. \n{INPUT_USAGE}"))),
        },
        "inputText" => match rest {
            [x, y, text] | [x, y, text, _] => points(&[x, y]).map(|p| {
                device.world().tap(p[0], p[1]);
                env.sleep(Duration::from_millis(500));
                device.world().type_text(text);
            }),
            _ => Err(ok(format!("The number of parameters is incorrect. \n{INPUT_USAGE}"))),
        },
        "dircFling" => Ok(()),
        _ => Err(ok(format!("Invalid parameters. \n{INPUT_USAGE}"))),
    };
    result.map_or_else(|fail| fail, |()| ok(NO_ERROR))
}

fn click(device: &SimDevice, action: &str, args: &[&str], env: &ShellEnv) -> Result<(), Output> {
    let [x, y] = match args {
        [x, y] | [x, y, _] => points(&[x, y])?.try_into().map_err(|_| ok(INPUT_USAGE))?,
        _ => return Err(ok(format!("The number of parameters is incorrect. \n{INPUT_USAGE}"))),
    };
    match action {
        "longClick" => {
            let down = device.world().touch_down_at(x, y);
            env.sleep(Duration::from_millis(LONG_CLICK_MS));
            device.world().swipe_from(down, (x, y), (x, y), LONG_CLICK_MS);
        }
        "doubleClick" => {
            let mut world = device.world();
            world.tap(x, y);
            world.tap(x, y);
        }
        _ => device.world().tap(x, y),
    }
    Ok(())
}

/// `swipe|drag|fling x1 y1 x2 y2 [velocity]`: the gesture lasts distance ÷ velocity;
/// a drag first holds, as a finger that picks something up does.
fn gesture(device: &SimDevice, action: &str, args: &[&str], env: &ShellEnv) -> Result<(), Output> {
    if args.len() < 4 {
        return Err(ok(format!("Missing parameter. \n{INPUT_USAGE}")));
    }
    if args.len() > 6 {
        return Err(ok(format!(" Too many parameters. \n{INPUT_USAGE}")));
    }
    let p = points(&args[..4])?;
    let mut note = String::new();
    let velocity = match args.get(4).map(|v| v.parse::<f64>()) {
        Some(Ok(v)) if (200.0..=40_000.0).contains(&v) => v,
        Some(_) => {
            note.push_str("The swipe velocity out of range, the default value will be used. \n");
            DEFAULT_VELOCITY
        }
        None => DEFAULT_VELOCITY,
    };
    let (dx, dy) = (f64::from(p[2] - p[0]), f64::from(p[3] - p[1]));
    let mut ms = ((dx * dx + dy * dy).sqrt() / velocity * 1000.0).clamp(1.0, MAX_GESTURE_MS as f64) as u64;
    let down = device.world().touch_down_at(p[0], p[1]);
    if action == "drag" {
        ms = ms.max(crate::world::input::LONG_PRESS_MS);
    }
    env.sleep(Duration::from_millis(ms));
    device.world().swipe_from(down, (p[0], p[1]), (p[2], p[3]), ms);
    if note.is_empty() { Ok(()) } else { Err(ok(format!("{note}{NO_ERROR}"))) }
}

/// HarmonyOS key codes (`KeyCode` of `@ohos.multimodalInput.keyCode`).
mod code {
    pub(super) const HOME: u32 = 1;
    pub(super) const BACK: u32 = 2;
    pub(super) const VOLUME_UP: u32 = 16;
    pub(super) const VOLUME_DOWN: u32 = 17;
    pub(super) const POWER: u32 = 18;
    pub(super) const DIGIT_0: u32 = 2000;
    pub(super) const A: u32 = 2017;
    pub(super) const Z: u32 = 2042;
    pub(super) const TAB: u32 = 2049;
    pub(super) const SPACE: u32 = 2050;
    pub(super) const ENTER: u32 = 2054;
    pub(super) const DEL: u32 = 2055;
    pub(super) const CTRL_LEFT: u32 = 2072;
    pub(super) const CTRL_RIGHT: u32 = 2073;
}

/// `keyEvent Home|Back|Power` or one to three key codes pressed together (a
/// combination: Ctrl+A selects all, Ctrl+V pastes).
fn key_event(device: &SimDevice, args: &[&str]) -> Result<(), Output> {
    let codes: Vec<u32> = match args {
        [] => return Err(ok(format!("Missing parameter. \n{INPUT_USAGE}"))),
        [name] if name.eq_ignore_ascii_case("home") => vec![code::HOME],
        [name] if name.eq_ignore_ascii_case("back") => vec![code::BACK],
        [name] if name.eq_ignore_ascii_case("power") => vec![code::POWER],
        _ if args.len() > 4 => return Err(ok(format!(" Too many parameters. \n{INPUT_USAGE}"))),
        _ => {
            let parsed: Option<Vec<u32>> = args.iter().take(3).map(|a| a.parse::<u32>().ok()).collect();
            parsed.ok_or_else(|| ok(format!("Invalid parameters. \n{INPUT_USAGE}")))?
        }
    };
    let mut world = device.world();
    let ctrl = codes.iter().any(|c| matches!(*c, code::CTRL_LEFT | code::CTRL_RIGHT));
    if ctrl {
        match codes.iter().find(|c| !matches!(**c, code::CTRL_LEFT | code::CTRL_RIGHT)) {
            Some(&c) if c == code::A => world.select_all(),
            Some(&c) if c == code::A + 21 => world.key(keycodes::PASTE),
            _ => {}
        }
        return Ok(());
    }
    for c in codes {
        match c {
            code::HOME => world.go_home(),
            code::BACK => world.back(),
            code::ENTER => world.key(keycodes::ENTER),
            code::DEL => world.key(keycodes::DEL),
            code::TAB => world.key(keycodes::TAB),
            code::SPACE => {
                world.type_text(" ");
            }
            code::POWER | code::VOLUME_UP | code::VOLUME_DOWN => {}
            d if (code::DIGIT_0..code::DIGIT_0 + 10).contains(&d) => {
                world.type_text(&char::from((d - code::DIGIT_0) as u8 + b'0').to_string());
            }
            l if (code::A..=code::Z).contains(&l) => {
                world.type_text(&char::from((l - code::A) as u8 + b'a').to_string());
            }
            _ => {}
        }
    }
    Ok(())
}
