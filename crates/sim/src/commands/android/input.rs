//! `input`: taps, swipes, long presses, drags, key events and ASCII text, with the
//! argument checking and error text of Android 14's `InputShellCommand`.

use std::time::Duration;

use crate::device::SimDevice;
use crate::shell::{Output, ShellEnv};
use crate::shell::{fail, ok};
use adb_wire::keycodes;

const USAGE: &str = "Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n\n\
The commands and default sources are:\n      text <string> (Default: keyboard)\n      \
keyevent [--longpress|--duration <duration to hold key down in ms>] [--doubletap] [--async] [--delay <duration between keycodes in ms>] <key code number or name> ... (Default: keyboard)\n      \
tap <x> <y> (Default: touchscreen)\n      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)\n      \
draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)\n      press (Default: trackball)\n      roll <dx> <dy> (Default: trackball)\n";

const SOURCES: &[&str] = &[
    "keyboard",
    "mouse",
    "touchscreen",
    "touchpad",
    "touchnavigation",
    "trackball",
    "stylus",
    "dpad",
    "gamepad",
    "joystick",
];

/// Swipes without a duration take this long, as on a device.
const DEFAULT_SWIPE_MS: u64 = 300;
/// Gestures never block the shell longer than this, whatever the caller asked.
const MAX_GESTURE_MS: u64 = 10_000;

fn invalid(command: &str) -> Output {
    fail(&format!("Error: Invalid arguments for command: {command}\n{USAGE}"), 255)
}

/// A coordinate as `input` accepts it (floats too), bounded so that no arithmetic
/// on it can overflow.
fn coord(s: &str) -> Option<i32> {
    s.parse::<f32>().ok().filter(|v| v.is_finite()).map(|v| v.clamp(-100_000.0, 100_000.0).round() as i32)
}

pub(crate) fn input(device: &SimDevice, args: &[&str], env: &ShellEnv) -> Output {
    let mut args = args;
    if args.first().is_some_and(|a| SOURCES.contains(a)) {
        args = &args[1..];
    }
    if args.first() == Some(&"-d") {
        args = args.get(2..).unwrap_or(&[]);
    }
    let Some((&command, rest)) = args.split_first() else { return fail(USAGE, 255) };
    match command {
        "tap" => match rest {
            [x, y] => match (coord(x), coord(y)) {
                (Some(x), Some(y)) => {
                    device.world().tap(x, y);
                    ok("")
                }
                _ => invalid(command),
            },
            _ => invalid(command),
        },
        "swipe" | "draganddrop" => {
            let nums: Option<Vec<i32>> = rest.iter().map(|a| coord(a)).collect();
            match nums.as_deref() {
                Some([x1, y1, x2, y2]) | Some([x1, y1, x2, y2, _]) => {
                    let ms = match nums.as_deref() {
                        Some([.., d]) if rest.len() == 5 => (*d).max(0) as u64,
                        _ => DEFAULT_SWIPE_MS,
                    };
                    // The finger lands now (on what is there now); the gesture lasts
                    // as long as asked, as it does on a phone.
                    let down = device.world().touch_down_at(*x1, *y1);
                    env.sleep(Duration::from_millis(ms.min(MAX_GESTURE_MS)));
                    let ms = if command == "draganddrop" { ms.max(crate::world::input::LONG_PRESS_MS) } else { ms };
                    device.world().swipe_from(down, (*x1, *y1), (*x2, *y2), ms);
                    ok("")
                }
                _ => invalid(command),
            }
        }
        "keyevent" => {
            let mut codes = Vec::new();
            let mut iter = rest.iter();
            while let Some(arg) = iter.next() {
                match *arg {
                    "--longpress" | "--doubletap" | "--async" => {}
                    "--delay" | "--duration" => {
                        iter.next();
                    }
                    name => match keycodes::parse(name) {
                        Some(code) => codes.push(code),
                        None => {
                            return fail(
                                &format!(
                                    "Exception occurred while executing 'keyevent':\njava.lang.IllegalArgumentException: Unknown keycode: {name}\n"
                                ),
                                255,
                            );
                        }
                    },
                }
            }
            if codes.is_empty() {
                return invalid(command);
            }
            let mut world = device.world();
            for code in codes {
                world.key(code);
            }
            ok("")
        }
        "text" => {
            let Some(text) = rest.first() else { return invalid(command) };
            if !text.is_ascii() {
                // KeyCharacterMap has no key events for non-ASCII characters.
                return fail(
                    "Exception occurred while executing 'text':\njava.lang.NullPointerException: Attempt to get length of null array\n\
                     \tat com.android.server.input.InputShellCommand.sendText(InputShellCommand.java:313)\n\
                     \tat com.android.server.input.InputShellCommand.runText(InputShellCommand.java:298)\n",
                    255,
                );
            }
            device.world().type_text(&text.replace("%s", " "));
            ok("")
        }
        "motionevent" => match rest {
            [action, x, y] => match (coord(x), coord(y)) {
                (Some(x), Some(y)) => {
                    device.world().motion_event(&action.to_ascii_uppercase(), x, y);
                    ok("")
                }
                _ => invalid(command),
            },
            _ => invalid(command),
        },
        "press" | "roll" | "scroll" => ok(""),
        _ => fail(&format!("Error: Unknown command: {command}\n{USAGE}"), 255),
    }
}
