#!/bin/sh
# A deliberately broken renderer for the vector tests: uopfuzz's renderer, except that lanes 0 and 1 of
# every vector are read swapped (GEP and the lane-by-lane rules read vecN[1] for lane 0 and vecN[0] for
# lane 1): a wrong lane order. The fuzzer must find it, reduce it and replay it.
set -e
"${UOPFUZZ:?set UOPFUZZ to the uopfuzz binary}" render "$1" --name "$2" |
  sed '/end of prelude/,$ { s/\(vec[0-9][0-9]*\)\[0\]/\1[@]/g; s/\(vec[0-9][0-9]*\)\[1\]/\1[0]/g; s/\[@\]/[1]/g; }'
