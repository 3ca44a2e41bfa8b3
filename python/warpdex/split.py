"""The split family: stable multisplit, radix sort and histograms (include/warpdex/split/)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from . import _arrays
from . import _warpdex

_KEY_DTYPES = (np.uint32, np.uint64, np.float32)


@dataclass(frozen=True)
class BitFieldBuckets:
    """Bucket = the `bits`-bit field of the key starting at bit `shift`, so m = 2**bits buckets (in
    descending field order with `descending`). Keys are uint32 or uint64; bits <= 31 and
    shift + bits <= the key's width."""

    shift: int
    bits: int
    descending: bool = False


@dataclass(frozen=True)
class DeltaBuckets:
    """Bucket = key // delta, for `count` buckets (m = count). Keys are uint32 or uint64; a key at or above
    count * delta is an error (ValueError, nothing written). delta >= 1, count >= 1."""

    delta: int
    count: int


@dataclass(frozen=True)
class SplitterBuckets:
    """Bucket = the number of splitters <= key, for m = len(splitters) + 1 buckets. `splitters` is an array
    of the keys' dtype (uint32, uint64 or float32), strictly increasing and without NaN, on the keys'
    device. A NaN key lands in bucket 0."""

    splitters: Any


class MultisplitResult(NamedTuple):
    """What `multisplit` returns. Bucket b occupies ``keys[offsets[b]:offsets[b + 1]]``."""

    keys: Any
    """The keys, bucket by bucket, each bucket in input order (an array of the input's library)."""
    values: Any
    """The values moved with their keys, or None when no values were given."""
    offsets: np.ndarray
    """m + 1 uint64 offsets on the host (NumPy): offsets[0] = 0, offsets[m] = len(keys)."""


def _output(given: Any, like: Any, size: int, dtype: Any) -> Any:
    return _arrays.empty(like, size, dtype) if given is None else _arrays.writable(given, "outputs")


def _pairs(function: str, keys: Any, values: Any, keys_out: Any, values_out: Any) -> tuple[Any, Any, Any, Any]:
    """The keys and optional uint32 values of a reordering call with their outputs (allocated by the keys'
    library when not given)."""
    keys = _arrays.as_array(keys, np.uint32, "keys")
    keys_out = _output(keys_out, keys, len(keys), _arrays.dtype_of(keys))
    if values is not None:
        values = _arrays.as_array(values, np.uint32, "values")
        values_out = _output(values_out, keys, len(values), np.uint32)
    elif values_out is not None:
        raise ValueError(f"{function}: values_out given without values")
    return keys, values, keys_out, values_out


def multisplit(
    keys: Any,
    buckets: BitFieldBuckets | DeltaBuckets | SplitterBuckets,
    values: Any = None,
    *,
    keys_out: Any = None,
    values_out: Any = None,
    algorithm: str = "automatic",
    stream: Any = None,
) -> MultisplitResult:
    """Stable multisplit: reorders `keys` (and `values`, uint32, beside them) so that the keys of each
    bucket are contiguous, buckets in ascending id order, keys of one bucket in their input order.

    Keys are uint32 or uint64 (bit-field, delta and splitter buckets) or float32 (splitter buckets). The
    outputs are written into `keys_out` / `values_out` when given (arrays of the inputs' size and dtype on
    the same device, not overlapping the inputs), else allocated by the keys' library. Runs on the host
    backend for host arrays and on the cuda backend, on `stream` (default: the current CuPy / PyTorch
    stream), for CUDA arrays; it synchronizes that stream (the bucket counts are read on the host).
    `algorithm` picks the cuda algorithm ('automatic', 'three_pass', 'single_pass', 'super_bucket',
    'reduced_bit_sort', 'partition', 'warp_tiles'); every one gives the same output.

    Raises ValueError, writing nothing, for an invalid identifier or a key whose bucket lies outside
    [0, m), mismatched sizes, or arrays of the wrong dtype, shape or device.

    >>> import numpy as np, warpdex
    >>> r = warpdex.multisplit(np.array([5, 1, 4, 0], np.uint32), warpdex.BitFieldBuckets(shift=0, bits=1))
    >>> r.keys.tolist(), r.offsets.tolist()
    ([4, 0, 5, 1], [0, 2, 4])
    """
    keys, values, keys_out, values_out = _pairs("multisplit", keys, values, keys_out, values_out)
    dtype = _arrays.dtype_of(keys)
    stream_handle = _arrays.stream_of(keys, stream)
    if isinstance(buckets, BitFieldBuckets):
        offsets = _warpdex.multisplit_bit_field(
            keys, keys_out, values, values_out, buckets.shift, buckets.bits, buckets.descending, algorithm, stream_handle
        )
    elif isinstance(buckets, DeltaBuckets):
        offsets = _warpdex.multisplit_delta(
            keys, keys_out, values, values_out, buckets.delta, buckets.count, algorithm, stream_handle
        )
    elif isinstance(buckets, SplitterBuckets):
        splitters = _arrays.as_array(buckets.splitters, dtype, "splitters")
        offsets = _warpdex.multisplit_splitters(keys, keys_out, values, values_out, splitters, algorithm, stream_handle)
    else:
        raise TypeError(
            f"multisplit: buckets must be BitFieldBuckets, DeltaBuckets or SplitterBuckets, got {type(buckets).__name__}"
        )
    return MultisplitResult(keys_out, values_out, offsets)


def radix_sort(
    keys: Any,
    values: Any = None,
    *,
    descending: bool = False,
    digit_bits: int = 8,
    keys_out: Any = None,
    values_out: Any = None,
    stream: Any = None,
) -> Any:
    """Stable least-significant-digit radix sort of uint32 or uint64 keys (uint32 keys may carry uint32
    values). Returns the sorted keys, or (keys, values) when values are given; equal keys keep their input
    order. Outputs as in `multisplit` (written into keys_out / values_out when given). `digit_bits` (1 to 8)
    is the width of one pass. Synchronizes the stream (see `multisplit` for streams and devices).

    >>> import numpy as np, warpdex
    >>> warpdex.radix_sort(np.array([3, 1, 2], np.uint32)).tolist()
    [1, 2, 3]
    """
    keys, values, keys_out, values_out = _pairs("radix_sort", keys, values, keys_out, values_out)
    _warpdex.radix_sort(keys, keys_out, values, values_out, descending, digit_bits, _arrays.stream_of(keys, stream))
    return keys_out if values is None else (keys_out, values_out)


class HistogramResult(NamedTuple):
    """What `histogram` returns."""

    counts: np.ndarray
    """One uint64 count per bin, on the host (NumPy)."""
    not_counted: int
    """NaN samples and samples outside every bin."""


def histogram(samples: Any, bins: Any, range: tuple[float, float] | None = None, *, stream: Any = None) -> HistogramResult:
    """Counts the uint32 or float32 samples falling in each bin.

    With an integer `bins` and ``range=(lower, upper)``, the m = bins even bins split [lower, upper):
    bin = floor((x - lower) * m / (upper - lower)); unlike numpy.histogram, `upper` itself is outside.
    With an array `bins` (the samples' dtype, on their device), it holds m + 1 strictly increasing
    boundaries and bin b = [bins[b], bins[b + 1]). Samples outside every bin and NaN are not counted;
    their number is returned. Raises ValueError for m < 1, lower >= upper, a non-finite range or unsorted
    boundaries.

    >>> import numpy as np, warpdex
    >>> warpdex.histogram(np.array([0, 1, 1, 7, 9], np.uint32), 4, range=(0, 8)).counts.tolist()
    [3, 0, 0, 1]
    """
    samples = _arrays.as_array(samples, np.float32, "samples")
    stream_handle = _arrays.stream_of(samples, stream)
    if isinstance(bins, (int, np.integer)):
        if range is None:
            raise ValueError("histogram: an integer bins needs range=(lower, upper)")
        if bins < 1 or bins >= 2**32:
            raise ValueError(f"histogram: bins must lie in [1, 2^32), got {bins}")
        counts, not_counted = _warpdex.histogram(samples, int(bins), float(range[0]), float(range[1]), None, stream_handle)
    else:
        if range is not None:
            raise ValueError("histogram: give range only with an integer number of bins")
        boundaries = _arrays.as_array(bins, _arrays.dtype_of(samples), "bins")
        counts, not_counted = _warpdex.histogram(samples, 0, 0.0, 0.0, boundaries, stream_handle)
    return HistogramResult(counts, not_counted)
