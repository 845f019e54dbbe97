//! The shell's tests: whole command lines run through `run_script` with a fresh file
//! system and a fake set of Android tools. Not the builtins' own tests (`builtins/tests.rs`).

use super::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::env::GLOB_LIMIT;
use super::glob::glob_regex;

/// Records calls; knows `input` (echoes argv and stdin) and `dumpsys` (prints a line).
#[derive(Default)]
struct Fake {
    calls: Mutex<Vec<(Vec<String>, Vec<u8>)>>,
}

impl Commands for Fake {
    fn run_command(&self, argv: &[String], stdin: &[u8], _env: &ShellEnv) -> Option<Output> {
        if let Ok(mut c) = self.calls.lock() {
            c.push((argv.to_vec(), stdin.to_vec()));
        }
        match argv[0].as_str() {
            "input" => Some(Output {
                stdout: format!("{}|{}", argv.join(","), String::from_utf8_lossy(stdin)).into_bytes(),
                ..Output::default()
            }),
            "dumpsys" => Some(Output {
                stdout: b"mCurrentFocus=Window{1 u0 com.example/.Main}\nother\n".to_vec(),
                ..Output::default()
            }),
            _ => None,
        }
    }
}

fn run_with(fs: &MemFs, cmds: &Fake, script: &str) -> Output {
    let env = ShellEnv { fs, commands: cmds, deadline: None, cancel: None };
    run_script(script, &env)
}

/// Quotes like `adb exec-out` does: `'...'` with `'` sent as `'\\''`.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn run(script: &str) -> Output {
    run_with(&MemFs::new(), &Fake::default(), script)
}

fn out(script: &str) -> String {
    String::from_utf8_lossy(&run(script).stdout).into_owned()
}

#[test]
fn exec_out_quoting_round_trip() {
    assert_eq!(out(r#"echo 'it'\''s' "a  b""#), "it's a  b\n");
    assert_eq!(out(r#"echo 'a'"b"c '' d"#), "abc  d\n");
    assert_eq!(out(r#"printf '%s|' 'x y' '' "\$HOME" "$HOME""#), "x y||$HOME|/|");
}

#[test]
fn status_and_operators() {
    assert_eq!(out("false && echo no; echo $?"), "1\n");
    assert_eq!(out("false || echo yes"), "yes\n");
    assert_eq!(out("true && echo a || echo b"), "a\n");
    assert_eq!(out("false && echo a || echo b"), "b\n");
    assert_eq!(out("! false && echo neg"), "neg\n");
    assert_eq!(run("true; false").code, 1);
    assert_eq!(out("echo a # comment\necho b"), "a\nb\n");
    let r = run("echo a; exit 3; echo b");
    assert_eq!((r.stdout.as_slice(), r.code), (&b"a\n"[..], 3));
    assert_eq!(out("sh -c 'exit 4'; echo $?"), "4\n");
}

#[test]
fn pipes() {
    assert_eq!(out("echo hi | grep -E 'h+'"), "hi\n");
    assert_eq!(run("echo hi | grep x").code, 1);
    assert_eq!(out("printf 'a\\nb\\nc\\n' | tail -n 2 | head -1"), "b\n");
    assert_eq!(out("echo $(echo a   b) \"$(echo c)\""), "a b c\n");
}

#[test]
fn unknown_command() {
    let r = run("nosuch arg");
    assert_eq!(r.code, 127);
    assert_eq!(r.stderr, b"/system/bin/sh: nosuch: inaccessible or not found\n");
    assert!(r.stdout.is_empty());
    let r = run("/system/bin/nosuch");
    assert_eq!(r.stderr, b"/system/bin/sh: /system/bin/nosuch: inaccessible or not found\n");
}

#[test]
fn syntax_errors() {
    let r = run("echo 'abc; echo ran");
    assert_eq!(r.stderr, b"/system/bin/sh: syntax error: unterminated quoted string\n");
    assert_eq!(r.code, 1);
    assert!(r.stdout.is_empty());
    let r = run("echo a |");
    assert_eq!(r.code, 1);
    assert!(r.stdout.is_empty());
    assert!(r.stderr.starts_with(b"/system/bin/sh: syntax error"));
}

#[test]
fn redirections() {
    let fs = MemFs::new();
    let f = Fake::default();
    let r = run_with(&fs, &f, "echo hello > /sdcard/x; cat /sdcard/x; echo more >> /sdcard/x");
    assert_eq!(r.stdout, b"hello\n");
    assert_eq!(fs.read("/sdcard/x").unwrap(), b"hello\nmore\n");
    let r = run_with(&fs, &f, "cat /nope 2> /sdcard/err; cat < /sdcard/err");
    assert_eq!(r.stdout, b"cat: /nope: No such file or directory\n");
    let r = run_with(&fs, &f, "cat /nope /sdcard/x > /sdcard/both 2>&1");
    assert!(r.stdout.is_empty() && r.stderr.is_empty());
    assert_eq!(fs.read("/sdcard/both").unwrap(), b"hello\nmore\ncat: /nope: No such file or directory\n");
    let r = run_with(&fs, &f, "cat /nope 2>&1 >/dev/null");
    assert_eq!(r.stdout, b"cat: /nope: No such file or directory\n");
    let r = run_with(&fs, &f, "echo x &> /sdcard/amp; ls /nope &>/dev/null; echo $?");
    assert_eq!(r.stdout, b"1\n");
    assert_eq!(fs.read("/sdcard/amp").unwrap(), b"x\n");
    let r = run_with(&fs, &f, "echo x > /system/y");
    assert_eq!(r.code, 1);
    assert_eq!(r.stderr, b"/system/bin/sh: can't create /system/y: Read-only file system\n");
    let r = run_with(&fs, &f, "cat < /sdcard/none");
    assert_eq!(r.code, 1);
    assert_eq!(r.stderr, b"/system/bin/sh: can't open /sdcard/none: No such file or directory\n");
}

#[test]
fn files_through_shell() {
    let fs = MemFs::new();
    let f = Fake::default();
    run_with(&fs, &f, "echo 1 > /sdcard/b.txt; touch /sdcard/a.png; mkdir /sdcard/d");
    assert_eq!(run_with(&fs, &f, "ls /sdcard").stdout, b"DCIM\nDownload\nPictures\na.png\nb.txt\nd\n");
    assert_eq!(run_with(&fs, &f, "ls /storage/emulated/0/*.txt").stdout, b"/storage/emulated/0/b.txt\n");
    assert_eq!(run_with(&fs, &f, "echo /sdcard/*.zip").stdout, b"/sdcard/*.zip\n");
    assert_eq!(run_with(&fs, &f, "echo '/sdcard/*.txt'").stdout, b"/sdcard/*.txt\n");
    let r = run_with(&fs, &f, "rm /sdcard/b.txt; ls /sdcard/b.txt");
    assert_eq!(r.code, 1);
    assert_eq!(r.stderr, b"ls: /sdcard/b.txt: No such file or directory\n");
    let r = run_with(&fs, &f, "echo x > /system/z; touch /system/z");
    assert_eq!(r.code, 1);
    assert!(fs.stat("/system/z").is_none());
    run_with(&fs, &f, "echo same > /storage/emulated/0/a");
    assert_eq!(fs.read("/sdcard/a").unwrap(), b"same\n");
}

#[test]
fn external_commands() {
    let fs = MemFs::new();
    let f = Fake::default();
    let r = run_with(&fs, &f, "echo data | /system/bin/input tap 1 2");
    assert_eq!(r.stdout, b"input,tap,1,2|data\n");
    let r = run_with(&fs, &f, "dumpsys window | grep mCurrentFocus");
    assert_eq!(r.stdout, b"mCurrentFocus=Window{1 u0 com.example/.Main}\n");
    let r = run_with(&fs, &f, "sh -c 'input text \"a b\"'");
    assert_eq!(r.stdout, b"input,text,a b|");
    let calls = f.calls.lock().unwrap();
    assert_eq!(calls[0].0, ["input", "tap", "1", "2"]);
    assert_eq!(calls[0].1, b"data\n");
}

#[test]
fn timeouts() {
    let start = Instant::now();
    let r = run("timeout 0.05 sleep 5");
    assert_eq!(r.code, 124);
    assert!(start.elapsed() < Duration::from_secs(2));
    assert_eq!(run("timeout 5 true").code, 0);
    assert_eq!(run("timeout 5 false").code, 1);
    assert_eq!(run("timeout -s KILL 0.01 sleep 1").code, 137);
    let start = Instant::now();
    let r = run("timeout 0.03 sh -c 'sleep 1; echo late'; echo $?");
    assert_eq!(r.stdout, b"124\n");
    assert!(start.elapsed() < Duration::from_secs(1));
    assert_eq!(run("timeout").code, 125);
}

#[test]
fn nesting_is_bounded() {
    let mut s = String::from("echo deep");
    for _ in 0..12 {
        s = format!("sh -c {}", shell_quote(&s));
    }
    let r = run(&s);
    assert_eq!(r.code, 1);
    assert!(String::from_utf8_lossy(&r.stderr).contains("too many nested shells"));
    assert_eq!(out("echo 'echo from stdin' | sh"), "from stdin\n");
}

#[test]
fn odd_input_never_panics() {
    let cases = [
        "",
        "'",
        "\\",
        "$",
        "${",
        "$(",
        "`",
        "2>",
        ">&",
        "a[",
        "echo [",
        "ls /sdcard/[",
        "grep '['",
        "printf %",
        "printf '\\'",
        "echo -e '\\x'",
        "head -n",
        "tail -c +0",
        "echo *",
        "ls ../..",
        "é ü",
        "echo 😀* [!a]*",
        "echo ${}",
        "exit 99999999999999999999",
        "sleep 1e400 &",
        "timeout 1e30 true",
        "echo a 3>&1 9<x",
        "cat <&0",
        "!",
        "! ",
        "base64 -w 0",
        "printf '%.999999999999s' x",
        "grep -e",
        "grep -E '*'",
        "grep -E '+a|?'",
        "a && ",
        "&& a",
        "echo $((1+2))",
        ";",
        "\n",
        "echo \"\\\"",
        "mv",
        "cp a",
        "stat -c",
        "ls -",
        "rm -",
        "wc -l -",
        "date +%",
        "echo ok",
    ];
    let fs = MemFs::new();
    let f = Fake::default();
    for c in cases {
        let r = run_with(&fs, &f, c);
        assert!(r.code >= 0, "{c}");
    }
    assert_eq!(run_with(&fs, &f, "echo ok").stdout, b"ok\n");
    assert_eq!(run_with(&fs, &f, "echo \"\\\"\"").stdout, b"\"\n");
}

#[test]
fn nested_timeouts_do_not_recurse() {
    let s = format!("{}true", "timeout 1 ".repeat(10_000));
    assert_eq!(run(&s).code, 0);
    let s = format!("{}false", "timeout -s KILL 5 ".repeat(10_000));
    assert_eq!(run(&s).code, 1);
    let start = Instant::now();
    assert_eq!(run("timeout 5 timeout 0.02 sleep 1").code, 124);
    assert_eq!(run("timeout -s KILL 0.02 timeout 5 sleep 1").code, 137);
    assert_eq!(run("timeout 0.02 timeout -s 9 5 sleep 1").code, 124);
    assert!(start.elapsed() < Duration::from_secs(2));
    assert_eq!(run("timeout 1 timeout x true").code, 125);
    assert_eq!(run("timeout 1 timeout 1").code, 125);
}

fn limited(fs: &MemFs, script: &str, output: usize, commands: usize) -> Output {
    let f = Fake::default();
    let env = ShellEnv { fs, commands: &f, deadline: None, cancel: None };
    run_limited(script, &env, output, commands)
}

#[test]
fn output_budget() {
    let fs = MemFs::new();
    fs.write("/sdcard/big", &vec![b'x'; 8 << 20]).unwrap();
    let r = run_with(&fs, &Fake::default(), &format!("cat{}; echo after", " /sdcard/big".repeat(9)));
    assert_eq!(r.code, 1);
    assert!(r.stderr.ends_with(b"/system/bin/sh: output too large\n"));
    assert!(!r.stdout.ends_with(b"after\n"));
    assert!(r.stdout.len() <= OUTPUT_LIMIT);
    assert_eq!(run_with(&fs, &Fake::default(), "cat /sdcard/big | wc -c").stdout, b"8388608\n");
    // Pipes, substitutions and variables all count.
    let r = limited(&fs, "printf '%1000s' | printf '%1000s' | wc -c", 1500, 100);
    assert_eq!((r.code, r.stdout.is_empty()), (1, true));
    let r = limited(&fs, "echo $(printf '%1000s') $(printf '%1000s')", 1500, 100);
    assert!(r.stderr.ends_with(b"output too large\n"));
    let doubling = format!("A=xxxxxxxxxxxxxxxx{}; echo done", "; A=$A$A".repeat(40));
    let r = limited(&fs, &doubling, 1 << 20, 100);
    assert_eq!((r.code, r.stdout.is_empty()), (1, true));
    assert!(r.stderr.ends_with(b"output too large\n"));
    let r = limited(&fs, "printf '%1000s' x; echo ok", 1500, 100);
    assert_eq!((r.code, r.stdout.len()), (0, 1003));
}

#[test]
fn command_budget() {
    let r = run(&"true;".repeat(COMMAND_LIMIT + 1));
    assert_eq!(r.code, 1);
    assert_eq!(r.stderr, b"/system/bin/sh: too many commands\n");
    assert_eq!(run(&"true;".repeat(1000)).code, 0);
    let fs = MemFs::new();
    let r = limited(&fs, "echo a; sh -c 'true; true; true'; echo $(true; true); echo b", usize::MAX, 6);
    assert_eq!((r.code, r.stdout.as_slice()), (1, &b"a\n"[..]));
    assert!(r.stderr.ends_with(b"too many commands\n"));
    let r = limited(&fs, "echo a; sh -c 'true; true; true'; echo b", usize::MAX, 6);
    assert_eq!((r.code, r.stdout.as_slice()), (0, &b"a\nb\n"[..]));
}

#[test]
fn cancel_stops_sleep_and_script() {
    let fs = MemFs::new();
    let f = Fake::default();
    let cancel = Arc::new(AtomicBool::new(false));
    let env = ShellEnv { fs: &fs, commands: &f, deadline: None, cancel: Some(cancel.clone()) };
    let setter = {
        let c = cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            c.store(true, Ordering::Relaxed);
        })
    };
    let start = Instant::now();
    let r = run_script("echo before; sleep 10; echo after", &env);
    let _ = setter.join();
    assert!(start.elapsed() < Duration::from_secs(1));
    assert_eq!(r.stdout, b"before\n");
    assert!(!env.sleep(Duration::from_secs(10)));
    assert!(run_script("echo x", &env).stdout.is_empty());
    let env = ShellEnv { fs: &fs, commands: &f, deadline: None, cancel: Some(Arc::new(AtomicBool::new(false))) };
    assert!(env.sleep(Duration::from_millis(20)));
    assert_eq!(run_script("echo x", &env).stdout, b"x\n");
}

#[test]
fn both_append() {
    let fs = MemFs::new();
    let f = Fake::default();
    run_with(&fs, &f, "echo a &> /sdcard/log; echo b &>> /sdcard/log; cat /nope &>>/sdcard/log");
    assert_eq!(fs.read("/sdcard/log").unwrap(), b"a\nb\ncat: /nope: No such file or directory\n");
    run_with(&fs, &f, "echo c &> /sdcard/log");
    assert_eq!(fs.read("/sdcard/log").unwrap(), b"c\n");
}

#[test]
fn cd_and_pwd() {
    let fs = MemFs::new();
    let f = Fake::default();
    let r = run_with(&fs, &f, "cd /sdcard; pwd; echo $PWD; echo hi > f; cat f; mkdir d; cd d; pwd; cd ..; ls; echo *");
    assert_eq!(
        String::from_utf8_lossy(&r.stdout),
        "/sdcard\n/sdcard\nhi\n/sdcard/d\nDCIM\nDownload\nPictures\nd\nf\nDCIM Download Pictures d f\n"
    );
    assert_eq!(fs.read("/sdcard/f").unwrap(), b"hi\n");
    let r = run_with(&fs, &f, "cd /x; echo $?; pwd");
    assert_eq!(r.stdout, b"2\n/\n");
    assert_eq!(r.stderr, b"/system/bin/sh: cd: /x: No such file or directory\n");
    let r = run_with(&fs, &f, "cd /sdcard/f");
    assert_eq!((r.code, r.stderr.as_slice()), (2, &b"/system/bin/sh: cd: /sdcard/f: Not a directory\n"[..]));
    // Nested shells inherit the directory; pipeline stages and children do not leak it.
    assert_eq!(
        run_with(&fs, &f, "cd /sdcard; sh -c 'cd d; pwd'; pwd; echo $(cd d; pwd)").stdout,
        b"/sdcard/d\n/sdcard\n/sdcard/d\n"
    );
    assert_eq!(run_with(&fs, &f, "cd /sdcard | true; pwd").stdout, b"/\n");
    assert_eq!(run_with(&fs, &f, "cd /sdcard; cd; pwd; cd -; pwd").stdout, b"/\n/sdcard\n");
    assert_eq!(run_with(&fs, &f, "cd /sdcard && cat < f && sh f").stdout, b"hi\n");
    assert_eq!(run_with(&fs, &f, "pwd").stdout, b"/\n");
}

#[test]
fn assignments() {
    let fs = MemFs::new();
    let f = Fake::default();
    assert_eq!(run_with(&fs, &f, "A=1; echo $A; A='x  y' B=$A; echo \"$B\" $A").stdout, b"1\nx  y x y\n");
    assert_eq!(run_with(&fs, &f, "FOO=1 sh -c 'echo $FOO'; echo \"[$FOO]\"").stdout, b"1\n[]\n");
    assert_eq!(run_with(&fs, &f, "FOO=1; sh -c 'echo \"[$FOO]\"'; echo $(echo $FOO)").stdout, b"[]\n1\n");
    assert_eq!(run_with(&fs, &f, "A=1 | true; echo \"[$A]\"").stdout, b"[]\n");
    assert_eq!(run_with(&fs, &f, "HOME=/sdcard; cd; pwd").stdout, b"/sdcard\n");
    assert_eq!(run_with(&fs, &f, "A=*; echo \"$A\"").stdout, b"*\n");
    assert_eq!(run_with(&fs, &f, "1A=x").code, 127);
    assert_eq!(run_with(&fs, &f, "echo A=b").stdout, b"A=b\n");
    assert_eq!(run_with(&fs, &f, "A=$(echo x) > /sdcard/o; echo $A").stdout, b"x\n");
}

#[test]
fn splits_only_on_ascii_ifs() {
    let fs = MemFs::new();
    let f = Fake::default();
    let r = run_with(&fs, &f, "printf '[%s]' $(printf 'a\u{a0}b\u{3000}c d\te\nf')");
    assert_eq!(String::from_utf8_lossy(&r.stdout), "[a\u{a0}b\u{3000}c][d][e][f]");
}

#[test]
fn subst_backslashes() {
    assert_eq!(out(r"echo $(echo \))"), ")\n");
    assert_eq!(out(r#"echo "$(echo "a\"b")""#), "a\"b\n");
    assert_eq!(out(r"echo $(echo '\')"), "\\\n");
}

#[test]
fn glob_limits() {
    let fs = MemFs::new();
    let f = Fake::default();
    run_with(&fs, &f, "touch /sdcard/file; mkdir /sdcard/e");
    // Only directories are descended into (`file/..` is not a match).
    assert_eq!(
        run_with(&fs, &f, "echo /sdcard/*/..").stdout,
        b"/sdcard/DCIM/.. /sdcard/Download/.. /sdcard/Pictures/.. /sdcard/e/..\n"
    );
    assert_eq!(
        run_with(&fs, &f, "echo /sdcard/*/").stdout,
        b"/sdcard/DCIM/ /sdcard/Download/ /sdcard/Pictures/ /sdcard/e/\n"
    );
    for k in 0..16 {
        fs.mkdir(&format!("/sdcard/e/{k:02}"), false).unwrap();
    }
    // 16^5 candidates would be over a million: capped.
    let r = run_with(&fs, &f, "echo /sdcard/e/*/../*/../*/../*/../* | wc -w");
    assert_eq!(r.stdout, format!("{GLOB_LIMIT}\n").into_bytes());
    let start = Instant::now();
    let r = run_with(&fs, &f, &format!("echo /sdcard/{}*", "[".repeat(200_000)));
    assert_eq!(r.stdout.len(), 200_000 + 10);
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!(
        glob_regex(&[('[', false), (']', false), ('a', false), (']', false)]).map(|r| r.is_match("]")),
        Some(true)
    );
}
