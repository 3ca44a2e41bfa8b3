"""The dpp family's duplicate search (include/warpdex/dpp/duplicates.hpp): which elements occur exactly
once, those elements, the distinct elements and their counts, by sorting, hash fighting or the
partitioned engine; and the group-by (include/warpdex/dpp/group_by.hpp): each distinct key with the sum,
minimum or maximum of its values.

Elements are a one-dimensional uint32 or uint64 array, or a C-contiguous (n, k) uint32 array of tuples
(k = 2, 3 or 4: edges, triangle faces, tetrahedra; tuples compare word by word, so callers meaning an
unordered set of ids sort each row first). Host arrays run on the host backend, CUDA arrays of the current
device on the cuda backend (on `stream`, default the current CuPy / PyTorch stream). Results are equal on
both backends and for both methods; arrays the library allocates come back owning its buffers (NumPy on the
host, CuPy or PyTorch on CUDA: `library`, default the input's own). At most 2**32 - 2 elements.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _arrays
from . import _warpdex

MAX_ELEMENTS: int = _warpdex.max_duplicate_search_elements
"""The most elements one call takes."""


def _elements(elements: Any) -> Any:
    return _arrays.as_array(elements, np.uint32, "elements")


def _library(elements: Any, library: str | None) -> str:
    cuda = _arrays.is_cuda(elements)
    if library is None and cuda and _arrays.library_of(elements) in ("cupy", "torch"):
        library = _arrays.library_of(elements)
    return _arrays.owned_library(cuda, library)


def find_once(elements: Any, *, method: str = "auto", stream: Any = None) -> Any:
    """A boolean array: whether each element occurs exactly once (the once-indicator), in the elements'
    library. `method`: 'auto' (sort for integers, hash fighting for tuples), 'sort' or 'hash'. Deterministic.

    >>> import numpy as np, warpdex
    >>> warpdex.find_once(np.array([4, 2, 4, 7], np.uint32)).tolist()
    [False, True, False, True]
    """
    elements = _elements(elements)
    once = _arrays.empty(elements, len(elements), np.uint8)
    _warpdex.find_once(elements, once, method, _arrays.stream_of(elements, stream))
    return _arrays.as_bool(once)


def elements_occurring_once(elements: Any, *, method: str = "auto", library: str | None = None, stream: Any = None) -> Any:
    """The elements that occur exactly once, in input order ("remove all duplicates").

    >>> import numpy as np, warpdex
    >>> warpdex.elements_occurring_once(np.array([4, 2, 4, 7], np.uint32)).tolist()
    [2, 7]
    """
    elements = _elements(elements)
    return _warpdex.elements_occurring_once(
        elements, method, _library(elements, library), _arrays.stream_of(elements, stream)
    )


def unique_elements(
    elements: Any,
    *,
    order: str = "ascending",
    method: str = "auto",
    library: str | None = None,
    stream: Any = None,
) -> Any:
    """The distinct elements, one of each: in ascending order (tuples lexicographically; as numpy.unique
    with axis=0) or, with ``order="first_occurrence"``, in the order of their first occurrence.
    `method`: 'auto', 'sort' or 'partitioned' (the partitioned engine: every type on the CPU, uint32 in
    ascending order on CUDA; the sort elsewhere); the same result either way.

    >>> import numpy as np, warpdex
    >>> warpdex.unique_elements(np.array([4, 2, 4, 7], np.uint32), order="first_occurrence").tolist()
    [4, 2, 7]
    """
    elements = _elements(elements)
    return _warpdex.unique_elements(
        elements, order, method, _library(elements, library), _arrays.stream_of(elements, stream)
    )


def count_elements(
    elements: Any,
    *,
    order: str = "ascending",
    first_positions: bool = True,
    method: str = "auto",
    library: str | None = None,
    stream: Any = None,
) -> tuple[Any, Any, Any]:
    """(distinct, counts, first_positions): the distinct elements (ordered as `unique_elements`), how often
    each occurs (uint64) and the index of its first occurrence (uint64; None with
    ``first_positions=False``, which sorts the elements alone, half the bytes). As numpy.unique with
    return_counts and return_index. `method` as in `unique_elements` (on CUDA the engine counts uint32 in
    ascending order without first positions).

    >>> import numpy as np, warpdex
    >>> [a.tolist() for a in warpdex.count_elements(np.array([4, 2, 4, 7], np.uint32))]
    [[2, 4, 7], [1, 2, 1], [1, 0, 3]]
    """
    elements = _elements(elements)
    return _warpdex.count_elements(
        elements, order, first_positions, method, _library(elements, library), _arrays.stream_of(elements, stream)
    )


def group_by(
    keys: Any,
    values: Any,
    *,
    reduction: str = "sum",
    order: str = "ascending",
    method: str = "auto",
    library: str | None = None,
    stream: Any = None,
) -> tuple[Any, Any, Any]:
    """(keys, values, counts): each distinct key (uint32 or uint64) with the `reduction` ('sum', 'min' or
    'max') of the values beside it (int64 or uint64; sums wrap around modulo 2**64) and how many it had,
    in ascending key order or, with ``order="first_occurrence"``, in the order of each key's first
    occurrence. `method`: 'auto', 'sort' or 'partitioned' (the host's engine; on CUDA the sort). As
    pandas' ``Series.groupby(keys).agg([reduction, "count"])``, deterministic and equal on both backends.

    >>> import numpy as np, warpdex
    >>> [a.tolist() for a in warpdex.group_by(np.array([4, 2, 4], np.uint32), np.array([1, 5, 3], np.int64))]
    [[2, 4], [5, 4], [1, 2]]
    """
    keys = _arrays.as_array(keys, np.uint32, "keys")
    values = _arrays.as_array(values, np.int64, "values")
    return _warpdex.group_by(
        keys, values, reduction, order, method, _library(keys, library), _arrays.stream_of(keys, stream)
    )
