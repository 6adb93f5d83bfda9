# tg_lines.py: line coverage of tinygrad's optimizer and of the backend's renderer, as target features
# (README.md, "Line coverage"). The tinygrad adapter reports each line of FILES its lowering of a program
# executed as the feature `line:FILE:LINE` (FILE relative to the tinygrad package), and tinygrad's own test
# suite records the same lines as a peer (tg_peer.py, tools/tinygrad-peer-coverage), with the count of lines
# each file has, so a report can say "reached X of Y lines of postrange.py".
#
# Mechanism, no dependency: on Python 3.11 sys.settrace (Tracing: a line tracer for the code of FILES alone,
# but the whole lowering runs 2.8 times slower while a trace function is set), on 3.12+ sys.monitoring
# (Monitoring: LINE events in that code alone, each line once a lowering: about 5 %). So the adapter's
# --lines defaults to on where sys.monitoring is (DEFAULT). Code counts by its file, first line and qualified
# name, the same for the tracer and for the totals (measured). Python 3.10 has no co_qualname: no lines.
import dis
import functools
import os
import sys

import tinygrad

ROOT = os.path.dirname(os.path.abspath(tinygrad.__file__))

# The files whose lines are features: {FILE: (backend, SCOPE)}. backend None: every backend's (the optimizer);
# else only that backend's renderer. SCOPE names the top-level classes whose functions count, and `<module>` the
# file's functions and lambdas outside classes (its PatternMatchers' rules); None: every function of the file.
# A scope leaves out the code of other devices' renderers in the same file (cstyle.py's CUDA, Metal, ...;
# llvmir.py's AMD), which no CPU kernel reaches. python: PythonRenderer's render is a pickle of the linear
# UOps; its emulator (PythonProgram, the same file) runs the kernel after the lowering, so it is not counted.
FILES = {
  "codegen/opt/postrange.py": (None, None),
  "codegen/opt/heuristic.py": (None, None),
  "codegen/opt/search.py": (None, None),
  "codegen/opt/__init__.py": (None, None),
  "renderer/cstyle.py": ("clang", ("<module>", "CStyleLanguage", "ClangRenderer")),
  "renderer/llvmir.py": ("llvm", ("<module>", "LLVMRenderer", "CPULLVMRenderer")),
  "renderer/isa/x86.py": ("x86", None),
  "runtime/ops_python.py": ("python", ("PythonRenderer",)),
}
PREFIX = "line:"  # a feature's name: line:FILE:LINE
MONITORING = getattr(sys, "monitoring", None)  # Python 3.12+
AVAILABLE = sys.version_info >= (3, 11)
DEFAULT = "on" if MONITORING else "off"  # the adapter's --lines default: on where it costs next to nothing
ENABLED = AVAILABLE  # the adapter's --lines on|off (uopfuzz_tinygrad.apply); tg_peer.py leaves it on


def files(backend):
  """The FILES a backend's lowering is measured on, in the table's order."""
  return [f for f, (b, _) in FILES.items() if b in (None, backend)]


IMPORT_TIME = {"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"}


def is_function(code): return bool(code.co_flags & 0x1)  # CO_OPTIMIZED: a def or lambda, not a module or class body


def counted_code(module, scope):
  """The function code objects of a module's code that SCOPE counts, nested ones included. A comprehension of
  the module's or a class's body runs at import, never in a lowering: left out."""
  out = []
  def walk(code, counts):
    for c in (c for c in code.co_consts if isinstance(c, type(code))):
      if not is_function(code) and c.co_name in IMPORT_TIME: continue
      inner = counts if code is not module else scope is None or (c.co_name if not is_function(c) else "<module>") in scope
      if inner and is_function(c): out.append(c)
      walk(c, inner)
  walk(module, False)
  return out


def code_lines(code):
  """The lines a line tracer can report in one code object: those of its instructions after the prologue (up to
  RESUME: the def or decorator line, which no line event names unless the body is on it too)."""
  ins = list(dis.get_instructions(code))
  start = next((i + 1 for i, x in enumerate(ins) if x.opname == "RESUME"), 0)
  return {x.positions.lineno for x in ins[start:] if x.positions and x.positions.lineno}


@functools.lru_cache(None)
def measured(rel):
  """{(first line, qualified name): lines} of FILE's counted functions, compiled from its source: what both the
  tracer's choice of frames and the totals rest on (a code object tinygrad unpickled is another object with the
  same name and place)."""
  path = os.path.join(ROOT, rel)
  with open(path, encoding="utf-8") as f: module = compile(f.read(), path, "exec")
  return {(c.co_firstlineno, c.co_qualname): code_lines(c) for c in counted_code(module, FILES[rel][1])}


def executable(backend):
  """{FILE: sorted executable lines} of the backend's files: every line a traced run could reach."""
  return {rel: sorted(set().union(*measured(rel).values())) for rel in files(backend)}


def totals(backend):
  """{FILE: count of executable lines}: the Y of "reached X of Y lines" (tools/tinygrad-peer-coverage)."""
  return {rel: len(lines) for rel, lines in executable(backend).items()}


def features(hits):
  """The reply's `line:FILE:LINE` features of a set of (FILE, LINE), in file and line order."""
  return [f"{PREFIX}{rel}:{line}" for rel, line in sorted(hits)]


def by_file(hits):
  """{FILE: sorted lines} of a set of (FILE, LINE): the peer's JSON form."""
  out = {}
  for rel, line in sorted(hits): out.setdefault(rel, []).append(line)
  return out


class Recorder:
  """Records (FILE, LINE) into self.hits for the backend's FILES while started. A caller may swap hits for a
  fresh set to see what one call executed (tg_peer.py's do_to_program)."""

  def __init__(self, backend):
    self.paths = {os.path.join(ROOT, rel): rel for rel in files(backend)}
    self.rels, self.hits = {}, set()
    self.hook = Monitoring(self) if MONITORING and free_tool() is not None else Tracing(self)

  def counted(self, code):
    """The FILE of a code object whose lines count, else None (decided once per code object)."""
    try: return self.rels[code]
    except KeyError: pass
    rel = self.paths.get(code.co_filename)
    if rel is not None and (code.co_firstlineno, code.co_qualname) not in measured(rel): rel = None
    self.rels[code] = rel
    return rel

  def start(self): self.hook.start()

  def stop(self): self.hook.stop()

  def lowering(self, fn, *args):
    """fn(*args) with a fresh self.hits, recorded when ENABLED (stopped also when fn raises): (its value, the hits).
    It may run inside another recording (tg_peer.py's), which then goes on; that one's hits are the caller's to keep."""
    self.hits = set()
    if not (ENABLED and AVAILABLE): return fn(*args), self.hits
    self.start()
    try: return fn(*args), self.hits
    finally: self.stop()


class Tracing:
  """sys.settrace (Python 3.11): the global trace function, called for every frame, gives the counted code a line
  tracer. Tracing slows every frame of the lowering (3.11's eval loop runs unspecialized while a trace function
  is set), 2.8 times a render on x86: README.md, "Line coverage"."""

  def __init__(self, recorder): self.recorder, self.tracers, self.previous = recorder, {}, []

  def tracer(self, code):
    rel, recorder = self.recorder.counted(code), self.recorder
    if rel is None: return None
    def line(frame, event, arg):
      if event == "line": recorder.hits.add((rel, frame.f_lineno))
      return line
    return line

  def trace(self, frame, event, arg):
    try: return self.tracers[frame.f_code]
    except KeyError: t = self.tracers[frame.f_code] = self.tracer(frame.f_code)
    return t

  def start(self):
    self.previous.append(sys.gettrace())  # put back by stop: a debugger's, say, or the outer recording's
    sys.settrace(self.trace)

  def stop(self): sys.settrace(self.previous.pop())


def free_tool():
  """A sys.monitoring tool id no one uses (coverage's first; a coverage.py run of the adapter takes it)."""
  return next((t for t in (MONITORING.COVERAGE_ID, 3, 4) if MONITORING.get_tool(t) is None), None)


class Monitoring:
  """sys.monitoring (Python 3.12+): PY_START turns LINE events on for the counted code alone, and each event is
  DISABLEd where it fired (a line needs recording once a lowering), so the rest of tinygrad, and a loop in the
  counted code, runs at full speed; each start re-arms them (restart_events). Set up on the first start and left
  in place: switching events on and off around each lowering re-instruments every code object tinygrad runs, and
  a LINE event on every execution costs a third more time a render; this way about 5 % (README.md)."""

  def __init__(self, recorder): self.recorder, self.tool, self.depth = recorder, None, 0  # depth: recordings under way

  def started(self, code, offset):
    if self.recorder.counted(code) is not None: MONITORING.set_local_events(self.tool, code, MONITORING.events.LINE)
    return MONITORING.DISABLE

  def line(self, code, line):
    if self.depth: self.recorder.hits.add((self.recorder.rels[code], line))
    return MONITORING.DISABLE

  def start(self):
    if self.tool is None:
      self.tool = free_tool()
      MONITORING.use_tool_id(self.tool, "uopfuzz tg_lines")
      MONITORING.register_callback(self.tool, MONITORING.events.PY_START, self.started)
      MONITORING.register_callback(self.tool, MONITORING.events.LINE, self.line)
      MONITORING.set_events(self.tool, MONITORING.events.PY_START)
    MONITORING.restart_events()  # (a nested start too: its lines may have fired in the outer recording)
    self.depth += 1

  def stop(self): self.depth -= 1
