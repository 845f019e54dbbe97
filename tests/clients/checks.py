"""What the client scripts share: one line per check, `ok NAME` or `FAIL NAME: why`,
and an exit code that says whether any failed."""
import sys

_failed = 0


def check(name, cond, why=""):
    global _failed
    print(("ok " if cond else "FAIL ") + name + ("" if cond else ": " + str(why)), flush=True)
    if not cond:
        _failed += 1


def finish():
    sys.exit(1 if _failed else 0)
