#!/usr/bin/env bash
# CTest driver of the libFuzzer targets (fuzz/libfuzzer/CMakeLists.txt).
#   ctest_run.sh fuzz TARGET WORK SEEDS [libFuzzer flags...]
#       a fixed-seed run from the seed corpus; new inputs go to WORK/corpus, never into the seed directory
#   ctest_run.sh divergence TARGET WORK PROGRAM RENDERER
#       the differential target with a broken renderer must abort and write a .uop that replays
# Needs $UOPFUZZ (the uopfuzz binary) for the divergence mode and the broken renderer.
set -uo pipefail
mode=$1 target=$2 work=$3
shift 3
rm -rf "$work" && mkdir -p "$work/corpus" || exit 2
export UOPFUZZ_FUZZ_OUT=$work UOPFUZZ_FUZZ_REQUIRE_CC=1
case $mode in
  fuzz)
    seeds=$1
    shift
    exec "$target" -seed=1 -timeout=30 -rss_limit_mb=3072 -print_final_stats=1 -artifact_prefix="$work/" "$@" \
      "$work/corpus" "$seeds"
    ;;
  divergence)
    program=$1 renderer=$2
    UOPFUZZ_FUZZ_RENDERER=$renderer "$target" -artifact_prefix="$work/" "$program" >"$work/log" 2>&1
    rc=$?
    cat "$work/log"
    [[ $rc -ne 0 ]] || { echo "FAIL: the target did not abort on a divergence"; exit 1; }
    files=("$work"/divergence-*.uop)
    [[ ${#files[@]} -eq 1 && -f ${files[0]} ]] || { echo "FAIL: expected one divergence-*.uop in $work"; exit 1; }
    grep -q "wrote ${files[0]}" "$work/log" || { echo "FAIL: the target did not name the file it wrote"; exit 1; }
    out=$("${UOPFUZZ:?}" run "${files[0]}" 2>&1)
    rc=$?
    echo "$out"
    [[ $rc -eq 1 && $out == *"verdict: mismatch"* ]] || { echo "FAIL: the written program does not replay as a mismatch"; exit 1; }
    "$UOPFUZZ" run --renderer-cmd builtin "${files[0]}" >/dev/null 2>&1 || { echo "FAIL: the builtin renderer should agree"; exit 1; }
    echo "OK: divergence written to ${files[0]} and replayed"
    ;;
  *) echo "usage: $0 fuzz|divergence ..." >&2; exit 2 ;;
esac
