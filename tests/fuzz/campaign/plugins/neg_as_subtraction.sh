#!/bin/sh
# A deliberately broken renderer (sensitivity benchmark, tools/sensitivity): uopfuzz's renderer, except
# that f32 and f64 NEG of a value is rendered `(0-x)`, not `(-x)`: NEG of +0.0 is then +0.0 where the
# reference gives -0.0 (every other value agrees, NaN included).
set -e
out=$("${UOPFUZZ:?set UOPFUZZ to the uopfuzz binary}" render "$1" --name "$2")
out=$(printf '%s\n' "$out" | sed '/end of prelude/,$ s/(-\([a-z][a-z0-9_]*\))/(0-\1)/g')
printf '%s\n' "$out"
