#!/usr/bin/env python3
# uopfuzz's own renderer, exact, whose handshake says it approximates every op that may be approximate: the
# budget oracle on an exact target, which must find nothing (exec_alu's results are within every budget).
# With --neg-zero-minus its f32 and f64 NEG is `(0-x)` (neg_as_subtraction.sh's bug: NEG of +0.0 is +0.0),
# so SIN(NEG(0.0)) comes out +0.0 where -0.0 is due: a finding of NEG's, not of SIN's.
import sys

from renderer_edit import edited
from uopfuzz_plugin import Plugin

NEG_ZERO_MINUS = [(r"\(-([a-z][a-z0-9_]*)\)", r"(0-\1)")]

if __name__ == "__main__":
  kernel = NEG_ZERO_MINUS if "--neg-zero-minus" in sys.argv else []
  sys.argv = [a for a in sys.argv if a != "--neg-zero-minus"]
  Plugin(render=lambda program, function: edited(program, function, "exact_says_approximate", kernel=kernel),
         name="exact_says_approximate", one_unit=True, approximate=["SIN", "LOG2", "EXP2", "POW", "SQRT", "RECIP"]).main()
