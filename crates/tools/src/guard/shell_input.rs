//! What a shell command would inject as input, read from its words the way the
//! device's shell splits them: the point an `input tap` or `motionevent` presses,
//! the stroke of an `input swipe` or `draganddrop`, the text of `input text`, the
//! keys of `input keyevent`; wherever the command hides it (after `;`, `&&` or a
//! pipe, behind `timeout`, `env`, `cmd input`, a path, a source or display
//! argument, inside `sh -c '…'` or `su -c '…'`). A command whose input cannot be
//! read — a variable or a substitution where a command or a coordinate goes,
//! another shell reading a pipe or a file, `eval`, raw events (`sendevent`,
//! `/dev/input`), `monkey`, instrumentation — or that injects input more than once
//! (the screen after the first cannot be judged beforehand) is [`Unreadable`], and
//! the gate treats it as sensitive. So the gate judges a shell command as it judges
//! the tool that does the same.
//!
//! Not here: the judging itself (`gate.rs`). A conservative reader, not a shell:
//! what it cannot be sure of it calls unreadable.

/// A point on the screen, in pixels.
pub type Point = (i32, i32);

/// Input a command injects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Injected {
    /// A touch that goes down (and up) at a point: `tap`, `motionevent DOWN|UP`.
    Press(Point),
    /// A finger moving from one point to another: `swipe`, `draganddrop`.
    Stroke { from: Point, to: Point },
    /// Text typed into the focused field.
    Text(String),
    /// Keys pressed, as given (`66`, `KEYCODE_ENTER`, `ENTER`).
    Keys(Vec<String>),
    /// The trackball's press: a click on what has focus.
    FocusPress,
}

/// Why a command's input cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unreadable(pub String);

/// How deep `sh -c '…'` and `su -c '…'` are followed.
const MAX_DEPTH: usize = 3;

/// The input sources `input` takes before its command.
const SOURCES: &[&str] = &[
    "keyboard",
    "mouse",
    "joystick",
    "touchnavigation",
    "touchpad",
    "trackball",
    "stylus",
    "dpad",
    "gesture",
    "touchscreen",
    "gamepad",
    "rotaryencoder",
];

/// Programs that run commands the gate cannot see, or inject raw input.
const OPAQUE: &[&str] = &[
    "eval",
    ".",
    "source",
    "xargs",
    "alias",
    "sendevent",
    "monkey",
    "uiautomator",
    "app_process",
    "app_process32",
    "app_process64",
    "dalvikvm",
    "case",
    "trap",
];

/// Shells that `-c` a literal command.
const SHELLS: &[&str] = &["sh", "mksh", "bash", "ash", "dash", "zsh", "ksh"];

/// Shell words that only structure commands (`if …; then …`).
const KEYWORDS: &[&str] = &["!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until"];

/// One word after quote removal; `computed` when part of it is expanded by the
/// shell (`$X`, `$(…)`, `` `…` ``, a glob, `~`): its value is not known.
#[derive(Debug, Clone)]
struct Word {
    text: String,
    computed: bool,
}

/// The input `command` injects (empty: none), or why it cannot be read.
pub fn injected_input(command: &str) -> Result<Vec<Injected>, Unreadable> {
    let injected = read_command(command, 0)?;
    if injected.len() > 1 {
        return Err(Unreadable(
            "it injects input more than once, and the screen after the first cannot be judged beforehand; use one shell call for each"
                .into(),
        ));
    }
    Ok(injected)
}

fn read_command(command: &str, depth: usize) -> Result<Vec<Injected>, Unreadable> {
    if depth > MAX_DEPTH {
        return Err(Unreadable("it nests shells more deeply than the gate follows".into()));
    }
    let mut injected = Vec::new();
    for words in split(command)? {
        if words.iter().any(|w| w.text.contains("/dev/input") || w.text.contains("/dev/uinput")) {
            return Err(Unreadable("it writes input events to the input devices directly".into()));
        }
        injected.extend(simple_command(&words, depth)?);
    }
    Ok(injected)
}

/// The simple commands of `command` (split at `;`, `&`, `|`, newlines and
/// parentheses), each as its words; redirections are checked and left out.
fn split(command: &str) -> Result<Vec<Vec<Word>>, Unreadable> {
    let mut commands = Vec::new();
    let mut words: Vec<Word> = Vec::new();
    let mut word = Word { text: String::new(), computed: false };
    let mut in_word = false;
    // The next word is a redirection's target.
    let mut redirect = false;
    let mut chars = command.chars().peekable();
    let end_word = |word: &mut Word, in_word: &mut bool, redirect: &mut bool, words: &mut Vec<Word>| {
        if *in_word {
            let done = std::mem::replace(word, Word { text: String::new(), computed: false });
            if *redirect {
                *redirect = false;
                if done.text.contains("/dev/input") || done.text.contains("/dev/uinput") {
                    words.push(done);
                }
            } else {
                words.push(done);
            }
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\r' => end_word(&mut word, &mut in_word, &mut redirect, &mut words),
            '\n' | ';' | '&' | '|' | '(' | ')' => {
                end_word(&mut word, &mut in_word, &mut redirect, &mut words);
                if !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
            }
            '<' | '>' => {
                if c == '<' && chars.peek() == Some(&'<') {
                    return Err(Unreadable("it feeds a command from a here-document".into()));
                }
                // `2>&1`: the digits were the descriptor, not a word.
                if in_word && !word.computed && word.text.chars().all(|d| d.is_ascii_digit()) {
                    word = Word { text: String::new(), computed: false };
                    in_word = false;
                }
                end_word(&mut word, &mut in_word, &mut redirect, &mut words);
                while chars.peek().is_some_and(|n| matches!(n, '>' | '&' | '|')) {
                    chars.next();
                }
                redirect = true;
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(q) => word.text.push(q),
                        None => return Err(Unreadable("a quote is not closed".into())),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(e @ ('$' | '`' | '"' | '\\')) => word.text.push(e),
                            Some('\n') => {}
                            Some(e) => {
                                word.text.push('\\');
                                word.text.push(e);
                            }
                            None => return Err(Unreadable("a quote is not closed".into())),
                        },
                        Some(q @ ('$' | '`')) => {
                            word.computed = true;
                            word.text.push(q);
                        }
                        Some(q) => word.text.push(q),
                        None => return Err(Unreadable("a quote is not closed".into())),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(e) => {
                    in_word = true;
                    word.text.push(e);
                }
                None => {}
            },
            '#' if !in_word => {
                // A comment, to the end of the line.
                while chars.peek().is_some_and(|n| *n != '\n') {
                    chars.next();
                }
            }
            '$' | '`' | '*' | '?' | '[' => {
                in_word = true;
                word.computed = true;
                word.text.push(c);
            }
            '~' if !in_word => {
                in_word = true;
                word.computed = true;
                word.text.push(c);
            }
            other => {
                in_word = true;
                word.text.push(other);
            }
        }
    }
    end_word(&mut word, &mut in_word, &mut redirect, &mut words);
    if !words.is_empty() {
        commands.push(words);
    }
    Ok(commands)
}

/// A program's name without its folder (`/system/bin/input` → `input`).
fn base(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

fn is_assignment(word: &Word) -> bool {
    let Some((name, _)) = word.text.split_once('=') else { return false };
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// What one simple command injects: wrappers and keywords are looked through to
/// the program that runs.
fn simple_command(words: &[Word], depth: usize) -> Result<Vec<Injected>, Unreadable> {
    let mut rest = words;
    loop {
        let Some((first, after)) = rest.split_first() else { return Ok(Vec::new()) };
        if KEYWORDS.contains(&first.text.as_str()) || is_assignment(first) {
            rest = after;
            continue;
        }
        if first.computed {
            return Err(Unreadable(format!(
                "the program it runs ({}) is computed by the shell",
                codeact_base::clip::clip(&first.text, 80)
            )));
        }
        let program = base(&first.text);
        match program {
            // `for NAME in WORDS`: the words are not a command.
            "for" | "function" => return Ok(Vec::new()),
            "timeout" => rest = skip_options(after, &["-s", "-k", "--signal", "--kill-after"]).get(1..).unwrap_or(&[]),
            "nice" => rest = skip_options(after, &["-n"]),
            "env" => rest = skip_options(after, &["-u", "-C", "-S"]),
            "nohup" | "time" | "command" | "exec" | "builtin" | "setsid" => rest = skip_options(after, &[]),
            "busybox" | "toybox" => rest = after,
            "run-as" => rest = skip_options(after, &["--user"]).get(1..).unwrap_or(&[]),
            "cmd" if after.first().is_some_and(|w| w.text == "input") => rest = after,
            "su" => return su(after, depth),
            shell if SHELLS.contains(&shell) => return nested_shell(after, depth),
            "find" if after.iter().any(|w| matches!(w.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")) => {
                return Err(Unreadable("find runs a command for each file it finds".into()));
            }
            "am" if after.first().is_some_and(|w| w.text == "instrument") => {
                return Err(Unreadable("am instrument runs a test that may inject input".into()));
            }
            "am" if after.iter().any(|w| w.text.starts_with("ADB_INPUT") || w.text.starts_with("ADB_EDITOR")) => {
                return Err(Unreadable("it types through a keyboard app's broadcast".into()));
            }
            "service" if after.first().is_some_and(|w| w.text == "call") => {
                return Err(Unreadable("service call may inject input through a system service".into()));
            }
            "input" => return input(after).map(|i| i.into_iter().collect()),
            opaque if OPAQUE.contains(&opaque) => {
                return Err(Unreadable(format!("{opaque} runs input or commands the gate cannot see")));
            }
            _ => return Ok(Vec::new()),
        }
    }
}

/// `words` after the leading options (`-x`, and `-x VALUE` for those in `valued`)
/// and assignments.
fn skip_options<'a>(words: &'a [Word], valued: &[&str]) -> &'a [Word] {
    let mut rest = words;
    while let Some((first, after)) = rest.split_first() {
        if valued.contains(&first.text.as_str()) {
            rest = after.get(1..).unwrap_or(&[]);
        } else if (first.text.starts_with('-') && first.text.len() > 1) || is_assignment(first) {
            rest = after;
        } else {
            break;
        }
    }
    rest
}

/// `sh -c 'COMMAND'` is read; a shell reading a file or a pipe is not.
fn nested_shell(args: &[Word], depth: usize) -> Result<Vec<Injected>, Unreadable> {
    match args.iter().position(|w| w.text == "-c") {
        Some(at) => match args.get(at + 1) {
            Some(code) if !code.computed => read_command(&code.text, depth + 1),
            _ => Err(Unreadable("it runs a shell on a computed command".into())),
        },
        None => Err(Unreadable("it runs another shell, which reads its commands from a pipe or a file".into())),
    }
}

/// `su [-c COMMAND]`, `su UID COMMAND…`.
fn su(args: &[Word], depth: usize) -> Result<Vec<Injected>, Unreadable> {
    if let Some(at) = args.iter().position(|w| w.text == "-c") {
        return match args.get(at + 1) {
            Some(code) if !code.computed => read_command(&code.text, depth + 1),
            _ => Err(Unreadable("it runs su on a computed command".into())),
        };
    }
    let rest = skip_options(args, &[]);
    let rest = match rest.first() {
        // The user to run as.
        Some(w) if w.text.chars().all(|c| c.is_ascii_digit()) || matches!(w.text.as_str(), "root" | "shell") => {
            &rest[1..]
        }
        _ => rest,
    };
    if rest.is_empty() {
        return Err(Unreadable("it opens a root shell, which reads its commands from a pipe".into()));
    }
    simple_command(rest, depth + 1)
}

/// `input [SOURCE] [-d DISPLAY] COMMAND ARGS`, as Android 14 reads it.
fn input(args: &[Word]) -> Result<Option<Injected>, Unreadable> {
    if args.iter().any(|w| w.computed) {
        return Err(Unreadable("its input arguments are computed by the shell".into()));
    }
    let mut rest = args;
    if rest.first().is_some_and(|w| SOURCES.contains(&w.text.as_str())) {
        rest = &rest[1..];
    }
    if rest.first().is_some_and(|w| w.text == "-d") {
        rest = rest.get(2..).unwrap_or(&[]);
    }
    let Some((command, rest)) = rest.split_first() else { return Ok(None) };
    let texts: Vec<&str> = rest.iter().map(|w| w.text.as_str()).collect();
    let point = |i: usize| -> Result<Point, Unreadable> {
        match (texts.get(i).and_then(|t| coordinate(t)), texts.get(i + 1).and_then(|t| coordinate(t))) {
            (Some(x), Some(y)) => Ok((x, y)),
            _ => Err(Unreadable(format!("input {} has no point the gate can read", command.text))),
        }
    };
    Ok(Some(match command.text.as_str() {
        "tap" => Injected::Press(point(0)?),
        "swipe" | "draganddrop" => Injected::Stroke { from: point(0)?, to: point(2)? },
        "motionevent" => match texts.first().map(|a| a.to_ascii_uppercase()) {
            Some(a) if matches!(a.as_str(), "DOWN" | "UP" | "MOVE" | "CANCEL") => Injected::Press(point(1)?),
            _ => return Err(Unreadable("input motionevent has no action the gate can read".into())),
        },
        "keyevent" | "keycombination" => {
            let keys = skip_options(rest, &["--delay", "--duration", "-t"]);
            Injected::Keys(keys.iter().map(|w| w.text.clone()).collect())
        }
        "text" => Injected::Text(texts.join(" ").replace("%s", " ")),
        "press" => Injected::FocusPress,
        // Moving the trackball or the scroll wheel presses nothing.
        "roll" | "scroll" => return Ok(None),
        other => {
            return Err(Unreadable(format!(
                "input {} is not a command the gate knows",
                codeact_base::clip::clip(other, 40)
            )));
        }
    }))
}

/// A coordinate as `input` takes it (a float, rounded).
fn coordinate(text: &str) -> Option<i32> {
    let v: f64 = text.parse().ok()?;
    (v.is_finite() && v.abs() < 1e7).then(|| v.round() as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(command: &str) -> Result<Vec<Injected>, Unreadable> {
        injected_input(command)
    }

    #[test]
    fn input_is_found_wherever_the_command_hides_it() {
        let tap = Ok(vec![Injected::Press((540, 1200))]);
        for command in [
            "input tap 540 1200",
            "true; input tap 540 1200",
            "true && input tap 540 1200 || true",
            "A=1 timeout 5 /system/bin/input touchscreen -d 0 tap 540.2 1199.6",
            "cmd input tap 540 1200",
            "env -i X=1 nice -n 5 input tap 540 1200",
            "sh -c 'input tap 540 1200'",
            "su 0 input tap 540 1200",
            "su -c \"sh -c 'input tap 540 1200'\"",
            "in''put tap 540 1200 2>&1 > /dev/null",
            "if true; then input tap 540 1200; fi",
            "input motionevent DOWN 540 1200",
            "echo hi | input tap 540 1200",
        ] {
            assert_eq!(read(command), tap, "{command}");
        }
        assert_eq!(read("input swipe 1 2 3 4 500"), Ok(vec![Injected::Stroke { from: (1, 2), to: (3, 4) }]));
        assert_eq!(read("input draganddrop 1 2 1 2"), Ok(vec![Injected::Stroke { from: (1, 2), to: (1, 2) }]));
        assert_eq!(read("input keyevent --longpress 66"), Ok(vec![Injected::Keys(vec!["66".into()])]));
        assert_eq!(read("input text a%sb"), Ok(vec![Injected::Text("a b".into())]));
        assert_eq!(read("input trackball press"), Ok(vec![Injected::FocusPress]));
        for plain in [
            "getprop ro.product.model",
            "simctl state | grep wifi",
            "echo 'input tap 1 2'",
            "input roll 1 1",
            "# input tap 1 2",
        ] {
            assert_eq!(read(plain), Ok(vec![]), "{plain}");
        }
    }

    #[test]
    fn what_cannot_be_read_is_unreadable() {
        for command in [
            "input tap $X 1200",
            "$(echo input) tap 1 2",
            "`echo input` tap 1 2",
            "X=input; $X tap 1 2",
            "echo 'input tap 1 2' | sh",
            "sh /sdcard/t.sh",
            "eval 'input tap 1 2'",
            "input tap 1 2; input tap 3 4",
            "sendevent /dev/input/event1 1 330 1",
            "cat taps > /dev/input/event1",
            "monkey 500",
            "input tap one two",
            "input frobnicate 1 2",
            "sh -c \"$CMD\"",
            "su",
            "sh -c 'input tap 1 2",
            "find / -name x -exec input tap 1 2 ;",
            "am broadcast -a ADB_INPUT_TEXT --es msg hi",
            "cat <<EOF",
            "/system/bin/inpu? tap 1 2",
        ] {
            assert!(read(command).is_err(), "{command}: {:?}", read(command));
        }
    }
}
