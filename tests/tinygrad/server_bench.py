#!/usr/bin/env python3
# server_bench.py PROGRAM...: renders each program with the tinygrad adapter twice, in server mode (one
# process, JSON lines) and one process per program, checks the two give the same C (or both an error),
# and prints the time per render of each. With PYTHONPATH holding tinygrad, from the repository root.
import json, subprocess, sys, time

ADAPTER = [sys.executable, "-B", "plugins/tinygrad/uopfuzz_tinygrad.py"]


def main(files):
  start = time.monotonic()
  server = subprocess.Popen(ADAPTER + ["--uopfuzz-serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
  served, first = [], None
  with server:
    for k, f in enumerate(files):
      with open(f) as text:
        server.stdin.write(json.dumps({"id": k, "kind": "render", "function": "k", "program": text.read()}) + "\n")
      server.stdin.flush()
      reply = json.loads(server.stdout.readline())
      assert reply["id"] == k, reply
      served.append(reply.get("source"))
      first = first or time.monotonic() - start
    server.stdin.close()
  server_seconds = time.monotonic() - start
  start, differ = time.monotonic(), 0
  for f, source in zip(files, served):
    one = subprocess.run(ADAPTER + [f, "k"], capture_output=True, text=True)
    if (one.stdout if one.returncode == 0 else None) != source:
      differ += 1
      print(f"differs: {f}")
  one_seconds = time.monotonic() - start
  n = len(files)
  print(f"{n} programs, {sum(s is not None for s in served)} rendered, {differ} differ between the modes")
  print(f"server mode: {server_seconds:.2f} s, {1000 * server_seconds / n:.0f} ms per render with the start; first reply after"
        f" {first:.2f} s (start, tinygrad import, first render), then {1000 * (server_seconds - first) / max(n - 1, 1):.0f} ms per render")
  print(f"one process per program: {one_seconds:.2f} s, {1000 * one_seconds / n:.0f} ms per render")
  return 1 if differ else 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
