#!/bin/sh
# Every probability and weight of the generator is a knob of fuzz/gen/policy.def (docs/design.md): a
# number handed to rng.chance, or a decimal written on a line that draws or fills weights, is a literal
# probability. Prints each offending line (FILE:LINE:text) and fails.
dir="${1:?usage: no_literal_probability.sh FUZZ_GEN_DIR}"
if grep -nE 'chance\( *[-+.0-9]|(chance|weighted|weight)[^;]*[^_a-zA-Z0-9x][0-9]+\.[0-9]*|(chance|weighted|weight)[^;]*[^_a-zA-Z0-9.][0-9]*\.[0-9]+' "$dir"/*.cpp; then
  echo "literal probabilities above: make each a knob of fuzz/gen/policy.def" >&2
  exit 1
fi
