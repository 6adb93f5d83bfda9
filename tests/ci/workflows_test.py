#!/usr/bin/env python3
"""workflows_test.py UOPFUZZ: the commands of .github/workflows, checked without GitHub. Every workflow is
parsed (PyYAML, Debian's python3-yaml); each `run:` step, under each combination of its job's matrix, is
cut into commands (workflow_check.py); a repository file a command names must exist (a script run as a
command: executable), a repository script's `--options` must be named in its text (fuzz/nightly.sh's
after `--` are `uopfuzz fuzz`'s), and every `uopfuzz SUBCOMMAND --option` must be one the built binary
lists in `uopfuzz SUBCOMMAND --help`. Then it shows it can fail: a broken copy of nightly.yml and a
workflow with one mistake of each kind must give exactly the problems they contain. Exit 0, 1 (problems
printed), 77 (no PyYAML)."""
import os
import sys
import tempfile

try:
  import yaml  # noqa: F401 (workflow_check imports it where it parses)
except ImportError:
  print("SKIPPED: Python's yaml module is missing (Debian python3-yaml; tools/setup installs it)")
  sys.exit(77)

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workflow_check import Uopfuzz, check_workflows  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# One mistake of each kind, each in a matrix job so every combination is looked at.
BROKEN = """
name: broken
on: push
jobs:
  j:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        backend: [clang, llvm]
    steps:
      - run: tools/no-such-script --x
      - run: |
          # a comment naming tools/also-missing is not a command
          fuzz/nightly.sh --no-such-option 1 --compilers clang \\
            -- --renderer-cmd "plugins/no_such.py --backend ${{ matrix.backend }}" \\
            ${{ matrix.backend == 'llvm' && '--bogus' || '' }}
      - run: build/uopfuzz report --no-such-report-option r.json && build/uopfuzz no-such-subcommand
      - run: build/uopfuzz corpus merge a -o b --corpus c
      - run: echo ${{ fromJSON('[1]') }}
"""
EXPECTED = {
  "broken.yml: j: step 1: no such file in the repository: tools/no-such-script",
  "broken.yml: j: step 2: fuzz/nightly.sh does not know --no-such-option",
  "broken.yml: j: step 2: no such file in the repository: plugins/no_such.py",
  "broken.yml: j: step 2: uopfuzz fuzz has no option --bogus",
  "broken.yml: j: step 3: uopfuzz report has no option --no-such-report-option",
  "broken.yml: j: step 3: uopfuzz has no subcommand no-such-subcommand",
  "broken.yml: j: step 4: uopfuzz corpus merge has no option --corpus",
  "broken.yml: j: step 5: cannot evaluate an expression (function fromJSON() is not understood); "
  "teach tests/ci/workflow_check.py",
}


def check(ok, what, details=()):
  print(("ok   " if ok else "FAIL ") + what)
  for d in details: print("     " + d)
  return ok


def main():
  if len(sys.argv) != 2:
    print(__doc__, file=sys.stderr)
    return 2
  uopfuzz = Uopfuzz(sys.argv[1])
  workflows = os.path.join(ROOT, ".github", "workflows")
  problems, n = check_workflows(workflows, ROOT, uopfuzz)
  ok = check(n >= 3 and not problems, f"{n} workflows in .github/workflows: {len(problems)} problems", problems)
  with tempfile.TemporaryDirectory(prefix="uopfuzz-workflows-") as tmp:
    with open(os.path.join(workflows, "nightly.yml"), encoding="utf-8") as f: text = f.read()
    with open(os.path.join(tmp, "nightly.yml"), "w", encoding="utf-8") as f:
      f.write(text.replace("fuzz/nightly-report.sh", "fuzz/nightly-reports.sh").replace("--flagsets", "--flagset"))
    problems, _ = check_workflows(tmp, ROOT, uopfuzz)
    ok &= check(any("fuzz/nightly-reports.sh" in p for p in problems) and any("--flagset" in p for p in problems),
                "a broken copy of nightly.yml: the renamed script and option are found", problems)
    os.remove(os.path.join(tmp, "nightly.yml"))
    with open(os.path.join(tmp, "broken.yml"), "w", encoding="utf-8") as f: f.write(BROKEN)
    problems, _ = check_workflows(tmp, ROOT, uopfuzz)
    ok &= check(set(problems) == EXPECTED, "a workflow with one mistake of each kind: each found, nothing else",
                [f"missed: {p}" for p in sorted(EXPECTED - set(problems))] +
                [f"unexpected: {p}" for p in sorted(set(problems) - EXPECTED)])
  return 0 if ok else 1


if __name__ == "__main__":
  sys.exit(main())
