//! `logcat`: the device log as Android 14's `logcat -d` prints it (the
//! `threadtime` format), with `-c` (clear), `-t N` (the last N lines), `-b` (a
//! buffer: `crash` holds only the crashes), `-s` and filter specs (`TAG:LEVEL`,
//! `*:E`). There is no follow mode: without `-d` it prints what is there and ends,
//! as `-d` does (a shell here cannot stream forever).

use crate::device::SimDevice;
use crate::shell::Output;
use crate::shell::{fail, ok};
use crate::world::misbehave::LogLine;

const LEVELS: &str = "VDIWEF";

fn level_rank(level: char) -> usize {
    LEVELS.find(level.to_ascii_uppercase()).unwrap_or(0)
}

/// `TAG:LEVEL` pairs; `*` is every other tag. Without any, everything shows.
struct Filter {
    specs: Vec<(String, usize)>,
}

impl Filter {
    fn allows(&self, line: &LogLine) -> bool {
        if self.specs.is_empty() {
            return true;
        }
        let rule =
            self.specs.iter().find(|(t, _)| t == &line.tag).or_else(|| self.specs.iter().find(|(t, _)| t == "*"));
        match rule {
            Some((_, min)) => level_rank(line.level) >= *min,
            // Named tags only: the rest is silent (as `-s` and `TAG:L *:S` make it).
            None => false,
        }
    }
}

fn format(line: &LogLine) -> String {
    let stamp = crate::world::template::clock_text(line.at_ms.div_euclid(1000), "%m-%d %H:%M:%S");
    format!(
        "{stamp}.{:03} {:5} {:5} {} {}: {}\n",
        line.at_ms.rem_euclid(1000),
        line.pid,
        line.pid,
        line.level,
        line.tag,
        line.message
    )
}

pub(crate) fn logcat(device: &SimDevice, args: &[&str]) -> Output {
    let mut tail = None;
    let mut crash_only = false;
    let mut specs = Vec::new();
    let mut silent_rest = false;
    let mut i = 0;
    while i < args.len() {
        match args[i] {
            "-c" | "--clear" => {
                device.world().log.lines.clear();
                return ok("");
            }
            "-d" | "--dump" => {}
            "-s" => silent_rest = true,
            "-t" | "-T" => {
                let Some(n) = args.get(i + 1).and_then(|n| n.parse::<usize>().ok()) else {
                    return fail("logcat: -t needs a line count, e.g. -t 100\n", 1);
                };
                tail = Some(n);
                i += 1;
            }
            "-b" | "--buffer" => {
                let Some(buffer) = args.get(i + 1) else { return fail("logcat: -b needs a buffer name\n", 1) };
                match *buffer {
                    "crash" => crash_only = true,
                    "main" | "system" | "all" | "default" | "events" | "radio" => {}
                    other => return fail(&format!("logcat: Unknown buffer '{other}'\n"), 1),
                }
                i += 1;
            }
            "-v" | "--format" => i += 1,
            spec if !spec.starts_with('-') => {
                let (tag, level) = spec.split_once(':').unwrap_or((spec, "V"));
                let min = match level.chars().next().map(|c| c.to_ascii_uppercase()) {
                    Some('S') => LEVELS.len(),
                    Some(c) if LEVELS.contains(c) => level_rank(c),
                    _ => return fail(&format!("logcat: Invalid filter expression '{spec}'\n"), 1),
                };
                specs.push((tag.to_string(), min));
            }
            _ => {}
        }
        i += 1;
    }
    if !specs.is_empty() && !silent_rest && !specs.iter().any(|(t, _)| t == "*") {
        specs.push(("*".into(), 0));
    }
    let filter = Filter { specs };
    let world = device.world();
    let lines: Vec<&LogLine> = world
        .log
        .lines
        .iter()
        .filter(|l| !crash_only || (l.tag == "AndroidRuntime" && l.level == 'E'))
        .filter(|l| filter.allows(l))
        .collect();
    let skip = tail.map_or(0, |n| lines.len().saturating_sub(n));
    let mut text = String::new();
    if !lines.is_empty() {
        text.push_str(if crash_only { "--------- beginning of crash\n" } else { "--------- beginning of main\n" });
    }
    for line in &lines[skip..] {
        text.push_str(&format(line));
    }
    ok(text)
}
