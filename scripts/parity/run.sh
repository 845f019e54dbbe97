#!/usr/bin/env bash
# Behaviour parity between two codeact binaries (a refactor must change nothing a
# user or a model sees):
#   scripts/parity/run.sh BIN OUT      records what BIN does into the folder OUT
#   scripts/parity/compare.sh A B      compares two such folders
# It records every LLM request body of five scripted-model scenarios (react with
# vision, plan, hierarchical, tree, and function calls: --actions json; replies from the JSON files here, served by
# scripted_llm.py on 127.0.0.1), the eval oracle on each platform, and each
# scripts/*.rhai run by exec.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BIN=$(realpath "$1"); OUT=$(realpath -m "$2"); rm -rf "$OUT"; mkdir -p "$OUT"
declare -A ARGS
ARGS[react_vision]="--persona big_agent --vision on"
ARGS[plan]="--strategy plan --persona big_agent --vision off --verify-completion off --planner-model planner --reflector-model reflector"
ARGS[hierarchical]="--strategy hierarchical --vision off --verify-completion off --planner-model planner --reflector-model reflector"
ARGS[tree]="--strategy tree --persona big_agent --vision off --verify-completion off"
ARGS[json]="--actions json --persona big_agent --vision off --verify-completion off"
declare -A TASK
TASK[react_vision]="Turn off Wi-Fi"; TASK[plan]="Turn off Wi-Fi"; TASK[tree]="Turn off Wi-Fi and note it"
TASK[hierarchical]="Send Bob Smith the phone number of Alice Johnson"; TASK[json]="Turn off Wi-Fi"
for s in react_vision plan hierarchical tree json; do
  rm -f $OUT/port
  python3 $HERE/scripted_llm.py $HERE/$s.json $OUT/$s.requests.jsonl $OUT/port & P=$!
  while [ ! -s $OUT/port ]; do sleep 0.1; done
  mkdir -p $OUT/$s.cwd
  (cd $OUT/$s.cwd && env -u OPENAI_BASE_URL -u CODEACT_MODEL -u CODEACT_PERSONA -u CODEACT_CONFIG -u OTEL_EXPORTER_OTLP_ENDPOINT \
    OPENAI_API_KEY=sk-fake XDG_DATA_HOME=$OUT/$s.cwd/.mem $BIN run --device sim --base-url http://127.0.0.1:$(cat $OUT/port)/v1 --model scripted --no-memory ${ARGS[$s]} "${TASK[$s]}" > $OUT/$s.stdout 2> $OUT/$s.stderr; echo "exit $?" >> $OUT/$s.stdout)
  kill $P; wait $P 2>/dev/null
done
# the oracle over the whole suite, each platform
for p in android ios harmony; do
  (cd $OUT && $BIN eval --agent oracle --platform $p --out $OUT/eval-$p --json > $OUT/eval-$p.stdout 2> $OUT/eval-$p.stderr)
done
# every example script
for f in $(ls $REPO/scripts/*.rhai); do
  (cd $OUT && $BIN exec $f --device sim > $OUT/exec-$(basename $f).out 2>&1; echo "exit $?" >> $OUT/exec-$(basename $f).out)
done
