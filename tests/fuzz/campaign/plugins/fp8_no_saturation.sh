#!/bin/sh
# A deliberately broken renderer for the fuzzer's own tests: uopfuzz's renderer, except that fp8
# encoding does not saturate. A finite value beyond the format's overflow threshold becomes inf
# (e5m2: 0x7c|sign) or NaN (e4m3: 0x7f|sign; fnuz: 0x80) instead of the format's largest finite value,
# e.g. CAST fp8e4m3 of 1000.0: reference 448.0, this renderer nan.
set -e
out=$("${UOPFUZZ:?set UOPFUZZ to the uopfuzz binary}" render "$1" --name "$2")
out=$(printf '%s\n' "$out" | sed '1,/end of prelude/ s/^\( *\)res = uf_fp8\[k\]\.max_norm;$/\1return k >= 2 ? 0x80 : (uint8_t)(((b >> 63) << 7) | (k == 1 ? 0x7cu : 0x7fu)); \/* no saturation *\//')
case $out in
  *'/* no saturation */'*) printf '%s\n' "$out" ;;
  *) echo "fp8_no_saturation.sh: the saturating line of uf_fp8_enc not found in the prelude (update the sed)" >&2; exit 1 ;;
esac
