#!/bin/sh
# A deliberately broken renderer (sensitivity benchmark, tools/sensitivity): uopfuzz's renderer, except
# that every rounding to f16 goes through binary32 first, `(half)(float)x`, where the reference rounds
# the binary64 value once. For f16 + - * / and sqrt of f16 operands the two agree (24 >= 2*11+2); they
# part for values the f32 step rounds onto an f16 tie: CAST f16 of an f64 or a wide integer, MULACC,
# EXP2/LOG2/SIN/POW, e.g. CAST f16 of 1.0004882812500002 (reference 1.0009765625, here 1.0).
set -e
out=$("${UOPFUZZ:?set UOPFUZZ to the uopfuzz binary}" render "$1" --name "$2")
out=$(printf '%s\n' "$out" | sed '1,/end of prelude/ s/^static inline float uf_round_f16(double x) { return uf_rh(x); }$/static inline float uf_round_f16(double x) { return uf_rh((double)(float)x); } \/* through f32 *\//')
case $out in
  *'/* through f32 */'*) printf '%s\n' "$out" ;;
  *) echo "f16_through_f32.sh: uf_round_f16 not found in the prelude (update the sed)" >&2; exit 1 ;;
esac
