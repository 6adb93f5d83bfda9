#!/usr/bin/env python3
# A deliberately broken renderer for the fuzzer's own tests: uopfuzz's renderer, except that a float MAX
# (f16, f32, f64, bf16, the fp8s: one prelude macro) gives the negated maximum when its first operand's
# magnitude lies in [LO, HI) ($MAX_BUG_LO, $MAX_BUG_HI; default [4096, 32767): three binades that
# generated data reaches mostly through random bit patterns). A data-dependent bug: a kernel shows it
# only on data that takes it there, so one data set per kernel seldom sees it and `fuzz --inputs 16`
# does (tests/fuzz/campaign/inputs_test.cpp).
import os

from renderer_edit import serve

LO, HI = os.environ.get("MAX_BUG_LO", "4096.0"), os.environ.get("MAX_BUG_HI", "32767.0")

if __name__ == "__main__":
    serve("max_data_range", prelude=[(
        r"^#define UF_MAX\(t, T\) static inline T uf_max_##t\(T a, T b\) \{ return b > a \? b : a; \}$",
        "#define UF_MAX(t, T) static inline T uf_max_##t(T a, T b) { T r = b > a ? b : a; return fabs((double)a) >= %s && "
        "fabs((double)a) < %s ? -r : r; } /* data range bug */" % (LO, HI))])
