#!/usr/bin/env python3
"""docs/design.md matches the tree: every source folder and every module of core/, interp/, codegen/,
fuzz/ and cli/ (a .h, .cpp or .def stem) is named on the page, and every file or folder the page names in
backticks exists. Run from the repository root (CTest does); prints what is missing either way."""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else "."
SOURCE = ("core", "interp", "codegen", "fuzz", "cli")
SKIP = {"build", ".git", "node_modules", "__pycache__"}
EXAMPLES = {"file.cpp"}  # the page's examples of messages, not files


def tree():
  files = []
  for top, dirs, names in os.walk(ROOT):
    dirs[:] = [d for d in dirs if d not in SKIP and not d.startswith("build")]
    rel = os.path.relpath(top, ROOT)
    files += [os.path.normpath(os.path.join(rel, n)) for n in names]
  return files


def main():
  doc = open(os.path.join(ROOT, "docs", "design.md"), encoding="utf-8").read()
  ticks = re.findall(r"`([^`\n]+)`", doc) + re.findall(r"\*\*([^*\n]+)\*\*", doc)
  words = {w for t in ticks for w in re.split(r"[\s,()+·:]+", t) if w}
  files = tree()
  paths, basenames = set(files), {os.path.basename(f) for f in files}
  folders = {os.path.dirname(f) for f in files}
  problems = []
  for f in sorted(files):
    top = f.split(os.sep)[0]
    if top not in SOURCE or not re.search(r"\.(h|cpp|def)$", f): continue
    d, stem = os.path.dirname(f), re.sub(r"\.(h|cpp|def)$", "", os.path.basename(f))
    if not any(re.search(r"(^|[^\w])" + re.escape(stem) + r"(\.h|\.cpp|\.def)?([^\w]|$)", t) for t in ticks):
      problems.append(f"{f}: module `{stem}` is not named in docs/design.md")
  for d in sorted(folders):
    if d.split(os.sep)[0] in SOURCE and d.count(os.sep) <= 1 and f"{d}/" not in words and d.split(os.sep)[-1] + "/" not in words:
      problems.append(f"{d}/: folder not named in docs/design.md")
  for w in sorted(words):
    w = w.rstrip(".;")
    if w in EXAMPLES or w.startswith("build") or re.search(r"[A-Z]{3,}", w): continue  # made, not tracked; a placeholder
    if re.fullmatch(r"[\w./-]+\.(h|cpp|def|py|md|sh|yml)", w):
      if w not in paths and os.path.basename(w) not in basenames and not any(p.endswith("/" + w) for p in paths):
        problems.append(f"docs/design.md names `{w}`, which is not in the tree")
    elif re.fullmatch(r"[\w-]+(/[\w-]+)*/", w) and not any(d == w.rstrip("/") or d.endswith("/" + w.rstrip("/")) for d in folders | {"."}):
      problems.append(f"docs/design.md names the folder `{w}`, which is not in the tree")
  for p in problems: print(p)
  print(f"{len(problems)} problems")
  return 1 if problems else 0


if __name__ == "__main__":
  sys.exit(main())
