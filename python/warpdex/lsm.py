"""The LSM family: LSMMap, the GPU LSM ordered dictionary (include/warpdex/lsm/lsm_map.hpp)."""

from __future__ import annotations

import enum
from typing import Any

import numpy as np

from . import _arrays
from . import _warpdex


class LSMOperation(enum.IntEnum):
    """The operation codes of `LSMMap.update` (uint8)."""

    INSERT = 0
    """insert the key with its value, replacing any older value"""
    ERASE = 1
    """erase the key"""


class LSMMap:
    """A dynamic ordered dictionary from uint32 or uint64 keys (`key_dtype`) to uint32 values, updated in
    batches: a log-structured merge tree of sorted levels (level i holds at most batch_size * 2**i
    entries). Every key value is usable, 0 and the maximum included. On the CPU (``device="cpu"``, host
    arrays) or the current CUDA device (``device="cuda"``, CuPy / PyTorch arrays), with equal results.

    Batch semantics, deterministic: a batch is applied after everything before it; inside one batch a
    key with any erase ends erased, otherwise the LAST insert of the key wins. A batch larger than
    `batch_size` is applied as consecutive chunks in order. Updates are all or nothing: a ValueError or
    MemoryError leaves the map as it was. `cleanup_threshold` (0: off, else in (0, 1]) runs `cleanup`
    after an update when tombstones exceed that fraction of the resident entries.

    On the cuda backend every operation runs on the stream given at construction (default 0, the legacy
    default stream) and waits for it. Not safe to use from several Python threads at once.

    >>> import numpy as np, warpdex
    >>> m = warpdex.LSMMap()
    >>> m.insert(np.array([5, 1, 9], np.uint32), np.array([50, 10, 90], np.uint32))
    >>> m.count(np.array([0], np.uint32), np.array([5], np.uint32)).tolist()
    [2]
    """

    def __init__(
        self,
        key_dtype: Any = np.uint32,
        *,
        batch_size: int = 1 << 16,
        cleanup_threshold: float = 0.5,
        device: str = "cpu",
        stream: Any = None,
    ) -> None:
        """An empty map of `key_dtype` keys (uint32 or uint64); `batch_size` entries make level 0. Raises
        ValueError for options out of range."""
        dtype = np.dtype(key_dtype)
        if dtype == np.uint32:
            core = _warpdex.LSMMapCore32
        elif dtype == np.uint64:
            core = _warpdex.LSMMapCore64
        else:
            raise ValueError(f"LSMMap: key_dtype must be uint32 or uint64, got {dtype}")
        if batch_size < 1:
            raise ValueError(f"LSMMap: batch_size must be at least 1, got {batch_size}")
        self.key_dtype = dtype
        self._core = core(int(batch_size), float(cleanup_threshold), device, _arrays.stream_of(None, stream))
        self._cuda = self._core.device != "cpu"

    @property
    def device(self) -> str:
        """'cpu' or 'cuda:N'."""
        return self._core.device

    def _keys(self, keys: Any, name: str = "keys") -> Any:
        return _arrays.as_array(keys, self.key_dtype, name)

    def insert(self, keys: Any, values: Any) -> None:
        """Inserts each pair, replacing the value of a present key (a key repeated in the batch: the last
        one wins)."""
        self._core.update(self._keys(keys), _arrays.as_array(values, np.uint32, "values"), None, "insert")

    def erase(self, keys: Any) -> None:
        """Erases each key (absent keys are ignored)."""
        self._core.update(self._keys(keys), None, None, "erase")

    def update(self, keys: Any, values: Any, operations: Any) -> None:
        """A batch of mixed inserts and erases: operations[i] (uint8 LSMOperation codes) applies to
        (keys[i], values[i]); values of erasures are ignored. See the class for duplicates."""
        self._core.update(
            self._keys(keys),
            _arrays.as_array(values, np.uint32, "values"),
            _arrays.as_array(operations, np.uint8, "operations"),
            "update",
        )

    def bulk_build(self, keys: Any, values: Any) -> None:
        """Replaces the whole contents by the pairs (unsorted; the last pair of a key wins): one sort."""
        self._core.update(self._keys(keys), _arrays.as_array(values, np.uint32, "values"), None, "bulk_build")

    def lookup(self, queries: Any) -> tuple[Any, Any]:
        """(values, found): the value of each live query key (0 where absent) and a boolean array."""
        queries = self._keys(queries, "queries")
        values = _arrays.empty(queries, len(queries), np.uint32)
        found = _arrays.empty(queries, len(queries), np.uint8)
        self._core.lookup(queries, values, found)
        return values, _arrays.as_bool(found)

    def count(self, lower: Any, upper: Any) -> Any:
        """uint64 counts: the live keys k with lower[i] <= k <= upper[i] (0 when lower[i] > upper[i])."""
        lower = self._keys(lower, "lower")
        counts = _arrays.empty(lower, len(lower), np.uint64)
        self._core.count(lower, self._keys(upper, "upper"), counts)
        return counts

    def range(self, lower: Any, upper: Any, *, library: str | None = None) -> tuple[Any, Any, Any]:
        """(offsets, keys, values): the live pairs with lower[i] <= key <= upper[i] are
        keys[offsets[i]:offsets[i + 1]] (ascending) and the values beside them; offsets has len(lower) + 1
        uint64 entries. Arrays that own the library's buffers (no copy): NumPy on the CPU, CuPy or PyTorch
        (`library`, default the queries' own) on CUDA."""
        lower = self._keys(lower, "lower")
        return self._core.range(lower, self._keys(upper, "upper"), self._owned_library(lower, library))

    def successor(self, queries: Any) -> tuple[Any, Any, Any]:
        """(keys, values, found): the smallest live key > each query and its value (0, 0, False when none)."""
        return self._neighbour(queries, True)

    def predecessor(self, queries: Any) -> tuple[Any, Any, Any]:
        """(keys, values, found): the largest live key < each query and its value (0, 0, False when none)."""
        return self._neighbour(queries, False)

    def _neighbour(self, queries: Any, successor: bool) -> tuple[Any, Any, Any]:
        queries = self._keys(queries, "queries")
        keys = _arrays.empty(queries, len(queries), self.key_dtype)
        values = _arrays.empty(queries, len(queries), np.uint32)
        found = _arrays.empty(queries, len(queries), np.uint8)
        self._core.neighbour(queries, keys, values, found, successor)
        return keys, values, _arrays.as_bool(found)

    def _owned_library(self, like: Any, library: str | None) -> str:
        if library is None and self._cuda and _arrays.library_of(like) in ("cupy", "torch"):
            library = _arrays.library_of(like)
        return _arrays.owned_library(self._cuda, library)

    def items(self, library: str | None = None) -> tuple[Any, Any]:
        """(keys, values): every live pair in ascending key order (arrays owning the library's buffers:
        NumPy on the CPU, CuPy or PyTorch on CUDA as `library` says, default CuPy when installed)."""
        return self._core.items(_arrays.owned_library(self._cuda, library))

    def cleanup(self) -> None:
        """Merges all levels, dropping stale entries and tombstones; queries answer the same afterwards."""
        self._core.cleanup()

    def __len__(self) -> int:
        """The number of live keys."""
        return self._core.size()

    @property
    def resident_entries(self) -> int:
        """Entries held in the levels: live, stale and tombstones."""
        return self._core.resident_entries()

    @property
    def resident_stale(self) -> int:
        """Entries held in the levels that a newer entry of their key hides (dropped by the next cleanup)."""
        return self._core.resident_stale()

    @property
    def resident_tombstones(self) -> int:
        """Tombstones held in the levels."""
        return self._core.resident_tombstones()

    @property
    def occupied_levels(self) -> int:
        """Levels that hold entries."""
        return self._core.occupied_levels()

    def set_cleanup_threshold(self, threshold: float) -> None:
        """Changes the automatic cleanup threshold (0: off; else in (0, 1])."""
        self._core.set_cleanup_threshold(float(threshold))
