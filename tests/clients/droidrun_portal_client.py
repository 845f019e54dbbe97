"""Drives the virtual phone's mobilerun Portal with DroidRun 0.3.9's own Portal client
(`droidrun/tools/adb.py`, `AdbTools`, unmodified from its PyPI wheel: a client codeact
did not write), through the adb server in $ANDROID_ADB_SERVER_PORT, both ways DroidRun
reads it: its HTTP server on device port 8080 through an `adb forward` (use_tcp=True)
and its content provider through `content query` (the default). Only what the file
imports besides adbutils and requests is stubbed here (llama-index's workflow types,
DroidRun's event classes), as the wheel's package __init__ pulls in its whole agent.
Prints one line per check: `ok NAME` or `FAIL NAME: why`.
Usage: python droidrun_portal_client.py DROIDRUN_SRC SERIAL."""
import importlib.util
import json
import sys
import types

from checks import check, finish

src, serial = sys.argv[1], sys.argv[2]


def stub(name, **attrs):
    module = types.ModuleType(name)
    module.__path__ = []
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module


class _Event:
    def __init__(self, **kw):
        self.__dict__.update(kw)


for name in ["llama_index", "llama_index.core", "droidrun", "droidrun.agent", "droidrun.agent.common", "droidrun.tools"]:
    stub(name)
stub("llama_index.core.workflow", Context=object, Event=_Event)
stub("droidrun.agent.common.events", **{n: _Event for n in [
    "InputTextActionEvent", "KeyPressActionEvent", "StartAppEvent", "SwipeActionEvent", "TapActionEvent", "DragActionEvent"]})


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


load("droidrun.tools.tools", f"{src}/droidrun/tools/tools.py")
adb_tools = load("droidrun.tools.adb", f"{src}/droidrun/tools/adb.py")


def walk(elements):
    for e in elements:
        yield e
        yield from walk(e.get("children", []))


def sim_state(tools):
    return json.loads(tools.device.shell("simctl state"))


for use_tcp in (True, False):
    how = "tcp" if use_tcp else "content"
    tools = adb_tools.AdbTools(serial=serial, use_tcp=use_tcp)
    if use_tcp:
        check("tcp: forward and /ping", tools.tcp_forwarded, "no forward")
    tools.start_app("com.android.settings")
    state = tools.get_state()
    check(f"{how}: state", "a11y_tree" in state and "phone_state" in state, state)
    elements = list(walk(state.get("a11y_tree", [])))
    phone = state.get("phone_state", {})
    check(f"{how}: the app in front", phone.get("packageName") == "com.android.settings", phone.get("packageName"))
    switch = next((e for e in elements if e.get("resourceId", "").endswith("wifi_switch")), None)
    check(f"{how}: the Wi-Fi switch is listed with bounds", switch is not None and len(switch["bounds"].split(",")) == 4, [e.get("resourceId") for e in elements][:12])
    if switch is not None:
        before = sim_state(tools)["settings"]["wifi"]
        said = tools.tap_by_index(switch["index"])
        check(f"{how}: tap_by_index", sim_state(tools)["settings"]["wifi"] != before, said)
    if use_tcp:
        tools.start_app("com.example.notes")
        tools.get_state()
        add = next((e for e in walk(tools.clickable_elements_cache) if e.get("resourceId", "").endswith("add_note")), None)
        if add is not None:
            tools.tap_by_index(add["index"])
        state = tools.get_state()
        field = next((e for e in walk(state.get("a11y_tree", [])) if e.get("className") == "EditText"), None)
        if field is not None:
            tools.tap_by_index(field["index"])
        # The Portal types through its own keyboard, so only while it is the input
        # method (AdbTools' constructor runs setup_keyboard): with another keyboard
        # nothing is typed, until setup_keyboard again.
        tools.device.shell("ime set com.android.adbkeyboard/.AdbIME")
        tools.input_text("not yet")
        texts = [e.get("text") for e in walk(tools.get_state().get("a11y_tree", []))]
        check("tcp: no text without the Portal's keyboard", "not yet" not in texts, texts[:12])
        check("tcp: setup_keyboard", tools.setup_keyboard(), "setup_keyboard failed")
        said = tools.input_text("héllo 世界")
        texts = [e.get("text") for e in walk(tools.get_state().get("a11y_tree", []))]
        check("tcp: input_text through the Portal's keyboard", "héllo 世界" in texts, (said, texts[:12]))
        kind, png = tools.take_screenshot()
        check("tcp: take_screenshot is the Portal's PNG", kind == "PNG" and png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10000, (kind, png[:8], len(png)))

# A Portal with a token refuses a client without it (DroidRun 0.3.9 sends none).
tools = adb_tools.AdbTools(serial=serial, use_tcp=True)
tools.device.shell("simctl portal token s3cret-t0ken")
refused = tools.get_state()
check("tcp: 401 without the token", "401" in str(refused.get("message", "")), refused)
tools.device.shell("simctl portal token none")
finish()
