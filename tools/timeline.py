#!/usr/bin/env python3
"""Summarizes a GPU timeline written by tools/timeline.sh (CSV of kernels, copies, fills, runtime calls).

    tools/timeline.py TIMELINE.csv [--skip 0.5 | --begin-ms T --length-ms L] [--list 40] [--width 60]

Over the GPU records after the first --skip fraction of the run: the span, the time the GPU was busy
(the union of the records), and per kernel / copy / fill name the count, total and mean duration; then
the gaps between consecutive records; then --list records in order with their start offsets and
durations (a picture of the repeating pattern of a latency-bound loop). Runtime calls, when recorded
(WARPDEX_TIMELINE_API=1), are summed per name by host time.
"""
import argparse
import csv
import shutil
import statistics
import subprocess
from collections import defaultdict


def demangled(names):
    """Kernel names as c++filt prints them, where it is installed (CUPTI gives mangled names)."""
    names = sorted(set(names))
    if not names or not shutil.which("c++filt"):
        return {name: name for name in names}
    result = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True)
    lines = result.stdout.split("\n")
    return {name: lines[i] if i < len(lines) and lines[i] else name for i, name in enumerate(names)}


def short(name, width):
    name = name.removeprefix("void ")
    for noise in ("CUB_300000_SM_900::", "THRUST_300000_SM_900_NS::", "(anonymous namespace)::"):
        name = name.replace(noise, "")
    return name if len(name) <= width else name[: width - 3] + "..."


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("timeline")
    parser.add_argument("--skip", type=float, default=0.5, help="fraction of the run (by time) left out first")
    parser.add_argument("--begin-ms", type=float, help="window start, ms after the first record (instead of --skip)")
    parser.add_argument("--length-ms", type=float, help="window length in ms")
    parser.add_argument("--after", help="window start at the --nth record whose name contains this text")
    parser.add_argument("--nth", type=int, default=1, help="which record --after names (1 = the first)")
    parser.add_argument("--list", type=int, default=40, help="records listed in order")
    parser.add_argument("--width", type=int, default=60, help="characters of a name shown")
    args = parser.parse_args()

    gpu, api = [], []
    with open(args.timeline, newline="") as f:
        for row in csv.DictReader(f):
            record = (int(row["start_ns"]), int(row["end_ns"]), row["kind"], row["name"], row["bytes_or_blocks"])
            (api if row["kind"] in ("runtime", "driver") else gpu).append(record)
    if not gpu:
        raise SystemExit("no GPU records")
    gpu.sort()
    first, last = gpu[0][0], max(r[1] for r in gpu)
    if args.after:
        named = [r[0] for r in gpu if args.after in r[3]]
        if len(named) < args.nth:
            raise SystemExit(f"{len(named)} records name {args.after!r}, fewer than --nth {args.nth}")
        begin = named[args.nth - 1]
    elif args.begin_ms is not None:
        begin = first + int(args.begin_ms * 1e6)
    else:
        begin = first + int(args.skip * (last - first))
    end = begin + int(args.length_ms * 1e6) if args.length_ms is not None else last
    gpu = [r for r in gpu if begin <= r[0] < end]
    api = [r for r in api if begin <= r[0] < end]
    if not gpu:
        raise SystemExit("no GPU records in the window")
    readable = demangled(r[3] for r in gpu)
    gpu = [(start, end, kind, readable[name], size) for start, end, kind, name, size in gpu]
    span = max(r[1] for r in gpu) - gpu[0][0]
    busy, gaps, reach = 0, [], gpu[0][0]
    for start, end, *_ in gpu:
        if start > reach:
            gaps.append(start - reach)
        busy += max(0, end - max(start, reach))
        reach = max(reach, end)
    print(f"{len(gpu)} GPU records over {span / 1e6:.3f} ms: busy {busy / 1e6:.3f} ms ({100 * busy / span:.1f}%), "
          f"{len(gaps)} gaps totalling {sum(gaps) / 1e6:.3f} ms, median gap {statistics.median(gaps) / 1e3 if gaps else 0:.2f} us")
    per_name = defaultdict(list)
    for start, end, kind, name, _ in gpu:
        per_name[(kind, short(name, args.width))].append(end - start)
    print(f"\n{'kind':8} {'name':{args.width}} {'count':>7} {'total ms':>9} {'mean us':>8}")
    for (kind, name), durations in sorted(per_name.items(), key=lambda item: -sum(item[1])):
        print(f"{kind:8} {name:{args.width}} {len(durations):7d} {sum(durations) / 1e6:9.3f} {statistics.mean(durations) / 1e3:8.2f}")
    if api:
        per_call = defaultdict(list)
        for start, end, kind, name, _ in api:
            per_call[name].append(end - start)
        print(f"\n{'runtime call':{args.width}} {'count':>7} {'host ms':>9} {'mean us':>8}")
        for name, durations in sorted(per_call.items(), key=lambda item: -sum(item[1]))[:25]:
            print(f"{name:{args.width}} {len(durations):7d} {sum(durations) / 1e6:9.3f} {statistics.mean(durations) / 1e3:8.2f}")
    if args.list:
        print(f"\n{'start us':>9} {'dur us':>7} {'gap us':>7}  name")
        previous_end = gpu[0][0]
        for start, end, kind, name, size in gpu[: args.list]:
            print(f"{(start - gpu[0][0]) / 1e3:9.2f} {(end - start) / 1e3:7.2f} {(start - previous_end) / 1e3:7.2f}  "
                  f"{kind} {short(name, args.width)} [{size}]")
            previous_end = max(previous_end, end)


if __name__ == "__main__":
    main()
