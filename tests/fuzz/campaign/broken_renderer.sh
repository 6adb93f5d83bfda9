#!/bin/sh
# A deliberately broken renderer for the fuzzer's own tests: uopfuzz's renderer, except that integer
# multiplication is rendered as addition. The fuzzer must find it, bucket it and reduce it.
set -e
"${UOPFUZZ:?set UOPFUZZ to the uopfuzz binary}" render "$1" --name "$2" | sed '/end of prelude/,$ s/uf_mul_/uf_add_/g'
