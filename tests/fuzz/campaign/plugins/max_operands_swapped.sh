#!/bin/sh
# A deliberately broken renderer (sensitivity benchmark, tools/sensitivity): uopfuzz's renderer, except
# that f32 and f64 MAX are `a > b ? a : b`, the comparison the other way round from the reference's
# Python max (`b > a ? b : a`). They differ only on NaN and on zeros of opposite sign:
# MAX(nan, 1) is nan in the reference and 1 here; MAX(-0.0, 0.0) is -0.0 there and 0.0 here.
set -e
out=$("${UOPFUZZ:?set UOPFUZZ to the uopfuzz binary}" render "$1" --name "$2")
out=$(printf '%s\n' "$out" | sed '1,/end of prelude/ s/UF_MAX(f32, float) UF_MAX(f64, double)/static inline float uf_max_f32(float a, float b) { return a > b ? a : b; } static inline double uf_max_f64(double a, double b) { return a > b ? a : b; } \/* operands swapped *\//')
case $out in
  *'/* operands swapped */'*) printf '%s\n' "$out" ;;
  *) echo "max_operands_swapped.sh: the f32/f64 UF_MAX line not found in the prelude (update the sed)" >&2; exit 1 ;;
esac
