#!/usr/bin/env python3
# A deliberately broken renderer with five independent bugs of five kinds, for the test that a campaign
# gives exactly one bucket per root cause (tests/fuzz/campaign/five_bugs_test.cpp). It is uopfuzz's renderer,
# then:
#  1. every binary64 literal is printed through binary32 (0.1 becomes 0.10000000149011612): `mismatch CONST f64`;
#  2. f32 MAX ignores a NaN operand, like C's fmaxf (the reference's MAX(nan, 1) is nan): `mismatch MAX f32`;
#  3. i32 CDIV is C's `/` with no guard, so x/0 and MIN/-1 trap: `crash SIGFPE`;
#  4. u32 SHL shifts by the amount modulo 32, as x86 does (the reference gives 0 for 32 and more): `mismatch SHL u32`;
#  5. CAST f64 -> f32 rounds toward zero instead of to nearest: `mismatch CAST f64>f32`.
# Bugs 2-5 replace a helper for the kernel only, by a macro after the prelude; bug 1 rewrites the kernel's
# literals. Speaks protocol 2 through the SDK (plugins/uopfuzz_plugin.py); its handshake says one_unit, as its
# renders differ only after the prelude and the overrides they all share. Each bug is a switch (`bug1` ..
# `bug5`): off, the render leaves that bug out, so a culprit search names it and `fuzz --known` can tell a
# known bug from a new one (known_test.cpp).
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "plugins"))
from uopfuzz_plugin import Plugin, Rendered, RenderError, uopfuzz_render  # noqa: E402
from f64_constants_as_float import LITERAL, through_float  # noqa: E402  bug 1 is that plug-in's (this folder)

# uf_f32 of a binary64 operand is CAST f64 -> f32; the renderer's other uses pass `(double)` or a call.
CAST_F64_F32 = re.compile(r"\buf_f32\((?!\(double\)|uf_)")

OVERRIDES = r"""
/* five_bugs.py: the helpers it breaks, for the kernel only */
static inline float uf5_max_f32(float a, float b) { if (a != a) return b; if (b != b) return a; return b > a ? b : a; }
static __attribute__((noipa)) int32_t uf5_cdiv_i32(int32_t a, int32_t b) { return a / b; }
static inline uint32_t uf5_shl_u32(uint32_t a, uint32_t b) { return a << (b & 31u); }
static inline float uf5_f64_to_f32(double x) {
  float f = (float)x;
  if (fabs((double)f) > fabs(x)) f = nextafterf(f, 0.0f);
  return f;
}
"""
DEFINES = {"bug2": "#define uf_max_f32(a, b) uf5_max_f32(a, b)\n", "bug3": "#define uf_cdiv_i32(a, b) uf5_cdiv_i32(a, b)\n",
           "bug4": "#define uf_shl_u32(a, b) uf5_shl_u32(a, b)\n"}
SWITCHES = ["bug1", "bug2", "bug3", "bug4", "bug5"]


def render(program, name, off=frozenset()):
    c = uopfuzz_render(program, name)
    head, sep, body = c.partition("/* end of prelude */")
    if not sep:
        raise RenderError("five_bugs.py: the prelude's end marker not found (update the plug-in)")
    if "bug1" not in off: body = LITERAL.sub(through_float, body)
    if "bug5" not in off: body = CAST_F64_F32.sub("uf5_f64_to_f32(", body)
    defines = "".join(text for bug, text in DEFINES.items() if bug not in off)
    return Rendered(head + sep + OVERRIDES + defines + body, [s for s in SWITCHES if s not in off])


if __name__ == "__main__":
    Plugin(render=render, name="five_bugs", one_unit=True, switches=SWITCHES).main()
