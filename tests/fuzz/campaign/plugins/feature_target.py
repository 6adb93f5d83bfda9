#!/usr/bin/env python3
# A target that reports features, for the tests of target coverage and guidance
# (tests/fuzz/campaign/guide_campaign_test.cpp): uopfuzz's own renderer (so it agrees with the reference),
# whose switches are one "rule" per op and dtype, named as tinygrad names its rules, `FILE:LINE`: the op's
# lowercase name as the file, the dtype's place in core/dtypes.def as the line (`add.py:9` is ADD on f32).
# A render reports as `used` the rules of the (op, dtype) pairs of its program's nodes. Three more rules,
# `front.py:1..3`, stand for a front end no kernel reaches: listed as switches, not `reachable`.
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "plugins"))
from uopfuzz_plugin import DTYPES, OPS, Plugin, Rendered, uopfuzz_render  # noqa: E402

LINE = {name: i + 1 for i, name in enumerate(DTYPES)}
RULES = [f"{op.lower()}.py:{LINE[d]}" for op in OPS for d in DTYPES]
FRONT = ["front.py:1", "front.py:2", "front.py:3"]


def rule(node):
    return f"{node.op.name.lower()}.py:{LINE[node.dtype.scalar.name]}"


def render(program, function, off=frozenset()):
    used = sorted({rule(n) for n in program.nodes} - off)
    return Rendered(uopfuzz_render(program, function), used)


if __name__ == "__main__":
    Plugin(render=render, name="feature-target", version="1", one_unit=True, switches=RULES + FRONT, reachable=RULES,
           switch_source={r: f"rule {r}" for r in RULES + FRONT}).main()
