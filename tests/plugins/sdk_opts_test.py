#!/usr/bin/env python3
# The Python SDK's RANGE kinds and `opts` line (plugins/uopfuzz_uop.py) and the handshake and reply keys that go
# with them (plugins/uopfuzz_plugin.py: Plugin(opts=...), Rendered/Ran's opts_applied, opts_skipped,
# features), in process: what the reader takes and refuses, how nodes and opts print back, and what a
# server reply carries (a plug-in written before these keys unchanged). Run by CTest from the repository root.
import json, os, sys, unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "plugins"))
import uopfuzz_plugin as sdk  # noqa: E402

LOOP = """uops 2
%0 = BUFFER i32[4] slot=0
%1 = CONST i32 4
%2 = RANGE i32 0 %1{kind}
%3 = INDEX i32 %0 %2
%4 = STORE void %3 %2
%5 = END void %4 %2
%6 = SINK void %5
"""


def loop(kind="", tail=""): return LOOP.format(kind=kind) + tail


class Reader(unittest.TestCase):
  def test_kinds(self):
    for kind in sdk.RANGE_KINDS:
      rng = sdk.parse_program(loop(f" kind={kind}")).nodes[2]
      self.assertEqual(rng.kind, kind)
      self.assertEqual(repr(rng), "%2 = RANGE i32 0 %1" + ("" if kind == "loop" else f" kind={kind}"))  # loop is never printed
    self.assertEqual(sdk.parse_program(loop()).nodes[2].kind, "loop")
    self.assertIsNone(sdk.parse_program(loop()).nodes[1].kind)  # not a RANGE

  def test_bad_kinds(self):
    for tail, message in ((" kind=weak", "unknown kind 'weak'"), (" global", "expected 'kind=KIND'"), (" kind=loop x", "RANGE needs")):
      with self.assertRaises(sdk.UopSyntaxError) as e: sdk.parse_program(loop(tail))
      self.assertIn(message, str(e.exception))
      self.assertTrue(str(e.exception).startswith("<program>:4: "), str(e.exception))

  def test_opts(self):
    p = sdk.parse_program(loop(" kind=global", "opts UPCAST:0:4 NOLOCALS UNROLL:0 SWAP:0:0\ndata 0 = 1 2 3 4\n"))
    self.assertEqual(p.opts, [("UPCAST", 0, 4), ("NOLOCALS", None, None), ("UNROLL", 0, None), ("SWAP", 0, 0)])
    self.assertEqual(sdk.format_opts(p.opts), "opts UPCAST:0:4 NOLOCALS UNROLL:0 SWAP:0:0")
    self.assertEqual(sdk.parse_program(loop(tail="opts\n")).opts, [])  # explicitly none
    self.assertIsNone(sdk.parse_program(loop()).opts)  # the target's own choice
    self.assertIsNone(sdk.format_opts(None))
    self.assertEqual(sdk.format_opt("UPCAST", "new", 4), "UPCAST:new:4")
    with self.assertRaises(ValueError): sdk.format_opt("UPCAST", None, 4)

  def test_bad_opts(self):
    for line, message in (("opts UPCAST:1:4", "no RANGE with axis 1"), ("opts upcast:0", "bad opt 'upcast:0'"), ("opts UPCAST:0:-1", "bad opt"),
                          ("opts UPCAST:0:4:2", "bad opt"), ("opts SWAP:0:3", "no RANGE with axis 3"), ("opts\nopts", "second 'opts' line")):
      with self.assertRaises(sdk.UopSyntaxError) as e: sdk.parse_program(loop(tail=line + "\n"))
      self.assertIn(message, str(e.exception))
    with self.assertRaises(sdk.UopSyntaxError) as e: sdk.parse_program("opts\n" + loop())
    self.assertIn("expected 'uops 1'", str(e.exception))


def answer(plugin, program, kind="render"):
  request = {"id": 1, "kind": kind, "function": "k", "program": program}
  if kind == "run": request["inputs"] = [{"0": "AAAAAAAAAAAAAAAAAAAAAA=="}]
  return plugin.answer(json.dumps(request))


class Replies(unittest.TestCase):
  def test_handshake(self):
    plugin = sdk.Plugin(name="t", render=lambda p, f: "", opts=lambda: ["UPCAST", "THREAD"])
    self.assertEqual(plugin.describe()["opts"], ["UPCAST", "THREAD"])
    self.assertNotIn("opts", sdk.Plugin(name="t", render=lambda p, f: "").describe())
    with self.assertRaises(SystemExit): sdk.Plugin(name="t", render=lambda p, f: "", opts=["upcast"]).describe()

  def test_render_keys(self):
    out = sdk.Rendered("int x;", ["r:1"], opts_applied=["UPCAST:0:4"], opts_skipped=["PADTO:0:4: pad adds more than quadruple the work"],
                       features=["opt:UPCAST:WEAK", "c:vector"])
    reply = answer(sdk.Plugin(name="t", render=lambda p, f: out), loop())
    self.assertEqual(reply, {"id": 1, "source": "int x;", "used": ["r:1"], "opts_applied": ["UPCAST:0:4"],
                             "opts_skipped": ["PADTO:0:4: pad adds more than quadruple the work"], "features": ["opt:UPCAST:WEAK", "c:vector"]})
    old = answer(sdk.Plugin(name="t", render=lambda p, f: sdk.Rendered("int x;", ["r:1"])), loop())  # a plug-in of before
    self.assertEqual(old, {"id": 1, "source": "int x;", "used": ["r:1"]})

  def test_bad_keys(self):
    for out in (sdk.Rendered("", features=["two words"]), sdk.Rendered("", features=["a,b"]), sdk.Rendered("", opts_skipped=["x\ny"]),
                sdk.Rendered("", opts_applied=[4])):
      reply = answer(sdk.Plugin(name="t", render=lambda p, f, out=out: out), loop())
      self.assertIn("error", reply, out)

  def test_run_keys(self):
    def run(program, function, inputs): return sdk.Ran([inputs[0]], opts_applied=[], features=["threads"])
    reply = answer(sdk.Plugin(name="t", language="outputs", run=run), loop(), "run")
    self.assertEqual((reply.get("opts_applied"), reply.get("features"), "opts_skipped" in reply), ([], ["threads"], False), reply)


if __name__ == "__main__":
  unittest.main()
