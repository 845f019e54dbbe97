"""The table of a real model's run of `codeact eval --actions code,json`, per format:
instances, solved, replies that parse (a Rhai snippet that parsed, or function calls
that made snippets), replies that acted on the phone, model calls, tokens and wall time.
Read from the eval's folders as they were written (results.jsonl and each run's
events.jsonl), so a run the budget cut short is counted as far as it went.

Usage: python3 scripts/real_model_table.py OUT_DIR [HEADING]   (OUT_DIR holds eval/)
Writes OUT_DIR/real-model.md and prints it. Used by scripts/real-model.sh.
"""

import json
import pathlib
import sys


def replies(run_dir):
    """(replies, parsed, acted) of one run: the actor's replies, those whose code or
    calls ran without a parse error, and those that made at least one action."""
    steps = {}
    events = pathlib.Path(run_dir) / "events.jsonl"
    if not events.exists():
        return 0, 0, 0
    for line in events.read_text().splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        step, kind = event.get("step"), event.get("event")
        if kind == "llm_reply" and event.get("role", "actor") == "actor":
            steps.setdefault(step, {"code": False, "bad": False, "acts": False})
        elif step in steps and kind == "code":
            steps[step]["code"] = True
        elif step in steps and kind in ("parse_error", "no_code"):
            steps[step]["bad"] = True
        elif step in steps and kind == "action":
            steps[step]["acts"] = True
    parsed = sum(1 for s in steps.values() if s["code"] and not s["bad"])
    acted = sum(1 for s in steps.values() if s["acts"])
    return len(steps), parsed, acted


def row(fmt, folder):
    lines = folder / "results.jsonl"
    results = [json.loads(l) for l in lines.read_text().splitlines() if l.strip()] if lines.exists() else []
    counted = [replies(r["run_dir"]) for r in results]
    said, parsed, acted = (sum(c[i] for c in counted) for i in range(3))
    rate = f"{parsed}/{said} ({100 * parsed / said:.0f} %)" if said else "0/0"
    solved = sum(1 for r in results if r.get("score") == 1.0)
    total = lambda key: sum(r.get(key, 0) for r in results)
    return (
        f"| {fmt} | {len(results)} | {solved} | {rate} | {acted} | {total('llm_calls')} | "
        f"{total('prompt_tokens')} | {total('completion_tokens')} | {total('wall_ms') / 1000:.0f} |"
    )


def main():
    out = pathlib.Path(sys.argv[1])
    heading = sys.argv[2] if len(sys.argv) > 2 else str(out)
    lines = [
        heading,
        "",
        "| format | instances | solved | replies that parse | replies that acted | model calls | prompt tokens "
        "| completion tokens | time s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [row(fmt, out / "eval" / fmt) for fmt in ("code", "json")]
    table = "\n".join(lines) + "\n"
    (out / "real-model.md").write_text(table)
    print(table, end="")


if __name__ == "__main__":
    main()
