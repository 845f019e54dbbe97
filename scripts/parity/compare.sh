#!/usr/bin/env bash
# Compares two folders scripts/parity/run.sh wrote: LLM request bodies byte for
# byte; the eval oracle's instances but for times, paths and finishing order; each
# script's exec output but for times. Exit 1 on any difference.
set -u
A=$1; B=$2; status=0
for s in react_vision plan hierarchical tree json; do
  if cmp -s "$A/$s.requests.jsonl" "$B/$s.requests.jsonl"; then
    echo "$s: $(wc -l < "$A/$s.requests.jsonl") LLM requests, byte-identical"
  else echo "$s: LLM requests DIFFER"; status=1; fi
done
norm() { python3 - "$1" <<'PY'
import json, sys
rows = []
for line in open(sys.argv[1]):
    v = json.loads(line)
    def strip(x):
        if isinstance(x, dict):
            return {k: strip(w) for k, w in x.items() if k != "done" and not any(t in k for t in ("ms", "seconds", "time", "wall", "report", "results", "out", "run_dir", "dir"))}
        if isinstance(x, list):
            return [strip(i) for i in x]
        return x
    rows.append(json.dumps(strip(v), sort_keys=True))
print("\n".join(sorted(rows)))
PY
}
for p in android ios harmony; do
  if [ "$(norm "$A/eval-$p.stdout")" == "$(norm "$B/eval-$p.stdout")" ]; then
    echo "eval --agent oracle --platform $p: $(grep -c '"instance"' "$A/eval-$p.stdout") instances, identical but for times"
  else echo "eval $p: DIFFERS"; status=1; fi
done
times() { sed -E 's/ *[0-9]+(\.[0-9]+)? ?(ms|s)\b/ T/g' "$1"; }
for f in "$A"/exec-*.out; do
  n=$(basename "$f")
  if [ "$(times "$f")" == "$(times "$B/$n")" ]; then echo "exec ${n#exec-}: identical but for times"
  else echo "exec ${n#exec-}: DIFFERS"; diff <(times "$f") <(times "$B/$n") | head -5; status=1; fi
done
exit $status
