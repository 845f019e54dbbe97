"""Types of the extension module (bindings/python/src/); keep the two in step."""

import os
from pathlib import Path
from types import TracebackType
from typing import Literal, Mapping, Optional

WORKER_ARG: str

class CodeactError(Exception): ...
class DeviceError(CodeactError): ...

class ScriptError(CodeactError):
    message: str
    line: Optional[int]
    column: Optional[int]
    kind: str  # syntax, script, limit, cancelled, tool, crashed
    limit: Optional[str]  # operations, time, call_depth, size, memory, stack
    tool: Optional[str]
    failure: Optional[str]  # assertion, stale, device, bad_argument, not_found, time_limit, cancelled, refused
    result: "RunResult"

class Action:
    tool: str
    args: list[str]
    result: str
    failure: Optional[str]
    effect: Optional[str]
    started_ms: float
    duration_ms: float

class Completion:
    success: bool
    reason: str

class RunResult:
    output: str
    value: Optional[str]
    actions: list[Action]
    more_actions: int
    completion: Optional[Completion]
    duration_ms: float
    ok: bool

class Element:
    index: int
    text: str
    desc: str
    id: str
    cls: str
    bounds: tuple[int, int, int, int]

class Screen:
    text: str
    app: str
    activity: str
    elements: list[Element]

class TaskResult:
    success: bool
    outcome: str  # success, failure, interrupted, error
    steps: int
    reason: str
    run_dir: Path
    replay: str

class Session:
    def __init__(
        self,
        device: str = "sim",
        persona: Optional[str] = None,
        config: Optional[str | os.PathLike[str]] = None,
        limits: Optional[Mapping[str, int]] = None,
    ) -> None: ...
    @property
    def device(self) -> str: ...
    def run(self, code: str) -> RunResult: ...
    def observe(self) -> Screen: ...
    def screenshot(self) -> bytes: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Session": ...
    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc_value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> bool: ...

def run_task(
    goal: str,
    device: str = "sim",
    model: Optional[str] = None,
    base_url: Optional[str] = None,
    api_key_env: Optional[str] = None,
    max_steps: int = 15,
    out: str | os.PathLike[str] = "runs",
    persona: Optional[str] = None,
    config: Optional[str | os.PathLike[str]] = None,
    vision: Optional[bool] = None,
    actions: Literal["code", "json"] = "code",
) -> TaskResult: ...
def _serve_worker() -> int: ...
