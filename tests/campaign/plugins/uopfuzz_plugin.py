# Shared by the Python example plug-ins: speaks both renderer protocols of docs/format.md section 5,
# so one script serves `--renderer-cmd` (PROGRAM_FILE FUNCTION_NAME: C on stdout) and
# `--renderer-batch` (LIST_FILE: K.c or K.err per line of the list, one process for the whole batch).
import os
import subprocess
import sys


class RenderError(Exception):
    """This program cannot be rendered; the message is reported for it alone."""


def uopfuzz_render(program_file, name):
    """The C of uopfuzz's own renderer, which the example plug-ins then break on purpose."""
    uopfuzz = os.environ.get("UOPFUZZ")
    if not uopfuzz:
        sys.exit("set UOPFUZZ to the uopfuzz binary")
    r = subprocess.run([uopfuzz, "render", program_file, "--name", name], capture_output=True, text=True)
    if r.returncode != 0:
        raise RenderError("uopfuzz render exit %d: %s" % (r.returncode, r.stderr))
    return r.stdout


def serve(render):
    """Calls render(program_file, function_name) -> C source for each program asked."""
    args = sys.argv[1:]
    if len(args) == 2:  # one program, C to stdout; a RenderError is a non-zero exit
        try:
            sys.stdout.write(render(args[0], args[1]))
        except RenderError as e:
            sys.exit(str(e))
        return
    if len(args) != 1:
        sys.exit("usage: %s PROGRAM_FILE FUNCTION_NAME | LIST_FILE" % sys.argv[0])
    base = os.path.dirname(os.path.abspath(args[0]))
    with open(args[0]) as f:
        for line in f:
            program, name, c_file, err_file = line.split()
            try:
                text = render(os.path.join(base, program), name)
            except RenderError as e:
                with open(os.path.join(base, err_file), "w") as out:
                    out.write(str(e))
                continue
            with open(os.path.join(base, c_file), "w") as out:
                out.write(text)
