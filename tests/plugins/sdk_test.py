#!/usr/bin/env python3
# The Python SDK for renderer plug-ins (plugins/uopfuzz_plugin.py): its .uop reader on every example and
# corpus program, and a plug-in built on it (sdk_plugin.py) run as a subprocess in each mode of protocol 2
# (docs/format.md section 5): the handshake, one program, batch, server (with switches switched off and
# reported used, and exports). Run by CTest from the repository root; with UOPFUZZ set, the reader's nodes
# are also compared with `uopfuzz fmt`.
import glob, json, os, shutil, subprocess, sys, tempfile, unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "plugins"))
import uopfuzz_plugin as sdk  # noqa: E402

PLUGIN = [sys.executable, os.path.join(ROOT, "tests", "plugins", "sdk_plugin.py")]
PROGRAM = "uops 1\n%0 = BUFFER i32[2] slot=0\n%1 = CONST i32 0\n%2 = INDEX i32 %0 %1\n%3 = CONST i32 7\n%4 = STORE void %2 %3\n%5 = SINK void %4\n"


def with_meta(key, value): return f"meta {key} = {value}\n" + PROGRAM


def run(*args, **kw): return subprocess.run(PLUGIN + list(args), capture_output=True, text=True, timeout=60, **kw)


class Server:
  """A plug-in in server mode, killed at the test's end: ask(request) -> its reply; close() -> (exit status, stderr)."""

  def __init__(self, test, cmd, env=None):
    self.p = subprocess.Popen(cmd + ["--uopfuzz-serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    test.addCleanup(self.kill)

  def ask(self, obj):
    self.p.stdin.write((obj if isinstance(obj, str) else json.dumps(obj)) + "\n")
    self.p.stdin.flush()
    return json.loads(self.p.stdout.readline())

  def render(self, rid, text, function="kernel0", **kw): return self.ask({"id": rid, "kind": "render", "function": function, "program": text, **kw})

  def close(self):
    self.p.stdin.close()
    return self.p.wait(timeout=30), self.p.stderr.read()

  def kill(self):
    if self.p.poll() is None: self.p.kill()
    self.p.wait()
    for f in (self.p.stdin, self.p.stdout, self.p.stderr): f.close()


def slurp(path):
  with open(path) as f: return f.read()


def all_programs():
  return sorted(glob.glob(os.path.join(ROOT, "tests", "programs", "*.uop")) + glob.glob(os.path.join(ROOT, "corpus", "**", "*.uop"), recursive=True))


class Reader(unittest.TestCase):
  def test_tables_are_core_defs(self):
    rows = [l for l in slurp(os.path.join(ROOT, "core", "ops.def")).splitlines() if l.startswith("OP(")]
    self.assertEqual(len(sdk.OPS), len(rows))
    self.assertTrue(sdk.OPS["ADD"].is_alu and "COMMUTATIVE" in sdk.OPS["ADD"].flags and sdk.OPS["ADD"].arity == 2)
    self.assertIsNone(sdk.OPS["SINK"].arity)
    self.assertTrue(sdk.OPS["LOAD"].is_memory and not sdk.OPS["LOAD"].is_alu)
    dt = sdk.DTYPES
    self.assertEqual([op for op in ("ADD", "AND", "SHL", "POW", "SQRT") if sdk.OPS[op].accepts(dt["bool"])], ["ADD", "AND"])
    self.assertEqual([op for op in ("ADD", "AND", "SHL", "POW", "SQRT") if sdk.OPS[op].accepts(dt["f16"])], ["ADD", "POW", "SQRT"])
    self.assertFalse(sdk.OPS["ADD"].accepts(dt["void"]))
    f16 = sdk.DTYPES["f16"]
    self.assertEqual((f16.ctype, f16.itemsize, f16.is_float), ("_Float16", 2, True))
    self.assertTrue(sdk.DTYPES["u8"].is_unsigned and sdk.DTYPES["i8"].is_signed and not sdk.DTYPES["bool"].is_int)

  def test_vector_dtypes(self):
    v = sdk.parse_dtype("f32x4")
    self.assertEqual((v.name, v.lanes, v.scalar, v.itemsize, v.is_vector), ("f32x4", 4, sdk.DTYPES["f32"], 16, True))
    for bad in ("f32x1", "f32x17", "voidx2", "q32x4", "f32x"):
      with self.assertRaises(ValueError): sdk.parse_dtype(bad)

  def test_every_program_reads(self):
    files = all_programs()
    self.assertGreater(len(files), 20)
    for f in files:
      p = sdk.read_program(f)
      self.assertIs(p.nodes[-1], p.sink, f)
      self.assertEqual(p.sink.op.name, "SINK", f)
      for n in p.nodes:
        self.assertTrue(all(s.id < n.id for s in n.sources), f"{f}: {n}")
        self.assertIsInstance(n.dtype, sdk.DType)
      self.assertEqual([b.slot for b in p.buffers], sorted(b.slot for b in p.buffers), f)
      for slot, values in {**p.data, **p.expect}.items():
        self.assertEqual(len(values), next(b.length for b in p.buffers if b.slot == slot), f)

  @unittest.skipUnless(os.environ.get("UOPFUZZ"), "UOPFUZZ not set")
  def test_nodes_print_as_uopfuzz_fmt(self):
    for f in all_programs():
      canonical = subprocess.run([os.environ["UOPFUZZ"], "fmt", f], capture_output=True, text=True, check=True).stdout
      want = [l for l in canonical.splitlines() if l.startswith("%")]
      self.assertEqual([repr(n) for n in sdk.parse_program(canonical).nodes], want, f)

  def test_typed_nodes(self):
    p = sdk.read_program(os.path.join(ROOT, "tests", "programs", "vector_lanes.uop"))
    self.assertEqual(p.version, 2)
    b = p.buffers[2]
    self.assertEqual((b.op.name, b.dtype.name, b.length, b.slot), ("BUFFER", "f32", 3, 2))
    load = next(n for n in p.nodes if n.op.name == "LOAD")
    self.assertEqual((load.dtype.name, load.dtype.lanes, load.sources[0].op.name), ("i8x4", 4, "INDEX"))
    self.assertEqual(p.data[0], [100, -100, 7, -128])
    self.assertEqual(p.expect[2], [107.0, 56.0, 0.5])
    self.assertTrue(p.meta_value("about").startswith("i8x4 ADD"))
    gep = next(n for n in p.nodes if n.op.name == "GEP")
    self.assertIsInstance(gep.arg, int)
    consts = {n.dtype.name: n.arg for n in sdk.parse_program(
      "uops 1\n%0 = CONST bool true\n%1 = CONST f32 -0x1.8p1\n%2 = CONST u8 255\n%3 = CONST f64 -inf\n%4 = SINK void\n").nodes if n.op.name == "CONST"}
    self.assertEqual(consts, {"bool": True, "f32": -3.0, "u8": 255, "f64": float("-inf")})

  def test_identical_lines_are_one_node(self):
    p = sdk.parse_program("uops 1\n%0 = CONST i32 1\n%1 = CONST i32 1\n%2 = ADD i32 %0 %1\n%3 = SINK void\n")
    self.assertEqual(len(p.nodes), 3)
    self.assertIs(p.nodes[1].sources[0], p.nodes[1].sources[1])

  def test_malformed_files_name_the_line(self):
    cases = {
      "": ("empty file", 1),
      "uops 3\n": ("unsupported format version", 1),
      "uops 1\n%0 = FOO i32\n": ("unknown op 'FOO'", 2),
      "uops 1\n%0 = CONST i33 1\n": ("unknown dtype 'i33'", 2),
      "uops 1\n\n%1 = CONST i32 1\n": ("expected %0, got %1", 3),
      "uops 1\n%0 = ADD i32 %4 %4\n": ("unknown node %4", 2),
      "uops 1\n%0 = CONST u8 256\n": ("does not fit u8", 2),
      "uops 1\n%0 = CONST f32x4 1\n%1 = SINK void\n": ("vectors need 'uops 2'", 2),
      "uops 1\n%0 = BUFFER f32[2,2] slot=0\n": ("more than one dimension", 2),
      "uops 1\n%0 = BUFFER f32[2] slot=0\n%1 = SINK void\ndata 0 = 1\n": ("1 values for f32[2]", 4),
      "uops 1\n%0 = BUFFER f32[1] slot=0\n%1 = SINK void\ndata 1 = 1\n": ("no BUFFER with slot 1", 4),
      "uops 1\n%0 = CONST i32 1 # a comment\n": ("no SINK", 2),
      "uops 1\nmeta two words = x\n": ("meta key must be one word", 2),
      "uops 1\nhello\n": ("unknown line 'hello'", 2),
    }
    for text, (message, line) in cases.items():
      with self.assertRaises(sdk.UopSyntaxError, msg=repr(text)) as e: sdk.parse_program(text, "t.uop")
      self.assertIn(message, str(e.exception), repr(text))
      self.assertTrue(str(e.exception).startswith(f"t.uop:{line}: "), str(e.exception))

  def test_missing_core_is_a_clear_setup_error(self):
    with tempfile.TemporaryDirectory() as tmp:
      os.mkdir(os.path.join(tmp, "plugins"))
      for module in ("uopfuzz_plugin.py", "uopfuzz_uop.py"): shutil.copy(os.path.join(ROOT, "plugins", module), os.path.join(tmp, "plugins"))
      r = subprocess.run([sys.executable, "-B", "-c", "import uopfuzz_plugin"], cwd=os.path.join(tmp, "plugins"), capture_output=True, text=True)
      self.assertEqual(r.returncode, 2)
      self.assertIn("core/ops.def", r.stderr)
      self.assertIn("uopfuzz checkout", r.stderr)


class Modes(unittest.TestCase):
  def setUp(self):
    self.tmp = tempfile.TemporaryDirectory()
    self.addCleanup(self.tmp.cleanup)

  def file(self, name, text):
    path = os.path.join(self.tmp.name, name)
    with open(path, "w") as f: f.write(text)
    return path

  def test_describe(self):
    r = run("--uopfuzz-describe", stdin=subprocess.DEVNULL)
    self.assertEqual(r.returncode, 0, r.stderr)
    d = json.loads(r.stdout)
    self.assertEqual(sorted(d), ["exports", "language", "modes", "protocol", "reach", "reachable", "switch_source", "switches", "target",
                                 "without"])
    self.assertEqual(d["reach"], "front")
    self.assertEqual((d["protocol"], d["modes"], d["language"]), (2, ["server", "batch", "program"], "c"))
    self.assertEqual(d["target"], {"name": "sdk-test", "version": "1.0"})
    self.assertEqual(d["without"], ["mulacc"])
    self.assertEqual(d["switches"], ["sym.py:10", "sym.py:10#2", "late.py:7"])
    self.assertEqual(d["exports"], ["broken", "ops"])
    self.assertIn("switches listed", r.stderr)
    self.assertEqual(d["reachable"], ["sym.py:10", "late.py:7"])  # a function's list, called for the handshake
    self.assertIn("reachable listed", r.stderr)
    self.assertEqual(d["switch_source"], {"sym.py:10": "(UPat.var('x') + 0, lambda x: x),",
                                          "sym.py:10#2": "(UPat.var('x') * 1, lambda x: x),", "late.py:7": "def fold_late(x):"})

  def test_describe_reachable_and_switch_source_are_switches(self):
    def describe(args):
      code = ("import sys; sys.path.insert(0, %r); from uopfuzz_plugin import Plugin; "
              "Plugin(name='t', render=None, %s).main()") % (os.path.join(ROOT, "plugins"), args)
      return subprocess.run([sys.executable, "-B", "-c", code, "--uopfuzz-describe"], capture_output=True, text=True)
    r = describe("switches=['a', 'b'], reachable={'b': 1}, switch_source=lambda: {'a': 'x = 1'}")  # a dict's keys; a function
    self.assertEqual(r.returncode, 0, r.stderr)
    self.assertEqual({k: v for k, v in json.loads(r.stdout).items() if k in ("switches", "reachable", "switch_source")},
                     {"switches": ["a", "b"], "reachable": ["b"], "switch_source": {"a": "x = 1"}})
    for args, message in (("switches=['a'], reachable=['a', 'c']", "reachable: 'c' is not one of the switches"),
                          ("switches=lambda: ['a'], reachable=lambda: ['b']", "reachable: 'b' is not one of the switches"),
                          ("switches=['a'], switch_source={'b': 'x'}", "switch_source: 'b' is not one of the switches"),
                          ("switches=['a'], switch_source={'a': 'two\\nlines'}", "switch_source of 'a': not one line of text"),
                          ("switches=['a'], switch_source=['a']", "switch_source: a dict of switch -> text, not list"),
                          ("reachable=['a']", "reachable= and switch_source= go with switches=")):
      r = describe(args)
      self.assertEqual((r.returncode, r.stdout), (2, ""), args)
      self.assertIn(message, r.stderr, args)

  def test_describe_one_unit_only_when_promised(self):
    code = ("import sys; sys.path.insert(0, %r); from uopfuzz_plugin import Plugin; "
            "Plugin(name='t', render=None, one_unit=True).main()") % os.path.join(ROOT, "plugins")
    r = subprocess.run([sys.executable, "-B", "-c", code, "--uopfuzz-describe"], capture_output=True, text=True)
    self.assertEqual(r.returncode, 0, r.stderr)
    d = json.loads(r.stdout)
    self.assertIs(d["one_unit"], True)
    self.assertNotIn("switches", d)  # only when given
    self.assertNotIn("reachable", d)
    self.assertNotIn("switch_source", d)
    self.assertNotIn("exports", d)

  def test_protocol_1_plugin_has_no_handshake(self):
    code = "import sys; sys.path.insert(0, %r); from uopfuzz_plugin import Plugin; Plugin(render=None).main()" % os.path.join(ROOT, "plugins")
    r = subprocess.run([sys.executable, "-B", "-c", code, "--uopfuzz-describe"], capture_output=True, text=True)
    self.assertEqual(r.returncode, 2)
    self.assertIn("protocol 1", r.stderr)

  def test_one_program(self):
    r = run(self.file("ok.uop", PROGRAM), "kern")
    self.assertEqual((r.returncode, r.stderr), (0, ""))  # the switches were not listed: nothing needed them
    self.assertIn("void kern(int32_t* p0)", r.stdout)
    self.assertIn("off:  */", r.stdout)  # render(..., off=frozenset())
    r = run(self.file("use.uop", with_meta("use", "late.py:7")), "kern")
    self.assertEqual((r.returncode, r.stderr), (0, ""))  # a Rendered is its source here
    self.assertTrue(r.stdout.startswith("#include <stdbool.h>"), r.stdout)
    r = run(self.file("refuse.uop", with_meta("refuse", "no thanks")), "kern")
    self.assertEqual((r.returncode, r.stdout), (1, ""))
    self.assertIn("refused: no thanks", r.stderr)
    r = run(self.file("raise.uop", with_meta("raise", "boom")), "kern")
    self.assertEqual(r.returncode, 1)
    self.assertIn("RuntimeError: boom", r.stderr)
    r = run(os.path.join(self.tmp.name, "missing.uop"), "kern")
    self.assertEqual(r.returncode, 2)
    self.assertIn("cannot read", r.stderr)
    bad = self.file("bad.uop", "uops 1\n%0 = FOO i32\n")
    r = run(bad, "kern")
    self.assertEqual(r.returncode, 2)
    self.assertIn(f"{bad}:2: unknown op 'FOO'", r.stderr)
    self.assertEqual(run(self.file("ok2.uop", PROGRAM), "no-name").returncode, 2)
    r = run()
    self.assertEqual(r.returncode, 2)
    self.assertIn("usage", r.stderr)

  def test_batch(self):
    programs = [PROGRAM, with_meta("refuse", "no"), with_meta("raise", "boom"), "uops 1\nnope\n", with_meta("print", "noise")]
    for k, text in enumerate(programs): self.file(f"{k}.uop", text)
    lst = self.file("batch.list", "".join(f"{k}.uop kernel{k} {k}.c {k}.err\n" for k in range(len(programs) + 1)))
    r = run(lst)
    self.assertEqual(r.returncode, 0, r.stderr)
    def read(name):
      path = os.path.join(self.tmp.name, name)
      return slurp(path) if os.path.exists(path) else None
    self.assertIn("void kernel0(int32_t* p0)", read("0.c"))
    self.assertIsNone(read("0.err"))
    self.assertEqual(read("1.err"), "refused: no")
    self.assertIn("RuntimeError: boom", read("2.err"))
    self.assertIn("3.uop:2: unknown line 'nope'", read("3.err"))
    self.assertIn("void kernel4(", read("4.c"))
    self.assertIn("cannot read", read("5.err"))  # listed, but no 5.uop
    self.assertEqual(run(os.path.join(self.tmp.name, "no.list")).returncode, 2)

  def test_server(self):
    server = Server(self, PLUGIN)
    r = server.render(7, PROGRAM)
    self.assertEqual(sorted(r), ["id", "source"])
    self.assertEqual(r["id"], 7)
    self.assertIn("void kernel0(int32_t* p0)", r["source"])
    self.assertEqual(server.render(8, with_meta("refuse", "no")), {"id": 8, "error": "refused: no"})
    self.assertEqual(server.render(8, "meta bucket = why\n" + with_meta("refuse", "no")), {"id": 8, "error": "refused: no", "bucket": "why"})
    r = server.render(9, with_meta("raise", "boom"))  # a bug of the plug-in: bucketed where it raised
    self.assertEqual((r["id"], sorted(r)), (9, ["bucket", "error", "id"]))
    self.assertIn("RuntimeError: boom", r["error"])
    self.assertRegex(r["bucket"], r"^RuntimeError at plugins/sdk_plugin\.py:\d+$")
    self.assertIn("<program>:2: unknown line 'nope'", server.render(10, "uops 1\nnope\n")["error"])
    self.assertIn("void kernel1(", server.render(11, with_meta("print", "noise"), "kernel1")["source"])  # its print is not a reply
    self.assertEqual(server.render(12, PROGRAM, "bad name")["id"], 12)
    self.assertIn("bad request", server.ask("not json")["error"])
    self.assertIn("bad request", server.ask({"id": 13, "kind": "other"})["error"])
    self.assertIn("void kernel5(", server.render(14, PROGRAM, "kernel5")["source"])  # still serving
    code, stderr = server.close()
    self.assertEqual(code, 0)
    self.assertIn("noise", stderr)
    self.assertNotIn("switches listed", stderr)  # no request switched anything off

  def test_server_switches(self):
    server = Server(self, PLUGIN)
    used = with_meta("use", "sym.py:10 late.py:7")
    r = server.render(1, used)
    self.assertEqual(sorted(r), ["id", "source", "used"])
    self.assertEqual(r["used"], ["sym.py:10", "late.py:7"])
    self.assertIn("off:  */", r["source"])
    r = server.render(2, used, off=["late.py:7", "sym.py:10#2"])
    self.assertEqual(r["used"], ["sym.py:10"])  # what was off did not take effect
    self.assertIn("off: late.py:7 sym.py:10#2 */", r["source"])
    self.assertEqual(server.render(3, used, off=[])["used"], ["sym.py:10", "late.py:7"])
    self.assertEqual(sorted(server.render(4, PROGRAM, off=["sym.py:10"])), ["id", "source"])  # a str: no used
    self.assertEqual(server.render(5, used, off=["sym.py:10", "sym.py:11"]), {"id": 5, "error": "unknown switch sym.py:11"})
    self.assertIn("bad request", server.render(6, used, off="sym.py:10")["error"])
    self.assertIn("bad request", server.render(7, used, off=[3])["error"])
    self.assertIn("refused: no", server.render(8, with_meta("refuse", "no"), off=["late.py:7"])["error"])
    refused = server.render(9, "meta refuse = no\n" + with_meta("use", "sym.py:10 late.py:7"), off=["late.py:7"])
    self.assertEqual((refused["error"], refused["used"]), ("refused: no", ["sym.py:10"]))  # what took effect before it failed
    code, stderr = server.close()
    self.assertEqual(code, 0)
    self.assertEqual(stderr.count("switches listed"), 1)  # listed once, when an `off` first needed them
    self.assertNotIn("reachable listed", stderr)  # only the handshake needs them

  def test_server_exports(self):
    server = Server(self, PLUGIN)
    program = PROGRAM + "data 0 = 1 2\nexpect 0 = 7 2\n"
    r = server.ask({"id": 3, "kind": "export", "format": "ops", "program": program})
    self.assertEqual(r, {"id": 3, "source": "BUFFER CONST INDEX CONST STORE SINK\ndata {0: [1, 2]}\nexpect {0: [7, 2]}\n"})
    r = server.ask({"id": 4, "kind": "export", "format": "c", "program": program})
    self.assertEqual(r, {"id": 4, "error": "unknown export format 'c' (this plug-in exports broken, ops)"})
    self.assertIn("unknown export format None", server.ask({"id": 5, "kind": "export", "program": program})["error"])
    self.assertEqual(server.ask({"id": 6, "kind": "export", "format": "broken", "program": program}), {"id": 6, "error": "cannot export this"})
    self.assertIn("<program>:2: unknown line 'nope'", server.ask({"id": 7, "kind": "export", "format": "ops", "program": "uops 1\nnope\n"})["error"])
    self.assertIn("bad request", server.ask({"id": 8, "kind": "export", "format": "ops"})["error"])
    self.assertIn("void kernel0(", server.render(9, PROGRAM)["source"])  # still serving
    self.assertEqual(server.close()[0], 0)

  def test_server_reach(self):
    server = Server(self, PLUGIN)
    program = with_meta("front", "yes") + "expect 0 = 7 0\ngot 0 = 7 1\n"
    r = server.ask({"id": 1, "kind": "reach", "program": program})
    self.assertEqual(r, {"id": 1, "reachable": "front", "detail": "expect {0: [7, 0]} got {0: [7, 1]}"})
    self.assertEqual(server.ask({"id": 2, "kind": "reach", "program": PROGRAM}), {"id": 2, "reachable": "kernel", "detail": "no front-end form"})
    self.assertIn("reach returned ('front', 'two\\nlines')", server.ask({"id": 3, "kind": "reach", "program": with_meta("front", "bad")})["error"])
    self.assertIn("bad request", server.ask({"id": 4, "kind": "reach"})["error"])
    self.assertIn("void kernel0(", server.render(5, PROGRAM)["source"])  # still serving
    self.assertEqual(server.close()[0], 0)

  def test_reach_level_is_a_word_with_reach(self):
    for args, message in (("reach=lambda p: ('x', ''), reach_level='kernel'", "other than 'kernel'"),
                          ("reach=lambda p: ('x', '')", "go together"), ("reach_level='Tensor', reach=print", "lowercase word")):
      code = ("import sys; sys.path.insert(0, %r); from uopfuzz_plugin import Plugin; "
              "Plugin(name='t', render=lambda program, function: '', %s).main()") % (os.path.join(ROOT, "plugins"), args)
      r = subprocess.run([sys.executable, "-B", "-c", code, "--uopfuzz-describe"], capture_output=True, text=True, timeout=60)
      self.assertEqual(r.returncode, 2, r.stderr)
      self.assertIn(message, r.stderr)

  def test_server_without_switches_or_exports(self):
    code = ("import sys; sys.path.insert(0, %r); from uopfuzz_plugin import Plugin; "
            "Plugin(name='t', render=lambda program, function: 'int x;').main()") % os.path.join(ROOT, "plugins")
    server = Server(self, [sys.executable, "-B", "-c", code])
    self.assertEqual(server.render(1, PROGRAM), {"id": 1, "source": "int x;"})  # render(program, function): no off
    self.assertEqual(server.render(2, PROGRAM, off=[]), {"id": 2, "source": "int x;"})  # [] is nothing off
    self.assertIn("no switches", server.render(3, PROGRAM, off=["a"])["error"])
    r = server.ask({"id": 4, "kind": "export", "format": "tinygrad", "program": PROGRAM})
    self.assertEqual(r, {"id": 4, "error": "unknown export format 'tinygrad' (this plug-in exports nothing)"})
    self.assertIn("no `reach`", server.ask({"id": 5, "kind": "reach", "program": PROGRAM})["error"])
    self.assertEqual(server.close()[0], 0)

  def test_server_crash_ends_the_process(self):
    request = json.dumps({"id": 1, "kind": "render", "function": "k", "program": with_meta("crash", "yes")})
    r = run("--uopfuzz-serve", input=request + "\n")
    self.assertEqual((r.returncode, r.stdout), (3, ""))


if __name__ == "__main__":
  unittest.main(verbosity=2)
