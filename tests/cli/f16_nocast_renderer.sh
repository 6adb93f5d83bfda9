#!/bin/sh
# A renderer plug-in: the built-in --f16 native rendering with the casts of uf_hadd, uf_hsub and uf_hmul
# removed, so _Float16 excess precision survives a chain. tests/programs/f16_native_chain.uop must then
# mismatch (gcc 12 and clang 16 at -O0 and -O2): the test that shows the chain program catches it.
# Usage: f16_nocast_renderer.sh UOPFUZZ PROGRAM_FILE FUNCTION_NAME
"$1" render --f16 native "$2" --name "$3" | sed \
  -e 's/^#define uf_hadd(a, b) ((_Float16)((a) + (b)))$/#define uf_hadd(a, b) ((a) + (b))/' \
  -e 's/^#define uf_hsub(a, b) ((_Float16)((a) - (b)))$/#define uf_hsub(a, b) ((a) - (b))/' \
  -e 's/^#define uf_hmul(a, b) ((_Float16)((a) \* (b)))$/#define uf_hmul(a, b) ((a) * (b))/'
