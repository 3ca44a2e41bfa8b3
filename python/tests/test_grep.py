"""warpdex.grep against GNU grep -F (C locale), byte for byte, on generated text with and without a NUL."""

import shutil
import subprocess

import numpy as np
import pytest

import warpdex

GNU_GREP = shutil.which("grep")
FLAGS = {
    "ignore_case": "-i",
    "invert_match": "-v",
    "word_regexp": "-w",
    "line_regexp": "-x",
    "only_matching": "-o",
    "byte_offset": "-b",
    "line_number": "-n",
    "with_filename": "-H",
}
OUTPUTS = {"lines": [], "count": ["-c"], "files_with_matches": ["-l"], "files_without_match": ["-L"]}


def gnu_grep(path, patterns, output, flags, stderr=False):
    arguments = [GNU_GREP, "-F", *OUTPUTS[output], *(FLAGS[f] for f in flags)]
    for pattern in patterns:
        arguments += ["-e", pattern]
    result = subprocess.run([*arguments, "--", str(path)], capture_output=True, env={"LC_ALL": "C"})
    assert result.returncode in (0, 1), result.stderr
    return (result.stdout, result.stderr) if stderr else result.stdout


@pytest.fixture
def text_file(tmp_path, rng):
    words = np.array(["ab", "abc", "Ab", "cab", "xyz", "a b", "", "ABC", "abab"])
    lines = [" ".join(rng.choice(words, size=int(rng.integers(0, 5)))) for _ in range(3000)]
    path = tmp_path / "input.txt"
    path.write_bytes("\n".join(lines).encode() + b"\n")
    return path


@pytest.mark.skipif(GNU_GREP is None, reason="GNU grep is not installed")
@pytest.mark.parametrize("output", list(OUTPUTS))
@pytest.mark.parametrize(
    "flags",
    [(), ("ignore_case",), ("invert_match",), ("word_regexp",), ("line_regexp",), ("only_matching", "byte_offset"),
     ("line_number", "with_filename"), ("ignore_case", "word_regexp", "line_number")],
)
def test_grep_prints_what_gnu_grep_prints(text_file, output, flags):
    for patterns in (["ab"], ["abc", "xyz"], ["a b"]):
        result = warpdex.grep(text_file, patterns, output=output, chunk_bytes=4096, **{f: True for f in flags})
        assert result.output == gnu_grep(text_file, patterns, output, flags), (patterns, output, flags)


@pytest.mark.skipif(GNU_GREP is None, reason="GNU grep is not installed")
def test_binary_input_is_reported_as_gnu_grep_does(tmp_path):
    path = tmp_path / "binary.bin"
    path.write_bytes(b"text ab\n\x00ab here\n")
    result = warpdex.grep(path, "ab")
    assert result.binary and result.binary_matches
    expected, message = gnu_grep(path, ["ab"], "lines", (), stderr=True)
    assert result.output == expected and b"binary file matches" in message


def test_bytes_input_and_errors():
    result = warpdex.grep(b"one\ntwo\nthree\n", "o", line_number=True)
    assert result == warpdex.GrepResult(b"1:one\n2:two\n", 2, False, False)
    assert warpdex.grep(b"a\nb\n", [b"a", "b"], output="count").output == b"2\n"
    assert warpdex.grep(b"x\n", "y", output="files_without_match", name="in").output == b"in\n"
    with pytest.raises(FileNotFoundError):
        warpdex.grep("/no/such/file", "a")
    with pytest.raises(ValueError, match="output"):
        warpdex.grep(b"a", "a", output="everything")


@pytest.mark.skipif(GNU_GREP is None, reason="GNU grep is not installed")
@pytest.mark.parametrize("flags", [(), ("word_regexp",), ("line_regexp",), ("only_matching", "ignore_case")])
def test_a_thousand_patterns_as_gnu_grep_f(tmp_path, text_file, rng, flags):
    """A pattern list of 1000: pieces of the text (prefixes of each other, overlapping), random letters, an
    empty one, bytes above 0x7f; as ``grep -F -f``."""
    text = text_file.read_bytes()
    patterns = []
    for _ in range(1000):
        start = int(rng.integers(0, len(text) - 8))
        piece = text[start:start + int(rng.integers(1, 8))].split(b"\n")[0]
        letters = bytes(rng.choice(list(b"abcxyz\xe9"), size=int(rng.integers(3, 9))).tolist())
        patterns.append(piece if rng.random() < 0.5 else letters)
    patterns.append(b"")
    pattern_file = tmp_path / "patterns.txt"
    pattern_file.write_bytes(b"\n".join(patterns) + b"\n")
    expected = subprocess.run([GNU_GREP, "-F", "-f", str(pattern_file), *(FLAGS[f] for f in flags), "--",
                               str(text_file)], capture_output=True, env={"LC_ALL": "C"}).stdout
    result = warpdex.grep(text_file, patterns, **{f: True for f in flags})
    assert result.output == expected, flags


def test_bytes_patterns_are_bytes():
    assert warpdex.grep(b"caf\xe9\ncafe\n", [b"\xe9"]).output == b"caf\xe9\n"
    assert warpdex.grep("café\n".encode(), "é", output="count").output == b"1\n"
