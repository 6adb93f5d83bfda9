#!/usr/bin/env python3
# The tinygrad version the adapter reports (handshake, `meta target`, the exported test's header:
# tg_uops.tinygrad_version): a tinygrad checkout's own HEAD; a copy inside another git repository (a
# vendored snapshot) is not that repository's HEAD but the commit its README names; a copy that names none
# falls back to tinygrad's __version__.
import os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tinygrad_checks import check, finish  # noqa: E402  (exits 77 without tinygrad or clang)

sys.path[:0] = ["plugins", "plugins/tinygrad"]
import tg_uops  # noqa: E402

SNAPSHOT = "a9069c177a9da9cca18593edf55acd2e6073cca6"


def git(cwd, *args):
  env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
  return subprocess.run(["git", "-C", cwd, *args], capture_output=True, text=True, env=env, check=True).stdout.strip()


def tinygrad_copy(where, readme):
  os.makedirs(os.path.join(where, "tinygrad"))
  open(os.path.join(where, "tinygrad", "__init__.py"), "w").close()
  if readme is not None:
    with open(os.path.join(where, "README.md"), "w") as f: f.write(readme)


with tempfile.TemporaryDirectory() as tmp:
  outer = os.path.join(tmp, "project")
  os.makedirs(outer)
  git(outer, "init", "-q")
  copy = os.path.join(outer, "third_party", "tinygrad")
  tinygrad_copy(copy, f"tinygrad at commit `{SNAPSHOT}`, unchanged.\n")
  git(outer, "add", "-A")
  git(outer, "commit", "-qm", "vendor tinygrad")
  outer_head = git(outer, "rev-parse", "HEAD")
  got = tg_uops.tinygrad_version(copy)
  check(got == SNAPSHOT[:12], f"a copy inside another repository: {got} (its README's {SNAPSHOT[:12]}, not the project's {outer_head[:12]})")
  own = os.path.join(tmp, "checkout")
  tinygrad_copy(own, None)
  git(own, "init", "-q")
  git(own, "add", "-A")
  git(own, "commit", "-qm", "tinygrad")
  check(tg_uops.tinygrad_version(own) == git(own, "rev-parse", "HEAD")[:12], "a checkout of its own: its HEAD")
  bare = os.path.join(tmp, "bare")
  tinygrad_copy(bare, "no commit named here\n")
  import tinygrad
  check(tg_uops.tinygrad_version(bare) == str(getattr(tinygrad, "__version__", "unknown")), "a copy that names no commit: __version__")
finish()
