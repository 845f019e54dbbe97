//! Traces end to end: `codeact run --otlp` and `codeact exec --otlp` through the
//! scripted LLM (a --strategy tree run among them), sent to a real Arize Phoenix (`phoenix serve` on loopback, in a
//! working directory of its own) and read back through Phoenix's REST API: the
//! span tree (invoke_agent codeact > step > chat and snippet > execute_tool; exec NAME >
//! execute_tool, with and without --trajectory), the
//! token counts as events.jsonl has them, no contents without --otlp-content, the
//! contents with it, and the API key in no span. A collector that is not there
//! costs a warning, not the run.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::agent_run::{FAKE_KEY, run_against, run_dir, scratch, stderr};
use crate::common::llm::{ScriptedLlm, reply};

/// A free loopback port (another process could take it before Phoenix does; two
/// calls in a row do not return the same one while the first is held).
fn free_ports() -> (u16, u16) {
    let a = TcpListener::bind("127.0.0.1:0").expect("a port");
    let b = TcpListener::bind("127.0.0.1:0").expect("a port");
    let ports = (a.local_addr().map(|a| a.port()).unwrap_or(0), b.local_addr().map(|a| a.port()).unwrap_or(0));
    drop((a, b));
    ports
}

/// `phoenix serve` on 127.0.0.1, killed when dropped.
struct Phoenix {
    child: Child,
    port: u16,
}

impl Phoenix {
    fn start(dir: &Path) -> Self {
        let (port, grpc) = free_ports();
        let log = std::fs::File::create(dir.join("phoenix.log")).expect("phoenix.log");
        let child = Command::new(crate::common::programs::phoenix())
            .arg("serve")
            .env("PHOENIX_WORKING_DIR", dir.join("phoenix"))
            .env("PHOENIX_HOST", "127.0.0.1")
            .env("PHOENIX_PORT", port.to_string())
            .env("PHOENIX_GRPC_PORT", grpc.to_string())
            .env("PHOENIX_TELEMETRY_ENABLED", "false")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start phoenix serve");
        let mut phoenix = Self { child, port };
        let started = Instant::now();
        while phoenix.get("/healthz").is_none() {
            if let Ok(Some(status)) = phoenix.child.try_wait() {
                let log = std::fs::read_to_string(dir.join("phoenix.log")).unwrap_or_default();
                panic!("phoenix serve exited ({status}): {log}");
            }
            assert!(started.elapsed() < Duration::from_secs(180), "Phoenix did not answer /healthz in 180 s");
            std::thread::sleep(Duration::from_millis(500));
        }
        phoenix
    }

    fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// A GET on Phoenix's HTTP API (curl-free: a plain HTTP/1.0 request).
    fn get(&self, path: &str) -> Option<String> {
        use std::io::{Read as _, Write as _};
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", self.port)).ok()?;
        stream.set_read_timeout(Some(Duration::from_secs(30))).ok()?;
        write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n").ok()?;
        let mut response = String::new();
        stream.read_to_string(&mut response).ok()?;
        let (head, body) = response.split_once("\r\n\r\n")?;
        head.starts_with("HTTP/1.1 200").then(|| body.to_string())
    }

    /// The spans of `project`, once at least `want` have arrived (Phoenix ingests
    /// in the background).
    fn spans(&self, project: &str, want: usize) -> Vec<Value> {
        let started = Instant::now();
        loop {
            let spans: Vec<Value> = self
                .get(&format!("/v1/projects/{project}/spans?limit=1000"))
                .and_then(|body| serde_json::from_str::<Value>(&body).ok())
                .and_then(|v| v["data"].as_array().cloned())
                .unwrap_or_default();
            if spans.len() >= want || started.elapsed() > Duration::from_secs(60) {
                return spans;
            }
            std::thread::sleep(Duration::from_millis(300));
        }
    }
}

impl Drop for Phoenix {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn named<'a>(spans: &'a [Value], name: &str) -> Vec<&'a Value> {
    spans.iter().filter(|s| s["name"] == name).collect()
}

fn id(span: &Value) -> &str {
    span["context"]["span_id"].as_str().unwrap_or_default()
}

fn parent(span: &Value) -> &str {
    span["parent_id"].as_str().unwrap_or_default()
}

/// `codeact run` with traces into the Phoenix project `project`.
fn traced_run(llm: &ScriptedLlm, phoenix: &Phoenix, out: &Path, project: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["--persona", "big_agent", "--vision", "off", "--no-memory"];
    args.extend_from_slice(extra);
    let attrs = format!("openinference.project.name={project}");
    let env = [("OTEL_RESOURCE_ATTRIBUTES", attrs.as_str())];
    let base = phoenix.base();
    let mut all = vec!["--otlp", base.as_str()];
    all.extend(args);
    run_against(&llm.base_url, "sim", out, &all, "Flip Wi-Fi", &env)
}

fn wifi_replies(key_in_thought: bool) -> Vec<crate::common::llm::Canned> {
    let thought = if key_in_thought { format!("Thought: my key is {FAKE_KEY}.") } else { "Thought: Settings.".into() };
    vec![
        reply(&format!(
            "{thought}\n```rhai\nstart_app(\"com.android.settings\");\ntap(#{{text: \"Network & internet\"}});\n```"
        )),
        reply("Thought: the switch.\n```rhai\ntap(#{id: \"wifi_switch\"});\n```"),
        reply("Thought: done.\n```rhai\ncomplete(true, \"flipped\");\n```"),
    ]
}

#[test]
fn runs_and_scripts_show_up_in_phoenix_as_genai_span_trees() {
    let out = scratch("traces");
    let phoenix = Phoenix::start(&out);

    // A run without --otlp-content: the tree, the tokens, no contents.
    let llm = ScriptedLlm::start(wifi_replies(false));
    let runs = out.join("plain");
    std::fs::create_dir_all(&runs).expect("dir");
    let result = traced_run(&llm, &phoenix, &runs, "codeact-plain", &[]);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert!(stderr(&result).contains("traces: 13 spans sent to http://127.0.0.1:"), "{}", stderr(&result));
    let dir = run_dir(&runs);
    let spans = phoenix.spans("codeact-plain", 13);
    let names: Vec<&str> = spans.iter().filter_map(|s| s["name"].as_str()).collect();
    assert_eq!(spans.len(), 13, "{names:?}");

    let roots = named(&spans, "invoke_agent codeact");
    assert_eq!(roots.len(), 1, "{names:?}");
    let root = roots[0];
    assert_eq!(parent(root), "", "the run is the trace's root");
    let run_id = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    assert_eq!(root["attributes"]["gen_ai.operation.name"], "invoke_agent");
    assert_eq!(root["attributes"]["gen_ai.conversation.id"], run_id);
    assert_eq!(root["attributes"]["codeact.outcome"], "success");
    assert_eq!(root["status_code"], "OK");

    let steps = named(&spans, "step");
    assert_eq!(steps.len(), 3);
    assert!(steps.iter().all(|s| parent(s) == id(root)), "steps hang off the run");
    let step_ids: Vec<&str> = steps.iter().map(|s| id(s)).collect();

    let chats = named(&spans, "chat scripted");
    assert_eq!(chats.len(), 3, "{names:?}");
    let events = std::fs::read_to_string(dir.join("events.jsonl")).expect("events.jsonl");
    let replies: Vec<Value> = events
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event"] == "llm_reply")
        .collect();
    let mut expected: Vec<(u64, u64)> = replies
        .iter()
        .map(|r| (r["prompt_tokens"].as_u64().unwrap_or(0), r["completion_tokens"].as_u64().unwrap_or(0)))
        .collect();
    let mut got: Vec<(u64, u64)> = chats
        .iter()
        .map(|c| {
            let a = &c["attributes"];
            (
                a["gen_ai.usage.input_tokens"].as_u64().unwrap_or(0),
                a["gen_ai.usage.output_tokens"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    expected.sort_unstable();
    got.sort_unstable();
    assert!(expected.iter().all(|(i, o)| *i > 0 && *o > 0), "{expected:?}");
    assert_eq!(got, expected, "each chat span has its call's token counts");
    for chat in &chats {
        assert!(step_ids.contains(&parent(chat)), "a chat hangs off its step");
        let a = &chat["attributes"];
        assert_eq!(a["gen_ai.operation.name"], "chat");
        assert_eq!(a["gen_ai.request.model"], "scripted");
        assert_eq!(a["gen_ai.conversation.id"], run_id);
        assert!(a["gen_ai.provider.name"].as_str().is_some_and(|p| p.starts_with("127.0.0.1:")), "{a}");
        assert!(a.get("gen_ai.input.messages").is_none() && a.get("gen_ai.output.messages").is_none(), "{a}");
    }

    let snippets = named(&spans, "snippet");
    assert_eq!(snippets.len(), 3);
    assert!(snippets.iter().all(|s| step_ids.contains(&parent(s))));
    let snippet_ids: Vec<&str> = snippets.iter().map(|s| id(s)).collect();
    let tools: Vec<&Value> =
        spans.iter().filter(|s| s["name"].as_str().is_some_and(|n| n.starts_with("execute_tool "))).collect();
    let mut tool_names: Vec<&str> = tools.iter().filter_map(|t| t["attributes"]["gen_ai.tool.name"].as_str()).collect();
    tool_names.sort_unstable();
    assert_eq!(tool_names, ["start_app", "tap", "tap"]);
    for tool in &tools {
        assert!(snippet_ids.contains(&parent(tool)), "an action hangs off its snippet");
        assert_eq!(tool["attributes"]["gen_ai.operation.name"], "execute_tool");
        assert!(tool["attributes"].get("gen_ai.tool.call.arguments").is_none(), "no contents without --otlp-content");
    }
    let all = serde_json::to_string(&spans).unwrap_or_default();
    assert!(!all.contains(FAKE_KEY) && !all.contains("Network & internet"), "no key, no contents: {all}");

    // With --otlp-content: the prompt, the reply and the calls, still without the key.
    let llm = ScriptedLlm::start(wifi_replies(true));
    let runs = out.join("content");
    std::fs::create_dir_all(&runs).expect("dir");
    let result = traced_run(&llm, &phoenix, &runs, "codeact-content", &["--otlp-content"]);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let spans = phoenix.spans("codeact-content", 13);
    let all = serde_json::to_string(&spans).unwrap_or_default();
    assert!(!all.contains(FAKE_KEY), "the key the model repeated is blotted out: {all}");
    let chats = named(&spans, "chat scripted");
    let first = chats
        .iter()
        .find(|c| c["attributes"]["gen_ai.output.messages"].as_str().is_some_and(|m| m.contains("my key is [key]")))
        .unwrap_or_else(|| panic!("the reply is in gen_ai.output.messages: {all}"));
    let input = first["attributes"]["gen_ai.input.messages"].as_str().unwrap_or_default();
    let input: Value = serde_json::from_str(input).unwrap_or_default();
    assert_eq!(input[0]["role"], "system", "{input}");
    assert!(input.to_string().contains("Flip Wi-Fi"), "the task is in the prompt: {input}");
    assert!(all.contains("Network & internet"), "tool arguments are exported");

    // A tree run: a span per node, its children's and its own steps under it.
    let split = "Thought: two stages.\n{\"subgoals\": [{\"goal\": \"Open Settings\", \"do\": \
                 \"start_app(\\\"com.android.settings\\\")\"}, {\"goal\": \"Flip the switch\"}]}";
    let llm = ScriptedLlm::start(vec![
        reply(split),
        reply("Thought: the switch.\n```rhai\ntap(#{id: \"wifi_switch\"});\ncomplete(true, \"flipped\");\n```"),
        reply("Thought: it is flipped.\n```rhai\ncomplete(true, \"flipped\");\n```"),
    ]);
    let runs = out.join("tree");
    std::fs::create_dir_all(&runs).expect("dir");
    let result = traced_run(&llm, &phoenix, &runs, "codeact-tree", &["--strategy", "tree"]);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let spans = phoenix.spans("codeact-tree", 16);
    let names: Vec<&str> = spans.iter().filter_map(|s| s["name"].as_str()).collect();
    let node = |path: &str| *named(&spans, &format!("tree_node {path}")).first().unwrap_or_else(|| panic!("{names:?}"));
    let root = named(&spans, "invoke_agent codeact")[0];
    assert_eq!(parent(node("1")), id(root), "the task's node hangs off the run");
    for child in ["1.1", "1.2"] {
        assert_eq!(parent(node(child)), id(node("1")), "{child} hangs off node 1");
        assert_eq!(node(child)["attributes"]["codeact.node.outcome"], "done");
    }
    let steps = named(&spans, "step");
    let under = |path: &str| steps.iter().filter(|s| parent(s) == id(node(path))).count();
    assert_eq!((under("1"), under("1.1"), under("1.2")), (1, 1, 2), "the split, the unasked call, the model's two");

    // A script: `exec NAME` with its actions under it, with or without a trajectory.
    let script = out.join("flip.rhai");
    std::fs::write(&script, "start_app(\"com.android.settings\");\ntap(#{text: \"Network & internet\"});\n")
        .expect("script");
    let traj = out.join("exec");
    for (project, trajectory) in [("codeact-exec", Some(&traj)), ("codeact-exec-bare", None)] {
        // Without a trajectory, nothing is written where it runs.
        let cwd = out.join(format!("{project}-cwd"));
        std::fs::create_dir_all(&cwd).expect("cwd");
        let mut exec = Command::new(env!("CARGO_BIN_EXE_codeact"));
        exec.current_dir(&cwd).args(["exec", "--device", "sim", "--otlp", &phoenix.base()]);
        if let Some(dir) = trajectory {
            exec.arg("--trajectory").arg(dir);
        }
        let result = exec
            .arg(&script)
            .env("OTEL_RESOURCE_ATTRIBUTES", format!("openinference.project.name={project}"))
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
            .output()
            .expect("codeact exec");
        assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
        assert!(stderr(&result).contains("traces: 3 spans sent to"), "{}", stderr(&result));
        let spans = phoenix.spans(project, 3);
        let roots = named(&spans, "exec flip.rhai");
        assert_eq!(roots.len(), 1, "{project}: {spans:?}");
        let tools: Vec<&Value> = spans.iter().filter(|s| parent(s) == id(roots[0])).collect();
        let names: Vec<&str> = tools.iter().filter_map(|s| s["name"].as_str()).collect();
        assert_eq!(names.len(), 2, "{project}: {spans:?}");
        assert!(names.contains(&"execute_tool start_app") && names.contains(&"execute_tool tap"), "{names:?}");
        let written = std::fs::read_dir(&cwd).expect("cwd").count();
        assert_eq!(written, 0, "{project}: exec wrote {written} files in its working directory");
    }
    drop(phoenix);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_collector_that_is_not_there_costs_a_warning_not_the_run() {
    let out = scratch("traces-nowhere");
    let llm = ScriptedLlm::start(wifi_replies(false));
    // A port nothing listens on: bound, then let go.
    let (port, _) = free_ports();
    let url = format!("http://user:hunter2pw@127.0.0.1:{port}");
    let result = run_against(
        &llm.base_url,
        "sim",
        &out,
        &["--otlp", &url, "--persona", "big_agent", "--vision", "off", "--no-memory"],
        "Flip Wi-Fi",
        &[],
    );
    let err = stderr(&result);
    assert_eq!(result.status.code(), Some(0), "the run is not lost: {err}");
    assert!(err.contains("warning: no trace collector answers at http://127.0.0.1:"), "{err}");
    assert!(err.contains("spans not sent to"), "{err}");
    assert!(!err.contains("hunter2pw"), "the URL's password is not shown: {err}");

    // exec with a collector that is not there: the script still passes.
    let script = out.join("look.rhai");
    std::fs::write(&script, "refresh();\n").expect("script");
    let ran = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "--device", "sim"])
        .arg(&script)
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &url)
        .output()
        .expect("codeact exec");
    assert_eq!(ran.status.code(), Some(0), "{}", stderr(&ran));
    assert!(stderr(&ran).contains("spans not sent to"), "{}", stderr(&ran));
    assert!(!stderr(&ran).contains("hunter2pw"), "{}", stderr(&ran));

    // A URL that is not one is refused before anything runs, naming where it came from.
    let result = run_against(
        &llm.base_url,
        "sim",
        &out,
        &["--no-memory"],
        "x",
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318")],
    );
    assert_eq!(result.status.code(), Some(2));
    assert!(
        stderr(&result).contains("OTEL_EXPORTER_OTLP_ENDPOINT is not an http:// or https:// URL"),
        "{}",
        stderr(&result)
    );
    let _ = std::fs::remove_dir_all(&out);
}
