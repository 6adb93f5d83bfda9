#!/bin/sh
# A deliberately broken renderer (sensitivity benchmark, tools/sensitivity): uopfuzz's renderer, except
# that TRUNC is C's truncf/trunc as it is, so a value in (-1, 0) truncates to -0.0 where the reference
# (Python's math.trunc, an integer) gives +0.0. The wrong zero only shows where it is stored as it is or
# divides, or a probe observes it: an ADD or a CAST after it hides the sign.
set -e
out=$("${UOPFUZZ:?set UOPFUZZ to the uopfuzz binary}" render "$1" --name "$2")
out=$(printf '%s\n' "$out" | sed '1,/end of prelude/ {
  s/return t == 0 ? 0\.0f : t; }$/return t; } \/* keeps -0.0 *\//
  s/return t == 0 ? 0\.0 : t; }$/return t; } \/* keeps -0.0 *\//
}')
case $out in
  *'/* keeps -0.0 */'*) printf '%s\n' "$out" ;;
  *) echo "trunc_negative_zero.sh: uf_trunc_f/uf_trunc_d not found in the prelude (update the sed)" >&2; exit 1 ;;
esac
