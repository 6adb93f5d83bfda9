#!/usr/bin/env python3
# A deliberately broken renderer for the fuzzer's own tests: uopfuzz's renderer, except that bf16 is
# rounded once, straight from binary64 (nearest even at bit 45 of the binary64 significand, overflow to
# inf; below 2^-126 to a multiple of 2^-133), where the reference rounds twice like tinygrad (binary64
# -> binary32 nearest even, then nearest even on the binary32 bits).
# The two differ for binary64 values just above a bf16 tie, e.g. CAST bf16 of 1.0039062500000002:
# reference 1.0, this renderer 1.0078125. The original helper is kept, renamed, and unused.
from renderer_edit import serve

ROUND_ONCE = r"""UF_OUTLINE float uf_round_bf16(double x) {
  uint64_t b;
  if (!isfinite(x)) return (float)x;
  if (fabs(x) < 0x1p-126) return (float)copysign((fabs(x) + 0x1p-81) - 0x1p-81, x);  /* bf16 subnormals: units of 2^-133 */
  memcpy(&b, &x, 8);
  b = (b + 0xfffffffffffull + ((b >> 45) & 1u)) & ~0x1fffffffffffull;
  memcpy(&x, &b, 8);
  return (float)x;
}
UF_OUTLINE float uf_round_bf16_twice(double x) {"""

if __name__ == "__main__":
    serve("bf16_single_rounding", prelude=[(r"^UF_OUTLINE float uf_round_bf16\(double x\) \{$", lambda m: ROUND_ONCE)])
