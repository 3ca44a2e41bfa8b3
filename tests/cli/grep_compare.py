#!/usr/bin/env python3
"""`warpdex grep` against GNU `grep -F` (LC_ALL=C) byte for byte on generated files.

For each case: the same arguments to both; standard output and the exit status must be equal, and standard
error too once each program's name ("grep: ", "warpdex grep: ") is taken off. Files are generated from a
seed (fixed seeds first, then a fresh one, printed so that a failure can be replayed with --seed).

Pattern files of 10 and 1000 patterns (pieces of the files, random strings, prefixes of each other, CR at
the end, an empty line) and, with --big-set N, one run with N patterns, test large pattern sets.

With --set-cases N, N more cases use only what the cuda backend answers on the GPU for several patterns
or -i (-c, -l, -L, -q, -v, -i, -w, -x, -H, -h, -n, -b, -o, printing the lines), on the files and a text of several MiB; with
--chunk-mib, warpdex reads in chunks of that size, so that a file spans several.

usage: grep_compare.py WARPDEX [--backend host] [--seed N] [--cases N] [--builtin-matcher] [--big-set N]
                       [--set-cases N] [--chunk-mib N] [--no-mmap]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

WORDS = ["the", "The", "THE", "of", "and", "quartz", "nebula", "Quartz", "foo", "foobar", "bar_baz", "a", "aa",
         "aaa", "x", "hello", "Hello", "HELLO", "world", "w0rld", "x-ray", "end.", "tab\tbed", "caf\xe9", "z"]


def make_text(rng, kind, long_lines=True):
    """Bytes of one generated file of the given kind."""
    lines = []
    count = {"small": rng.randint(0, 12), "medium": rng.randint(50, 400), "large": rng.randint(30000, 60000)}[kind]
    for _ in range(count):
        shape = rng.random()
        if shape < 0.08:
            lines.append("")
        elif shape < 0.12:
            lines.append(rng.choice(WORDS))  # a line that is one word (for -x)
        elif shape < 0.14 and long_lines:
            lines.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(200, 2000))))  # a long line
        else:
            sep = rng.choice([" ", " ", " ", ",", "_", "", "-"])
            lines.append(sep.join(rng.choice(WORDS) for _ in range(rng.randint(1, 14))))
    text = "\n".join(lines)
    if lines and rng.random() < 0.8:
        text += "\n"  # most files end with a newline; some do not
    return text.encode("latin-1")


def make_binary(rng):
    """A file with a NUL byte in its first KiB (binary from the start)."""
    text = bytearray(make_text(rng, "medium"))
    at = rng.randint(0, min(len(text), 1000))
    text[at:at] = b"\0" * rng.randint(1, 3)
    return bytes(text)


def make_crlf(rng):
    """A text file whose lines end with CR LF."""
    return make_text(rng, "medium").replace(b"\n", b"\r\n")


def make_pattern_set(rng, texts, count, empty_line=False):
    """A pattern file of `count` patterns: pieces of the texts (so that many occur), random strings of 6 to
    12 letters (most absent), patterns that are prefixes of others or overlap them, CR-terminated ones;
    with an empty line when asked (which matches every line)."""
    pieces = [line for text in texts for line in text.split(b"\n") if line]
    patterns = []
    while len(patterns) < count:
        shape = rng.random()
        if shape < 0.45 and pieces:
            line = rng.choice(pieces)
            start = rng.randrange(len(line))
            patterns.append(line[start:start + rng.randint(1, 12)])
        elif shape < 0.85:
            patterns.append(bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(6, 12))))
        elif shape < 0.95 and patterns:
            other = rng.choice(patterns)
            patterns.append(other[:rng.randint(1, len(other))] if rng.random() < 0.5 else other + b"o")
        else:
            patterns.append(rng.choice(WORDS).encode("latin-1") + b"\r")
    if empty_line:
        patterns.insert(rng.randrange(len(patterns) + 1), b"")
    return b"\n".join(patterns) + b"\n"


def pattern_choices(rng):
    choice = rng.random()
    if choice < 0.6:
        return [rng.choice(WORDS)]
    if choice < 0.7:
        return [rng.choice(["e", "o", "a", " ", "the ", "oo", "_", "."])]
    if choice < 0.9:
        return rng.sample(WORDS, rng.randint(2, 5))
    return [rng.choice(["", "hello\nworld", "quartz nebula", "zzz-not-there"])]


SET_FLAGS = ["-i", "-v", "-w", "-x", "-c", "-l", "-L", "-q", "-H", "-h", "-n", "-b", "-o"]
FLAGS = ["-i", "-v", "-w", "-x", "-c", "-l", "-L", "-o", "-n", "-b", "-H", "-h", "-q", "-s"]


# Only to stop a hang: the 10^5-pattern case (GNU grep -F and warpdex) ran past 60 s on 2 busy cores.
RUN_TIMEOUT_S = 600


def run(cmd, cwd, stdin=None, piped=False):
    """Runs cmd with standard input from the file `stdin` (redirected, or through a pipe when `piped`)."""
    env = dict(os.environ, LC_ALL="C")
    if stdin and piped:
        with open(stdin, "rb") as source:
            data = source.read()
        done = subprocess.run(cmd, cwd=cwd, input=data, capture_output=True, env=env, timeout=RUN_TIMEOUT_S)
        return done.returncode, done.stdout, done.stderr
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as source:
        done = subprocess.run(cmd, cwd=cwd, stdin=source, capture_output=True, env=env, timeout=RUN_TIMEOUT_S)
    return done.returncode, done.stdout, done.stderr


def normalized_stderr(text, name):
    return b"\n".join(line[len(name):] if line.startswith(name) else line for line in text.split(b"\n"))


def compare(args, work, tail, stdin, piped, label, failures):
    """Runs GNU grep -F and warpdex grep with the arguments `tail`; prints a difference (the first ten of a
    run); returns 1 when they differ."""
    expected = run(["grep", "-F"] + tail, work, stdin, piped)
    matcher = ["--builtin-matcher"] if args.builtin_matcher else []
    if args.chunk_mib:
        matcher += ["--chunk-mib", str(args.chunk_mib)]
    if args.no_mmap:
        matcher += ["--no-mmap"]
    got = run([args.warpdex, "--backend", args.backend, "grep"] + matcher + tail, work, stdin, piped)
    same = (expected[0] == got[0] and expected[1] == got[1] and
            normalized_stderr(expected[2], b"grep: ") == normalized_stderr(got[2], b"warpdex grep: "))
    if same:
        return 0
    if failures < 10:
        print(f"DIFFERENT ({label}): grep -F {' '.join(map(repr, tail))}"
              f"{' < ' + os.path.basename(stdin) if stdin else ''}")
        print(f"  grep:    status {expected[0]}, stdout {expected[1][:300]!r}, stderr {expected[2][:200]!r}")
        print(f"  warpdex: status {got[0]}, stdout {got[1][:300]!r}, stderr {got[2][:200]!r}")
    return 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("warpdex")
    parser.add_argument("--backend", default="host")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--builtin-matcher", action="store_true",
                        help="run warpdex grep with --builtin-matcher (the matcher used without Hyperscan)")
    parser.add_argument("--set-cases", type=int, default=0,
                        help="cases with several patterns or -i and options the GPU selects lines for")
    parser.add_argument("--chunk-mib", type=int, default=0, help="warpdex grep's --chunk-mib")
    parser.add_argument("--no-mmap", action="store_true",
                        help="run warpdex grep with --no-mmap (regular files read into buffers, not mapped)")
    parser.add_argument("--big-set", type=int, default=0,
                        help="also compare one run with a pattern file of this many patterns (fresh seed only)")
    args = parser.parse_args()
    args.warpdex = os.path.abspath(args.warpdex)
    fresh = [random.SystemRandom().randrange(1 << 30)]
    seeds = [args.seed] if args.seed is not None else ([1, 2] if args.cases else []) + fresh  # --cases 0: fresh only
    failures = 0
    total = 0
    for seed in seeds:
        rng = random.Random(seed)
        with tempfile.TemporaryDirectory() as work:
            files = []
            for i in range(6):
                kind = ["small", "small", "medium", "medium", "medium", "large" if args.cases else "medium"][i]
                name = f"f{i}.txt"
                with open(os.path.join(work, name), "wb") as out:
                    out.write(make_text(rng, kind))
                files.append(name)
            with open(os.path.join(work, "bin.dat"), "wb") as out:
                out.write(make_binary(rng))
            files.append("bin.dat")
            with open(os.path.join(work, "crlf.txt"), "wb") as out:
                out.write(make_crlf(rng))
            files.append("crlf.txt")
            texts = []
            for name in files:
                with open(os.path.join(work, name), "rb") as source:
                    texts.append(source.read())
            pattern_sets = {"set10": (10, False), "set1000": (1000, False), "set1000e": (1000, True)}
            for name, (count, empty_line) in pattern_sets.items():
                with open(os.path.join(work, name), "wb") as out:
                    out.write(make_pattern_set(rng, texts, count, empty_line))
            # A NUL byte far into a file: GNU grep prints the lines of its 96 KiB reads before that one
            # (reads it shortens by a page after an incomplete line of 4 KiB or more: short lines here).
            if args.cases:  # (the longest file to make; only the random cases read it)
                late = bytearray(b"".join(make_text(rng, "medium", long_lines=False) for _ in range(60)))
                # GNU grep carries a read's incomplete last line into its next read, which it shortens by a
                # page when that line reaches past its buffer's offset in a page (an address this test cannot
                # know, often a few dozen bytes): a line ends at every 96 KiB here, so no read is shortened.
                for end in range(96 << 10, len(late), 96 << 10):
                    late[end - 1] = ord("\n")
                nul = rng.randint(len(late) // 4, len(late) - 1)
                while late[nul] == ord("\n"):
                    nul -= 1
                late[nul] = 0
                with open(os.path.join(work, "late.dat"), "wb") as out:
                    out.write(late)
                files.append("late.dat")
            os.makedirs(os.path.join(work, "dir", "sub"))
            for name in ["a.txt", "sub/b.txt"]:
                with open(os.path.join(work, "dir", name), "wb") as out:
                    out.write(make_text(rng, "small"))
            with open(os.path.join(work, "patterns"), "wb") as out:
                out.write("\n".join(rng.sample(WORDS, 3)).encode("latin-1") + b"\n")
            with open(os.path.join(work, "empty"), "wb"):
                pass
            with open(os.path.join(work, "many"), "wb") as out:  # more patterns than the memchr cursors
                out.write("\n".join(rng.sample(WORDS, 20)).encode("latin-1") + b"\n")
            for case in range(args.cases):
                flags = rng.sample(FLAGS, rng.randint(0, 3))
                if "-l" in flags and "-L" in flags:
                    flags.remove("-L")
                if rng.random() < 0.15:
                    flags.append(rng.choice(["--color=always", "--color=never"]))
                patterns = pattern_choices(rng)
                pattern_args = []
                if rng.random() < 0.1:
                    pattern_args = ["-f", rng.choice(["patterns", "empty", "many", "many"])]
                elif rng.random() < 0.2:
                    pattern_args = ["-f", rng.choice(list(pattern_sets))]
                    if rng.random() < 0.3:
                        pattern_args += ["-e", rng.choice(WORDS)]
                elif len(patterns) > 1 or rng.random() < 0.2:
                    for p in patterns:
                        pattern_args += ["-e", p]
                else:
                    pattern_args = ["--", patterns[0]] if patterns[0].startswith("-") else [patterns[0]]
                stdin = None
                shape = rng.random()
                if shape < 0.1:
                    operands, stdin = [], os.path.join(work, rng.choice(files))
                elif shape < 0.15:
                    operands, stdin = ["-"], os.path.join(work, rng.choice(files))
                elif shape < 0.22:
                    operands = ["dir", "f0.txt"]
                    flags.append("-r")
                elif shape < 0.25:
                    operands = ["missing.txt", rng.choice(files)]
                elif shape < 0.28:
                    operands = ["dir", rng.choice(files)]  # a directory without -r
                else:
                    operands = rng.sample(files, rng.randint(1, 3))
                tail = flags + pattern_args + operands
                total += 1
                # Through a pipe GNU grep's reads end where the writer's writes do: a late NUL byte is then
                # found in a buffer no one can predict, so that file is only redirected.
                piped = rng.random() < 0.5 and not (stdin or "").endswith("late.dat")
                failures += compare(args, work, tail, stdin, piped, f"seed {seed}, case {case}", failures)
            if args.set_cases:
                with open(os.path.join(work, "big.txt"), "wb") as out:
                    out.write(b"".join(make_text(rng, "large") for _ in range(3)))
            for case in range(args.set_cases):
                flags = rng.sample(SET_FLAGS, rng.randint(0, 3))
                if "-l" in flags and "-L" in flags:
                    flags.remove("-L")
                shape = rng.random()
                if shape < 0.5:
                    pattern_args = ["-f", rng.choice(list(pattern_sets) + ["patterns", "many"])]
                elif shape < 0.8:
                    pattern_args = [arg for p in rng.sample(WORDS, rng.randint(2, 6)) for arg in ["-e", p]]
                else:
                    pattern_args = ["-i"] + ([rng.choice(WORDS)] if rng.random() < 0.5 else ["-f", "set10"])
                operands = rng.sample(files + ["big.txt"], rng.randint(1, 2))
                if rng.random() < 0.5 and "big.txt" not in operands:
                    operands.append("big.txt")
                total += 1
                failures += compare(args, work, flags + pattern_args + operands, None, False,
                                    f"seed {seed}, set case {case}", failures)
            if args.big_set and seed == seeds[-1]:
                # A large pattern set on a small text, once (compiling it is the cost): a run that only
                # selects lines or one that prints every match.
                with open(os.path.join(work, "big"), "wb") as out:
                    out.write(make_pattern_set(rng, texts, args.big_set, empty_line=rng.random() < 0.2))
                flags = rng.choice([["-c"], ["-w", "-n"], ["-x", "-c"], ["-v", "-c"], ["-i", "-c", "-w"], ["-o", "-b"],
                                    ["-o", "-w"], ["-o", "-i", "-n"], ["--color=always"]])
                total += 1
                tail = flags + ["-f", "big", "f3.txt", "crlf.txt"]
                failures += compare(args, work, tail, None, False, f"seed {seed}, {args.big_set} patterns", failures)
    print(f"{total - failures} of {total} cases equal to GNU grep (seeds {seeds})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
