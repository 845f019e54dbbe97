"""The same three-app task (Wi-Fi off in Settings, a note in Notes, a message in
Messages) done by a scripted MCP client two ways against `codeact mcp --expose both`
on fresh virtual phones: one `run_script` call per app, and codeact's own tools
called one per gesture, as mobile MCP servers expose them. Prints the checks, then
one line `calls CODE GESTURES bytes CODE GESTURES` (the bytes of the tool results'
JSON) for the caller to hold and report.

Usage: python mcp_compare.py CODEACT [ARGS...]
"""
import asyncio
import json
import sys

import mcp.types as types
from mcp import Client, StdioServerParameters

from checks import check, finish

SCRIPTS = [
    'open_app("Settings");\ntap("Network & internet");\ntap("Wi-Fi");\nlet sw = find(#{class: "Switch"});\n'
    'if sw.checked { tap(#{class: "Switch"}); }\nassert_visible(#{class: "Switch", checked: false});',
    'open_app("Notes");\ntap(#{desc: "New note"});\ninput_text("Shopping");\ntap(#{id: "note_body"});\n'
    'input_text("apples");\ntap("Save");\nassert_visible("Shopping");',
    'open_app("Messages");\ntap("Start chat");\ninput_text("张");\ntap("张三");\n'
    'tap(#{id: "compose_message_text"});\ninput_text("on my way");\ntap("Send SMS");\nassert_visible("on my way");',
]

GESTURES = [
    ("open_app", {"name": "Settings"}),
    ("tap", {"sel": "Network & internet"}),
    ("tap", {"sel": "Wi-Fi"}),
    ("tap", {"sel": {"class": "Switch"}}),
    ("assert_visible", {"sel": {"class": "Switch", "checked": False}}),
    ("open_app", {"name": "Notes"}),
    ("tap", {"sel": {"desc": "New note"}}),
    ("input_text", {"text": "Shopping"}),
    ("tap", {"sel": {"id": "note_body"}}),
    ("input_text", {"text": "apples"}),
    ("tap", {"sel": "Save"}),
    ("assert_visible", {"sel": "Shopping"}),
    ("open_app", {"name": "Messages"}),
    ("tap", {"sel": "Start chat"}),
    ("input_text", {"text": "张"}),
    ("tap", {"sel": "张三"}),
    ("tap", {"sel": {"id": "compose_message_text"}}),
    ("input_text", {"text": "on my way"}),
    ("tap", {"sel": "Send SMS"}),
    ("assert_visible", {"sel": "on my way"}),
]


def size(result):
    return len(json.dumps(result.model_dump(mode="json", by_alias=True, exclude_none=True), ensure_ascii=False).encode())


def text_of(result):
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def one_way(server, calls):
    n, total, ok = 0, 0, True
    async with Client(server, read_timeout_seconds=120) as c:
        await c.call_tool("start_sim", {})
        for name, args in calls:
            result = await c.call_tool(name, args)
            n += 1
            total += size(result)
            if result.is_error:
                ok = False
                print(f"  {name}({args}) failed: {text_of(result)[:400]}", file=sys.stderr)
        final = await c.call_tool("observe", {})
    return n, total, ok, text_of(final)


async def main():
    command = sys.argv[1:]
    server = StdioServerParameters(command=command[0], args=command[1:])
    code_calls, code_bytes, code_ok, code_end = await one_way(server, [("run_script", {"code": s}) for s in SCRIPTS])
    check("run_script does the task", code_ok and "on my way" in code_end, code_end)
    gesture_calls, gesture_bytes, gesture_ok, gesture_end = await one_way(server, GESTURES)
    check("the gestures do the same task", gesture_ok and "on my way" in gesture_end, gesture_end)
    check("code mode needs fewer calls", code_calls < gesture_calls, (code_calls, gesture_calls))
    check("code mode returns fewer bytes", code_bytes < gesture_bytes, (code_bytes, gesture_bytes))
    print(f"calls {code_calls} {gesture_calls} bytes {code_bytes} {gesture_bytes}")


asyncio.run(main())
finish()
