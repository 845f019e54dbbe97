//! The builtins' tests: each tool called directly through the lookup table, with a fresh
//! [`MemFs`] and no Android tools. Not whole command lines (`super::super::tests`).

use super::super::{Budget, Commands, MemFs, ShellEnv};
use super::shared::strftime;
use super::*;
use std::time::Duration;

struct NoCommands;
impl Commands for NoCommands {
    fn run_command(&self, _: &[String], _: &[u8], _: &ShellEnv) -> Option<Output> {
        None
    }
}

/// Runs builtin `name` with string args and stdin on `fs`.
fn call(fs: &MemFs, name: &str, args: &[&str], stdin: &str) -> Output {
    call_with(fs, "/", usize::MAX, name, args, stdin.as_bytes()).0
}

/// Like `call`, in directory `cwd` with `budget` output bytes; also says whether the
/// builtin ran out of budget.
fn call_with(fs: &MemFs, cwd: &str, budget: usize, name: &str, args: &[&str], stdin: &[u8]) -> (Output, bool) {
    let env = ShellEnv { fs, commands: &NoCommands, deadline: None, cancel: None };
    let budget = Budget::new(budget, 10);
    let cx = Cx { env: &env, cwd, budget: &budget };
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let f = lookup(name).unwrap();
    let out = f(&args, stdin, &cx);
    (out, budget.stopped())
}

fn so(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn grep_out(args: &[&str], input: &str) -> (String, i32) {
    let o = call(&MemFs::new(), "grep", args, input);
    (so(&o), o.code)
}

#[test]
fn echo_flags() {
    let fs = MemFs::new();
    assert_eq!(so(&call(&fs, "echo", &["-n", "a", "b"], "")), "a b");
    assert_eq!(so(&call(&fs, "echo", &["-e", "a\\tb\\x41\\0101"], "")), "a\tbAA\n");
    assert_eq!(so(&call(&fs, "echo", &["-e", "x\\cy"], "")), "x");
    assert_eq!(so(&call(&fs, "echo", &["-x", "a\\n"], "")), "-x a\n\n");
    assert_eq!(so(&call(&fs, "echo", &[], "")), "\n");
}

#[test]
fn echo_is_mksh() {
    let fs = MemFs::new();
    // Escapes are on by default; -E turns them off, -e back on; \c ends the output.
    assert_eq!(so(&call(&fs, "echo", &["a\\nb"], "")), "a\nb\n");
    assert_eq!(so(&call(&fs, "echo", &["a\\tb", "c\\cd", "e"], "")), "a\tb c");
    assert_eq!(so(&call(&fs, "echo", &["-E", "a\\nb"], "")), "a\\nb\n");
    assert_eq!(so(&call(&fs, "echo", &["-E", "-e", "a\\nb"], "")), "a\nb\n");
    assert_eq!(so(&call(&fs, "echo", &["-En", "x\\n"], "")), "x\\n");
    assert_eq!(so(&call(&fs, "echo", &["-n", "-", "x"], "")), "- x");
}

#[test]
fn budget_stops_output_loops() {
    let fs = MemFs::new();
    fs.write("/sdcard/k", &[b'x'; 1000]).unwrap();
    let run = |name: &str, args: &[&str], stdin: &[u8]| call_with(&fs, "/", 1500, name, args, stdin);
    let (o, stopped) = run("cat", &["/sdcard/k", "/sdcard/k"], b"");
    assert!(stopped && o.code == 1 && o.stdout.is_empty());
    assert!(!run("cat", &["/sdcard/k"], b"").1);
    let (o, stopped) = run("printf", &["%1000s"], b"");
    assert!(!stopped && o.stdout.len() == 1000);
    assert!(run("printf", &["%1000s", "a", "b"], b"").1);
    assert!(run("printf", &["%s%s", "a", "b", "c"], b"").0.code == 0);
    let lines = "line\n".repeat(400);
    assert!(run("grep", &["l"], lines.as_bytes()).1);
    assert!(!run("grep", &["-c", "l"], lines.as_bytes()).1);
    assert!(run("head", &["-n", "1000"], lines.as_bytes()).1);
    assert!(run("tail", &["-c", "1600"], lines.as_bytes()).1);
    assert!(!run("tail", &["-c", "1400"], lines.as_bytes()).1);
    assert!(run("base64", &[], &[0; 1200]).1);
    assert!(!run("base64", &[], &[0; 1000]).1);
    for k in 0..200 {
        fs.write(&format!("/sdcard/file-with-a-long-name-{k}"), b"").unwrap();
    }
    assert!(run("ls", &["/sdcard"], b"").1);
}

#[test]
fn paths_follow_cwd() {
    let fs = MemFs::new();
    fs.write("/sdcard/Download/f", b"data\n").unwrap();
    let c = |name: &str, args: &[&str]| call_with(&fs, "/sdcard/Download", usize::MAX, name, args, b"").0;
    assert_eq!(so(&c("cat", &["f"])), "data\n");
    assert_eq!(so(&c("pwd", &[])), "/sdcard/Download\n");
    assert_eq!(c("mkdir", &["d"]).code, 0);
    assert!(fs.stat("/sdcard/Download/d").is_some_and(|m| m.is_dir));
    assert_eq!(c("cp", &["f", "d/g"]).code, 0);
    assert_eq!(fs.read("/sdcard/Download/d/g").unwrap(), b"data\n");
    assert_eq!(so(&c("ls", &["d"])), "g\n");
    assert_eq!(so(&c("grep", &["-r", "da", "."])), "./d/g:data\n./f:data\n");
    assert_eq!(c("rm", &["-r", "d"]).code, 0);
    assert!(fs.stat("/sdcard/Download/d").is_none());
}

#[test]
fn deep_trees_do_not_recurse() {
    let fs = MemFs::new();
    let deep = format!("/sdcard/t{}", "/d".repeat(1900));
    fs.mkdir(&deep, true).unwrap();
    fs.write(&format!("{deep}/f"), b"needle\n").unwrap();
    let o = call(&fs, "grep", &["-rl", "needle", "/sdcard/t"], "");
    assert_eq!(so(&o), format!("{deep}/f\n"));
    assert_eq!(call(&fs, "cp", &["-r", "/sdcard/t", "/sdcard/u"], "").code, 0);
    assert_eq!(fs.read(&format!("/sdcard/u{}/f", "/d".repeat(1900))).unwrap(), b"needle\n");
}

#[test]
fn grep_braces_are_linear() {
    let start = std::time::Instant::now();
    let pat = "x{1".repeat(100_000);
    let (_, code) = grep_out(&[&pat], "x\n");
    assert!(code == 1 || code == 2);
    let (_, code) = grep_out(&["-E", &"{".repeat(200_000)], "x\n");
    assert!(code == 1 || code == 2);
    assert_eq!(grep_out(&["-E", "a{2}{"], "aa{\n"), ("aa{\n".into(), 0));
    assert_eq!(grep_out(&["a\\{1,2\\}b"], "ab\n"), ("ab\n".into(), 0));
    assert!(start.elapsed() < std::time::Duration::from_secs(10));
}

#[test]
fn grep_basics() {
    let input = "apple\nbanana\na+b\nApple pie\n";
    assert_eq!(grep_out(&["-c", "an"], input), ("1\n".into(), 0));
    assert_eq!(grep_out(&["-v", "a"], input), ("Apple pie\n".into(), 0));
    assert_eq!(grep_out(&["a+b"], input), ("a+b\n".into(), 0));
    assert_eq!(grep_out(&["-E", "a+b"], input), ("".into(), 1));
    assert_eq!(grep_out(&["an\\+a"], input), ("banana\n".into(), 0));
    assert_eq!(grep_out(&["-i", "-n", "^apple"], input), ("1:apple\n4:Apple pie\n".into(), 0));
    assert_eq!(grep_out(&["-o", "-E", "an+"], "banana\n"), ("an\nan\n".into(), 0));
    assert_eq!(grep_out(&["-q", "pie"], input), ("".into(), 0));
    assert_eq!(grep_out(&["-F", "a+b"], input), ("a+b\n".into(), 0));
    assert_eq!(grep_out(&["-e", "zzz", "-e", "pie"], input), ("Apple pie\n".into(), 0));
    assert_eq!(grep_out(&["\\(an\\)\\{2\\}"], input), ("banana\n".into(), 0));
    assert_eq!(grep_out(&["-E", "(an){2}|^a\\+"], input), ("banana\na+b\n".into(), 0));
    assert_eq!(grep_out(&["*a"], "x*a\nya\n"), ("x*a\n".into(), 0));
    assert_eq!(grep_out(&["[[:digit:]]x"], "1x\nax\n"), ("1x\n".into(), 0));
    assert_eq!(grep_out(&["[]a]"], "]\nb\n"), ("]\n".into(), 0));
    assert_eq!(grep_out(&["a$b"], "a$b\nab\n"), ("a$b\n".into(), 0));
    assert_eq!(grep_out(&["-w", "app"], "app x\napple\n"), ("app x\n".into(), 0));
    assert_eq!(grep_out(&["-x", "ab"], "ab\nabc\n"), ("ab\n".into(), 0));
    assert_eq!(grep_out(&["x{"], "x{\n"), ("x{\n".into(), 0));
    assert_eq!(grep_out(&["-E", "x{"], "x{\n"), ("x{\n".into(), 0));
    assert_eq!(grep_out(&["[a"], "x\n").1, 2);
    assert_eq!(grep_out(&["\\1"], "x\n").1, 2);
    assert_eq!(grep_out(&[], "x\n").1, 2);
}

#[test]
fn grep_files() {
    let fs = MemFs::new();
    fs.write("/sdcard/a", b"one\ntwo\n").unwrap();
    fs.mkdir("/sdcard/d", false).unwrap();
    fs.write("/sdcard/d/b", b"two\n").unwrap();
    let o = call(&fs, "grep", &["two", "/sdcard/a", "/sdcard/missing"], "");
    assert_eq!(so(&o), "/sdcard/a:two\n");
    assert_eq!(o.stderr, b"grep: /sdcard/missing: No such file or directory\n");
    assert_eq!(o.code, 2);
    let o = call(&fs, "grep", &["-r", "two", "/sdcard"], "");
    assert_eq!(so(&o), "/sdcard/a:two\n/sdcard/d/b:two\n");
    let o = call(&fs, "grep", &["-l", "one", "/sdcard/a", "/sdcard/d/b"], "");
    assert_eq!(so(&o), "/sdcard/a\n");
}

#[test]
fn ls_rm_mkdir_touch() {
    let fs = MemFs::new();
    call(&fs, "mkdir", &["-p", "/sdcard/x/y"], "");
    let o = call(&fs, "mkdir", &["/sdcard/x"], "");
    assert_eq!((o.stderr.as_slice(), o.code), (&b"mkdir: '/sdcard/x': File exists\n"[..], 1));
    call(&fs, "touch", &["/sdcard/x/.hidden", "/sdcard/x/f"], "");
    assert_eq!(so(&call(&fs, "ls", &["/sdcard/x"], "")), "f\ny\n");
    assert_eq!(so(&call(&fs, "ls", &["-a", "/sdcard/x"], "")), ".\n..\n.hidden\nf\ny\n");
    assert_eq!(so(&call(&fs, "ls", &["/sdcard/x/f", "/sdcard/x/y"], "")), "/sdcard/x/f\n\n/sdcard/x/y:\n");
    fs.write("/sdcard/x/f", b"hello").unwrap();
    let long = so(&call(&fs, "ls", &["-l", "/sdcard/x/f"], ""));
    assert!(long.starts_with("-rw-rw---- 1 root sdcard_rw 5 20"), "{long}");
    assert!(long.ends_with(" /sdcard/x/f\n"));
    let o = call(&fs, "rm", &["/sdcard/x"], "");
    assert_eq!(o.stderr, b"rm: /sdcard/x: Is a directory\n");
    let o = call(&fs, "rm", &["/sdcard/nope"], "");
    assert_eq!((o.stderr.as_slice(), o.code), (&b"rm: /sdcard/nope: No such file or directory\n"[..], 1));
    assert_eq!(call(&fs, "rm", &["-f", "/sdcard/nope"], "").code, 0);
    assert_eq!(call(&fs, "rm", &["-rf", "/sdcard/x"], "").code, 0);
    assert!(fs.stat("/sdcard/x").is_none());
    let o = call(&fs, "rm", &["-rf", "/system/bin"], "");
    assert_eq!(o.stderr, b"rm: /system/bin: Read-only file system\n");
    let o = call(&fs, "ls", &["-z"], "");
    assert_eq!(o.code, 1);
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("ls: Unknown option 'z'"));
}

#[test]
fn cat_head_tail_wc() {
    let fs = MemFs::new();
    fs.write("/sdcard/n", b"1\n2\n3\n4\n5\n").unwrap();
    let o = call(&fs, "cat", &["/sdcard/n", "/nope", "-"], "in");
    assert_eq!(so(&o), "1\n2\n3\n4\n5\nin");
    assert_eq!((o.stderr.as_slice(), o.code), (&b"cat: /nope: No such file or directory\n"[..], 1));
    assert_eq!(so(&call(&fs, "head", &["-n", "2", "/sdcard/n"], "")), "1\n2\n");
    assert_eq!(so(&call(&fs, "head", &["-3"], "a\nb\nc\nd\n")), "a\nb\nc\n");
    assert_eq!(so(&call(&fs, "tail", &["-n", "2", "/sdcard/n"], "")), "4\n5\n");
    assert_eq!(so(&call(&fs, "tail", &["-n", "+4", "/sdcard/n"], "")), "4\n5\n");
    assert_eq!(so(&call(&fs, "tail", &["-c", "3"], "abcdef")), "def");
    assert_eq!(so(&call(&fs, "tail", &["-1"], "x\ny")), "y");
    assert_eq!(so(&call(&fs, "wc", &["-l"], "a\nb\n")), "2\n");
    assert_eq!(so(&call(&fs, "wc", &["-l", "/sdcard/n"], "")), "5 /sdcard/n\n");
    assert_eq!(so(&call(&fs, "wc", &[], "a b\nc\n")), "      2       3       6\n");
    assert_eq!(call(&fs, "head", &["-n", "x"], "").code, 1);
}

#[test]
fn head_tail_edges() {
    let fs = MemFs::new();
    let o = call(&fs, "head", &["-n", "-3"], "1\n2\n3\n4\n");
    assert_eq!((so(&o).as_str(), o.stderr.as_slice(), o.code), ("", &b"head: Invalid -n '-3'\n"[..], 1));
    assert_eq!(call(&fs, "head", &["-c", "-3"], "abc").code, 1);
    assert_eq!(so(&call(&fs, "tail", &["-n", "-2"], "1\n2\n3\n")), "2\n3\n");
    assert_eq!(so(&call(&fs, "head", &["-n", "0"], "1\n")), "");
    assert_eq!(so(&call(&fs, "head", &["-n", "2"], "1\n2")), "1\n2");
    assert_eq!(so(&call(&fs, "tail", &["-n", "0"], "1\n")), "");
    assert_eq!(so(&call(&fs, "tail", &["-n", "5"], "1\n2")), "1\n2");
    assert_eq!(so(&call(&fs, "tail", &["-n", "+1"], "1\n2")), "1\n2");
    assert_eq!(so(&call(&fs, "tail", &["-n", "+3"], "1\n2")), "");
    assert_eq!(so(&call(&fs, "tail", &["-n", "1"], "\n\n")), "\n");
    // -c slices the data directly (no per-byte allocation).
    let big = vec![b'z'; 8 << 20];
    let (o, _) = call_with(&fs, "/", usize::MAX, "head", &["-c", "5000000"], &big);
    assert_eq!(o.stdout.len(), 5_000_000);
    let (o, _) = call_with(&fs, "/", usize::MAX, "tail", &["-c", "+8388000"], &big);
    assert_eq!(o.stdout.len(), 609);
    assert_eq!(so(&call(&fs, "head", &["-c", "2"], "abc")), "ab");
}

#[test]
fn base64_round_trip() {
    let fs = MemFs::new();
    assert_eq!(so(&call(&fs, "base64", &[], "hello")), "aGVsbG8=\n");
    assert_eq!(so(&call(&fs, "base64", &["-d"], "aGVsbG8=\n")), "hello");
    assert_eq!(so(&call(&fs, "base64", &["-d"], "aGVsbG8")), "hello");
    assert_eq!(so(&call(&fs, "base64", &[], "")), "");
    let long = "x".repeat(100);
    let enc = so(&call(&fs, "base64", &[], &long));
    assert_eq!(enc.lines().next().map(str::len), Some(76));
    assert_eq!(so(&call(&fs, "base64", &["-d"], &enc)), long);
    let o = call(&fs, "base64", &["-d"], "a*b");
    assert_eq!((o.stderr.as_slice(), o.code), (&b"base64: bad input\n"[..], 1));
    assert_eq!(call(&fs, "base64", &["-d"], "a").code, 1);
}

#[test]
fn printf_formats() {
    let fs = MemFs::new();
    let p = |a: &[&str]| so(&call(&fs, "printf", a, ""));
    assert_eq!(p(&["%s-%d%%\\n", "a", "42"]), "a-42%\n");
    assert_eq!(p(&["%s\\t", "a", "b"]), "a\tb\t");
    assert_eq!(p(&["[%5s|%-3d|%03d|%x]", "ab", "7", "5", "255"]), "[   ab|7  |005|ff]");
    assert_eq!(p(&["%d", "'A"]), "65");
    assert_eq!(p(&["%99999999999s", "a"]).len(), 4096);
    assert_eq!(call(&fs, "printf", &["%d", "zz"], "").code, 1);
}

#[test]
fn misc_tools() {
    let fs = MemFs::new();
    assert_eq!(so(&call(&fs, "uname", &[], "")), "Linux\n");
    assert_eq!(
        so(&call(&fs, "uname", &["-a"], "")),
        "Linux localhost 6.1.75-android14-11 #1 SMP PREEMPT aarch64 Toybox\n"
    );
    assert_eq!(so(&call(&fs, "uname", &["-m"], "")), "aarch64\n");
    assert_eq!(so(&call(&fs, "id", &[], "")), "uid=2000(shell) gid=2000(shell) groups=2000(shell)\n");
    assert_eq!(so(&call(&fs, "which", &["ls", "input", "nope"], "")), "/system/bin/ls\n/system/bin/input\n");
    assert_eq!(call(&fs, "which", &["nope"], "").code, 1);
    let d = so(&call(&fs, "date", &[], ""));
    assert!(d.contains(" UTC 20") && d.ends_with('\n'), "{d}");
    let at = |fmt: &str, secs: i64| strftime(fmt, secs).unwrap_or_default();
    assert_eq!(at("%a %b %e %H:%M:%S %Z %Y", 1_795_323_120), "Sun Nov 22 04:52:00 UTC 2026");
    assert_eq!(at("%F %T", 0), "1970-01-01 00:00:00");
    assert_eq!(at("%F", 951_782_400), "2000-02-29");
    fs.write("/sdcard/s", b"12345").unwrap();
    assert_eq!(so(&call(&fs, "stat", &["-c", "%s", "/sdcard/s"], "")), "5\n");
    assert_eq!(call(&fs, "stat", &["-c", "%s", "/sdcard/none"], "").code, 1);
    assert_eq!(parse_duration("1.5m"), Some(Duration::from_secs(90)));
    assert_eq!(parse_duration("-1"), None);
    assert_eq!(parse_duration("x"), None);
    assert_eq!(call(&fs, "sleep", &["0.01"], "").code, 0);
    assert_eq!(call(&fs, "sleep", &["abc"], "").code, 1);
}

#[test]
fn cp_mv() {
    let fs = MemFs::new();
    fs.write("/sdcard/a", b"A").unwrap();
    assert_eq!(call(&fs, "cp", &["/sdcard/a", "/sdcard/b"], "").code, 0);
    assert_eq!(fs.read("/sdcard/b").unwrap(), b"A");
    assert_eq!(call(&fs, "mv", &["/sdcard/b", "/sdcard/Download"], "").code, 0);
    assert!(fs.stat("/sdcard/b").is_none());
    assert_eq!(fs.read("/sdcard/Download/b").unwrap(), b"A");
    let o = call(&fs, "cp", &["/sdcard/Download", "/sdcard/D2"], "");
    assert_eq!(o.code, 1);
    assert_eq!(call(&fs, "cp", &["-r", "/sdcard/Download", "/sdcard/D2"], "").code, 0);
    assert_eq!(fs.read("/sdcard/D2/b").unwrap(), b"A");
    assert_eq!(call(&fs, "mv", &["/sdcard/D2", "/sdcard/D2/x"], "").code, 1);
    let o = call(&fs, "cp", &["/sdcard/a", "/system/a"], "");
    assert_eq!(o.stderr, b"cp: /sdcard/a: Read-only file system\n");
    assert_eq!(call(&fs, "mv", &["/sdcard/zz", "/sdcard/y"], "").code, 1);
}
