//! The book's examples (and the README's) run as written, so a drifted example
//! fails: every ```rhai block (but those marked `ignore`) on a fresh virtual phone
//! with every tool, and every line of every ```sh block (but those marked `ignore`,
//! and the README's set-up, which is this test suite's own command) as one shell
//! script that stops at its first failing line — `codeact` the binary under test,
//! `adb` the stock one with a server of its own — from a scratch folder that holds
//! the repository's scripts, suites, personas and pictures as the repository does.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use codeact::config::{FileConfig, Flags};
use codeact::device::{DeviceSpec, open};
use codeact::session::Session;

use crate::common;

/// One fenced block: its chapter, the line its fence opens on, its language and
/// whether it is marked `ignore`, and its text.
struct Block {
    chapter: PathBuf,
    line: usize,
    lang: String,
    ignore: bool,
    body: String,
}

fn book_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src")
}

/// Every chapter's Markdown, in a stable order.
fn chapters() -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut dirs = vec![book_dir()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                let text = std::fs::read_to_string(&path).expect("a chapter");
                out.push((path, text));
            }
        }
    }
    // The front page's quickstarts are examples too.
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    out.push((readme.clone(), std::fs::read_to_string(&readme).expect("README.md")));
    out.sort();
    out
}

/// The fenced blocks of `text`, as CommonMark reads fences: three or more
/// backticks at the start of a line, an info string without backticks (its first
/// word the language, `ignore` after a comma marking it), closed by a line of at
/// least as many backticks and nothing else.
fn blocks(chapter: &Path, text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(usize, usize, String, bool, String)> = None;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        let ticks = trimmed.chars().take_while(|c| *c == '`').count();
        match &mut open {
            None if ticks >= 3 && !trimmed[ticks..].contains('`') => {
                let mut words = trimmed[ticks..].split(',').map(str::trim);
                let lang = words.next().unwrap_or("").to_string();
                let ignore = words.any(|w| w == "ignore");
                open = Some((n + 1, ticks, lang, ignore, String::new()));
            }
            Some((_, length, ..)) if ticks >= *length && ticks == trimmed.len() => {
                if let Some((line, _, lang, ignore, body)) = open.take() {
                    out.push(Block { chapter: chapter.to_path_buf(), line, lang, ignore, body });
                }
            }
            Some((.., body)) => {
                body.push_str(line);
                body.push('\n');
            }
            None => {}
        }
    }
    assert!(open.is_none(), "{}: a fence is never closed", chapter.display());
    out
}

fn all_blocks() -> Vec<Block> {
    chapters().iter().flat_map(|(path, text)| blocks(path, text)).collect()
}

fn place(b: &Block) -> String {
    let rel = b.chapter.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(&b.chapter);
    format!("{}:{}", rel.display(), b.line)
}

#[test]
fn the_books_rhai_examples_run_on_the_virtual_phone() {
    let runnable: Vec<Block> = all_blocks().into_iter().filter(|b| b.lang == "rhai" && !b.ignore).collect();
    assert!(runnable.len() >= 5, "the book shows runnable scripts ({} found)", runnable.len());
    let mut settings = FileConfig::default().resolve(&Flags::default()).expect("settings");
    settings.worker = common::worker();
    settings.tools.settle.timeout = Duration::from_millis(500);
    let failures: Vec<String> = std::thread::scope(|scope| {
        let chunks: Vec<&[Block]> = runnable.chunks(runnable.len().div_ceil(2)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let settings = &settings;
                scope.spawn(move || {
                    let mut failed = Vec::new();
                    for b in chunk {
                        let device = open(&DeviceSpec::Sim, Duration::from_secs(10)).expect("a virtual phone");
                        let mut session = Session::open_on(device, settings).expect("a session");
                        let result = session.eval(&b.body);
                        let refused = result.completion.as_ref().is_some_and(|c| !c.success);
                        if let Some(e) = &result.error {
                            failed.push(format!("{}: {e}\n{}", place(b), b.body));
                        } else if refused {
                            failed.push(format!("{}: it completed as a failure\n{}", place(b), b.body));
                        }
                    }
                    failed
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|_| vec!["a runner panicked".into()])).collect()
    });
    assert!(failures.is_empty(), "the book's scripts must run as written:\n\n{}", failures.join("\n\n"));
}

/// A scratch folder that looks like the repository to a command: its example
/// folders linked in, so relative paths in the book resolve, and whatever a
/// command writes lands here.
fn scratch_checkout() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("codeact-book-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in ["scripts", "eval", "personas", "assets", "examples", "tests", "docs", "crates"] {
        let _ = std::os::unix::fs::symlink(root.join(name), dir.join(name));
    }
    dir
}

/// A folder holding `codeact` (the binary under test), to put first on PATH.
fn codeact_on_path(dir: &Path) -> String {
    let bin = dir.join(".bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let _ = std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_codeact"), bin.join("codeact"));
    format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default())
}

/// A TCP port nobody listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).unwrap_or(5037)
}

/// Runs `script` with `sh -e` in `dir` (PATH and an adb server of its own set), within
/// `limit`; its exit code (`None`: killed at the limit) and what it printed. What it
/// left running in the background (a server it started) is stopped with it.
fn run_block(script: &str, dir: &Path, path: &str, limit: Duration) -> (Option<i32>, String) {
    use std::os::unix::process::CommandExt;
    let adb_port = free_port().to_string();
    let log = dir.join(".block.log");
    let output = std::fs::File::create(&log).expect("a log");
    let mut child = Command::new("sh")
        .arg("-ec")
        .arg(script)
        .current_dir(dir)
        .env("PATH", path)
        .env("ANDROID_ADB_SERVER_PORT", &adb_port)
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .stdin(std::process::Stdio::null())
        .stdout(output.try_clone().expect("a log"))
        .stderr(output)
        .process_group(0)
        .spawn()
        .expect("sh");
    let group = nix::unistd::Pid::from_raw(-(child.id() as i32));
    let started = std::time::Instant::now();
    let code = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.code(),
            Ok(None) if started.elapsed() > limit => break None,
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(_) => break None,
        }
    };
    let _ = nix::sys::signal::kill(group, nix::sys::signal::Signal::SIGKILL);
    let _ = child.wait();
    // The block's own adb server goes with it.
    let _ = Command::new("adb").arg("kill-server").env("ANDROID_ADB_SERVER_PORT", &adb_port).output();
    (code, std::fs::read_to_string(&log).unwrap_or_default())
}

/// Whether a block is the README's set-up: the test command itself (and a release
/// build), which the suite does not run inside itself.
fn is_readme_setup(b: &Block) -> bool {
    b.chapter.ends_with("README.md") && b.body.contains("scripts/test.sh")
}

#[test]
fn the_books_shell_blocks_run_as_written() {
    let blocks: Vec<Block> =
        all_blocks().into_iter().filter(|b| b.lang == "sh" && !b.ignore && !is_readme_setup(b)).collect();
    assert!(blocks.len() >= 5, "the book shows commands that run ({} found)", blocks.len());
    let dir = scratch_checkout();
    let path = codeact_on_path(&dir);
    let mut failures = Vec::new();
    for b in &blocks {
        // A prompt's `$ ` is the reader's, not the shell's.
        let script: String = b.body.lines().map(|l| format!("{}\n", l.strip_prefix("$ ").unwrap_or(l))).collect();
        let (code, said) = run_block(&script, &dir, &path, Duration::from_secs(600));
        if code != Some(0) {
            failures.push(format!("{}: exited {code:?}\n{}\n{said}", place(b), b.body));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "the book's shell blocks must run as written:\n\n{}", failures.join("\n\n"));
}

#[test]
fn the_tool_reference_is_the_catalog() {
    let page = std::fs::read_to_string(book_dir().join("reference/tools.md")).expect("the tool reference");
    let start = page.find("<!-- generated: codeact tools --markdown -->").expect("the generated part's start");
    let end = page.find("<!-- end generated -->").expect("the generated part's end");
    let generated = &page[start..end];
    assert!(
        generated.contains(&codeact::tools::markdown_table(&|_| true)),
        "docs/src/reference/tools.md is stale: put the output of `codeact tools --markdown` between its markers"
    );
}
