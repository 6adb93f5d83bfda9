#!/usr/bin/env python3
# A C target that computes EXP2 with libm's exp2 where uopfuzz's renderer calls pow(2, x) (exec_alu's
# 2 ** x), and says so in its handshake (`approximate`: EXP2): libm's exp2 is within an ulp but not always
# pow's bit pattern, so its results are judged by EXP2's budget and are never a finding. With --exact it
# says nothing, and every ulp is a mismatch.
#
# Its handshake lists three backends (`backends`, what `uopfuzz agree` compares), each saying it approximates
# EXP2: `exp2` (the default, as above), `pow` (uopfuzz's renderer unchanged) and `up` (pow's binary64 result
# one step up). exp2 and pow disagree where they round apart (x = 0.8711685325760676), and up disagrees with
# both on most f64 results (on f32 and narrower, mostly not: the step is lost rounding to them).
import os
import sys

from renderer_edit import edited
from uopfuzz_plugin import Plugin

EDITS = {"exp2": [(r"return uf_pow_fn\(2\.0, x\);", "return exp2(x);")], "pow": [],
         "up": [(r"return uf_pow_fn\(2\.0, x\);", "return nextafter(uf_pow_fn(2.0, x), INFINITY);")]}
HERE = os.path.relpath(os.path.abspath(__file__))

if __name__ == "__main__":
  exact = "--exact" in sys.argv
  backend = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--backend=")), "exp2")
  sys.argv = [a for a in sys.argv if a != "--exact" and not a.startswith("--backend=")]
  Plugin(render=lambda program, function: edited(program, function, "libm_exp2", prelude=EDITS[backend]),
         name="libm_exp2", one_unit=True, approximate=None if exact else ["EXP2"],
         backends=[{"name": b, "renderer": f"{HERE} --backend={b}"} for b in EDITS]).main()
