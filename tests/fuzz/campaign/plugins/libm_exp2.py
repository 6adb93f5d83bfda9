#!/usr/bin/env python3
# A C target that computes EXP2 with libm's exp2 where uopfuzz's renderer calls pow(2, x) (exec_alu's
# 2 ** x), and says so in its handshake (`approximate`: EXP2): libm's exp2 is within an ulp but not always
# pow's bit pattern, so its results are judged by EXP2's budget and are never a finding. With --exact it
# says nothing, and every ulp is a mismatch.
import sys

from renderer_edit import edited
from uopfuzz_plugin import Plugin

EDIT = [(r"return uf_pow_fn\(2\.0, x\);", "return exp2(x);")]

if __name__ == "__main__":
  exact = "--exact" in sys.argv
  sys.argv = [a for a in sys.argv if a != "--exact"]
  Plugin(render=lambda program, function: edited(program, function, "libm_exp2", prelude=EDIT), name="libm_exp2",
         one_unit=True, approximate=None if exact else ["EXP2"]).main()
