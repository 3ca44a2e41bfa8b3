#!/usr/bin/env python3
"""`warpdex grep`'s memory is bounded by its chunk, not by the file (issue 21, rows 5 and 6).

Peak resident memory of each run (os.wait4), less that of a run over an empty file, must stay within the
chunks' budget: `grep_pipeline_slots` = 4 chunks plus slack, whatever the file's size; a chunk larger than
the file is not allocated in full. Counts are checked against GNU grep -c.

usage: grep_memory.py WARPDEX
"""
import os
import subprocess
import sys
import tempfile
import time

MIB = 1 << 20


def high_water(pid):
    """VmHWM of a live process in bytes, or 0 once it has exited."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def peak_rss(command):
    """(exit status, standard output, peak resident bytes) of one run. The peak is polled from /proc: the
    rusage of a child forked from this (large) interpreter would report the interpreter's own size."""
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        peak = 0
        while child.poll() is None:
            peak = max(peak, high_water(child.pid))
            time.sleep(0.001)
        out.seek(0)
        return child.returncode, out.read(), peak


def main():
    warpdex = os.path.abspath(sys.argv[1])
    failures = 0
    with tempfile.TemporaryDirectory() as work:
        big = os.path.join(work, "lines1000.txt")  # 64 MiB of 1000-byte lines, an 'e' in each
        line = (b"abcdefghijklmnopqrstuvwxyz" * 40)[:999] + b"\n"
        with open(big, "wb") as out:
            out.write(line * (64 * MIB // len(line)))
        small = os.path.join(work, "small.txt")  # 1 MiB
        with open(small, "wb") as out:
            out.write(line * (MIB // len(line)))
        empty = os.path.join(work, "empty.txt")
        open(empty, "wb").close()
        base = [warpdex, "--backend", "host", "grep", "-c", "e"]
        baseline = 0  # the peak of a run that allocates no chunk (the search of an empty input)
        for _ in range(3):
            baseline = max(baseline, peak_rss(base + [empty])[2])
        cases = [
            ("default 1 MiB chunks, 64 MiB file", base + [big], big, 24 * MIB),
            ("8 MiB chunks, 64 MiB file", base + ["--chunk-mib", "8"] + [big], big, 4 * 8 * MIB + 24 * MIB),
            ("row 6: 64 GiB chunks asked, 1 MiB file", base + ["--chunk-mib", "65536", small], small, 24 * MIB),
            ("1 GiB chunks asked, 64 MiB file", base + ["--chunk-mib", "1024", big], big, 2 * 64 * MIB + 24 * MIB),
        ]
        for what, command, path, budget in cases:
            status, output, rss = peak_rss(command)
            expected = subprocess.run(["grep", "-F", "-c", "e", path], capture_output=True).stdout
            grown = rss - baseline
            ok = status == 0 and output == expected and grown <= budget
            failures += not ok
            print(f"{'ok' if ok else 'FAILED'}: {what}: status {status}, count {output.strip().decode()} "
                  f"(grep -c: {expected.strip().decode()}), peak RSS {rss / MIB:.1f} MiB, "
                  f"{grown / MIB:.1f} MiB above an empty file's (budget {budget / MIB:.0f} MiB)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
