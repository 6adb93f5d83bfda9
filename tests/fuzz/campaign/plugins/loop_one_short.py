#!/usr/bin/env python3
# A deliberately broken renderer for the fuzzer's own tests: uopfuzz's renderer, except that every loop
# runs one iteration fewer (`ridxN < END` rendered as `ridxN + 1 < END`: the last iteration is skipped,
# a trip count of 1 runs none). Fewer iterations only ever touch fewer elements, so the kernel stays in
# its arrays whatever the loop does.
from renderer_edit import serve

if __name__ == "__main__":
    serve("loop_one_short", kernel=[(r"^( *for \([a-z0-9_]* )(ridx[0-9]*)( = 0; )\2 < (.*; \2\+\+\) \{)$", r"\1\2\3\2 + 1 < \4")])
