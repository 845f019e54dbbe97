"""codeact's Python package on the built-in virtual phone (device="sim"): no
device, no model, no network. Run after installing the wheel (see NOTES):
    python -m pytest -q bindings/python/tests
"""

import _thread
import os
import signal
import threading
import time

import pytest

import codeact

SEND = """
open_app("Messages");
tap("Start chat");
input_text("张");
tap("张三");
tap(#{id: "compose_message_text"});
input_text("hi");
tap("Send SMS");
assert_visible("hi");
let sent = "hi";
print(`sent: ${sent}`);
"""

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def phone():
    with codeact.Session(device="sim") as session:
        yield session


def test_a_script_sends_a_message_and_the_next_run_sees_its_variables(phone):
    result = phone.run(SEND)
    assert result.ok
    assert "sent: hi" in result.output
    # The script's own calls, in order; a watcher that dismissed a dialog on the way is
    # recorded among them with what it tapped.
    calls = [a.tool for a in result.actions if a.tool != "watcher"]
    assert calls == ["open_app", "tap", "input_text", "tap", "tap", "input_text", "tap", "assert_visible"], calls
    assert all(a.effect for a in result.actions if a.tool == "watcher"), result.actions
    assert any(a.effect and "opened" in a.effect for a in result.actions), result.actions
    assert all(a.failure is None for a in result.actions), result.actions
    assert phone.run("sent.len()").value == "2"
    # A value as Rhai shows it: strings quoted.
    assert phone.run('sent + "!"').value == '"hi!"'


def test_complete_is_a_completion_not_an_error(phone):
    result = phone.run('print("checked"); complete(false, "not today")')
    assert result.completion.success is False and result.completion.reason == "not today"
    assert not result.ok and result.output.strip() == "checked"


def test_a_script_error_says_where(phone):
    with pytest.raises(codeact.ScriptError) as caught:
        phone.run("let a = 1;\nlet b = nope(a);")
    error = caught.value
    text = str(error)
    assert text.startswith("line 2, column"), text
    assert "\n  let b = nope(a);\n" in text and text.rstrip().endswith("^"), text
    assert (error.line, error.kind) == (2, "script")
    assert error.column is not None and error.message in text
    assert isinstance(error, codeact.CodeactError) and isinstance(error.result, codeact.RunResult)
    # The session goes on.
    assert phone.run("1 + 1").value == "2"


def test_a_syntax_error_is_a_script_error(phone):
    with pytest.raises(codeact.ScriptError) as caught:
        phone.run("let x = ;")
    assert caught.value.kind == "syntax" and caught.value.line == 1


def test_a_failed_tool_names_itself(phone):
    with pytest.raises(codeact.ScriptError) as caught:
        phone.run('assert_visible("no such text anywhere")')
    assert (caught.value.kind, caught.value.tool) == ("tool", "assert_visible")
    assert caught.value.failure in ("assertion", "not_found")


def test_a_runaway_script_hits_a_limit():
    with codeact.Session(device="sim", limits={"max_operations": 100_000}) as phone:
        with pytest.raises(codeact.ScriptError) as caught:
            phone.run("loop { }")
    assert (caught.value.kind, caught.value.limit) == ("limit", "operations")
    assert "100000" in str(caught.value)


def test_a_bad_limit_is_refused():
    with pytest.raises(codeact.CodeactError, match="timeout_msec"):
        codeact.Session(device="sim", limits={"timeout_msec": 5})


def test_observe_lists_what_ui_state_lists(phone):
    phone.run('open_app("Settings")')
    screen = phone.observe()
    assert screen.app == "com.android.settings", screen
    assert screen.text.startswith("app com.android.settings"), screen.text
    assert screen.elements and [e.index for e in screen.elements] == list(range(len(screen.elements)))
    first = screen.elements[0]
    left, top, right, bottom = first.bounds
    assert right > left and bottom > top
    assert screen.text.splitlines()[1].startswith("0 "), screen.text
    # The same list a script reads.
    assert phone.run("ui_state.len()").value == str(len(screen.elements))


def test_a_screenshot_is_a_png(phone):
    png = phone.screenshot()
    assert isinstance(png, bytes) and png.startswith(PNG) and len(png) > 1000


def test_ctrl_c_stops_a_running_script(phone):
    # A shell that starts the suite in the background hands Python SIGINT ignored,
    # and then interrupt_main does nothing: Python's own handler, as at a terminal.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, _thread.interrupt_main)
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            phone.run("sleep(20); 1")
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - started < 10
    assert phone.run("40 + 2").value == "42"


def test_other_threads_run_while_a_script_runs(phone):
    ticks = 0
    stop = threading.Event()

    def count():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    try:
        before = ticks
        result = phone.run("sleep(1.0); 7")
        during = ticks - before
    finally:
        stop.set()
        counter.join()
    assert result.value == "7"
    # About 1000 ticks when the GIL is released for the second; none if it is held.
    assert during > 100, during


def test_a_closed_session_refuses_calls():
    session = codeact.Session(device="sim")
    assert "sim" in repr(session)
    session.close()
    session.close()
    with pytest.raises(codeact.CodeactError, match="closed"):
        session.run("1")


def test_an_unreachable_phone_is_a_device_error():
    with pytest.raises(codeact.DeviceError):
        codeact.Session(device="127.0.0.1:1")
    assert issubclass(codeact.DeviceError, codeact.CodeactError)


def test_run_task_without_a_model_says_how_to_give_one(tmp_path):
    started = time.monotonic()
    with pytest.raises(codeact.CodeactError) as caught:
        codeact.run_task("Turn off Wi-Fi", out=tmp_path / "runs")
    message = str(caught.value)
    assert "model=" in message and "base_url=" in message, message
    assert not isinstance(caught.value, (codeact.ScriptError, codeact.DeviceError))
    assert time.monotonic() - started < 5, "it failed before opening a phone"
    assert not (tmp_path / "runs").exists()


def test_the_worker_is_the_installed_script():
    program = codeact.worker_program()
    assert os.path.basename(program) == "codeact-worker" and os.access(program, os.X_OK), program


def test_the_books_example_runs(tmp_path, capsys):
    """The first Python example of the book's "From Python" chapter, as a builder
    would paste it."""
    chapter = os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs", "src", "python.md")
    with open(chapter, encoding="utf-8") as f:
        section = f.read()
    example = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(example.strip().splitlines()) <= 5, example
    exec(compile(example, "docs/src/python.md", "exec"), {})
    printed = capsys.readouterr().out
    assert printed.startswith("false ") and "checked → unchecked" in printed, printed
    with open(tmp_path / "screen.png", "rb") as f:
        assert f.read().startswith(PNG)
