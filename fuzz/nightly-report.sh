#!/usr/bin/env bash
# The nightly's report over the outputs of several fuzz/nightly.sh runs (the workflow's downloaded artifacts):
# their new reproducers merged into one per bucket, then one `uopfuzz report` page over all their runs.
#
#   fuzz/nightly-report.sh --out DIR [--baseline NIGHTLY_OUT]... [--corpus DIR]... [--uopfuzz BIN] NIGHTLY_OUT...
#
# Writes DIR/merged/ (`uopfuzz corpus merge` of every NIGHTLY_OUT/new and baseline/new), DIR/report.html
# (reproducers looked for in DIR/merged, then in each --corpus DIR) and DIR/report.log (what `uopfuzz report`
# said). The runs of a --baseline NIGHTLY_OUT are the report's baselines (docs/format.md, `report --baseline`):
# e.g. tinygrad at its pinned commit, the NIGHTLY_OUTs being tinygrad's master; then DIR/regressions.txt
# lists the regressions, one `NAME regression P..M: SIGNATURE (RUN)` a line.
#
# Exit: 0 no regression; 1 regressions listed; 2 no run summary, bad arguments, or uopfuzz failed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
uopfuzz=${UOPFUZZ_BIN:-$root/build/uopfuzz}
out="" baselines=() corpora=() dirs=()

usage() { sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while (($#)); do
  case $1 in
    --out) out=$2; shift 2 ;;
    --baseline) baselines+=("$2"); shift 2 ;;
    --corpus) corpora+=(--corpus "$2"); shift 2 ;;
    --uopfuzz) uopfuzz=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "nightly-report: unknown option $1" >&2; usage ;;
    *) dirs+=("$1"); shift ;;
  esac
done
[[ -n $out ]] || { echo "nightly-report: --out DIR is required" >&2; usage; }
shopt -s nullglob
runs=() base_args=() new_dirs=()
for d in "${dirs[@]}"; do runs+=("$d"/run-*.json); done
for d in "${baselines[@]}"; do
  for r in "$d"/run-*.json; do base_args+=(--baseline "$r"); done
done
for d in "${dirs[@]}" "${baselines[@]}"; do [[ -d $d/new ]] && new_dirs+=("$d/new"); done
((${#runs[@]})) || { echo "nightly-report: no run-*.json under ${dirs[*]:-(no directory)}" >&2; exit 2; }

mkdir -p "$out/merged"
if ((${#new_dirs[@]})); then "$uopfuzz" corpus merge "${new_dirs[@]}" -o "$out/merged" || exit 2; fi
"$uopfuzz" report "${runs[@]}" "${base_args[@]}" --corpus "$out/merged" "${corpora[@]}" -o "$out/report.html" \
  2>"$out/report.log" || { cat "$out/report.log" >&2; exit 2; }
cat "$out/report.log" >&2
((${#base_args[@]})) || exit 0
grep -E '^report: .*regression [^ ]*\.\.[^ ]*: ' "$out/report.log" | sed 's/^report: //' >"$out/regressions.txt" || true
[[ -s $out/regressions.txt ]] && exit 1
exit 0
