#!/usr/bin/env bash
# fuzz/nightly.sh end to end, with short deterministic runs (a fixed seed and --count):
#   clean      the built-in renderer on a copy of the repository's corpus: exit 0, status `clean`;
#   new        the deliberately broken renderer: exit 1, status `new`, the reproducers copied to new/;
#   interrupt  SIGTERM while a run is busy: the run writes its summary, the script aggregates and exits 2
#              within a few seconds, status `error`, `interrupted`.
# Each also checks summary.json and summary.md are written.
#   nightly_test.sh MODE UOPFUZZ_BINARY
set -uo pipefail
mode=$1 bin=$2
command -v jq >/dev/null || { echo "SKIP: fuzz/nightly.sh needs jq"; exit 77; }
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/uopfuzz-nightly-XXXXXX")
trap 'rm -rf "$work"' EXIT
export UOPFUZZ_CACHE_DIR=$work/cache
fail() { echo "FAIL: $*"; [[ -f $work/out/summary.json ]] && cat "$work/out/summary.json"; exit 1; }
common=(--uopfuzz "$bin" --compilers gcc --flagsets default --jobs 2 --seed 20240101 --out "$work/out" --corpus "$work/corpus")

check_summary() {  # STATUS
  [[ -s $work/out/summary.json && -s $work/out/summary.md ]] || fail "no summary.json/summary.md"
  [[ $(jq -r .status "$work/out/summary.json") == "$1" ]] || fail "status is not $1"
  grep -q "uopfuzz nightly: seed 20240101" "$work/out/summary.md" || fail "summary.md does not name the seed"
}

case $mode in
  clean)
    mkdir -p "$work/corpus" && cp "$root"/corpus/*.uop "$work/corpus/" 2>/dev/null
    "$root/fuzz/nightly.sh" "${common[@]}" --budget 60 -- --count 24 >"$work/log" 2>&1
    code=$?
    cat "$work/log"
    ((code == 0)) || fail "exit $code, expected 0"
    check_summary clean
    [[ $(jq '.programs' "$work/out/summary.json") -eq 24 ]] || fail "expected 24 programs"
    [[ -z $(ls -A "$work/out/new") ]] || fail "new/ is not empty"
    ;;
  new)
    "$root/fuzz/nightly.sh" "${common[@]}" --budget 60 -- --count 16 --cflags -O1 --no-reduce \
      --renderer-cmd "$root/tests/fuzz/campaign/broken_renderer.sh" >"$work/log" 2>&1
    code=$?
    cat "$work/log"
    ((code == 1)) || fail "exit $code, expected 1"
    check_summary new
    n=$(jq '.new_reproducers' "$work/out/summary.json")
    ((n > 0)) || fail "no new reproducers counted"
    [[ $(ls "$work/out/new" | wc -l) -eq $n ]] || fail "new/ does not hold the $n new reproducers"
    for f in "$work"/out/new/*.uop; do
      UOPFUZZ=$bin "$bin" replay "$f" >/dev/null 2>&1 || fail "$f does not replay"
    done
    ;;
  interrupt)
    "$root/fuzz/nightly.sh" "${common[@]}" --budget 120 --flagsets "default;-O1" >"$work/log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do [[ -s $work/out/run-gcc_default.log ]] && break; sleep 0.1; done
    sleep 3
    kill -TERM "$pid"
    t0=$SECONDS
    wait "$pid"
    code=$?
    cat "$work/log"
    ((SECONDS - t0 <= 10)) || fail "took $((SECONDS - t0)) s to stop"
    ((code == 2)) || fail "exit $code, expected 2"
    check_summary error
    [[ $(jq '.interrupted' "$work/out/summary.json") == true ]] || fail "not marked interrupted"
    [[ $(jq '.runs | length' "$work/out/summary.json") -eq 1 ]] || fail "the second run should not have started"
    [[ $(jq '.runs[0].interrupted' "$work/out/summary.json") == true ]] || fail "the run's own summary is missing"
    ;;
  *) echo "usage: $0 clean|new|interrupt UOPFUZZ_BINARY" >&2; exit 2 ;;
esac
echo "OK: nightly $mode"
