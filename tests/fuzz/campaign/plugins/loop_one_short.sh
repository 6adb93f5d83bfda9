#!/bin/sh
# A deliberately broken renderer for the fuzzer's own tests: uopfuzz's renderer, except that every loop
# runs one iteration fewer (`ridxN < END` rendered as `ridxN + 1 < END`: the last iteration is skipped,
# a trip count of 1 runs none). Fewer iterations only ever touch fewer elements, so the kernel stays in
# its arrays whatever the loop does.
set -e
out=$("${UOPFUZZ:?set UOPFUZZ to the uopfuzz binary}" render "$1" --name "$2")
printf '%s\n' "$out" | sed '/end of prelude/,$ s/^\( *for ([a-z0-9_]* \)\(ridx[0-9]*\)\( = 0; \)\2 < \(.*; \2++) {\)$/\1\2\3\2 + 1 < \4/'
