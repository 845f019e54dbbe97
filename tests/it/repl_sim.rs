//! `codeact repl` on a virtual phone, its stdin piped: echoes in order, a further
//! prompt for an unfinished snippet, Ctrl-C that stops a wait, `:inspect` and `:save`.

use std::process::Command;
use std::time::Duration;

/// `codeact repl` on its own virtual phone, its stdin and stdout piped.
pub(crate) fn repl_on_sim() -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["repl", "--device", "sim", "--no-history"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start the repl")
}

/// What the REPL prints for `input` typed into it, to its end.
pub(crate) fn repl_output(input: &str) -> String {
    use std::io::Write;
    let mut repl = repl_on_sim();
    if let Some(mut stdin) = repl.stdin.take() {
        let _ = stdin.write_all(input.as_bytes());
    }
    let out = repl.wait_with_output().expect("repl output");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_repl_echoes_prints_and_actions_in_the_order_they_happen() {
    let shown = repl_output("for i in 0..2 { print(i); remember(\"x\"); }\nfor i in 0..60 { remember(\"y\"); }\n");
    assert!(
        shown.contains("0\n  · remember(\"x\") ok") && shown.contains("1\n  · remember(\"x\") ok"),
        "interleaved: {shown}"
    );
    assert_eq!(shown.matches("remember(\"y\") ok").count(), 50, "a loop's echo stops at 50: {shown}");
    assert!(shown.contains("  · … and 10 more calls"), "{shown}");
}

#[test]
fn ctrl_c_in_the_repl_stops_a_waiting_snippet_and_the_repl_goes_on() {
    use std::io::{BufRead, Write};
    let mut repl = repl_on_sim();
    let mut stdin = repl.stdin.take().expect("stdin");
    let stdout = repl.stdout.take().expect("stdout");
    let (lines, seen) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let _ = writeln!(stdin, "print(\"waiting\"); wait(20000);");
    let _ = stdin.flush();
    let mut waiting = false;
    while let Ok(line) = seen.recv_timeout(Duration::from_secs(10)) {
        if line.contains("waiting") {
            waiting = true;
            break;
        }
    }
    assert!(waiting, "the snippet started");
    std::thread::sleep(Duration::from_millis(200));
    let pid = nix::unistd::Pid::from_raw(repl.id() as i32);
    let sent = std::time::Instant::now();
    let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT);
    let mut stopped = None;
    while let Ok(line) = seen.recv_timeout(Duration::from_secs(10)) {
        if line.contains("cancelled") {
            stopped = Some(sent.elapsed());
            break;
        }
    }
    let stopped = stopped.expect("the snippet said it was cancelled");
    assert!(stopped < Duration::from_secs(2), "took {stopped:?}");
    let _ = writeln!(stdin, "print(\"still here\")");
    drop(stdin);
    let after: Vec<String> = seen.iter().collect();
    assert!(after.iter().any(|l| l.contains("still here")), "{after:?}");
    let _ = repl.wait();
}

/// The continuation prompt needs a terminal: the REPL runs under `script` (util-linux)
/// for a pseudo-terminal, and each line is typed once the prompt asking for it shows.
#[test]
fn the_repl_prompts_for_each_further_line_of_an_unfinished_snippet() {
    use std::io::Write;
    let (mut child, mut stdin, seen) = crate::common::repl_in_terminal();
    let mut screen = String::new();
    let wait_for = |wanted: &str, screen: &mut String| {
        let until = std::time::Instant::now() + Duration::from_secs(15);
        while !screen.contains(wanted) && std::time::Instant::now() < until {
            if let Ok(chunk) = seen.recv_timeout(Duration::from_millis(200)) {
                screen.push_str(&chunk);
            }
        }
        screen.contains(wanted)
    };
    assert!(wait_for("rhai> ", &mut screen), "{screen}");
    for (line, next_prompt) in [("fn twice(x) {", "  ... "), ("  x * 2", "  ... "), ("}", "rhai> ")] {
        let before = screen.matches(next_prompt).count();
        let _ = write!(stdin, "{line}\r");
        let _ = stdin.flush();
        let until = std::time::Instant::now() + Duration::from_secs(15);
        while screen.matches(next_prompt).count() <= before && std::time::Instant::now() < until {
            if let Ok(chunk) = seen.recv_timeout(Duration::from_millis(200)) {
                screen.push_str(&chunk);
            }
        }
        assert!(screen.matches(next_prompt).count() > before, "after {line:?}: {screen}");
    }
    let _ = write!(stdin, "twice(21)\r");
    let _ = stdin.flush();
    assert!(wait_for("42", &mut screen), "{screen}");
    let _ = write!(stdin, ":quit\r");
    drop(stdin);
    let _ = child.wait();
}

/// The REPL's inspector names the element at a point and under a ui_state index,
/// with the selector exports write (and it finds that element), and `:save` keeps
/// the snippets that ran without an error as a script `exec` passes.
#[test]
fn the_repl_inspects_elements_and_saves_its_lines_as_a_script() {
    let dir = std::env::temp_dir().join(format!("codeact-repl-save-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let saved = dir.join("saved.rhai");
    let input = format!(
        "start_app(\"com.android.settings\");\n:inspect 940 700\n:pick 1\n:inspect 0.5\ntap(\"No such row\");\n\
         tap(#{{id: \"wifi_switch\"}});\n:save {0}\n:save {0}\n",
        saved.display()
    );
    let out = repl_output(&input);
    // The first switch on the screen: its id is its unique selector.
    assert!(out.contains("Switch #") && out.contains("selector: #{id: \"") && out.contains("   (unique"), "{out}");
    assert!(out.contains("point:    tap("), "{out}");
    assert!(out.contains("error: give a point: :inspect 540 1200"), "{out}");
    assert!(out.contains("saved 2 snippets to"), "{out}");
    assert!(out.contains("exists: give another name, or :save!"), "a second :save replaces nothing: {out}");
    let script = std::fs::read_to_string(&saved).expect("saved script");
    assert!(script.contains("tap(#{id: \"wifi_switch\"});") && !script.contains("No such row"), "{script}");
    let run = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", saved.to_str().expect("p"), "-d", "sim"])
        .output()
        .expect("exec the saved script");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}
