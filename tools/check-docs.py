#!/usr/bin/env python3
"""Checks the docs against the files they show (standard library only; run from anywhere):

- every block announced by a line `<!-- example: examples/NAME.cpp -->` in docs/*.md and README.md is a
  ```cpp fence (```python for a .py file) holding exactly that file, so the code a guide shows is the code
  CI compiles and runs;
- each family guide (docs/split.md, hash.md, lsm.md, search.md) opens with such an example (before its
  first "## " section), and every examples/*_example.cpp is shown by some guide;
- every image a guide embeds (](images/...)) exists.

  tools/check-docs.py          check; exit 1 with one line per problem
  tools/check-docs.py --fix    rewrite the announced blocks from the files, then check
"""

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
FAMILY_GUIDES = ["split.md", "hash.md", "lsm.md", "search.md", "distributed.md"]
MARKER = re.compile(r"^<!-- example: (\S+) -->$")
IMAGE = re.compile(r"\]\((images/[^)\s]+)\)")


def fence(path):
    """The opening fence of a block showing `path`: ```python for Python files, else ```cpp."""
    return "```python" if path.endswith(".py") else "```cpp"


def blocks(lines):
    """(marker line index, path, fence start, fence end) for each announced example; fence end is the
    index of the closing ``` line, None when the block is missing or unclosed."""
    found = []
    for i, line in enumerate(lines):
        m = MARKER.match(line)
        if not m:
            continue
        start = i + 1
        end = None
        if start < len(lines) and lines[start] == fence(m.group(1)):
            end = next((j for j in range(start + 1, len(lines)) if lines[j] == "```"), None)
        found.append((i, m.group(1), start, end))
    return found


def check(fix):
    problems = []
    shown = set()
    for page in [*sorted(DOCS.glob("*.md")), REPO / "README.md"]:
        rel = page.relative_to(REPO)
        text = page.read_text(encoding="utf-8")
        lines = text.split("\n")
        changed = False
        for marker, path, start, end in reversed(blocks(lines)):
            source = REPO / path
            shown.add(path)
            if not source.is_file():
                problems.append(f"{rel}:{marker + 1}: {path} does not exist")
                continue
            body = source.read_text(encoding="utf-8").rstrip("\n").split("\n")
            if end is None:
                if fix:
                    lines[start:start] = [fence(path), *body, "```"]
                    changed = True
                else:
                    problems.append(f"{rel}:{marker + 1}: no {fence(path)} block after the marker of {path}")
            elif lines[start + 1:end] != body:
                if fix:
                    lines[start + 1:end] = body
                    changed = True
                else:
                    differ = next((k for k, (a, b) in enumerate(zip(lines[start + 1:end], body)) if a != b),
                                  min(end - start - 1, len(body)))
                    problems.append(f"{rel}:{start + 2 + differ}: the block differs from {path} (its line "
                                    f"{differ + 1}); tools/check-docs.py --fix copies the file in")
        if changed:
            page.write_text("\n".join(lines), encoding="utf-8")
            print(f"updated {rel}")
        for m in IMAGE.finditer(text):
            if not (DOCS / m.group(1)).is_file():
                problems.append(f"{rel}: embeds {m.group(1)}, which does not exist (tools/plot.py --docs)")
    for guide in FAMILY_GUIDES:
        lines = (DOCS / guide).read_text(encoding="utf-8").split("\n")
        first_section = next((i for i, l in enumerate(lines) if l.startswith("## ")), len(lines))
        if not any(marker < first_section for marker, *_ in blocks(lines)):
            problems.append(f"docs/{guide}: does not open with an example (<!-- example: examples/... --> "
                            f"before its first section)")
    for example in sorted((REPO / "examples").glob("*_example.cpp")):
        path = str(example.relative_to(REPO))
        if path not in shown:
            problems.append(f"{path}: no guide in docs/ shows it")
    return problems


def main():
    fix = sys.argv[1:] == ["--fix"]
    if sys.argv[1:] and not fix:
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(fix)
    for p in problems:
        print(f"tools/check-docs.py: {p}", file=sys.stderr)
    if not problems:
        print("docs agree with examples/ and docs/images/")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
