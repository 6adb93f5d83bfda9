#!/usr/bin/env python3
# A deliberately broken renderer (sensitivity benchmark, tools/sensitivity): uopfuzz's renderer, except
# that TRUNC is C's truncf/trunc as it is, so a value in (-1, 0) truncates to -0.0 where the reference
# (Python's math.trunc, an integer) gives +0.0. The wrong zero only shows where it is stored as it is or
# divides, or a probe observes it: an ADD or a CAST after it hides the sign.
from renderer_edit import serve

if __name__ == "__main__":
    serve("trunc_negative_zero", prelude=[(r"return t == 0 \? 0\.0f? : t; }$", "return t; } /* keeps -0.0 */")])
