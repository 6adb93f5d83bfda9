# uopfuzz_suggest.py: the handshake keys of what a target suggests for a campaign (docs/format.md, section 5):
# `policy`, `seeds`, `known` (paths, given to uopfuzz relative to the working directory), `backends` (its
# sibling configurations), `cc`, `cflags` (the compiler its language needs) and `command` (its own command
# line, every option spelled out). Part of the Python SDK
# (uopfuzz_plugin.py's Plugin takes them as keyword arguments).
import os
import re

BACKEND_KEYS = ("name", "renderer", "cc", "cflags")


def suggestion_keys(suggestions):
  """{key: value or a function giving one, or None} -> the handshake's keys, those given; ValueError saying
  what is wrong with one."""
  out = {}
  for key, given in suggestions.items():
    value = given() if callable(given) else given
    if value is None: continue
    if key in ("cc", "cflags", "command"):
      if not isinstance(value, str): raise ValueError(f"{key}: {value!r} is not a string")
      out[key] = value
    elif key in ("policy", "known"): out[key] = suggested_path(key, value)
    elif key == "seeds":
      if isinstance(value, str) or not all(isinstance(p, str) for p in value): raise ValueError("seeds: a list of directories")
      out[key] = [suggested_path(key, p) for p in value]
    else: out[key] = [backend_row(b) for b in value]
  return out


def suggested_path(key, path):
  if not isinstance(path, str) or not path: raise ValueError(f"{key}: {path!r} is not a path")
  return os.path.relpath(os.path.abspath(path))


def backend_row(b):
  if not isinstance(b, dict) or not isinstance(b.get("name"), str) or not isinstance(b.get("renderer"), str):
    raise ValueError(f"backends: {b!r} is not {{name, renderer[, cc, cflags]}}")
  if not re.fullmatch(r"[a-z][a-z0-9_-]*", b["name"]): raise ValueError(f"backends: name {b['name']!r} is not a lowercase word")
  bad = next((k for k, v in b.items() if k not in BACKEND_KEYS or not isinstance(v, str)), None)
  if bad is not None: raise ValueError(f"backends: {b['name']}'s {bad!r}: not a string, or a key other than renderer, cc, cflags")
  return dict(b)
