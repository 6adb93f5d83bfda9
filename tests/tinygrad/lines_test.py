#!/usr/bin/env python3
# lines_test.py: line coverage of tinygrad's optimizer and renderer as the adapter's features (plugins/tinygrad/
# tg_lines.py, README.md "Line coverage"), with --lines on: a kind=global loop with `opts UPCAST:0:4` reports
# the lines of apply_opt's UPCAST branch, the same loop with an empty opts line does not; without an opts line the
# heuristic's lines (heuristic.py) are reported, with one they are not; every `line:` feature names a file of the
# backend's table and one of its executable lines, once; the backend's renderer file is reached; --lines off
# reports none. In-process: the peer's totals (tg_lines.totals) count every file, and a lowering that raises
# leaves no trace function behind. Run by CTest from the repository root; exit 77 without tinygrad or clang.
import base64, json, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tinygrad_checks import check, finish  # noqa: E402  (exits 77 without tinygrad or clang)

sys.path[:0] = ["plugins", "plugins/tinygrad"]
import tg_lines  # noqa: E402

ADAPTER = os.environ.get("UOPFUZZ_TINYGRAD_ADAPTER", "plugins/tinygrad/uopfuzz_tinygrad.py")
BACKENDS = ["clang", "x86", "python"]
RENDERER_FILE = {"clang": "renderer/cstyle.py", "x86": "renderer/isa/x86.py", "python": "runtime/ops_python.py"}
POSTRANGE = "codegen/opt/postrange.py"


def global_loop(opts):
  """out[i] = in[i] + i for i < 16, a RANGE of kind global (WEAK: tinygrad's optimizer may act on it)."""
  lines = ["uops 2", "%0 = BUFFER i32[16] slot=0", "%1 = BUFFER i32[16] slot=1", "%2 = CONST i32 16",
           "%3 = RANGE i32 0 %2 kind=global", "%4 = INDEX i32 %0 %3", "%5 = LOAD i32 %4", "%6 = ADD i32 %5 %3",
           "%7 = INDEX i32 %1 %3", "%8 = STORE void %7 %6", "%9 = END void %8 %3", "%10 = SINK void %9",
           "data 0 = " + " ".join(str(i * 3) for i in range(16)), "expect 1 = " + " ".join(str(i * 4) for i in range(16))]
  return "\n".join(lines + ([opts] if opts is not None else [])) + "\n"


def source_lines(rel, text):
  """The line numbers of a tinygrad file whose source contains text (found by what they say, not by number)."""
  with open(os.path.join(tg_lines.ROOT, rel), encoding="utf-8") as f:
    return {n for n, line in enumerate(f, 1) if text in line}


def lines_of(features, rel=None):
  """{(FILE, LINE)} of a reply's `line:` features (of one FILE, when given)."""
  out = {(f[len("line:"):].rsplit(":", 1)[0], int(f.rsplit(":", 1)[1])) for f in features if f.startswith("line:")}
  return {h for h in out if rel is None or h[0] == rel}


class Adapter:
  def __init__(self, backend, lines):
    # --beam 0: a kernel without an opts line gets the heuristic (the default gives BEAM a share of them)
    self.p = subprocess.Popen([ADAPTER, "--backend", backend, "--lines", lines, "--beam", "0", "--uopfuzz-serve"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    self.backend, self.n = backend, 0

  def features(self, text):
    """The reply's features, ([] for an error reply)."""
    self.n += 1
    kind = "run" if self.backend == "python" else "render"
    request = {"id": self.n, "kind": kind, "function": "k", "program": text}
    if kind == "run": request["inputs"] = [{s: base64.b64encode(bytes(64)).decode() for s in ("0", "1")}]  # zeros
    self.p.stdin.write(json.dumps(request) + "\n")
    self.p.stdin.flush()
    reply = json.loads(self.p.stdout.readline())
    return reply.get("features", []), reply.get("error")

  def close(self):
    self.p.stdin.close()
    self.p.wait(timeout=60)


UPCAST_BRANCH = source_lines(POSTRANGE, "don't upcast more than 16")  # apply_opt's first check of an UPCAST
check(len(UPCAST_BRANCH) == 1, f"{POSTRANGE}: one line checks an UPCAST's amount: {sorted(UPCAST_BRANCH)}")

for b in BACKENDS:
  a = Adapter(b, "on")
  upcast, error = a.features(global_loop("opts UPCAST:0:4"))
  check(error is None and f"opt:UPCAST:{'GLOBAL' if b == 'python' else 'WEAK'}" in upcast, f"{b}: UPCAST:0:4 applied ({error})")
  empty, _ = a.features(global_loop("opts"))
  heuristic, _ = a.features(global_loop(None))
  upcast_lines, empty_lines = lines_of(upcast, POSTRANGE), lines_of(empty, POSTRANGE)
  branch = {(POSTRANGE, n) for n in UPCAST_BRANCH}
  check(branch <= upcast_lines and not branch & empty_lines,
        f"{b}: apply_opt's UPCAST line {sorted(UPCAST_BRANCH)} reached with `opts UPCAST:0:4`, not with an empty opts line")
  check(len(upcast_lines - empty_lines) >= 5, f"{b}: UPCAST reaches {len(upcast_lines - empty_lines)} postrange.py lines an empty opts line does not")
  check(lines_of(heuristic, "codegen/opt/heuristic.py") and not lines_of(upcast + empty, "codegen/opt/heuristic.py"),
        f"{b}: heuristic.py's lines only without an opts line ({len(lines_of(heuristic, 'codegen/opt/heuristic.py'))})")
  executable = {(rel, n) for rel, ns in tg_lines.executable(b).items() for n in ns}
  named = [f for f in upcast + empty + heuristic if f.startswith("line:")]
  check(all(f.count(":") == 2 for f in named) and lines_of(named) <= executable,
        f"{b}: every feature is line:FILE:LINE of an executable line of the table's files: {sorted(lines_of(named) - executable)[:3]}")
  check(len(upcast) == len(set(upcast)), f"{b}: no feature twice in one reply")
  check(bool(lines_of(upcast, RENDERER_FILE[b])), f"{b}: lines of {RENDERER_FILE[b]} reached ({len(lines_of(upcast, RENDERER_FILE[b]))})")
  a.close()
  off = Adapter(b, "off")
  features, error = off.features(global_loop("opts UPCAST:0:4"))
  check(error is None and any(f.startswith("opt:UPCAST:") for f in features), f"{b}: --lines off still renders ({error})")
  check(not lines_of(features), f"{b}: --lines off reports no line features ({len(lines_of(features))})")
  off.close()

# the peer's side: the totals of each backend's files, as tools/tinygrad-peer-coverage prints them
for b in BACKENDS + ["llvm"]:
  totals = tg_lines.totals(b)
  check(list(totals) == tg_lines.files(b) and all(n > 0 for n in totals.values()) and totals[POSTRANGE] > 100,
        f"{b}: tg_lines.totals gives every file's executable lines: {totals}")

# a lowering that raises takes its trace function (or monitoring) with it; hits so far are kept
recorder = tg_lines.Recorder("x86")
tg_lines.ENABLED = True
before = sys.gettrace()
try: recorder.lowering(lambda: 1 // 0)
except ZeroDivisionError: pass
check(sys.gettrace() is before and getattr(recorder.hook, "depth", 0) == 0, "a raising lowering stops recording")
finish()
