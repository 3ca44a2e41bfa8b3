"""The search family: SortedIndex (batched searches of a sorted array) and exact string matching
(include/warpdex/search/sorted_search.hpp, string_match.hpp)."""

from __future__ import annotations

import os
from typing import Any, NamedTuple, Sequence

import numpy as np

from . import _arrays
from . import _warpdex

MAX_PATTERNS_PER_PASS: int = _warpdex.max_patterns_per_pass
"""The most patterns one `count_matches` call over several patterns takes."""


class SortedIndex:
    """A static search index over an ascending array of uint32 or uint64 keys (duplicates allowed): the
    array itself, not copied (the index keeps a reference; do not change it while the index lives), plus
    a B+-tree of about len/31 keys built in the same memory. Host arrays use the host backend, CUDA arrays
    of the current device the cuda backend, on `stream` (default: the current CuPy / PyTorch stream at
    construction) for every search. Queries must be of the keys' dtype and device; results are arrays of
    the queries' library. Positions lie in [0, len(index)].

    With ``check=True`` (the default) the keys' order is checked once (O(n)); unsorted keys raise
    ValueError. ``check=False`` trusts them: unsorted keys then give meaningless positions (never out of
    range, never a memory error).

    `algorithm` ('automatic', 'binary', 'btree', 'kary', 'sorted_queries') changes only the speed.

    >>> import numpy as np, warpdex
    >>> index = warpdex.SortedIndex(np.array([1, 3, 3, 7], np.uint32))
    >>> index.lower_bound(np.array([0, 3, 8], np.uint32)).tolist()
    [0, 1, 4]
    """

    def __init__(self, sorted_keys: Any, *, check: bool = True, stream: Any = None) -> None:
        """Builds the index over `sorted_keys` (uint32 or uint64, ascending) in their memory."""
        keys = _arrays.as_array(sorted_keys, np.uint32, "sorted_keys")
        dtype = _arrays.dtype_of(keys)
        if dtype == np.uint64:
            core = _warpdex.SortedIndexCore64
        elif dtype == np.uint32:
            core = _warpdex.SortedIndexCore32
        else:
            raise ValueError(f"SortedIndex: keys must be uint32 or uint64, got {dtype}")
        self._keys = keys  # the index reads this memory: keep it alive
        self.dtype = dtype
        self._core = core(keys, check, _arrays.stream_of(keys, stream))

    def __len__(self) -> int:
        """The number of keys."""
        return self._core.size()

    def _queries(self, queries: Any) -> Any:
        return _arrays.as_array(queries, self.dtype, "queries")

    def lower_bound(self, queries: Any, *, algorithm: str = "automatic") -> Any:
        """uint64 positions: the index of the first key not less than each query (len when none)."""
        queries = self._queries(queries)
        positions = _arrays.empty(queries, len(queries), np.uint64)
        self._core.bound(queries, positions, False, algorithm)
        return positions

    def upper_bound(self, queries: Any, *, algorithm: str = "automatic") -> Any:
        """uint64 positions: the index of the first key greater than each query (len when none)."""
        queries = self._queries(queries)
        positions = _arrays.empty(queries, len(queries), np.uint64)
        self._core.bound(queries, positions, True, algorithm)
        return positions

    def equal_range(self, queries: Any, *, algorithm: str = "automatic") -> tuple[Any, Any]:
        """(first, last): keys[first[i]:last[i]] is the run of keys equal to queries[i] (empty when absent)."""
        queries = self._queries(queries)
        first = _arrays.empty(queries, len(queries), np.uint64)
        last = _arrays.empty(queries, len(queries), np.uint64)
        self._core.equal_range(queries, first, last, algorithm)
        return first, last

    def contains(self, queries: Any, *, algorithm: str = "automatic") -> Any:
        """A boolean array: whether each query is among the keys."""
        queries = self._queries(queries)
        found = _arrays.empty(queries, len(queries), np.uint8)
        self._core.contains(queries, found, algorithm)
        return _arrays.as_bool(found)


def _text(text: Any) -> Any:
    if isinstance(text, str):
        return np.frombuffer(text.encode(), np.uint8)
    if isinstance(text, (bytes, bytearray, memoryview)):
        return np.frombuffer(text, np.uint8)  # a view, no copy
    return _arrays.as_array(text, np.uint8, "text")


def _pattern(pattern: Any) -> bytes:
    if isinstance(pattern, str):
        return pattern.encode()
    if isinstance(pattern, (bytes, bytearray, memoryview)):
        return bytes(pattern)
    raise TypeError(f"a pattern is bytes or str, got {type(pattern).__name__}")


def count_matches(text: Any, pattern: Any, *, algorithm: str = "automatic", stream: Any = None) -> Any:
    """The number of positions where `pattern` occurs in `text`, overlapping occurrences included ("aa"
    occurs 3 times in "aaaa"). With a list of patterns, a uint64 NumPy array of one count per pattern
    (any number of patterns, all counted in one pass; equal patterns each counted; past
    MAX_PATTERNS_PER_PASS the GPU's table leaves shared memory for global memory).

    `text` is bytes, a str (UTF-8 encoded, a copy) or a uint8 array on the host or a CUDA device (the cuda
    backend then scans it on `stream`, default the current CuPy / PyTorch stream); patterns are bytes or
    str, non-empty (an empty one raises ValueError). `algorithm` ('automatic', 'drk', 'wom', 'two_stage')
    changes only the speed (one pattern). Every match is verified byte by byte.

    >>> import warpdex
    >>> warpdex.count_matches(b"abracadabra", b"abra"), warpdex.count_matches("aaaa", ["aa", "a"]).tolist()
    (2, [3, 4])
    """
    text = _text(text)
    stream_handle = _arrays.stream_of(text, stream)
    if isinstance(pattern, (list, tuple)):
        return _warpdex.count_patterns(text, [_pattern(p) for p in pattern], stream_handle)
    return _warpdex.count_matches(text, _pattern(pattern), algorithm, stream_handle)


def find_matches(
    text: Any, pattern: Any, *, algorithm: str = "automatic", library: str | None = None, stream: Any = None
) -> Any:
    """Every position p (ascending, uint64) where text[p:p + len(pattern)] == pattern, as an array that owns
    the library's buffer (no copy): NumPy for host text; for CUDA text an array of `library` ('cupy' or
    'torch'; default the text's own library, else CuPy, else PyTorch). Arguments as `count_matches`.

    >>> import warpdex
    >>> warpdex.find_matches(b"abracadabra", b"abra").tolist()
    [0, 7]
    """
    text = _text(text)
    cuda = _arrays.is_cuda(text)
    if library is None and cuda and _arrays.library_of(text) in ("cupy", "torch"):
        library = _arrays.library_of(text)
    return _warpdex.find_matches(
        text, _pattern(pattern), algorithm, _arrays.owned_library(cuda, library), _arrays.stream_of(text, stream)
    )


class GrepResult(NamedTuple):
    """What `grep` returns."""

    output: bytes
    """What GNU grep -F prints for these options, byte for byte."""
    matching_lines: int
    """Selected lines (with invert_match the lines without a match); at most 1 for files_with_matches / quiet."""
    binary: bool
    """A NUL byte was read: the input was treated as binary from there on."""
    binary_matches: bool
    """A selected line in binary input went unprinted (GNU grep says "binary file matches")."""


def grep(
    source: str | os.PathLike | bytes,
    patterns: str | bytes | Sequence[str | bytes],
    *,
    output: str = "lines",
    ignore_case: bool = False,
    invert_match: bool = False,
    word_regexp: bool = False,
    line_regexp: bool = False,
    only_matching: bool = False,
    byte_offset: bool = False,
    line_number: bool = False,
    with_filename: bool = False,
    name: str | None = None,
    chunk_bytes: int = 0,
    device: str = "cpu",
) -> GrepResult:
    """Fixed-string grep, the engine of `warpdex grep`: searches a file (a path) or `bytes` for the patterns
    and returns what GNU ``grep -F`` (C locale) prints, byte for byte. `patterns` is one pattern or a list of
    any length (str, UTF-8 encoded, or bytes), as ``grep -F -f FILE`` takes them (thousands of patterns are
    one pass with Hyperscan on the host). A pattern holding newlines is several patterns; an empty pattern
    matches every line. `output`: 'lines' (default), 'count' (-c),
    'files_with_matches' (-l), 'files_without_match' (-L) or 'quiet' (-q); the flags are -i, -v, -w, -x,
    -o, -b, -n and -H; `name` is the name printed for -H / -l / -L (default the path, or "(standard
    input)"). Files larger than memory stream through in chunks of `chunk_bytes` (0: 1 MiB on the host,
    64 MiB on the GPU). ``device="cuda"`` searches on the GPU (one pattern without -i; otherwise the host
    searches). Raises FileNotFoundError for a missing file and ValueError for bad options.

    >>> import warpdex
    >>> warpdex.grep(b"one\\ntwo\\nthree\\n", "o", line_number=True).output
    b'1:one\\n2:two\\n'
    """
    if isinstance(patterns, (str, bytes)):
        patterns = [patterns]
    # Bytes stay bytes (a pattern byte above 0x7f is that byte); a str is UTF-8 encoded.
    pattern_list = [bytes(p) if isinstance(p, (bytes, bytearray)) else p.encode() for p in patterns]
    if isinstance(source, (bytes, bytearray, memoryview)):
        data, path, from_file = bytes(source), "", False
        shown = "(standard input)" if name is None else name
    else:
        data, path, from_file = b"", os.fspath(source), True
        if not os.path.exists(path):
            raise FileNotFoundError(f"grep: no such file: {path}")
        shown = path if name is None else name
    text, matching_lines, binary, binary_matches = _warpdex.grep(
        path, data, from_file, shown, pattern_list, output, ignore_case, invert_match, word_regexp, line_regexp,
        only_matching, byte_offset, line_number, with_filename, int(chunk_bytes), device,
    )
    return GrepResult(text, matching_lines, binary, binary_matches)
