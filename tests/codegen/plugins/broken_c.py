# broken_c.py: the known bug that x86_image.py and run_passthru.py (plug-ins for uopfuzz's own tests) put
# into uopfuzz's own C when their knob asks for `mul`, so the fuzzer has something to find.
import re


def int32_mul_as_add(c):
  """Scalar 32-bit integer MUL (uf_mul_i32, uf_mul_u32) as ADD in the kernel, after the prelude: as
  tests/fuzz/campaign/broken_renderer.sh does for every width (found as `mismatch MUL i32`-like buckets)."""
  prelude, marker, kernel = c.partition("end of prelude")
  return prelude + marker + re.sub(r"\buf_mul_([iu]32)\(", r"uf_add_\1(", kernel)

