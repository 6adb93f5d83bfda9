#!/usr/bin/env bash
# Nightly fuzzing: one time-budgeted `uopfuzz fuzz` campaign per (compiler, flag set), each writing its own
# JSON summary, then one aggregate summary (summary.json, summary.md) and copies of the new reproducers.
#
#   fuzz/nightly.sh [--budget SEC] [--seed S] [--shard K] [--compilers "gcc clang"]
#                   [--flagsets "default;-O2;-O0"] [--f16 "soft;native"] [--jobs J] [--corpus DIR] [--out DIR]
#                   [--uopfuzz BIN]
#                   [-- extra uopfuzz fuzz flags]
#
# The runs are every (compiler, flag set, f16 mode). Each run writes run-TAG.json with its event log beside it (run-TAG.events.jsonl), so
# `uopfuzz report OUT/run-*.json -o report.html` draws the night (fuzz/nightly-report.sh: several OUTs). summary.json
# keeps each run's `target` (a plug-in's name and version, e.g. tinygrad's commit).
#
# For example, a short run against a renderer plug-in (exits 1 when it finds something):
#   fuzz/nightly.sh --budget 60 --compilers gcc --flagsets default --corpus /tmp/c --out /tmp/o \
#       -- --renderer-cmd tests/fuzz/campaign/broken_renderer.sh
#
# Every option also reads an environment variable (NIGHTLY_BUDGET, NIGHTLY_SEED, NIGHTLY_SHARD,
# NIGHTLY_COMPILERS, NIGHTLY_FLAGSETS, NIGHTLY_F16, NIGHTLY_JOBS, NIGHTLY_CORPUS, NIGHTLY_OUT, UOPFUZZ_BIN).
#   --budget    total seconds, shared equally by the runs (default 1800; at least 10 per run)
#   --seed      base seed (default: today, YYYYMMDD); run r of shard K uses seed*1000 + K*50 + r, so
#               shards and runs never repeat each other's programs and a night replays from its seed
#   --compilers default: gcc, and clang when it is installed
#   --flagsets  ';'-separated; `default` is uopfuzz's own exact flags (-O3 -march=native -ffp-contract=off
#               -fno-fast-math)
#   --f16       ';'-separated half modes (`uopfuzz fuzz --f16`): soft (default) and/or native; native renders
#               f16 as the compiler's _Float16 where it has one (docs/semantics.md, "Native half")
#   --corpus    where reproducers are saved (default: the repository's corpus/); buckets already there
#               are not saved again
#   --out       per-run JSON and logs, summary.json, summary.md, and new/ with the new reproducers
#
# Exit: 0 nothing new; 1 some run saved a new reproducer; 2 a run failed (its error is in the summary;
# 2 wins over 1). SIGINT/SIGTERM stop the current run, which still writes its summary, and the script
# aggregates what ran and exits 2.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
budget=${NIGHTLY_BUDGET:-1800}
seed=${NIGHTLY_SEED:-$(date -u +%Y%m%d)}
shard=${NIGHTLY_SHARD:-0}
compilers=${NIGHTLY_COMPILERS:-}
flagsets=${NIGHTLY_FLAGSETS:-default;-O2;-O0}
f16modes=${NIGHTLY_F16:-soft}
jobs=${NIGHTLY_JOBS:-$(nproc)}
corpus=${NIGHTLY_CORPUS:-$root/corpus}
out=${NIGHTLY_OUT:-$root/nightly-out}
uopfuzz=${UOPFUZZ_BIN:-$root/build/uopfuzz}
extra=()

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while (($#)); do
  case $1 in
    --budget) budget=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --shard) shard=$2; shift 2 ;;
    --compilers) compilers=$2; shift 2 ;;
    --flagsets) flagsets=$2; shift 2 ;;
    --f16) f16modes=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --corpus) corpus=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --uopfuzz) uopfuzz=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) usage ;;
    *) echo "nightly: unknown argument $1" >&2; usage ;;
  esac
done
for n in "$budget" "$seed" "$shard" "$jobs"; do
  [[ $n =~ ^[0-9]+$ ]] || { echo "nightly: not a number: $n" >&2; exit 2; }
done
[[ -x $uopfuzz ]] || { echo "nightly: $uopfuzz is not an executable (build first, or --uopfuzz BIN)" >&2; exit 2; }
# Renderer plug-ins that call uopfuzz themselves (tests/fuzz/campaign/broken_renderer.sh) find it here.
export UOPFUZZ=${UOPFUZZ:-$uopfuzz}
command -v jq >/dev/null || { echo "nightly: needs jq (tools/setup installs it)" >&2; exit 2; }
if [[ -z $compilers ]]; then
  compilers=gcc
  command -v clang >/dev/null && compilers="gcc clang"
fi

IFS=';' read -r -a sets <<<"$flagsets"
IFS=';' read -r -a halves <<<"$f16modes"
for h in "${halves[@]}"; do
  [[ $h == soft || $h == native ]] || { echo "nightly: --f16 takes soft and/or native, not $h" >&2; exit 2; }
done
runs=()
for cc in $compilers; do
  for f in "${sets[@]}"; do
    for h in "${halves[@]}"; do runs+=("$cc"$'\t'"$f"$'\t'"$h"); done
  done
done
((${#runs[@]})) || { echo "nightly: no compiler or flag set" >&2; exit 2; }
per_run=$((budget / ${#runs[@]}))
((per_run >= 10)) || per_run=10
mkdir -p "$out/new" "$corpus" || exit 2

child=0 stopped=0
on_signal() { stopped=1; ((child)) && kill -TERM "$child" 2>/dev/null; }
trap on_signal INT TERM

echo "nightly: seed $seed shard $shard: ${#runs[@]} runs of ${per_run}s, $jobs jobs, corpus $corpus, out $out" >&2
records=()
for r in "${!runs[@]}"; do
  ((stopped)) && break
  IFS=$'\t' read -r cc f h <<<"${runs[$r]}"
  tag=$(printf '%s_%s' "$cc" "$f" | tr -c 'A-Za-z0-9_=.-' '_')
  [[ $h == soft ]] || tag+=_f16$h
  run_seed=$((seed * 1000 + shard * 50 + r))
  json=$out/run-$tag.json log=$out/run-$tag.log
  args=(fuzz --time "$per_run" --jobs "$jobs" --seed "$run_seed" --cc "$cc" --corpus "$corpus" --json "$json" -q)
  [[ $f == default ]] || args+=(--cflags "$f")
  [[ $h == soft ]] || args+=(--f16 "$h")
  args+=("${extra[@]}")
  echo "nightly: [$((r + 1))/${#runs[@]}] $cc ${f} (f16 $h): seed $run_seed" >&2
  rm -f "$json"
  "$uopfuzz" "${args[@]}" >"$log" 2>&1 &
  child=$!
  wait "$child"; code=$?
  if ((stopped)); then wait "$child"; code=$?; fi  # a trapped signal interrupts the first wait
  child=0
  tail -n 4 "$log" >&2
  if [[ -s $json ]] && jq -e . "$json" >/dev/null 2>&1; then
    records+=("$(jq -c --arg cc "$cc" --arg f "$f" --arg h "$h" --argjson code "$code" --argjson seed "$run_seed" --arg log "$log" \
      '{cc: $cc, cflags: $f, f16: $h, seed: $seed, exit: $code, log: $log, programs, runs, valid, mismatches, crashes, compile_errors,
        render_errors, timeouts, buckets, seconds, programs_per_second, interrupted, saved, errors, target}' "$json")")
  else
    records+=("$(jq -nc --arg cc "$cc" --arg f "$f" --arg h "$h" --argjson code "$code" --argjson seed "$run_seed" --arg log "$log" \
      --arg tail "$(tail -n 20 "$log")" \
      '{cc: $cc, cflags: $f, f16: $h, seed: $seed, exit: $code, log: $log, saved: [], errors: ["no JSON summary: " + $tail]}')")
  fi
done

# Aggregate. A run is an error when it exited with neither 0 nor 1 or reported errors.
printf '%s\n' "${records[@]}" | jq -s --argjson seed "$seed" --argjson shard "$shard" --argjson per_run "$per_run" \
  --argjson stopped "$stopped" '
  {seed: $seed, shard: $shard, seconds_per_run: $per_run, interrupted: ($stopped == 1), runs: .,
   programs: (map(.programs // 0) | add), new_reproducers: (map(.saved | length) | add),
   saved: (map(.saved) | add), failed_runs: (map(select((.exit != 0 and .exit != 1) or ((.errors // []) | length > 0))) | length)}
  | .status = (if .failed_runs > 0 or .interrupted then "error" elif .new_reproducers > 0 then "new" else "clean" end)' \
  >"$out/summary.json" || { echo "nightly: cannot write $out/summary.json" >&2; exit 2; }

jq -r '.saved[]' "$out/summary.json" | while read -r f; do cp -- "$f" "$out/new/"; done
jq -r '"# uopfuzz nightly: seed \(.seed), shard \(.shard): \(.status)\n",
  "\(.programs) programs, \(.new_reproducers) new reproducers, \(.failed_runs) failed runs\n",
  "| compiler | flags | f16 | target | seed | exit | programs | /s | runs | failures | buckets | new | errors |",
  "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
  (.runs[] | "| \(.cc) | \(.cflags) | \(.f16) | \(.target.name // "-") \(.target.version // "") | \(.seed) | \(.exit) | \(.programs // "-") | \((.programs_per_second // 0) | floor) | \(.runs // "-") | \(((.mismatches // 0) + (.crashes // 0) + (.compile_errors // 0) + (.render_errors // 0) + (.timeouts // 0))) | \(.buckets // "-") | \(.saved | length) | \((.errors // []) | join("; ") | .[0:200]) |"),
  "", (.saved[] | "- new: `\(.)`")' "$out/summary.json" >"$out/summary.md"
cat "$out/summary.md" >&2
case $(jq -r .status "$out/summary.json") in
  clean) exit 0 ;;
  new) exit 1 ;;
  *) exit 2 ;;
esac
