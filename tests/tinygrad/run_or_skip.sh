#!/bin/sh
# run_or_skip.sh CMD...: run CMD when tinygrad and clang are usable, else exit 77 (CTest's SKIP_RETURN_CODE)
# saying why. UOPFUZZ_TINYGRAD (a tinygrad checkout: the directory holding tinygrad/) goes on PYTHONPATH.
if [ -n "${UOPFUZZ_TINYGRAD:-}" ]; then
  PYTHONPATH="$UOPFUZZ_TINYGRAD${PYTHONPATH:+:$PYTHONPATH}"
  export PYTHONPATH
fi
if ! python3 -c 'import tinygrad' 2>/dev/null; then
  echo "SKIPPED: tinygrad is not importable (set UOPFUZZ_TINYGRAD to a tinygrad checkout, or PYTHONPATH; see plugins/tinygrad/README.md)"
  exit 77
fi
if ! command -v clang >/dev/null 2>&1; then
  echo "SKIPPED: clang not found (tinygrad's C uses __fp16, which gcc on x86 does not have)"
  exit 77
fi
exec "$@"
