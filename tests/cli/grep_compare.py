#!/usr/bin/env python3
"""`warpdex grep` against GNU `grep -F` (LC_ALL=C) byte for byte on generated files.

For each case: the same arguments to both; standard output and the exit status must be equal, and standard
error too once each program's name ("grep: ", "warpdex grep: ") is taken off. Files are generated from a
seed (fixed seeds first, then a fresh one, printed so that a failure can be replayed with --seed).

usage: grep_compare.py WARPDEX [--backend host] [--seed N] [--cases N]
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


def pattern_choices(rng):
    choice = rng.random()
    if choice < 0.6:
        return [rng.choice(WORDS)]
    if choice < 0.7:
        return [rng.choice(["e", "o", "a", " ", "the ", "oo", "_", "."])]
    if choice < 0.9:
        return rng.sample(WORDS, rng.randint(2, 5))
    return [rng.choice(["", "hello\nworld", "quartz nebula", "zzz-not-there"])]


FLAGS = ["-i", "-v", "-w", "-x", "-c", "-l", "-L", "-o", "-n", "-b", "-H", "-h", "-q", "-s"]


def run(cmd, cwd, stdin=None, piped=False):
    """Runs cmd with standard input from the file `stdin` (redirected, or through a pipe when `piped`)."""
    env = dict(os.environ, LC_ALL="C")
    if stdin and piped:
        with open(stdin, "rb") as source:
            data = source.read()
        done = subprocess.run(cmd, cwd=cwd, input=data, capture_output=True, env=env, timeout=60)
        return done.returncode, done.stdout, done.stderr
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as source:
        done = subprocess.run(cmd, cwd=cwd, stdin=source, capture_output=True, env=env, timeout=60)
    return done.returncode, done.stdout, done.stderr


def normalized_stderr(text, name):
    return b"\n".join(line[len(name):] if line.startswith(name) else line for line in text.split(b"\n"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("warpdex")
    parser.add_argument("--backend", default="host")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--cases", type=int, default=300)
    args = parser.parse_args()
    args.warpdex = os.path.abspath(args.warpdex)
    seeds = [args.seed] if args.seed is not None else [1, 2, random.SystemRandom().randrange(1 << 30)]
    failures = 0
    total = 0
    for seed in seeds:
        rng = random.Random(seed)
        with tempfile.TemporaryDirectory() as work:
            files = []
            for i in range(6):
                kind = ["small", "small", "medium", "medium", "medium", "large"][i]
                name = f"f{i}.txt"
                with open(os.path.join(work, name), "wb") as out:
                    out.write(make_text(rng, kind))
                files.append(name)
            with open(os.path.join(work, "bin.dat"), "wb") as out:
                out.write(make_binary(rng))
            files.append("bin.dat")
            # A NUL byte far into a file: GNU grep prints the lines of its 96 KiB reads before that one
            # (reads it shortens by a page after an incomplete line of 4 KiB or more: short lines here).
            late = bytearray(b"".join(make_text(rng, "medium", long_lines=False) for _ in range(60)))
            late[rng.randint(len(late) // 4, len(late) - 1)] = 0
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
                expected = run(["grep", "-F"] + tail, work, stdin, piped)
                got = run([args.warpdex, "--backend", args.backend, "grep"] + tail, work, stdin, piped)
                same = (expected[0] == got[0] and expected[1] == got[1] and
                        normalized_stderr(expected[2], b"grep: ") == normalized_stderr(got[2], b"warpdex grep: "))
                if not same:
                    failures += 1
                    if failures <= 10:
                        print(f"DIFFERENT (seed {seed}, case {case}): grep -F {' '.join(map(repr, tail))}"
                              f"{' < ' + os.path.basename(stdin) if stdin else ''}")
                        print(f"  grep:    status {expected[0]}, stdout {expected[1][:300]!r}, stderr {expected[2][:200]!r}")
                        print(f"  warpdex: status {got[0]}, stdout {got[1][:300]!r}, stderr {got[2][:200]!r}")
    print(f"{total - failures} of {total} cases equal to GNU grep (seeds {seeds})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
