# uopfuzz's own renderer with a few regular-expression edits: the home of the one-line deliberately broken
# plug-ins of the fuzzer's tests (fp8_no_saturation.py, bf16_single_rounding.py, ...). Each is one call of
# serve(): edits of the prelude (each must match, or the render fails saying the plug-in needs an update)
# and of the kernel after it. They speak protocol 2 through the SDK (plugins/uopfuzz_plugin.py) in every
# mode, and say one_unit: the edits of the prelude are the same for every program, so renders of one batch
# still share it and compile as one unit.
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "plugins"))
from uopfuzz_plugin import Plugin, RenderError, uopfuzz_render  # noqa: E402

END_OF_PRELUDE = "/* end of prelude */"


def multiline(pattern):
    """A pattern given as text, compiled with ^ and $ at each line; a compiled one as it is."""
    return re.compile(pattern, re.M) if isinstance(pattern, str) else pattern


def edited(program, function, plugin, prelude=(), kernel=()):
    c = uopfuzz_render(program, function)
    head, sep, body = c.partition(END_OF_PRELUDE)
    if not sep:
        raise RenderError(f"{plugin}: the prelude's end marker not found (update the plug-in)")
    for pattern, replacement in prelude:
        head, n = multiline(pattern).subn(replacement, head)
        if n == 0:
            raise RenderError(f"{plugin}: {pattern!r} not found in the prelude (update the plug-in)")
    for pattern, replacement in kernel:
        body = multiline(pattern).sub(replacement, body)
    return head + sep + body


def serve(plugin, prelude=(), kernel=()):
    """Runs the plug-in named `plugin` (its file name without .py): uopfuzz's renderer with these edits."""
    Plugin(render=lambda program, function: edited(program, function, plugin, prelude, kernel), name=plugin,
           one_unit=True).main()
