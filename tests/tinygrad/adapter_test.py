#!/usr/bin/env python3
# The tinygrad adapter (plugins/tinygrad/uopfuzz_tinygrad.py) end to end, run by CTest from the repository
# root through run_or_skip.sh: its handshake (`--uopfuzz-describe`, which gives the --without set); its
# usage errors; a program outside that set is a clear render error; server mode renders what one-program
# mode does; every example program (tests/programs) that fits agrees with the reference through
# `uopfuzz run` (or fails exactly as a known tinygrad bug in corpus/tinygrad/ says); and a short campaign
# runs, with every render error a failure of tinygrad itself, never an unsupported feature. The handshake's
# suggestions (policy, seeds, known, backends, its own full command and compiler) are paths that exist, relative to the working directory (from the
# repository root and from another directory), and the four backends' commands carry every option.
import glob, json, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tinygrad_checks import check, finish  # noqa: E402  (exits 77 without tinygrad or clang)

UOPFUZZ = os.environ["UOPFUZZ"]
ADAPTER = "plugins/tinygrad/uopfuzz_tinygrad.py"
DESCRIBE = subprocess.run([ADAPTER, "--uopfuzz-describe"], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
WITHOUT = ",".join(json.loads(DESCRIBE.stdout)["without"]) if DESCRIBE.returncode == 0 else ""
CC = ["--cc", "clang", "--renderer-cmd", ADAPTER]
# Example programs that hit a tinygrad bug, and the verdict they must keep until tinygrad fixes it
# (loop_trip_counts: its zero-trip loop is corpus/tinygrad/zero-trip-loop-acc-out-of-scope.uop;
# f16_native_chain: single-use f16 results inlined and computed in float, bug 5 of docs/findings.md,
# corpus/tinygrad/f16-inlined-computed-in-float.uop).
KNOWN = {"loop_trip_counts.uop": "compile-error", "f16_native_chain.uop": "mismatch"}


def run(*args):
  return subprocess.run(list(args), capture_output=True, text=True, timeout=240)


def fits(path):
  """Whether a program uses nothing of the --without set."""
  banned = set(WITHOUT.split(","))
  for line in open(path):
    m = re.match(r"%\d+\s*=\s*(\w+)\s+(\S+)", line)
    if not m: continue
    op, dt = m[1].lower(), m[2]
    if op in banned or dt in banned or ("vector" in banned and re.fullmatch(r"\w+x\d+", dt)): return False
  return True


# the handshake
d = json.loads(DESCRIBE.stdout) if DESCRIBE.returncode == 0 else {}
check(d.get("protocol") == 2 and d.get("language") == "c" and "server" in d.get("modes", []), f"handshake: {DESCRIBE.stdout.strip()} {DESCRIBE.stderr.strip()}")
check(d.get("target", {}).get("name") == "tinygrad" and d.get("target", {}).get("version"), "handshake: target tinygrad with a version")
# the defaults are the front end's forms: tinygrad emulates long, bf16 and fp8e4m3 (so they are taken; f64 is
# taken too, a kernel with one lowered with long native: tg_uops.emulation_for); integer POW is out, float POW
# in; `--emulate none` is the toolchain's own set
check({"vector", "mulacc", "pow:int"} <= set(d.get("without", [])) and not {"bf16", "fp8e4m3", "f64", "pow"} & set(d.get("without", [])),
      f"handshake: without {WITHOUT}")
r = run(ADAPTER, "--emulate", "none", "--uopfuzz-describe")
none = set(json.loads(r.stdout)["without"]) if r.returncode == 0 else set()
check({"vector", "mulacc", "bf16", "fp8e4m3"} <= none and "f64" not in none, f"--emulate none: without {sorted(none)} {r.stderr.strip()[-300:]}")

# what the handshake suggests for a campaign: the policy, seeds and tracked findings of the backend (paths
# relative to the working directory, which exist), and the four backends with every option of this process
DEFAULTS = ["--index", "weak", "--emulate", "long,bfloat16,fp8e4m3", "--reduce", "int", "--load", "index", "--store", "both", "--neg", "both", "--beam", "2", "--beam-share", "25"]
COMPILERS = {"clang": ("clang", ""), "llvm": ("clang-16", "-O2 -march=native")}


def suggestions(backend, options, cwd):
  """The handshake of the adapter (by its path relative to cwd) run from cwd: (its suggestion keys, problems)."""
  adapter = os.path.relpath(os.path.abspath(ADAPTER), cwd)
  r = subprocess.run([adapter, "--backend", backend, *options, "--uopfuzz-describe"], capture_output=True, text=True, cwd=cwd,
                     stdin=subprocess.DEVNULL, timeout=120)
  if r.returncode != 0: return {}, [f"exit {r.returncode} {r.stderr.strip()[-300:]}"]
  h = json.loads(r.stdout)
  keys, bad = {k: h.get(k) for k in ("policy", "seeds", "known", "backends")}, []
  lines = "on" if "--lines" in options and options[options.index("--lines") + 1] == "on" else None
  seeds_of = "clang" if backend == "python" and not os.path.isdir("plugins/tinygrad/seeds/python") else backend  # README.md
  want_seeds = [f"plugins/tinygrad/seeds/{seeds_of}/{kind}" for kind in ("backend", "optimizer")]
  where = lambda p: os.path.abspath(os.path.join(cwd, p))  # noqa: E731
  if not isinstance(keys["policy"], str) or where(keys["policy"]) != os.path.abspath(f"plugins/tinygrad/policy/{backend}.json") \
     or not os.path.isfile(where(keys["policy"])): bad.append(f"policy {keys['policy']}")
  if keys["known"] is None or where(keys["known"]) != os.path.abspath("corpus/tinygrad"): bad.append(f"known {keys['known']}")
  seeds = keys["seeds"] or []
  if not seeds or any(not os.path.isdir(where(p)) or os.path.relpath(where(p)) not in want_seeds for p in seeds) \
     or os.path.relpath(where(seeds[0])) != want_seeds[0]:
    bad.append(f"seeds {seeds}")
  rows = keys["backends"] or []
  if [b.get("name") for b in rows] != ["clang", "llvm", "x86", "python"]: bad.append(f"backends {[b.get('name') for b in rows]}")
  for b in rows:
    words = b.get("renderer", "").split()
    opts = dict(zip(words[1::2], words[2::2]))
    given = dict(zip(options[::2], options[1::2]))
    want = {**dict(zip(DEFAULTS[::2], DEFAULTS[1::2])), **given, "--backend": b.get("name")}
    if not words or where(words[0]) != os.path.abspath(ADAPTER): bad.append(f"{b.get('name')}: renderer {words[:1]}")
    if {k: opts.get(k) for k in want} != want or set(opts) != set(want) | {"--lines"} or (lines and opts.get("--lines") != lines):
      bad.append(f"{b.get('name')}: renderer {b.get('renderer')}")
    if (b.get("cc"), b.get("cflags")) != COMPILERS.get(b.get("name"), (None, None)): bad.append(f"{b.get('name')}: cc {b.get('cc')!r} {b.get('cflags')!r}")
  own = next((b for b in rows if b.get("name") == backend), {})
  if h.get("command") != own.get("renderer"): bad.append(f"command {h.get('command')!r}, not its backends row")  # every option spelled out
  if h.get("cc") != (own.get("cc") or None): bad.append(f"cc {h.get('cc')!r}, not its backends row's")
  return keys, bad


with tempfile.TemporaryDirectory() as elsewhere:
  for backend in ("clang", "llvm", "x86", "python"):
    for cwd in (".", elsewhere):
      keys, bad = suggestions(backend, [], cwd)
      check(not bad, f"--backend {backend}, from {'the repository' if cwd == '.' else 'another directory'}: the handshake suggests "
                     f"policy {keys.get('policy')}, seeds {keys.get('seeds')}, known {keys.get('known')}, the 4 backends with every option {bad}")
  options = ["--index", "i32", "--emulate", "none", "--neg", "front", "--lines", "on", "--beam", "2", "--beam-share", "40"]
  keys, bad = suggestions("x86", options, ".")
  check(not bad, f"--backend x86 {' '.join(options)}: each backend's renderer has these options {bad}")
  llvm = next((b["renderer"] for b in keys.get("backends") or [] if b["name"] == "llvm"), "")
  again, bad = suggestions("llvm", llvm.split()[3:], ".")  # the llvm renderer's own handshake lists the same commands
  check(not bad and again.get("backends") == keys.get("backends"), f"{llvm}: its handshake suggests the same backends {bad}")

# usage and unsupported input
r = run(ADAPTER)
check(r.returncode == 2 and "usage" in r.stderr, "no arguments: exit 2 with the usage")
r = run(ADAPTER, "/nonexistent.uop", "k")
check(r.returncode == 2 and "cannot read" in r.stderr, "unreadable program: exit 2")
r = run(ADAPTER, "tests/programs/vector_add.uop", "k")
check(r.returncode == 1 and "unsupported" in r.stderr and "--without vector" in r.stderr, "a vector: exit 1, says --without vector")

# the example programs
programs = sorted(glob.glob("tests/programs/*.uop"))
fitting = [p for p in programs if fits(p)]
check(len(fitting) >= 10, f"{len(fitting)} of {len(programs)} example programs fit --without {WITHOUT}")
r = run(sys.executable, "-B", "tests/tinygrad/server_bench.py", *fitting[:5], "tests/programs/vector_add.uop")  # a few: each also runs alone
print(r.stdout.strip())
check(r.returncode == 0, "server mode renders each example program as one-program mode does")
for p in fitting:
  r = run(UOPFUZZ, "run", p, *CC)
  verdict = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr.strip()
  want = KNOWN.get(os.path.basename(p))
  if want: check(r.returncode == 1 and f"verdict: {want}" in verdict, f"{p}: known tinygrad bug, {verdict}")
  else: check(r.returncode == 0 and verdict == "verdict: ok", f"{p}: {verdict}")

# a short campaign
with tempfile.TemporaryDirectory() as tmp:
  summary = os.path.join(tmp, "summary.json")
  r = run(UOPFUZZ, "fuzz", "--seed", "1", "--count", "16", "--jobs", "2", "--without", WITHOUT, *CC,
          "--corpus", os.path.join(tmp, "corpus"), "--no-reduce", "-q", "--json", summary)
  check(r.returncode in (0, 1), f"campaign: exit {r.returncode} {r.stderr[-500:]}")
  s = json.load(open(summary)) if os.path.exists(summary) else {}
  print({k: s.get(k) for k in ("programs", "valid", "runs", "mismatching_programs", "compile_errors", "render_errors", "signatures")})
  check(s.get("programs") == 16 and s.get("errors") == [], "campaign: 16 programs, no worker error")
  check(s.get("valid", 0) >= 12 and s.get("runs", 0) >= s.get("valid", 0), "campaign: most programs compared, each run")
  for f in s.get("saved", []):
    if "render-error" not in f: continue
    r = run(ADAPTER, f, "k")
    check("unsupported" not in r.stderr, f"campaign: {os.path.basename(f)} is tinygrad's failure: {r.stderr.strip()[-300:]}")

finish()
