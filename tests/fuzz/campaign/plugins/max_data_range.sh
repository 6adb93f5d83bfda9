#!/bin/sh
# A deliberately broken renderer for the fuzzer's own tests: uopfuzz's renderer, except that a float MAX
# (f16, f32, f64, bf16, the fp8s: one prelude macro) gives the negated maximum when its first operand's
# magnitude lies in [LO, HI) (default [4096, 32767): three binades that generated data reaches mostly
# through random bit patterns). A data-dependent bug: a kernel shows it only on data that takes it
# there, so one data set per kernel seldom sees it and `fuzz --inputs 16` does
# (tests/fuzz/campaign/inputs_test.cpp).
set -e
lo=${MAX_BUG_LO:-4096.0}
hi=${MAX_BUG_HI:-32767.0}
out=$("${UOPFUZZ:?set UOPFUZZ to the uopfuzz binary}" render "$1" --name "$2")
out=$(printf '%s\n' "$out" | sed "1,/end of prelude/ s/^#define UF_MAX(t, T) static inline T uf_max_##t(T a, T b) { return b > a ? b : a; }\$/#define UF_MAX(t, T) static inline T uf_max_##t(T a, T b) { T r = b > a ? b : a; return fabs((double)a) >= $lo \&\& fabs((double)a) < $hi ? -r : r; } \/* data range bug *\//")
case $out in
  *'/* data range bug */'*) printf '%s\n' "$out" ;;
  *) echo "max_data_range.sh: the UF_MAX macro not found in the prelude (update the sed)" >&2; exit 1 ;;
esac
