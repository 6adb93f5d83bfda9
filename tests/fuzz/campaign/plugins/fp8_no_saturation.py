#!/usr/bin/env python3
# A deliberately broken renderer for the fuzzer's own tests: uopfuzz's renderer, except that fp8
# encoding does not saturate. A finite value beyond the format's overflow threshold becomes inf
# (e5m2: 0x7c|sign) or NaN (e4m3: 0x7f|sign; fnuz: 0x80) instead of the format's largest finite value,
# e.g. CAST fp8e4m3 of 1000.0: reference 448.0, this renderer nan.
from renderer_edit import serve

if __name__ == "__main__":
    serve("fp8_no_saturation", prelude=[(
        r"^( *)res = uf_fp8\[k\]\.max_norm;$",
        r"\1return k >= 2 ? 0x80 : (uint8_t)(((b >> 63) << 7) | (k == 1 ? 0x7cu : 0x7fu)); /* no saturation */")])
