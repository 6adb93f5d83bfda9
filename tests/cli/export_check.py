#!/usr/bin/env python3
"""export_check.py UOPFUZZ FILE.uop: `uopfuzz export --as c` makes a reproducer that stands alone.
export_check.py UOPFUZZ FILE.reduced.c: a C reduction (`uopfuzz reduce --c`) beside a corpus file still fails
as its header's `Found as` class says, built with its own Build line.

The exported C is built with the command its own header gives (the recorded compiler and flags) in an
empty directory and run there, with nothing of uopfuzz: a `status = open` file must fail as its meta
`class` says (compile-error: the build fails; mismatch: exit 1 printing `NAME[I] = GOT expected WANT`;
crash: a signal; timeout: still running after 20 s), any other status must build and exit 0. An open
`render-error` has no C to stand alone (the target does not render it): export must refuse it, exit 2, saying so.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile


def meta(path):
  values = {}
  with open(path) as f:
    for line in f:
      m = re.match(r"meta (\w+) = (.*)", line.rstrip("\n"))
      if m and m.group(1) not in values: values[m.group(1)] = m.group(2)
  return values


def outcome(work, build):
  """compile-error, ok, mismatch, crash or timeout, and what was printed."""
  built = subprocess.run(build, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
  if built.returncode != 0: return "compile-error", built.stdout
  try:
    ran = subprocess.run(["./repro"], cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=20)
  except subprocess.TimeoutExpired:
    return "timeout", ""
  if ran.returncode < 0: return "crash", ran.stdout
  if ran.returncode == 0 and ran.stdout.startswith("ok:"): return "ok", ran.stdout
  # buffers are named by slot, `buf3[1]`; C reductions kept from before session 19 print `p3[1]`
  if ran.returncode == 1 and re.search(r"^(?:buf|p)\d+\[\d+\] = \S+ expected \S+$", ran.stdout, re.M): return "mismatch", ran.stdout
  return f"exit {ran.returncode}", ran.stdout


def check_reduced(path):
  with open(path) as f: text = f.read()
  build, found = re.search(r"^/\* Build: (.*) \*/$", text, re.M), re.search(r"Found as `([^\s`]+)", text)
  if not build or not found: sys.exit(f"{path}: no Build line or no `Found as` in its header")
  with tempfile.TemporaryDirectory(prefix="uopfuzz-reduced-") as work:
    args = shlex.split(build.group(1))
    with open(os.path.join(work, args[args.index("repro") + 1]), "w") as f: f.write(text)
    got, printed = outcome(work, args)
  print(f"{path}: {got} (want {found.group(1)}); built with: {build.group(1)}\n{printed[-2000:]}")
  # a compile error is the compiler's (a reduced kernel may call what it no longer defines: the link fails too)
  compiler_error = re.search(r"error in backend|internal compiler error|Cannot select|^[^:\n]*\.c:\d+:\d+: error:", printed, re.M)
  if got != found.group(1) or (got == "compile-error" and not compiler_error): sys.exit(1)


def main():
  uopfuzz, path = sys.argv[1], os.path.abspath(sys.argv[2])
  if path.endswith(".c"): return check_reduced(path)
  m = meta(path)
  want = m.get("class", "ok") if m.get("status") == "open" else "ok"
  with tempfile.TemporaryDirectory(prefix="uopfuzz-export-") as work:
    c = os.path.join(work, "repro.c")
    exported = subprocess.run([uopfuzz, "export", path, "--as", "c", "-o", c], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    if want == "render-error":
      refused = exported.returncode == 2 and "the target does not render it" in exported.stdout
      print(f"{path}: export exited {exported.returncode} (want 2, no C for a render-error):\n{exported.stdout[-2000:]}")
      if not refused: sys.exit(1)
      return
    if exported.returncode != 0: sys.exit(f"{path}: uopfuzz export exited {exported.returncode}:\n{exported.stdout}")
    with open(c) as f: text = f.read()
    build = re.search(r"^/\* Build: (.*) \*/$", text, re.M)
    if not build: sys.exit(f"{path}: the exported C says nothing about how to build it")
    got, printed = outcome(work, shlex.split(build.group(1)))
    print(f"{path}: {got} (want {want}); built with: {build.group(1)}\n{printed[-2000:]}")
    if got != want: sys.exit(1)


if __name__ == "__main__":
  main()
