#!/bin/sh
# A deliberately broken renderer (sensitivity benchmark, tools/sensitivity): uopfuzz's renderer, except
# that SHL does not guard its amount: it shifts by the amount modulo the width, what x86's shift
# instructions do with C's `a << b` (undefined for b >= width). The reference, x * 2**b wrapped, gives 0
# for an amount of the width or more: SHL i32 of 1 by 33 is 0 there and 2 here.
set -e
out=$("${UOPFUZZ:?set UOPFUZZ to the uopfuzz binary}" render "$1" --name "$2")
out=$(printf '%s\n' "$out" | sed '1,/end of prelude/ {
  s/{ return b < 0 || b >= W ? 0 : uf_wrap_##t((uint64_t)a << b); }/{ return uf_wrap_##t((uint64_t)a << (b \& (W - 1))); \/* unguarded *\/ }/
  s/{ return b >= W ? 0 : uf_wrap_##t((uint64_t)a << b); }/{ return uf_wrap_##t((uint64_t)a << (b \& (W - 1))); \/* unguarded *\/ }/
}')
case $out in
  *'/* unguarded */'*) printf '%s\n' "$out" ;;
  *) echo "shl_unguarded.sh: uf_shl not found in the prelude (update the sed)" >&2; exit 1 ;;
esac
