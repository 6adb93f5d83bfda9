#!/bin/sh
# uopfuzz's renderer without its gcc workaround: uf_f32's empty asm removed, so gcc 12's SLP + FRE fold of
# (double)(float)x shows again (docs/findings.md; corpus/mismatch-cast-f32-f64-gcc-slp-fold.uop).
set -e
"${UOPFUZZ:?set UOPFUZZ to the uopfuzz binary}" render "$1" --name "$2" | sed 's/^#define UF_OPAQUE_F32(v) .*/#define UF_OPAQUE_F32(v) ((void)0)/'
