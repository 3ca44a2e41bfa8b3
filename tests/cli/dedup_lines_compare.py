#!/usr/bin/env python3
"""`warpdex dedup --lines` (and --once) against awk's first-occurrence count, byte for byte, and its memory
bounded by the block, not the file (issue 45, row 21).

Texts: random lines from a fresh seed (printed) with CRLF, NUL bytes and no final newline, Zipf-repeated
lines, lines longer than the block, only newlines, empty input; each at blocks of 3, 5 and 4096 bytes
(WARPDEX_DEDUP_CHUNK_BYTES) and the default, from a file and from standard input. awk reads lines ending at
'\\n' with a '\\r' before it dropped (RS = "\\r?\\n"), as dedup --lines does. Then the peak resident memory
of a 24 MiB file at 256 KiB blocks, less that of an empty file's run, must stay under 8 MiB.

usage: dedup_lines_compare.py WARPDEX [BACKEND...]   (backends: host by default)
"""
import os
import random
import subprocess
import sys
import tempfile

from grep_memory import MIB, peak_rss

AWK_COUNT = r'BEGIN { RS = "\r?\n" } !($0 in c) { o[n++] = $0 } { c[$0]++ } ' \
            r'END { for (i = 0; i < n; i++) printf "%7d %s\n", c[o[i]], o[i] }'
AWK_ONCE = r'BEGIN { RS = "\r?\n" } !($0 in c) { o[n++] = $0 } { c[$0]++ } ' \
           r'END { for (i = 0; i < n; i++) if (c[o[i]] == 1) print o[i] }'


def texts(rng):
    """(name, bytes) of every text compared."""
    pool = [bytes(rng.choice(b"ab\x00\r\t z") for _ in range(rng.randrange(0, 20))) for _ in range(200)]
    lines = [rng.choice(pool) + (b"\r\n" if rng.random() < 0.2 else b"\n") for _ in range(1500)]
    random_text = b"".join(lines)
    zipf = b"".join(pool[min(int(rng.paretovariate(1.1)) - 1, len(pool) - 1)] + b"\n" for _ in range(1500))
    long_lines = b"".join(rng.choice([b"x" * 5000, b"y" * 9000 + b"\r", b"x" * 5000 + b"z"]) + b"\n"
                          for _ in range(6))
    return [
        ("random, no final newline", random_text[:-1]),
        ("zipf", zipf),
        ("lines longer than the blocks", long_lines + b"x" * 7000),
        ("only newlines", b"\n\r\n\n\n"),
        ("a bare carriage return", b"\r"),
        ("empty", b""),
    ]


def main():
    warpdex = os.path.abspath(sys.argv[1])
    backends = sys.argv[2:] or ["host"]
    seed = random.SystemRandom().randrange(1 << 32)
    print(f"seed {seed}")
    rng = random.Random(seed)
    failures = 0
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "in.txt")
        for name, text in texts(rng):
            with open(path, "wb") as out:
                out.write(text)
            for once, program in ((False, AWK_COUNT), (True, AWK_ONCE)):
                expected = subprocess.run(["awk", program, path], capture_output=True, check=True).stdout
                for backend in backends:
                    for chunk, stdin in (("3", False), ("5", False), ("4096", False), ("", False), ("", True)):
                        command = [warpdex, "--backend", backend, "dedup", "-" if stdin else path, "--lines"]
                        command += ["--once"] if once else []
                        environment = dict(os.environ, WARPDEX_DEDUP_CHUNK_BYTES=chunk)
                        with open(path, "rb") as source:
                            run = subprocess.run(command, stdin=source if stdin else None, capture_output=True,
                                                 env=environment)
                        if run.returncode != 0 or run.stdout != expected:
                            failures += 1
                            print(f"FAILED: {name}, {backend}, block {chunk or 'default'}, "
                                  f"{'--once, ' if once else ''}{'stdin' if stdin else 'file'}: "
                                  f"status {run.returncode}, {len(run.stdout)} bytes where awk wrote "
                                  f"{len(expected)}; {run.stderr.decode(errors='replace').strip()}")
            print(f"{name}: {len(text)} bytes compared")

        # Memory: blocks of 256 KiB over a 24 MiB file of few distinct lines.
        big = os.path.join(work, "big.txt")
        with open(big, "wb") as out:
            for _ in range(24):
                out.write(b"".join(rng.choice(pool_lines()) for _ in range(MIB // 64)))
        empty = os.path.join(work, "empty.txt")
        open(empty, "wb").close()
        os.environ["WARPDEX_DEDUP_CHUNK_BYTES"] = str(MIB // 4)  # peak_rss's runs inherit it
        for backend in backends:
            base = [warpdex, "--backend", backend, "dedup", "--lines"]
            baseline = max(peak_rss(base + [empty])[2] for _ in range(3))
            status, output, rss = peak_rss(base + [big])
            expected = subprocess.run(["awk", AWK_COUNT, big], capture_output=True, check=True).stdout
            grown = rss - baseline
            # peak_rss merges standard error (the summary line) after standard output.
            same = output.startswith(expected) and output[len(expected):].startswith(b"warpdex dedup:")
            ok = status == 0 and same and grown <= 8 * MIB
            failures += not ok
            print(f"{'ok' if ok else 'FAILED'}: {backend}: 24 MiB file, 256 KiB blocks: status {status}, output "
                  f"{'equal to' if same else 'unlike'} awk's, peak RSS {rss / MIB:.1f} MiB, "
                  f"{grown / MIB:.1f} MiB above an empty file's (budget 8 MiB)")
    print(f"{failures} failures")
    return 1 if failures else 0


def pool_lines():
    """The 64-byte lines of the memory case (a fixed few)."""
    return [bytes([ord("a") + k]) * 63 + b"\n" for k in range(20)]


if __name__ == "__main__":
    sys.exit(main())
