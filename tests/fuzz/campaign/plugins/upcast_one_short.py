#!/usr/bin/env python3
# A target with an optimizer that has a bug, for the tests of optimizer findings (docs/format.md,
# "Signatures": ` under opts`): uopfuzz's renderer, whose handshake offers one optimization action, UPCAST.
# A program whose `opts` line holds an UPCAST step runs every loop one iteration short (loop_one_short.py's
# edit), said applied; without a step (an empty line, or no line: this target's heuristic does nothing) it
# renders right.
from renderer_edit import edited
from uopfuzz_plugin import Plugin, Rendered

ONE_SHORT = [(r"^( *for \([a-z0-9_]* )(ridx[0-9]*)( = 0; )\2 < (.*; \2\+\+\) \{)$", r"\1\2\3\2 + 1 < \4")]


def render(program, function):
  steps = [s for s in (program.opts or []) if s[0] == "UPCAST"]
  if not steps: return Rendered(edited(program, function, "upcast_one_short"))
  return Rendered(edited(program, function, "upcast_one_short", kernel=ONE_SHORT),
                  opts_applied=[f"UPCAST:{s[1]}:{s[2]}" for s in steps])


if __name__ == "__main__":
  Plugin(render=render, name="upcast_one_short", opts=["UPCAST"], one_unit=True).main()
