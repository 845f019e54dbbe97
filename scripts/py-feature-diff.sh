#!/usr/bin/env bash
# Lists the packages under `codeact` that `maturin build` (codeact-py alone, no
# dev-dependencies) would resolve with other features than
# `cargo test --workspace --exclude codeact-py --lib --bins --tests --examples` (dev-dependencies on).
# Each one listed is rebuilt by maturin, with everything above it, `codeact`
# included; no output (exit 0): maturin reuses the test build's rlibs. No compiling:
# cargo tree only. Usage: feature-diff.sh [WORKSPACE_DIR]
set -euo pipefail
cd "${1:-.}"
fmt=(-f '{p} [{f}]' --prefix none)
clean() { sed 's/ (\*)$//; s| (/[^)]*)||' | sort -u; }
skip='^(codeact-py|pyo3[a-z-]*|target-lexicon) '
# Target side (what is linked): the feature sets must be the same.
test_t=$(cargo tree -q --workspace --exclude codeact-py -e normal,dev,no-proc-macro "${fmt[@]}" | clean)
py_t=$(cargo tree -q -p codeact-py -e normal,no-proc-macro "${fmt[@]}" | clean | grep -Ev "$skip" || true)
# Host side (build scripts, proc macros): each set maturin uses must be one the test
# build built (the test build also builds host crates only its dev-dependencies use).
test_all=$(cargo tree -q --workspace --exclude codeact-py -e normal,build,dev "${fmt[@]}" | clean)
py_all=$(cargo tree -q -p codeact-py -e normal,build "${fmt[@]}" | clean | grep -Ev "$skip" || true)
status=0
while read -r name version; do
    t=$(grep -F "$name $version [" <<<"$test_t" || true)
    p=$(grep -F "$name $version [" <<<"$py_t" || true)
    if [ "$t" != "$p" ]; then
        status=1
        echo "$name $version (target)"
        sed 's/^/  test:    /' <<<"$t"
        sed 's/^/  maturin: /' <<<"$p"
    fi
done < <(awk '{print $1, $2}' <<<"$py_t" | sort -u)
while read -r line; do
    if ! grep -qxF "$line" <<<"$test_all"; then
        status=1
        echo "host or build: maturin builds '$line', the test build does not"
    fi
done < <(comm -23 <(echo "$py_all") <(echo "$py_t"))
exit $status
