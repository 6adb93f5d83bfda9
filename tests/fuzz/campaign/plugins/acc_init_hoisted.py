#!/usr/bin/env python3
# A deliberately broken renderer for the fuzzer's own tests: uopfuzz's renderer, except that an
# accumulator is initialised once per kernel instead of once per iteration of the loops around it.
#
# In the rendered kernel an accumulator is an ALLOC (`accN`, `accN_K`, or an element `accN[I]`); its init
# store inside a loop is an assignment `accN = EXPR;` that is the first line of the loop's body to
# mention accN (written before anything reads it in that iteration). Such a line is moved to just before
# the outermost loop around it, with that loop nest's variables (ridxN) replaced by 0 and the names the
# nest declares (valN, aluN, ...) replaced by their definitions, cast to their declared types: the init
# runs once, as the first outer iteration would have run it. A second outer iteration then starts from
# the previous iteration's total. Inits at top level (single loops, straight-line code) are untouched, so
# only nested reductions (or an accumulator reset inside any loop) show the bug. Lines it cannot move
# (an accumulator declared inside the nest, a name it cannot resolve) are left as they are.
# Speaks protocol 2 through the SDK (plugins/uopfuzz_plugin.py): the handshake, server, batch and
# one-program modes.
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "plugins"))
from uopfuzz_plugin import Plugin, RenderError, uopfuzz_render  # noqa: E402

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
FOR = re.compile(r"^\s*for \([A-Za-z0-9_ ]*\b(ridx\d+) = 0;.*\{$")
DECL = re.compile(r"^\s*((?:[A-Za-z_][A-Za-z0-9_]*\s+)+\**\s*)([A-Za-z_][A-Za-z0-9_]*)(\[\d+\])? = (.*);$")
INIT = re.compile(r"^(\s*)(acc\d+(?:_\d+)?)((?:\[[^\]]*\])?) = (.*);$")


class Loop:
    def __init__(self, line, var):
        self.line, self.var = line, var
        self.mentioned = set()  # accumulators this body mentioned so far


def resolve(expr, loops, decls, depth=0):
    """expr with the open nest's loop variables as 0 and its declared names inlined; None if impossible."""
    if depth > 50:
        return None
    vars_ = {lp.var for lp in loops}
    out, pos = [], 0
    for m in IDENT.finditer(expr):
        name = m.group(0)
        if name in vars_:
            rep = "0"
        elif name in decls:
            if decls[name] is None:
                return None
            ctype, rhs = decls[name]
            inner = resolve(rhs, loops, decls, depth + 1)
            if inner is None:
                return None
            rep = "((" + ctype + ")(" + inner + "))"
        else:
            continue
        out.append(expr[pos:m.start()])
        out.append(rep)
        pos = m.end()
    out.append(expr[pos:])
    return "".join(out)


def render(program, name):
    src = uopfuzz_render(program, name)
    lines = src.split("\n")
    start = next((k for k, l in enumerate(lines) if "end of prelude" in l), None)
    if start is None:
        raise RenderError("acc_init_hoisted.py: no end of prelude marker (update the script)")
    loops = []         # the open loops, outermost first
    decls = {}         # names declared inside the open nest -> (C type, definition)
    hoisted = {}       # line of an outermost for -> lines to put before it
    drop = set()
    for k in range(start + 1, len(lines)):
        line = lines[k]
        m = FOR.match(line)
        if m:
            loops.append(Loop(k, m.group(1)))
            continue
        if line.strip() == "}" and loops:
            loops.pop()
            if not loops:
                decls.clear()
            continue
        if not loops:
            continue
        m = INIT.match(line)
        if m and m.group(2) not in loops[-1].mentioned and not re.search(r"\b" + m.group(2) + r"\b", m.group(4)):
            name = m.group(2)
            rhs = resolve(m.group(4), loops, decls)
            index = resolve(m.group(3), loops, decls) if m.group(3) else ""
            if rhs is not None and index is not None and name not in decls:
                outer = loops[0].line
                indent = re.match(r"^\s*", lines[outer]).group(0)
                hoisted.setdefault(outer, []).append(indent + name + index + " = " + rhs + ";  /* hoisted init */")
                drop.add(k)
        d = DECL.match(line)
        if d and d.group(3) is None:
            decls[d.group(2)] = (d.group(1).strip(), d.group(4))
        elif d:
            decls[d.group(2)] = None  # an array declared in the nest: not resolvable
        for acc in re.findall(r"\bacc\d+(?:_\d+)?\b", line):
            for lp in loops:
                lp.mentioned.add(acc)
    out = []
    for k, line in enumerate(lines):
        out.extend(hoisted.get(k, []))
        if k not in drop:
            out.append(line)
    return "\n".join(out)


if __name__ == "__main__":
    Plugin(render=render, name="acc_init_hoisted", one_unit=True).main()
