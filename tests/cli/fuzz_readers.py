#!/usr/bin/env python3
"""Feeds every file reader of `warpdex` random files for a bounded time: raw keys (`split --input`,
`hash --input`), raw records (`dedup --record-bytes`), tetrahedral meshes (`faces`: .vtk and .vtu files
in every encoding that warpdex writes), graphs (`sssp` and `cliques`: DIMACS .gr and .clq, Matrix Market,
SNAP, gzip) and images (`segment`: PNG and TIFF as warpdex writes them), each truncated, with bytes
flipped or numbers changed, and text (`grep`, whose output is compared with GNU grep -F byte for byte: the files stay
under 32 KiB, so both greps see a NUL byte in their first buffer and agree on binary files too), and grep's
pattern files (-f: none to thousands of patterns, empty lines, CR LF, NUL and other bytes); then every
numeric option of every command (found in its --help) and the numbers of the graph generators' specs, given
huge, NaN, infinite, negative, overflowing, fractional and empty values, each on a small run of its command.

A run fails on a crash (a signal), a hang (a timeout), an exit status other than the documented ones
(keys, records, meshes, graphs and images: 0 done, 1 a clear error; grep: 0, 1, 2), an error that is not one line "warpdex: error: ...", or a
grep output different from GNU grep's. An option value must be refused (1 or 2, its last line "warpdex...") when
it is no number (NaN, infinite, empty, beyond 64 bits or a double); any other may also run (0). Fixed seeds
first, then a fresh one, each printed for replay.

usage: fuzz_readers.py WARPDEX [--seconds S] [--seed N]
"""
import argparse
import gzip
import os
import re
import resource
import random
import subprocess
import sys
import tempfile
import time

TIMEOUT = 30
# The address space of an option run: a value that asks for more memory is refused by the memory checks
# (or its allocation fails, one clear line) at once, instead of taking the machine's memory for minutes.
OPTION_RUN_BYTES = 4 << 30


def random_keys(rng):
    """Bytes for a raw key file: random, structured, reserved keys, truncated keys, empty."""
    shape = rng.random()
    count = rng.choice([0, 1, 2, 3, 17, 255, 1024, rng.randint(0, 5000)])
    if shape < 0.3:
        data = bytes(rng.getrandbits(8) for _ in range(4 * count))
    elif shape < 0.5:
        data = b"".join(rng.choice([b"\xff\xff\xff\xff", b"\xfe\xff\xff\xff", b"\0\0\0\0", b"\x01\0\0\0"])
                        for _ in range(count))
    elif shape < 0.7:
        data = b"".join(rng.randint(0, 0xFFFFFFFD).to_bytes(4, "little") for _ in range(count))
    else:
        data = b"".join((i % 7).to_bytes(4, "little") for i in range(count))  # many repeats
    if rng.random() < 0.2:
        data += bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 3)))  # a partial key
    return data


def random_text(rng):
    """Bytes for grep: text, random bytes, NUL bytes, long lines, no final newline, CR LF."""
    alphabet = rng.choice([b"ab\n", b"abc \n", b"the quick brown fox\n", bytes(range(256)), b"a\0\n", b"\r\n xy"])
    size = rng.choice([0, 1, 2, 100, 4096, rng.randint(0, 30000)])
    data = bytearray(rng.choice(alphabet) for _ in range(size))
    if rng.random() < 0.1:
        data += b"x" * rng.randint(5000, 25000)  # a long line
    return bytes(data[:32000])


MESH_ENCODINGS = [(".vtk", "ascii"), (".vtk", "binary"), (".vtu", "ascii"), (".vtu", "binary"),
                  (".vtu", "binary-zlib"), (".vtu", "appended"), (".vtu", "appended-zlib"),
                  (".vtu", "appended-base64")]


def valid_meshes(warpdex, work):
    """Small meshes written by `warpdex faces --save-mesh` in every encoding: (extension, bytes)."""
    meshes = []
    for extension, encoding in MESH_ENCODINGS:
        path = os.path.join(work, f"valid_{encoding}{extension}")
        subprocess.run([warpdex, "--backend", "host", "faces", "--generate", "2x3x2", "--numbering", "random",
                        "--save-mesh", path, "--save-encoding", encoding, "--no-verify"],
                       check=True, capture_output=True)
        with open(path, "rb") as mesh:
            meshes.append((extension, mesh.read()))
    return meshes


GRAPHS = {
    ".gr": b"c a DIMACS shortest-path file\np sp 4 5\na 1 2 3\na 2 3 4\na 3 4 1\na 4 1 2\na 1 3 7\n",
    ".clq": b"c a DIMACS clique file\np edge 4 5\ne 1 2\ne 2 3\ne 3 4\ne 4 1\ne 1 3\n",
    ".mtx": b"%%MatrixMarket matrix coordinate integer general\n4 4 5\n1 2 3\n2 3 4\n3 4 1\n4 1 2\n1 3 7\n",
    ".txt": b"# a SNAP edge list\n0\t1\n1\t2\n2\t3\n3\t0\n0\t2\n",
}


def valid_graphs():
    """A small graph of every format the graph readers take, and a gzip one: (extension, bytes)."""
    return list(GRAPHS.items()) + [(".gr.gz", gzip.compress(GRAPHS[".gr"]))]


def valid_images(warpdex, work):
    """Small label images written by `warpdex segment` as PNG and TIFF: (extension, bytes)."""
    images = []
    for extension in (".png", ".tif"):
        path = os.path.join(work, f"valid{extension}")
        subprocess.run([warpdex, "--backend", "host", "segment", "--generate", "16x16", "-o", path],
                       check=True, capture_output=True)
        with open(path, "rb") as image:
            images.append((extension, image.read()))
    return images


def damaged(rng, data):
    """A file truncated, with random bytes flipped, or with one of its numbers changed."""
    data = bytearray(data)
    shape = rng.random()
    if shape < 0.35:
        return bytes(data[:rng.randrange(len(data))])
    if shape < 0.7:
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.getrandbits(8)
        return bytes(data)
    digits = [i for i, byte in enumerate(data) if 0x30 <= byte <= 0x39]
    if digits:
        data[rng.choice(digits)] = ord(rng.choice("0123456789"))
        at = rng.choice(digits)
        data[at:at + 1] = rng.choice([b"99999999999", b"-1", b"4294967296", b"7"])
    return bytes(data)


def pattern(rng):
    return rng.choice(["a", "b", "ab", "the", "fox", "x", " ", "aa", "\r", "xy", "abc", "zz", ""])


def random_pattern_file(rng):
    """Bytes for grep -f: many patterns or none, empty lines, CR LF, NUL bytes, prefixes of each other,
    random bytes, no final newline."""
    shape = rng.random()
    if shape < 0.1:
        return b""
    if shape < 0.2:
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 400)))
    words = [b"a", b"ab", b"abc", b"the", b"fox", b"x", b" ", b"\r", b"xy", b"zz", b"a\0", b"\xff", b"quick brown"]
    lines = []
    for _ in range(rng.choice([1, 2, 10, 100, rng.randint(1, 3000)])):
        kind = rng.random()
        if kind < 0.05:
            lines.append(b"")
        elif kind < 0.5:
            lines.append(rng.choice(words))
        else:
            lines.append(bytes(rng.choice(b"abcxyz \r\0\xe9") for _ in range(rng.randint(1, 12))))
    separator = b"\r\n" if rng.random() < 0.1 else b"\n"
    return separator.join(lines) + (separator if rng.random() < 0.7 else b"")


# A small run of each command: an option's value is set on it (replacing one there), so a value that is
# accepted costs a fraction of a second.
OPTION_BASES = {
    "demo": ["demo", "--size-log2", "1", "--family", "search"],
    "split": ["split", "--size-log2", "4"],
    "hash": ["hash", "--size-log2", "4"],
    "lsm": ["lsm", "--batch-log2", "4", "--batches", "2", "--queries-log2", "4"],
    "dedup": ["dedup", "--size-log2", "4"],
    "hashfight": ["hashfight", "--size-log2", "4"],
    "faces": ["faces", "--generate", "2"],
    "segment": ["segment", "--generate", "8x8", "--em-iterations", "2", "--map-iterations", "2"],
    "search": ["search", "--keys-log2", "4", "--queries-log2", "4"],
    "grep": ["grep", "x", __file__],
    "sssp": ["sssp", "grid:4x4"],
    "cliques": ["cliques", "grid:4x4"],
}
# Options whose value is a size, not a plain number ({} is where the value goes).
SIZE_OPTIONS = {"faces": [("--generate", "{}"), ("--generate", "2x{}x2")],
                "segment": [("--generate", "{}x8"), ("--generate", "8x{}x2")]}
# The numbers of the generator specs (the graph operand of sssp and cliques).
GRAPH_SPECS = ["grid:{}x4", "gnp:{}:0.5", "gnp:8:{}", "rmat:{}", "geometric:{}", "small-world:{}",
               "small-world:16:{}", "hamming:{}:2", "hamming:4:{}", "keller:{}", "mann:{}", "johnson:{}:2:2"]
# Never a number of any option: refused, always.
NOT_NUMBERS = ["nan", "NaN", "-nan", "inf", "-inf", "", "99999999999999999999", "18446744073709551616", "1e400",
               "1,5", "1 2", "\u0661"]
# Numbers, some outside every range: refused, or a run that ends cleanly.
NUMBERS = ["-1", "-0", "0x10", "0", "0.5", "1e308", "-1e308", "4294967296", "4294967295", "2147483648", "1e-320", "3"]
NUMERIC_TYPE = re.compile(r"^\s+(?:-\w,)?(--[\w-]+) (?:\w+:)?(?:U?INT|FLOAT|NUMBER|NONNEGATIVE)")


def numeric_options(warpdex, command):
    """The options of `warpdex COMMAND --help` that take a number."""
    done = subprocess.run([warpdex, command, "--help"], capture_output=True, check=True)
    return [m.group(1) for m in map(NUMERIC_TYPE.match, done.stdout.decode().splitlines()) if m]


def with_value(base, option, value):
    """The base run with `option` set to `value` (its value there replaced)."""
    command = list(base)
    if option in command:
        at = command.index(option)
        command[at + 1] = value
    else:
        command += [option, value]
    return command


class Runner:
    def __init__(self, warpdex):
        self.warpdex = warpdex
        self.runs = 0
        self.failures = 0

    def fail(self, what, command, detail):
        self.failures += 1
        if self.failures <= 10:
            print(f"FAILED ({what}): {' '.join(command)}\n  {detail}")

    def run(self, command, limit_bytes=None):
        self.runs += 1
        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
        try:
            done = subprocess.run(command, capture_output=True, timeout=TIMEOUT, env=dict(os.environ, LC_ALL="C"),
                                  preexec_fn=limit if limit_bytes else None)
        except subprocess.TimeoutExpired:
            return None
        return done

    def keys(self, command_name, path, seed):
        self.keys_like([self.warpdex, "--backend", "host", command_name, "--input", path], seed)

    def keys_like(self, command, seed, limit_bytes=None):
        """A reader whose documented statuses are 0 (done) and 1 (one clear error line)."""
        done = self.run(command, limit_bytes)
        if done is None:
            return self.fail(f"hang, seed {seed}", command, f"no exit within {TIMEOUT} s")
        if done.returncode < 0:
            return self.fail(f"crash, seed {seed}", command, f"signal {-done.returncode}")
        errors = [line for line in done.stderr.decode(errors="replace").splitlines() if line]
        if done.returncode not in (0, 1):
            return self.fail(f"status, seed {seed}", command, f"exit status {done.returncode}: {errors}")
        if done.returncode == 1 and (len(errors) != 1 or not errors[0].startswith("warpdex: error: ")):
            return self.fail(f"message, seed {seed}", command, f"not one clear line: {errors}")

    def option(self, arguments, value, seed):
        """A command with one option or spec given `value`: no signal or hang; 1 or 2 with a message, or
        0 (a number it takes)."""
        command = [self.warpdex, "--backend", "host"] + arguments
        done = self.run(command, OPTION_RUN_BYTES)
        if done is None:
            return self.fail(f"hang, seed {seed}", command, f"no exit within {TIMEOUT} s")
        if done.returncode < 0:
            return self.fail(f"crash, seed {seed}", command, f"signal {-done.returncode}")
        errors = [line for line in done.stderr.decode(errors="replace").splitlines() if line]
        if done.returncode not in (0, 1, 2) or (done.returncode == 0 and value in NOT_NUMBERS):
            return self.fail(f"status, seed {seed}", command, f"exit status {done.returncode}: {errors[-3:]}")
        if done.returncode != 0 and (not errors or not errors[-1].startswith("warpdex")):
            return self.fail(f"message, seed {seed}", command, f"no message: {errors[-3:]}")

    def options(self, rng, seed, part, parts):
        """Every numeric option of every command and every generator number, each case once over the
        `parts` seeds (this seed takes part `part`), with a value drawn from both lists (NOT_NUMBERS half
        the time)."""
        cases = []
        for command, base in OPTION_BASES.items():
            cases += [(with_value(base, option, "{}"), option) for option in numeric_options(self.warpdex, command)]
            cases += [(with_value(base, option, shape), option) for option, shape in SIZE_OPTIONS.get(command, [])]
        for spec in GRAPH_SPECS:
            cases += [([command, spec, "--no-verify" if command == "sssp" else "--count-only"], spec)
                      for command in ("sssp", "cliques")]
        for template, _ in cases[part::parts]:
            value = rng.choice(NOT_NUMBERS if rng.random() < 0.5 else NUMBERS)
            self.option([word.replace("{}", value) for word in template], value, seed)
        return len(cases[part::parts])

    def mesh(self, path, seed):
        self.keys_like([self.warpdex, "--backend", "host", "faces", path, "--no-verify"], seed)

    def records(self, path, record_bytes, once, seed):
        self.keys_like([self.warpdex, "--backend", "host", "dedup", path, "--record-bytes", str(record_bytes),
                        "--output", os.devnull] + (["--once"] if once else []), seed)

    def graph(self, path, seed):
        """Both readers of graph files; a header that declares huge counts meets the memory limit of an
        option run, and must fail with one line."""
        self.keys_like([self.warpdex, "--backend", "host", "sssp", path], seed, OPTION_RUN_BYTES)
        self.keys_like([self.warpdex, "--backend", "host", "cliques", path, "--count-only"], seed, OPTION_RUN_BYTES)

    def image(self, path, output, seed):
        self.keys_like([self.warpdex, "--backend", "host", "segment", path, "-o", output, "--em-iterations", "2",
                        "--map-iterations", "2"], seed, OPTION_RUN_BYTES)

    def grep(self, path, rng, seed, pattern_file=None):
        flags = rng.sample(["-c", "-v", "-i", "-w", "-x", "-o", "-n", "-b", "-l", "-L"], rng.randint(0, 2))
        if "-l" in flags and "-L" in flags:
            flags.remove("-L")
        patterns = ["-f", pattern_file] if pattern_file else ["-e", pattern(rng)]
        tail = flags + patterns + ([path] if rng.random() < 0.8 else [path, path])
        command = [self.warpdex, "--backend", "host", "grep"] + tail
        done = self.run(command)
        if done is None:
            return self.fail(f"hang, seed {seed}", command, f"no exit within {TIMEOUT} s")
        if done.returncode < 0:
            return self.fail(f"crash, seed {seed}", command, f"signal {-done.returncode}")
        expected = subprocess.run(["grep", "-F"] + tail, capture_output=True, env=dict(os.environ, LC_ALL="C"))
        if (done.returncode, done.stdout) != (expected.returncode, expected.stdout):
            return self.fail(f"differs from GNU grep, seed {seed}", command,
                             f"status {done.returncode} vs {expected.returncode}, stdout {done.stdout[:200]!r} vs "
                             f"{expected.stdout[:200]!r}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("warpdex")
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--seed", type=int)
    args = parser.parse_args()
    runner = Runner(os.path.abspath(args.warpdex))
    seeds = [args.seed] if args.seed is not None else [11, 12, random.SystemRandom().randrange(1 << 30)]
    deadline = time.monotonic() + args.seconds
    with tempfile.TemporaryDirectory() as work:
        meshes = valid_meshes(runner.warpdex, work)
        graphs = valid_graphs()
        images = valid_images(runner.warpdex, work)
        for index, seed in enumerate(seeds):
            rng = random.Random(seed)
            share = deadline - (len(seeds) - index - 1) * args.seconds / len(seeds)
            options = runner.options(rng, seed, index, len(seeds))
            files = 0
            while time.monotonic() < share or files < 3:
                files += 1
                keys = os.path.join(work, f"keys{files}.bin")
                with open(keys, "wb") as out:
                    out.write(random_keys(rng))
                runner.keys(rng.choice(["split", "hash"]), keys, seed)
                text = os.path.join(work, f"text{files}.txt")
                with open(text, "wb") as out:
                    out.write(random_text(rng))
                for _ in range(3):
                    runner.grep(text, rng, seed)
                patterns = os.path.join(work, f"patterns{files}.txt")
                with open(patterns, "wb") as out:
                    out.write(random_pattern_file(rng))
                runner.grep(text, rng, seed, patterns)
                extension, valid = rng.choice(meshes)
                mesh = os.path.join(work, f"mesh{files}{extension}")
                with open(mesh, "wb") as out:
                    out.write(damaged(rng, valid))
                runner.mesh(mesh, seed)
                record_bytes = rng.choice([4, 8, 12, 16])
                records = os.path.join(work, f"records{files}.bin")
                with open(records, "wb") as out:
                    out.write(random_keys(rng))
                runner.records(records, record_bytes, rng.random() < 0.5, seed)
                extension, valid = rng.choice(graphs)
                graph = os.path.join(work, f"graph{files}{extension}")
                with open(graph, "wb") as out:
                    out.write(damaged(rng, valid))
                runner.graph(graph, seed)
                extension, valid = rng.choice(images)
                image = os.path.join(work, f"image{files}{extension}")
                with open(image, "wb") as out:
                    out.write(damaged(rng, valid))
                runner.image(image, os.path.join(work, "labels.png"), seed)
            print(f"seed {seed}: {options} option values, {files} files of each kind (keys, text, meshes, records, "
                  "graphs, images)")
    print(f"{runner.runs - runner.failures} of {runner.runs} runs clean")
    return 1 if runner.failures else 0


if __name__ == "__main__":
    sys.exit(main())
