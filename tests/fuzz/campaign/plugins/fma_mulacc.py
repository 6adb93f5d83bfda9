#!/usr/bin/env python3
# A deliberately broken renderer (sensitivity benchmark, tools/sensitivity): uopfuzz's renderer, except
# that f64 MULACC is fused: `(uf_product_f64(a,b)+c)` on binary64 operands becomes `fma(a,b,c)`, one rounding where the
# reference rounds the product and then the sum. This is what gcc does to `a*b+c` by default on a machine
# with FMA. The two differ only when the product is inexact: full-precision operands of moderate size,
# e.g. MULACC(0.1, 0.3, -0.03): reference -3.469446951953614e-18, fused -2.0816681711721685e-18.
# Speaks protocol 2 through the SDK (plugins/uopfuzz_plugin.py): the handshake, server, batch and
# one-program modes.
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "plugins"))
from uopfuzz_plugin import Plugin, RenderError, uopfuzz_render  # noqa: E402

TOKEN = r"(\(-[0-9][0-9a-z.+]*\)|[A-Za-z_][A-Za-z0-9_]*|[0-9][0-9a-z.+]*)"
MULACC = re.compile(r"\(uf_product_f64\(" + TOKEN + r"," + TOKEN + r"\)\+" + TOKEN + r"\)")
DOUBLE_VAR = re.compile(r"\bdouble ([A-Za-z_][A-Za-z0-9_]*) =")


def is_double(token, doubles):
    if token in doubles:
        return True
    literal = token.strip("()-")
    return literal[:1].isdigit() and ("." in literal or "e" in literal) and not literal.endswith("f")


def render(program, name):
    c = uopfuzz_render(program, name)
    head, sep, body = c.partition("/* end of prelude */")
    if not sep:
        raise RenderError("fma_mulacc.py: the prelude's end marker not found (update the plug-in)")
    doubles = set(DOUBLE_VAR.findall(body))

    def fuse(m):
        a, b, acc = m.group(1), m.group(2), m.group(3)
        if all(is_double(t, doubles) for t in (a, b, acc)):
            return "fma(%s,%s,%s)" % (a, b, acc)
        return m.group(0)

    return head + sep + MULACC.sub(fuse, body)


if __name__ == "__main__":
    Plugin(render=render, name="fma_mulacc", one_unit=True).main()
