"""codeact.run_task: codeact's agent on the virtual phone, its model a scripted
OpenAI-compatible server on 127.0.0.1 (replies given in advance; the agent reaches it
over HTTP as it reaches any model). No network beyond loopback.
"""

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import codeact

OPEN_SETTINGS = 'Thought: Wi-Fi lives in Settings.\n```rhai\nstart_app("com.android.settings");\n```'
TURN_OFF_WIFI = """Thought: the switch is on; I tap it and check.
```rhai
let s = ui_state.filter(|e| e.id == "wifi_switch")[0];
tap_by_index(s.index);
refresh();
let now = ui_state.filter(|e| e.id == "wifi_switch")[0];
if now.checked { complete(false, "still on") } else { complete(true, "Wi-Fi is off") }
```"""
LOOK = 'Thought: I look around.\n```rhai\nprint(ui_state.len());\n```'
KEY = "sk-test-0123456789abcdef-not-a-real-key"


class ScriptedModel:
    """A chat-completions server answering with the next canned reply (the last one
    again when they run out), recording each request and its Authorization header."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.requests = []
        self.auth = []
        model = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"null")
                model.requests.append(body)
                model.auth.append(self.headers.get("Authorization", ""))
                reply = model.replies[min(len(model.requests), len(model.replies)) - 1]
                # A (name, arguments) pair is a function call; a string, a text reply.
                message = {"role": "assistant", "content": reply}
                if isinstance(reply, tuple):
                    call = {"id": f"call_{len(model.requests)}", "type": "function",
                            "function": {"name": reply[0], "arguments": json.dumps(reply[1])}}
                    message = {"role": "assistant", "content": "", "tool_calls": [call]}
                answer = json.dumps(
                    {
                        "id": f"chatcmpl-{len(model.requests)}",
                        "object": "chat.completion",
                        "created": 1_700_000_000,
                        "model": body.get("model", ""),
                        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def scripted():
    models = []

    def start(*replies):
        models.append(ScriptedModel(replies))
        return models[-1]

    yield start
    for model in models:
        model.close()


def test_the_agent_turns_off_wifi_and_says_where_its_run_is(scripted, tmp_path, monkeypatch):
    model = scripted(OPEN_SETTINGS, TURN_OFF_WIFI)
    monkeypatch.setenv("SCRIPTED_KEY", KEY)
    result = codeact.run_task(
        "Turn off Wi-Fi",
        base_url=model.base_url,
        model="scripted",
        api_key_env="SCRIPTED_KEY",
        vision=False,
        out=tmp_path / "runs",
    )
    assert isinstance(result, codeact.TaskResult)
    assert (result.success, result.outcome, result.steps) == (True, "success", 2), result
    assert result.reason == "Wi-Fi is off"
    assert len(model.requests) == 2
    assert model.auth == [f"Bearer {KEY}"] * 2
    # The model saw the goal and, in its second request, what the first step did.
    assert "Turn off Wi-Fi" in json.dumps(model.requests[0])
    assert "com.android.settings" in json.dumps(model.requests[1])
    run_dir = str(result.run_dir)
    assert run_dir.startswith(str(tmp_path / "runs")) and os.path.isdir(run_dir)
    assert {"events.jsonl", "script.rhai"} <= set(os.listdir(run_dir)), os.listdir(run_dir)
    # The replay command names the exported script; it runs as well from Python, on a
    # fresh phone, without the model.
    script = next(word for word in result.replay.split() if word.endswith(".rhai"))
    assert result.replay.startswith("codeact exec ") and os.path.isfile(script), result.replay
    with open(script) as f, codeact.Session(device="sim") as phone:
        replayed = phone.run(f.read())
        assert replayed.completion.success and replayed.completion.reason == "Wi-Fi is off", replayed
        assert phone.run('ui_state.filter(|e| e.id == "wifi_switch")[0].checked').value == "false"
    # The key is nowhere in what the run wrote.
    for root, _, files in os.walk(run_dir):
        for name in files:
            with open(os.path.join(root, name), "rb") as f:
                assert KEY.encode() not in f.read(), name


def test_the_agent_acts_by_function_calls_when_asked(scripted, tmp_path):
    model = scripted(
        ("start_app", {"package": "com.android.settings"}),
        ("tap", {"sel": {"id": "wifi_switch"}}),
        ("complete", {"success": True, "reason": "Wi-Fi is off"}),
    )
    result = codeact.run_task(
        "Turn off Wi-Fi", base_url=model.base_url, model="scripted", vision=False, actions="json", out=tmp_path / "runs"
    )
    assert (result.success, result.reason) == (True, "Wi-Fi is off"), result
    assert all("tools" in r for r in model.requests), "the tools are offered as functions"
    with pytest.raises(ValueError, match="code.*json"):
        codeact.run_task("x", base_url=model.base_url, model="scripted", actions="xml")


def test_a_run_out_of_steps_is_a_failure_not_an_exception(scripted, tmp_path):
    model = scripted(LOOK)
    result = codeact.run_task("Never done", base_url=model.base_url, model="scripted", max_steps=2, vision=False)
    assert (result.success, result.outcome, result.steps) == (False, "failure", 2), result
    assert len(model.requests) == 2
    # Under ./runs by default, given as an absolute path.
    assert str(result.run_dir).startswith(str(tmp_path / "runs")), result.run_dir


def test_a_model_that_cannot_be_reached_ends_the_run_as_an_error(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # Nothing listens there now: the run ends as `codeact run` ends it, with the reason.
    result = codeact.run_task("Turn off Wi-Fi", base_url=f"http://127.0.0.1:{port}/v1", model="m", max_steps=1)
    assert (result.success, result.outcome) == (False, "error"), result
    assert result.reason, result
    assert os.path.isdir(result.run_dir)


def test_bad_arguments_are_refused_before_any_work():
    with pytest.raises(ValueError, match="max_steps"):
        codeact.run_task("x", base_url="http://127.0.0.1:9/v1", max_steps=0)
