#!/usr/bin/env python3
# uopfuzz_tinygrad.py [--backend clang|llvm|x86|python] [--index weak|i32] [--emulate DTYPE,...|none]
#   [--reduce int|loop] [--load index|explicit] [--store both|index|value] [--neg both|op|front] [--lines on|off]
#   [--beam N] ...:
# a protocol-2 plug-in (docs/format.md, section 5;
# on the SDK, plugins/uopfuzz_plugin.py) that puts tinygrad's own code generators under test. It builds the
# program as tinygrad UOps (our op names are tinygrad's; tg_uops.py) and runs tinygrad's own to_program
# pipeline for one of its renderers (symbolic rewrites, constant folding, decompositions, linearizer, the
# renderer), stopped before tinygrad compiles anything itself:
#   clang  (default) ClangRenderer's C, wrapped into uopfuzz's calling convention: language c (backend_clang.py)
#   llvm   CPULLVMRenderer's LLVM IR, likewise: language llvm-ir (backend_llvm.py)
#   x86    X86Renderer's machine code, a flat image: language x86-64 (backend_x86.py)
#   python the PYTHON device: tinygrad's emulator runs the program: language outputs (backend_python.py)
# By default the program is built in the forms tinygrad's front end builds (--index weak --emulate
# long,bfloat16,fp8e4m3 --reduce int --load index --store both --neg both, each listed first above); every
# other form is one option away (--index i32 --emulate none --reduce loop --load explicit --store index
# --neg op: the defaults before, which corpus files found with them name in their `meta renderer`).
# In server mode tinygrad is imported once per process. What a backend cannot take from our IR is a render
# error; its handshake gives uopfuzz the --without set that keeps such programs out, and suggests a campaign's
# configuration: a generator policy fitted to tinygrad's own kernels (policy/BACKEND.json), those kernels as
# seeds (seeds/BACKEND/), the tracked findings (corpus/tinygrad) and the four backends as renderer commands
# with these options. Its switches are
# tinygrad's rewrite rules (tg_switches.py; a render can switch them off, and says which fired; the handshake
# says which a kernel can reach and each one's source line), and it
# exports a program as a standalone tinygrad test (tg_export.py). A program's `opts` line is applied by tinygrad's
# own optimizer, each reply saying what it applied and skipped and the kernel's features (tg_opts.py), among them
# the lines of tinygrad's optimizer and renderer the lowering executed (tg_lines.py). See README.md.
import importlib
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, ".."), HERE]
from uopfuzz_plugin import Plugin, Rendered  # noqa: E402

try:  # a submodule: with plugins/ first on sys.path, plugins/tinygrad itself imports as a namespace `tinygrad`
  import tinygrad.uop.ops  # noqa: F401
except ImportError as e:  # a setup problem, not a finding
  print(f"uopfuzz_tinygrad: cannot import tinygrad ({e}); put a tinygrad checkout on PYTHONPATH", file=sys.stderr)
  sys.exit(2)

BACKENDS = ("clang", "llvm", "x86", "python")
REPO = os.path.dirname(os.path.dirname(HERE))
# The compiler and flags each backend's language needs (the handshake's `backends`): tinygrad compiles its
# C with clang and its LLVM IR at O2 for the host (README.md, "Backends"); x86's image and python's outputs
# need none.
COMPILERS = {"clang": {"cc": "clang", "cflags": ""}, "llvm": {"cc": "clang-16", "cflags": "-O2 -march=native"}}
# A backend without seeds of its own suggests another's: python's emulator runs tinygrad's test/backend too
# slowly to record it (seeds/README.md), so it has clang's kernels (its policy is fitted to them too).
SEEDS_OF = {"python": "clang"}


# The adapter's own options, each with its default and what it may be (README.md): the backend, the form of
# index arithmetic (tg_uops.INDEX_FORM: `weak`, tinygrad's weakint, as its front end builds it; `i32`, as our
# IR types it), the dtypes tinygrad emulates (its EMULATED_DTYPES, a comma list of tg_uops.EMULABLE, or `none`:
# `long`, i64 and u64 as two 32-bit words, exact, as tinygrad does for targets without 64-bit integers;
# `bfloat16`, `half` and the fp8s as wider floats, which the adapter then takes), the form of accumulator
# loops (tg_uops.REDUCE_FORM: `int`, integer ones as tinygrad's REDUCE, tg_reduce.py; `loop`, as our IR has
# them), and the form of loads (tg_uops.LOAD_FORM: `index`, a load used as data is its INDEX, as tinygrad's
# front end writes; `explicit`, every LOAD) and of gated stores (tg_uops.STORE_FORM: `index`, the gate as the
# index's validity; `value`, the value is Invalid where the gate is false, as tinygrad's front end writes a
# masked store; `both`, each gated store one of the two forms), and of SUB and NEG (tg_uops.NEG_FORM: `op`,
# tinygrad's ops; `front`, x * -1 as tinygrad's front end writes them; `both`, each one of the two), and
# whether each reply names the lines of tinygrad's optimizer and renderer its lowering executed (tg_lines.py:
# default on under Python 3.12+, where it is cheap, off under 3.11, where it makes a render 2.8 times slower),
# and BEAM's width and share for a kernel without an opts line (tg_beam.py: by default 2, for a quarter of such
# kernels chosen by a hash of each; the rest, and every one with width 0, get tinygrad's heuristic).
# The defaults are the front end's forms (issue 51); OLD_DEFAULTS are the defaults before, which a corpus file
# found with them spells out in its `meta renderer`.
from tg_uops import EMULABLE  # noqa: E402
import tg_lines  # noqa: E402
NO_EMULATION = "none"  # --emulate none: no dtype emulated (tinygrad's EMULATED_DTYPES empty); `--emulate ''` too
OPTIONS = {"backend": ("clang", BACKENDS), "index": ("weak", ("i32", "weak")),
           "emulate": ("long,bfloat16,fp8e4m3", EMULABLE + (NO_EMULATION,)),
           "reduce": ("int", ("loop", "int")), "load": ("index", ("explicit", "index")),
           "store": ("both", ("index", "value", "both")), "neg": ("both", ("op", "front", "both")),
           "lines": (tg_lines.DEFAULT, ("on", "off")), "beam": ("2", tuple(str(n) for n in range(9))),
           "beam-share": ("25", tuple(str(n) for n in range(101)))}
OLD_DEFAULTS = {"index": "i32", "emulate": NO_EMULATION, "reduce": "loop", "load": "explicit", "store": "index", "neg": "op",
                "beam": "0", "beam-share": "100"}
THREADS = 8  # NUM_CPU_THREADS for every backend (apply)
LISTS = {"emulate"}  # options that take a comma list of their values


def options_and_args(argv):
  """--backend NAME, --index FORM, --emulate DTYPE,... (or --KEY=VALUE), in any order, before uopfuzz's own
  arguments: ({key: value}, the rest). A list option's `none` (or an empty value) is the empty list, ""."""
  found, rest = {k: default for k, (default, _) in OPTIONS.items()}, list(argv)
  while rest and rest[0].split("=", 1)[0][2:] in OPTIONS and rest[0].startswith("--"):
    key, eq, value = rest[0][2:].partition("=")
    if not eq and len(rest) > 1: value, rest = rest[1], rest[1:]
    found[key], rest = value, rest[1:]
  for key, (default, allowed) in OPTIONS.items():
    if key in LISTS and found[key] in (NO_EMULATION, ""): found[key] = ""  # the empty list
    values = found[key].split(",") if key in LISTS and found[key] else [] if key in LISTS else [found[key]]
    if any(v not in allowed or (key in LISTS and v == NO_EMULATION) for v in values):
      print(f"uopfuzz_tinygrad: unknown {key} {found[key]!r} (one of {', '.join(a or '(none)' for a in allowed)})", file=sys.stderr)
      sys.exit(2)
  return found, rest


def command(options, backend):
  """The adapter's command line for a backend with these options, every option spelled out (the handshake's
  `backends`): the adapter's path relative to the working directory, as uopfuzz runs it from there."""
  import shlex
  words = [os.path.relpath(os.path.abspath(__file__))]
  for key in OPTIONS:
    value = backend if key == "backend" else options[key]
    words += [f"--{key}", value if value or key not in LISTS else NO_EMULATION]
  return shlex.join(words)


def suggestions(options):
  """What the handshake suggests for a campaign of this backend, the paths that exist: the generator policy
  fitted to tinygrad's own kernels (policy/BACKEND.json, policy/README.md), those kernels as seeds
  (seeds/BACKEND/backend: tinygrad's test/backend; seeds/BACKEND/optimizer: its optimizer tests; python has
  clang's, SEEDS_OF, while it has none of its own: seeds/README.md), the tracked findings (corpus/tinygrad), every
  backend as a renderer command with these options, and the compiler this backend's language needs (cc, cflags)."""
  backend = options["backend"]
  policy = os.path.join(HERE, "policy", f"{backend}.json")
  seeds = []
  for kind in ("backend", "optimizer"):
    own = os.path.join(HERE, "seeds", backend, kind)
    seeds.append(own if os.path.isdir(own) or backend not in SEEDS_OF else os.path.join(HERE, "seeds", SEEDS_OF[backend], kind))
  known = os.path.join(REPO, "corpus", "tinygrad")
  return dict(policy=policy if os.path.isfile(policy) else None, seeds=[d for d in seeds if os.path.isdir(d)] or None,
              known=known if os.path.isdir(known) else None,
              backends=[{"name": b, "renderer": command(options, b), **COMPILERS.get(b, {})} for b in BACKENDS],
              command=command(options, backend), **{k: v for k, v in COMPILERS.get(backend, {}).items() if v})


def plugin(backend, options):
  """The SDK's Plugin for a backend module: its handshake (with what it suggests for a campaign under these
  options), its render (or run), the switches and export."""
  from tg_export import export_tinygrad
  from tg_tensor import export_tensor, reach
  from tg_switches import reachable, setup, switch_source, switched, switches
  from tg_uops import approximate, tinygrad_version
  import tg_opts
  setup(backend)
  lines = tg_lines.Recorder(backend.__name__.removeprefix("backend_"))
  common = dict(name=backend.NAME, version=tinygrad_version, without=backend.WITHOUT, language=backend.LANGUAGE,
                opts=tg_opts.names(backend.RENDERER), approximate=approximate(backend.RENDERER),
                switches=switches, reachable=reachable, switch_source=switch_source, exports={"tinygrad": lambda program: export_tinygrad(program, backend),
                         "tinygrad-tensor": lambda program: export_tensor(program, backend)},
                reach=lambda program: reach(program, backend), reach_level="tensor", **suggestions(options))

  def reply(hits):  # the optimizer's keys and features, then the lines (none with --lines off)
    keys = tg_opts.reply(backend.features)
    if hits: keys["features"] = keys.get("features", []) + tg_lines.features(hits)
    return keys

  if backend.LANGUAGE == "outputs":
    from uopfuzz_plugin import Ran

    def run(program, fname, inputs, off=frozenset()):
      tg_opts.LAST = None
      (prg, used), hits = lines.lowering(switched, backend.lower_program, program, fname, off)  # fails: an `error` reply
      return Ran(backend.run(prg, inputs), used, **reply(hits))  # each data set's outputs, or its RunFailure
    return Plugin(run=run, **common)

  def render(program, fname, off=frozenset()):
    tg_opts.LAST = None
    (source, used), hits = lines.lowering(switched, backend.render, program, fname, off)
    return Rendered(source, used, **reply(hits))  # what the optimizer did, and the features
  return Plugin(render=render, one_unit=backend.ONE_UNIT, **common)


def apply(options):
  """Sets the adapter's options where tinygrad and tg_uops read them, before a backend module is imported
  (it computes its --without set from its renderer, which EMULATED_DTYPES changes)."""
  import tg_uops
  from tinygrad.helpers import EMULATED_DTYPES, NUM_CPU_THREADS
  tg_uops.INDEX_FORM, tg_uops.REDUCE_FORM = options["index"], options["reduce"]
  tg_uops.LOAD_FORM, tg_uops.STORE_FORM, tg_uops.NEG_FORM = options["load"], options["store"], options["neg"]
  EMULATED_DTYPES.value = options["emulate"]
  tg_lines.ENABLED = options["lines"] == "on"
  import tg_beam
  tg_beam.WIDTH, tg_beam.SHARE = int(options["beam"]), int(options["beam-share"])
  # The most threads a THREAD step may ask for (the renderers' global_max): the machine's core count by
  # default, which would make a kernel's shape, and so a finding, depend on where it runs; the adapter
  # runs threads one after another anyway. Fixed, as a user's NUM_CPU_THREADS=8 would set it.
  NUM_CPU_THREADS.value = THREADS


if __name__ == "__main__":
  options, args = options_and_args(sys.argv[1:])
  apply(options)
  plugin(importlib.import_module(f"backend_{options['backend']}"), options).main(args)
