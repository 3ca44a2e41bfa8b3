#!/usr/bin/env python3
"""Draws warpdex-bench result records (bench/results/*.json) as PNG charts, one set per family.

A family is the first component of a row name (multisplit, slab_map, lsm, search, ...). For each family:
  <family>-ratio.png   the ratio to the baseline per row (bars; the line at 1.0 is parity)
  <family>-sol.png     the fraction of the memory-bandwidth speed of light per row
  <family>-sweep.png   rows that differ only in one numeric name parameter (m=, n=, q=, util=, fill=,
                       batch=, ...) as lines of the ratio against that parameter
A chart with nothing to show (no row has a ratio, ...) is not written.

  tools/plot.py [-o DIR] [--family F ...] [RECORD ...]
  tools/plot.py --docs       the charts in docs/images/, from the newest committed record of each family

Without RECORD files, each family comes from the newest record in bench/results/ that has rows of it:
the latest "date" field, then the latest commit that added the file (git), then the file name. With
several RECORD files, a family comes from the last one named that has it.
Run it with the project's environment: tools/python-env.sh creates .venv/ with pinned matplotlib/numpy.
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
DOCS_IMAGES = REPO / "docs" / "images"

# The families each docs page shows (docs/<page>.md embeds images/<family>-<chart>.png).
DOCS_FAMILIES = {
    "split": ["multisplit", "warp_multisplit", "radix_sort", "histogram"],
    "hash": ["slab_map", "slab_alloc"],
    "lsm": ["lsm"],
    "search": ["search", "strmatch", "grep"],
}


class RecordError(Exception):
    """A record file that is not a warpdex-bench result record."""


def fail(message):
    print(f"tools/plot.py: {message}", file=sys.stderr)
    sys.exit(2)


def _is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def load_record(path):
    """Reads and validates one record; returns its dict. Raises RecordError naming what is wrong."""
    try:
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
    except OSError as e:
        raise RecordError(f"{path}: cannot read: {e.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise RecordError(f"{path}: not JSON: {e}") from None
    if not isinstance(record, dict):
        raise RecordError(f"{path}: not a result record (expected a JSON object with \"rows\")")
    rows = record.get("rows")
    if not isinstance(rows, list):
        raise RecordError(f"{path}: no \"rows\" list")
    for i, row in enumerate(rows):
        where = f"{path}: row {i}"
        if not isinstance(row, dict):
            raise RecordError(f"{where}: not an object")
        name = row.get("name")
        if not isinstance(name, str) or not name or name.startswith("/"):
            raise RecordError(f"{where}: \"name\" must be a non-empty string like \"family/operation/...\"")
        where = f"{path}: row {i} ({name})"
        if not _is_number(row.get("value")):
            raise RecordError(f"{where}: \"value\" must be a finite number, got {row.get('value')!r}")
        for key in ("ratio", "sol_fraction", "baseline_value"):
            if row.get(key) is not None and not _is_number(row[key]):
                raise RecordError(f"{where}: \"{key}\" must be a number or null, got {row[key]!r}")
        if not isinstance(row.get("verified"), bool):
            raise RecordError(f"{where}: \"verified\" must be true or false")
        if not isinstance(row.get("unit", ""), str):
            raise RecordError(f"{where}: \"unit\" must be a string")
    return record


def family_of(name):
    return name.split("/", 1)[0]


def _git_added_time(path):
    """Unix time of the commit that added path, 0 when git does not know it."""
    try:
        out = subprocess.run(
            ["git", "-C", str(REPO), "log", "--diff-filter=A", "--format=%ct", "-1", "--", str(path)],
            capture_output=True, text=True, check=False, timeout=30).stdout.strip()
        return int(out) if out else 0
    except (OSError, ValueError, subprocess.SubprocessError):
        return 0


def newest_per_family(paths):
    """{family: (path, record)} from the newest record having each family (date, git add time, name).
    Files git has not seen yet count as newer than every committed one."""
    records = []
    for path in paths:
        record = load_record(path)
        added = _git_added_time(path) or float("inf")
        records.append(((str(record.get("date", "")), added, path.name), path, record))
    records.sort(key=lambda r: r[0])
    chosen = {}
    for _, path, record in records:  # oldest first: newer records overwrite
        for family in {family_of(row["name"]) for row in record["rows"]}:
            chosen[family] = (path, record)
    return chosen


def last_per_family(paths):
    chosen = {}
    for path in paths:
        record = load_record(path)
        for family in {family_of(row["name"]) for row in record["rows"]}:
            chosen[family] = (path, record)
    return chosen


_POWER = re.compile(r"^(\d+)\^(\d+)$")


def parse_number(text):
    """A numeric name parameter: 123, 0.6, 3., 2^26; None for anything else."""
    m = _POWER.match(text)
    if m:
        return float(int(m.group(1)) ** int(m.group(2)))
    try:
        x = float(text)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def find_sweeps(rows):
    """{parameter: [(label, [(x, row), ...]), ...]} for row groups whose names differ only in one
    numeric parameter, with at least two distinct values and a ratio in every row."""
    groups = {}
    for row in rows:
        if row.get("ratio") is None:
            continue
        parts = row["name"].split("/")
        for i, part in enumerate(parts):
            key, eq, value = part.partition("=")
            if not eq:
                continue
            x = parse_number(value)
            if x is None:
                continue
            pattern = "/".join(parts[1:i] + [f"{key}=*"] + parts[i + 1:])
            groups.setdefault((key, pattern), {})[x] = row  # "fill=3" and "fill=3.": the later one
    sweeps = {}
    for (key, pattern), points in sorted(groups.items()):
        if len(points) >= 2:
            sweeps.setdefault(key, []).append((pattern, sorted(points.items())))
    return sweeps


def _title(family, record, path):
    return f"{family} — {record.get('gpu', '?')}, {record.get('date', '?')}, " \
           f"commit {str(record.get('commit', '?'))[:8]} ({path.name})"


def _bar_chart(plt, family, record, path, rows, key, xlabel, out, parity):
    rows = [r for r in rows if r.get(key) is not None]
    if not rows:
        return None
    labels = [r["name"].split("/", 1)[1] if "/" in r["name"] else r["name"] for r in rows]
    labels = [l + ("" if r["verified"] else "  (unverified)") for l, r in zip(labels, rows)]
    values = [r[key] for r in rows]
    height = 1.2 + 0.28 * len(rows)
    fig, ax = plt.subplots(figsize=(11, height))
    y = list(range(len(rows)))
    colors = ["#2b7bba" if (not parity or v >= 1.0) else "#d9742b" for v in values]
    bars = ax.barh(y, values, color=colors)
    for bar, r in zip(bars, rows):
        if not r["verified"]:
            bar.set_hatch("//")
    for yi, v in zip(y, values):
        ax.text(v, yi, f" {v:.2f}", va="center", fontsize=8)
    if parity:
        ax.axvline(1.0, color="black", linewidth=1)
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, max(max(values), 1.0 if parity else 0.0) * 1.15 or 1.0)
    ax.set_xlabel(xlabel)
    ax.set_title(_title(family, record, path), fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


def _sweep_chart(plt, family, record, path, rows, out):
    sweeps = find_sweeps(rows)
    if not sweeps:
        return None
    keys = list(sweeps)
    fig, axes = plt.subplots(len(keys), 1, figsize=(11, 4.2 * len(keys)), squeeze=False)
    for ax, key in zip(axes[:, 0], keys):
        xs_all = []
        for label, points in sweeps[key]:
            xs = [x for x, _ in points]
            xs_all += xs
            ax.plot(xs, [r["ratio"] for _, r in points], marker="o", label=label)
        if min(xs_all) > 0 and max(xs_all) / min(xs_all) >= 16:
            ax.set_xscale("log", base=2)
        ax.axhline(1.0, color="black", linewidth=1)
        ax.set_xlabel(key)
        ax.set_ylabel("ratio to baseline")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    axes[0, 0].set_title(_title(family, record, path), fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


def plot_family(plt, family, path, record, out_dir):
    rows = [r for r in record["rows"] if family_of(r["name"]) == family]
    written = [
        _bar_chart(plt, family, record, path, rows, "ratio", "ratio to baseline (> 1: faster)",
                   out_dir / f"{family}-ratio.png", parity=True),
        _bar_chart(plt, family, record, path, rows, "sol_fraction",
                   "fraction of the speed of light (bytes moved / copy bandwidth)",
                   out_dir / f"{family}-sol.png", parity=False),
        _sweep_chart(plt, family, record, path, rows, out_dir / f"{family}-sweep.png"),
    ]
    return [w for w in written if w is not None]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="*", type=Path, help="record files (default: bench/results/)")
    parser.add_argument("-o", "--output", type=Path, help="output folder (created)")
    parser.add_argument("--family", action="append", help="only this family (repeatable)")
    parser.add_argument("--docs", action="store_true",
                        help="regenerate docs/images/ from the newest committed records")
    args = parser.parse_args(argv)

    if args.docs:
        if args.records or args.output or args.family:
            fail("--docs takes no records, --output or --family")
        args.output = DOCS_IMAGES
        args.family = [f for families in DOCS_FAMILIES.values() for f in families]
    if args.output is None:
        fail("an output folder is needed: -o DIR (or --docs)")

    try:
        if args.records:
            chosen = last_per_family(args.records)
        else:
            paths = sorted(RESULTS.glob("*.json"))
            if not paths:
                fail(f"no records in {RESULTS}")
            chosen = newest_per_family(paths)
    except RecordError as e:
        fail(str(e))

    families = sorted(chosen)
    if args.family:
        missing = [f for f in args.family if f not in chosen]
        if missing and not args.docs:
            fail(f"no rows of {', '.join(missing)} in the records (families: {', '.join(families)})")
        families = [f for f in families if f in args.family]

    os.environ.setdefault("MPLBACKEND", "Agg")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail("matplotlib is missing: run tools/python-env.sh, then .venv/bin/python tools/plot.py ...")

    args.output.mkdir(parents=True, exist_ok=True)
    if args.docs:
        for old in args.output.glob("*.png"):
            old.unlink()
    for family in families:
        path, record = chosen[family]
        for out in plot_family(plt, family, path, record, args.output):
            print(f"{out} ({path.name})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
