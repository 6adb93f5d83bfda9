#!/bin/sh
# A renderer plug-in for a target without kernel-local memory: it refuses every program with an ALLOC
# (exit 1, naming it) and renders the rest as uopfuzz does. The campaign's hint must name --without alloc.
if grep -q ' = ALLOC ' "$1"; then
  echo "cannot render ALLOC: this target has no kernel-local memory" >&2
  exit 1
fi
exec "${UOPFUZZ:?set UOPFUZZ to the uopfuzz binary}" render "$1" --name "$2"
