#!/usr/bin/env python3
# A deliberately broken renderer: uopfuzz's renderer, except that every binary64 literal in the kernel
# is printed through binary32 (`0.1` becomes `0.10000000149011612`), the classic bug of a renderer that
# formats constants with a float-sized format. One root cause, seen by every op that reads a constant:
# the oracle must sign it `mismatch CONST f64` once, not once per reader.
# Speaks protocol 2 through the SDK (plugins/uopfuzz_plugin.py): the handshake, server, batch and
# one-program modes (renderer_edit.py).
import re
import struct

from renderer_edit import serve

# A binary64 literal: digits with a point or an exponent and no `f` suffix, not part of a name.
LITERAL = re.compile(r"(?<![\w.])(\d+\.\d*(?:e[+-]?\d+)?|\d+e[+-]?\d+)(?![\w.])")


def through_float(m):
    x = float(m.group(1))
    if x > 3.4028234663852886e38:
        return m.group(1)  # beyond binary32: leave it (inf would be a different bug)
    return repr(struct.unpack("f", struct.pack("f", x))[0])


if __name__ == "__main__":
    serve("f64_constants_as_float", kernel=[(LITERAL, through_float)])
