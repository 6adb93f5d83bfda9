#!/usr/bin/env python3
# The example batch plug-in (docs/format.md section 5): uopfuzz's own renderer through either protocol
# of protocol 1 (plugins/uopfuzz_plugin.py), so it should agree with the reference everywhere, except
# that it refuses, as a render error of that program alone, any program carrying `meta refuse = REASON`,
# and dies (exit 3, the whole process) on one carrying `meta crash = yes`. Each start appends a line to
# the file $UOPFUZZ_PLUGIN_COUNTER when that is set ("batch N" or "one"): the tests count plug-in processes.
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "plugins"))
from uopfuzz_plugin import Plugin, RenderError, uopfuzz_render  # noqa: E402


def render(program, name):
    if program.meta_value("crash") == "yes":
        sys.stderr.write("crashing as asked\n")
        sys.exit(3)
    if program.meta_value("refuse") is not None:
        raise RenderError("refused: " + program.meta_value("refuse"))
    return uopfuzz_render(program, name)


if __name__ == "__main__":
    counter = os.environ.get("UOPFUZZ_PLUGIN_COUNTER")
    if counter:
        with open(counter, "a") as f:
            if len(sys.argv) == 2:
                with open(sys.argv[1]) as lst:
                    f.write("batch %d\n" % sum(1 for _ in lst))
            else:
                f.write("one\n")
    Plugin(render=render).main()
