#!/usr/bin/env python3
# A deliberately broken renderer for the fuzzer's own tests: uopfuzz's renderer, except that a gated
# LOAD ignores its gate: `T valN = (GATE ? LOAD : ALT);` is rendered `T valN = LOAD;`, so the load
# happens even when the gate is false and ALT is never used. The address stays in the array: the
# renderer clamps every index its bounds analysis cannot prove in range (uf_idx), and that analysis
# knows nothing of gates, so an index the gate would have kept out of bounds reads a clamped element
# instead of crashing. The finding is a mismatch, not a crash.
# Speaks protocol 2 through the SDK (plugins/uopfuzz_plugin.py): the handshake, server, batch and
# one-program modes.
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "plugins"))
from uopfuzz_plugin import Plugin, uopfuzz_render  # noqa: E402

LINE = re.compile(r"^(\s*[A-Za-z_][A-Za-z0-9_ ]*\s(val\d+) = )\((.*)\);$")


def split_ternary(e):
    """`G ? L : A` at bracket depth 0 -> (G, L, A), or None."""
    depth, q, colon = 0, -1, -1
    nested = 0  # ternaries opened at depth 0 after the first `?`
    for i, c in enumerate(e):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and c == "?":
            if q < 0:
                q = i
            else:
                nested += 1
        elif depth == 0 and c == ":" and q >= 0:
            if nested:
                nested -= 1
            else:
                colon = i
                break
    if q < 0 or colon < 0 or depth < 0:
        return None
    return e[:q].strip(), e[q + 1:colon].strip(), e[colon + 1:].strip()


def render(program, name):
    src = uopfuzz_render(program, name)
    lines = src.split("\n")
    in_kernel = False
    for k, line in enumerate(lines):
        if "end of prelude" in line:
            in_kernel = True
            continue
        m = LINE.match(line) if in_kernel else None
        if not m:
            continue
        parts = split_ternary(m.group(3))
        if parts:
            lines[k] = m.group(1) + parts[1] + ";  /* gate ignored */"
    return "\n".join(lines)


if __name__ == "__main__":
    Plugin(render=render, name="gate_ignored", one_unit=True).main()
