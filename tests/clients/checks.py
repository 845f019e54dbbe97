"""What the client scripts share: one line per check, `ok NAME` or `FAIL NAME: why`,
and an exit code that says whether any failed; and the apps the bigger suite added,
each with an id its first screen shows."""
import sys

NEW_APPS = {
    "com.codeact.shop": "search_products",
    "com.codeact.reader": "address_bar",
    "com.codeact.music": "track_search",
    "com.codeact.maps": "map_canvas",
    "com.codeact.forms": "form_signup",
}

_failed = 0


def check(name, cond, why=""):
    global _failed
    print(("ok " if cond else "FAIL ") + name + ("" if cond else ": " + str(why)), flush=True)
    if not cond:
        _failed += 1


def finish():
    sys.exit(1 if _failed else 0)
