#!/bin/sh
# A fake renderer plug-in for the sandbox tests (docs/format.md protocol: behave.sh PROGRAM_FILE FUNCTION_NAME).
# The program's `meta behaviour = ...` line picks what it does; the programs have one f32 BUFFER.
prog="$1"
fn="$2"
b=$(sed -n 's/^meta behaviour = //p' "$prog")
case "$b" in
  exit1) echo "behave.sh: refusing on purpose" >&2; exit 1 ;;
  garbage) echo "this is not C at all" ;;
  hang) sleep 1000 ;;
  # volatile everywhere: optimisers delete a store through a known-null pointer and rewrite 1/z without
  # a division, so naive versions of these kernels would not fault at all under -O3.
  segv) printf 'void %s(float* data0) { volatile int* volatile p = 0; *p = 1; }\n' "$fn" ;;
  fpe) printf 'void %s(float* data0) { volatile int a = 7, z = 0; volatile int r = a / z; (void)r; }\n' "$fn" ;;
  ill) printf 'void %s(float* data0) { __builtin_trap(); }\n' "$fn" ;;
  abort) printf '#include <stdlib.h>\nvoid %s(float* data0) { abort(); }\n' "$fn" ;;
  loop) printf 'void %s(float* data0) { volatile int x = 0; for (;;) x++; }\n' "$fn" ;;
  nosym) printf 'void not_%s(float* data0) { data0[0] = 1.0f; }\n' "$fn" ;;
  # right at -O0, 42 when optimising: a stand-in for a compiler's wrong code, without undefined behaviour
  optimized42) printf '#ifdef __OPTIMIZE__\n#define V 42.0f\n#else\n#define V 1.0f\n#endif\nvoid %s(float* data0) { data0[0] = V; }\n' "$fn" ;;
  wild) printf 'void %s(float* data0) { for (long i = 1; i < (1L << 40); i *= 2) ((volatile float*)data0)[i] = 1.0f; }\n' "$fn" ;;
  *) printf 'void %s(float* data0) { data0[0] = 42.0f; }\n' "$fn" ;;
esac
