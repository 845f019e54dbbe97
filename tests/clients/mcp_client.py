"""Drives `codeact mcp` with the official MCP Python SDK's client (a client codeact
did not write), as an agent builder would, and prints one line per check: `ok NAME`
or `FAIL NAME: why`.

Usage:
  python mcp_client.py stdio DEVICE CODEACT [ARGS...]   start codeact mcp over stdio
  python mcp_client.py http DEVICE URL TOKEN            an HTTP server already started
  python mcp_client.py confirm MODE CODEACT [ARGS...]   a sensitive action, MODE accept or decline

DEVICE is the phone run_script acts on (a `codeact sim` address); the caller checks
the phone's state itself afterwards.
"""
import asyncio
import base64
import struct
import sys

import httpx2
import mcp.types as types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from checks import check, finish

SEND = """
open_app("Messages");
tap("Start chat");
input_text("张");
tap("张三");
tap(#{id: "compose_message_text"});
input_text("hello from mcp");
tap("Send SMS");
assert_visible("hello from mcp");
let sent = "hello from mcp";
print(`sent: ${sent}`);
"""


def text_of(result):
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def png_size(data):
    raw = base64.b64decode(data)
    return struct.unpack(">II", raw[16:24]) if raw[:8] == b"\x89PNG\r\n\x1a\n" else None


async def rpc_error(call):
    """The JSON-RPC error code a call ends with, or None when it answered."""
    try:
        await call
    except MCPError as e:
        return e.error.code
    return None


async def drive(client, device):
    tools = (await client.list_tools()).tools
    names = [t.name for t in tools]
    check("tools listed", {"run_script", "observe", "screenshot", "list_devices", "start_sim", "reset", "export_script"} <= set(names), names)
    run = next(t for t in tools if t.name == "run_script")
    check("run_script's description has the typed API", "tap(sel)" in run.description and "swipe(x1, y1, x2, y2[, ms])" in run.description, run.description[:300])
    check("run_script needs code", run.input_schema.get("required") == ["code"], run.input_schema)
    observe = next(t for t in tools if t.name == "observe")
    check("observe is read-only", observe.annotations.read_only_hint is True, observe.annotations)
    check("run_script is not", run.annotations.read_only_hint is False and run.annotations.destructive_hint is True, run.annotations)

    sent = await client.call_tool("run_script", {"code": SEND, "device": device})
    text = text_of(sent)
    check("one call sends the message", not sent.is_error and "sent: hello from mcp" in text, text)
    check("each action is listed with its effect", 'tap("Send SMS") ok' in text and "actions:" in text, text)
    check("the screen after it is in the answer", "screen:" in text and "hello from mcp" in text.split("screen:")[-1], text)

    again = await client.call_tool("run_script", {"code": "sent.len()", "device": device})
    check("a second call sees the first call's variables", "value: 14" in text_of(again), text_of(again))

    shot = await client.call_tool("run_script", {"code": "1 + 1", "device": device, "screenshot": True, "max_side": 400})
    images = [c for c in shot.content if isinstance(c, types.ImageContent)]
    size = png_size(images[0].data) if images else None
    check("a screenshot comes scaled", size is not None and max(size) == 400, size)

    failed = await client.call_tool("run_script", {"code": "let a = 1;\nlet b = nope(a);", "device": device})
    check("an error says its line and column", failed.is_error and "line 2, column" in text_of(failed), text_of(failed))

    looped = await client.call_tool("run_script", {"code": "loop { }", "device": device})
    check("a runaway script hits a limit", looped.is_error and "exceeded 5000000 operations" in text_of(looped), text_of(looped))
    big = await client.call_tool("run_script", {"code": 'let s = "x"; loop { s += s; }', "device": device})
    check("a growing string hits a limit", big.is_error and "error:" in text_of(big), text_of(big))
    check("unknown tools are a JSON-RPC error", await rpc_error(client.call_tool("rm_rf", {})) == -32602)
    check("huge arguments are a JSON-RPC error", await rpc_error(client.call_tool("run_script", {"code": "1;" * 200_000})) == -32602)
    check("wrong arguments are a JSON-RPC error", await rpc_error(client.call_tool("run_script", {"code": 1})) == -32602)
    check("unknown arguments are a JSON-RPC error", await rpc_error(client.call_tool("observe", {"bogus": 1})) == -32602)
    alive = await client.call_tool("run_script", {"code": "sent", "device": device})
    check("the session is alive after all that", "hello from mcp" in text_of(alive), text_of(alive))

    seen = await client.call_tool("observe", {"device": device})
    check("observe reads the screen", "app com.google.android.apps.messaging" in text_of(seen), text_of(seen))
    exported = await client.call_tool("export_script", {})
    script = text_of(exported)
    check("the session exports as a script", 'tap("Send SMS")' in script and "nope(a)" in script and "left out" in script, script)


async def with_client(client, device):
    async with client as c:
        await drive(c, device)


async def confirm(mode, command):
    asked = []

    async def on_elicit(ctx, params):
        asked.append(params.message)
        if mode == "accept":
            return types.ElicitResult(action="accept", content={"allow": True})
        return types.ElicitResult(action="decline")

    server = StdioServerParameters(command=command[0], args=command[1:])
    # Elicitation needs a protocol that lets a server ask: the initialize handshake.
    async with Client(server, mode="legacy", elicitation_callback=on_elicit, read_timeout_seconds=120) as c:
        code = 'start_app("com.example.notes");\nlong_press(#{text: "Ideas"});\ntap("Delete");\nprint("past it");'
        result = await c.call_tool("run_script", {"code": code})
        text = text_of(result)
        check("the client was asked", len(asked) == 1 and "Delete" in asked[0], asked)
        if mode == "accept":
            check("a yes lets it through", not result.is_error and "past it" in text, text)
        else:
            check("a no refuses it", result.is_error and "past it" not in text and "refused" in text, text)


def main():
    how = sys.argv[1]
    if how == "stdio":
        device, command = sys.argv[2], sys.argv[3:]
        server = StdioServerParameters(command=command[0], args=command[1:])
        asyncio.run(with_client(Client(server, read_timeout_seconds=120), device))
    elif how == "http":
        device, url, token = sys.argv[2:5]

        async def over_http():
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
                await with_client(Client(streamable_http_client(url, http_client=http), read_timeout_seconds=120), device)
                # Protocol 2026-07-28 has no MCP sessions: callers that name their own
                # keep their variables apart; the same name shares them.
                async with Client(streamable_http_client(url, http_client=http), read_timeout_seconds=120) as c:
                    run = next(t for t in (await c.list_tools()).tools if t.name == "run_script")
                    check("every tool takes a session name", "session" in run.input_schema["properties"], run.input_schema)
                    await c.call_tool("run_script", {"code": "let mine = 41;", "device": device, "session": "alpha"})
                    same = await c.call_tool("run_script", {"code": "mine + 1", "device": device, "session": "alpha"})
                    other = await c.call_tool("run_script", {"code": "mine + 1", "device": device, "session": "beta"})
                    check("a named session keeps its variables", "value: 42" in text_of(same), text_of(same))
                    check("another name is another session", other.is_error and "mine" in text_of(other), text_of(other))
                    long_name = await rpc_error(c.call_tool("run_script", {"code": "1", "session": "s" * 129}))
                    check("a session name over 128 characters is refused", long_name == -32602, long_name)
            async with httpx2.AsyncClient(headers={"Authorization": "Bearer wrong"}, timeout=30) as http:
                try:
                    async with Client(streamable_http_client(url, http_client=http)) as c:
                        await c.list_tools()
                    check("a wrong token is refused", False, "it was served")
                except BaseException as e:  # the SDK wraps it in exception groups
                    check("a wrong token is refused", "401" in repr(e) or "MCPError" in repr(e) or "Unauthorized" in repr(e), repr(e))

        asyncio.run(over_http())
    elif how == "confirm":
        asyncio.run(confirm(sys.argv[2], sys.argv[3:]))
    finish()


main()
