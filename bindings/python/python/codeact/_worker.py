"""The program each Session's Rhai engine runs in: `codeact-worker`.

codeact runs a session's engine in a process of its own, under memory, CPU, file
and process caps, and starts it as `PROGRAM __codeact-sandbox-worker` with an empty
environment; the engine talks to the session over that process's stdin and stdout.
A Rust program re-executes itself for this; inside Python the executable is the
interpreter, so the package installs this console script instead, and
`program()` finds it for the extension.
"""

import os
import sys

NAME = "codeact-worker"

# shutil, sysconfig and pathlib are imported where they are used: every session's
# worker starts this module, and it needs none of them.


def _script_dirs() -> list:
    """Where installers put console scripts: first the scheme this package was
    installed under (a venv, the user's site, the system's), then the others."""
    import sysconfig
    from pathlib import Path

    here = Path(__file__).resolve().parent.parent
    schemes = []
    for scheme in (sysconfig.get_default_scheme(), sysconfig.get_preferred_scheme("user")):
        if scheme not in schemes:
            schemes.append(scheme)
    mine, others = [], []
    for scheme in schemes:
        try:
            paths = sysconfig.get_paths(scheme)
        except KeyError:
            continue
        libraries = {Path(paths[key]).resolve() for key in ("purelib", "platlib") if key in paths}
        (mine if here in libraries else others).append(paths["scripts"])
    return mine + others + [os.path.dirname(sys.executable)]


def program() -> str:
    """The worker program: $CODEACT_WORKER when set (a codeact binary will do),
    else the codeact-worker script installed with this package."""
    override = os.environ.get("CODEACT_WORKER")
    if override:
        return override
    for directory in _script_dirs():
        candidate = os.path.join(directory, NAME)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    import shutil

    found = shutil.which(NAME)
    if found:
        return found
    from ._codeact import CodeactError

    raise CodeactError(
        f"cannot find {NAME}, the program codeact sessions run their engine in: it is installed with the "
        "codeact package (pip install, or maturin develop); or set CODEACT_WORKER to it or to a codeact binary"
    )


def main() -> None:
    """Entry of the codeact-worker script: serve one session's engine, then exit."""
    from ._codeact import WORKER_ARG, _serve_worker

    if sys.argv[1:] != [WORKER_ARG]:
        print(f"{NAME}: the sandbox worker of codeact sessions; codeact starts it, people do not", file=sys.stderr)
        raise SystemExit(2)
    code = _serve_worker()
    # No interpreter shutdown: the worker has capped its own files and processes,
    # and the runtime reads its exit code only.
    os._exit(code)
