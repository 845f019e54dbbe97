//! Signals as a user meets them: a CI job's limit (coreutils `timeout`, which
//! signals the process and then its whole group, so one signal arrives twice), a
//! signal while the phone is still opening, and Ctrl-C typed at the REPL in a real
//! terminal. Each stops what waits at once, counts once, and leaves the records
//! naming the script it stopped.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("codeact-signals-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// `codeact exec` of `script` under `timeout -s SIG after`: how long it ran past the
/// signal, and the JUnit report it left.
fn exec_under_timeout(dir: &Path, signal: &str, after: &str) -> (Duration, String, String) {
    let junit = dir.join(format!("junit-{signal}-{after}.xml"));
    let _ = std::fs::remove_file(&junit);
    let started = Instant::now();
    let out = Command::new("timeout")
        .args(["-s", signal, after, env!("CARGO_BIN_EXE_codeact"), "exec", "waits.rhai", "--device", "sim"])
        .arg("--junit")
        .arg(&junit)
        .current_dir(dir)
        .output()
        .expect("coreutils timeout runs codeact");
    let ran = started.elapsed();
    let signalled = Duration::from_secs_f64(after.parse().expect("seconds"));
    let report = std::fs::read_to_string(&junit).unwrap_or_default();
    (ran.saturating_sub(signalled), report, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_ci_timeout_stops_a_long_wait_at_once_and_the_junit_names_the_script() {
    let dir = scratch("timeout");
    std::fs::write(dir.join("waits.rhai"), "print(\"waiting\");\nwait(20000);\n").expect("write");
    for signal in ["TERM", "INT"] {
        for _ in 0..3 {
            let (past, report, err) = exec_under_timeout(&dir, signal, "2");
            assert!(past < Duration::from_millis(1500), "{signal}: ran {past:?} past the signal\n{err}");
            assert!(report.contains("classname=\"waits.rhai\""), "{signal}: {report}\n{err}");
            // A second delivery counted as a second signal would quit before the records.
            assert!(report.contains("interrupted"), "{signal}: {report}");
        }
    }
}

#[test]
fn a_signal_while_the_phone_opens_still_leaves_a_junit_naming_the_script() {
    let dir = scratch("startup");
    std::fs::write(dir.join("waits.rhai"), "wait(20000);\n").expect("write");
    for after in ["0.05", "0.1", "0.2"] {
        let (past, report, err) = exec_under_timeout(&dir, "TERM", after);
        assert!(past < Duration::from_millis(1500), "{after}: ran {past:?} past the signal\n{err}");
        assert!(report.contains("classname=\"waits.rhai\""), "signal at {after} s: {report}\n{err}");
        assert!(report.contains("interrupted"), "{report}");
    }
}

/// The REPL in a pseudo-terminal (`script`), typed into a key at a time as a person
/// types: Ctrl-C during `wait(15000)` is the terminal's SIGINT, which the line
/// editor must not take for itself.
#[test]
fn ctrl_c_typed_at_the_repl_in_a_terminal_stops_a_wait() {
    use std::io::Write;
    let (mut child, mut stdin, seen) = crate::common::repl_in_terminal();
    let mut screen = String::new();
    let read_for = |wanted: Option<&str>, within: Duration, screen: &mut String| {
        let until = Instant::now() + within;
        while Instant::now() < until && !wanted.is_some_and(|w| screen.contains(w)) {
            if let Ok(chunk) = seen.recv_timeout(Duration::from_millis(20)) {
                screen.push_str(&chunk);
            }
        }
        wanted.is_some_and(|w| screen.contains(w))
    };
    assert!(read_for(Some("rhai> "), Duration::from_secs(30), &mut screen), "{screen}");
    for key in "wait(15000)\r".bytes() {
        let _ = stdin.write_all(&[key]);
        let _ = stdin.flush();
        read_for(None, Duration::from_millis(30), &mut screen);
    }
    read_for(None, Duration::from_secs(1), &mut screen);
    let pressed = Instant::now();
    let _ = stdin.write_all(&[0x03]);
    let _ = stdin.flush();
    assert!(read_for(Some("cancelled"), Duration::from_secs(20), &mut screen), "{screen}");
    let stopped = pressed.elapsed();
    assert!(stopped < Duration::from_secs(2), "Ctrl-C took {stopped:?} to stop the wait: {screen}");
    let _ = stdin.write_all(b":quit\r");
    drop(stdin);
    let _ = child.wait();
}
