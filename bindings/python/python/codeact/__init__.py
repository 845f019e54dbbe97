"""Drive a phone from Python through codeact's sandboxed Rhai engine.

    import codeact
    with codeact.Session(device="sim") as phone:
        result = phone.run('open_app("Settings"); tap("Wi-Fi"); find(#{id: "wifi_switch"}).checked')
        print(result.value, [a.effect for a in result.actions], phone.observe().app)
        open("wifi.png", "wb").write(phone.screenshot())

Session.run raises ScriptError (a CodeactError) when a snippet fails; a phone that
cannot be reached raises DeviceError. run_task hands a goal to codeact's agent.
"""

from ._codeact import (
    Action,
    CodeactError,
    Completion,
    DeviceError,
    Element,
    RunResult,
    Screen,
    ScriptError,
    Session,
    TaskResult,
    run_task,
)
from ._worker import program as worker_program

__all__ = [
    "Action",
    "CodeactError",
    "Completion",
    "DeviceError",
    "Element",
    "RunResult",
    "Screen",
    "ScriptError",
    "Session",
    "TaskResult",
    "run_task",
    "worker_program",
]
