#!/usr/bin/env python3
# uopfuzz's own renderer, exact, whose handshake says it approximates every op that may be approximate: the
# budget oracle on an exact target, which must find nothing (exec_alu's results are within every budget).
from renderer_edit import edited
from uopfuzz_plugin import Plugin

if __name__ == "__main__":
  Plugin(render=lambda program, function: edited(program, function, "exact_says_approximate"), name="exact_says_approximate",
         one_unit=True, approximate=["SIN", "LOG2", "EXP2", "POW", "SQRT", "RECIP"]).main()
