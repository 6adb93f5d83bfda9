#!/usr/bin/env python3
# A C target whose SIN is 2^-20 too large relatively (about 2^32 ulps of an f64 result), and that says SIN
# is approximate: over SIN's budget, a finding signed by its op, dtype and the decade of its error.
from renderer_edit import edited
from uopfuzz_plugin import Plugin

EDIT = [(r"static inline double uf_sin\(double x\) \{ return uf_sin_fn\(x\); \}",
         "static inline double uf_sin(double x) { return uf_sin_fn(x) * (1 + 0x1p-20); }")]

if __name__ == "__main__":
  Plugin(render=lambda program, function: edited(program, function, "sin_ulps_off", prelude=EDIT), name="sin_ulps_off",
         one_unit=True, approximate=["SIN"]).main()
