"""The hash family: SlabMap and SlabMultimap, the slab hash in unique-key and multimap mode
(include/warpdex/hash/slab_map.hpp, slab_multimap.hpp)."""

from __future__ import annotations

import enum
from typing import Any

import numpy as np

from . import _arrays
from . import _warpdex

EMPTY_KEY: int = _warpdex.slab_empty_key
"""Reserved key (0xffffffff): marks an empty slot; never a user key."""
ERASED_KEY: int = _warpdex.slab_erased_key
"""Reserved key (0xfffffffe): marks an erased slot; never a user key."""
MAX_USER_KEY: int = _warpdex.slab_max_user_key
"""The largest key a SlabMap takes (0xfffffffd)."""


class Status(enum.IntEnum):
    """What one element of a SlabMap batch did (the int32 codes of the statuses arrays)."""

    FOUND = 0
    """find: the key is present (its value was written)."""
    NOT_FOUND = 1
    """find or erase: the key was absent."""
    INSERTED = 2
    """insert or insert_or_assign: the key was absent and now holds the value."""
    ALREADY_PRESENT = 3
    """insert: the key was present and kept its value."""
    ASSIGNED = 4
    """insert_or_assign: the key was present and now holds the new value."""
    ERASED = 5
    """erase: the key was present and is now absent."""
    OUT_OF_MEMORY = 6
    """insert or insert_or_assign: no slab could be had; the element changed nothing."""
    REJECTED = 7
    """insert_many or find_many: the element's batch holds a reserved key, so none of that batch ran (the
    other batches of the call did)."""


class Operation(enum.IntEnum):
    """The operation codes of a mixed batch (`SlabMap.execute`)."""

    FIND = 0
    INSERT = 1
    INSERT_OR_ASSIGN = 2
    ERASE = 3


def _keys(keys: Any) -> Any:
    return _arrays.as_array(keys, np.uint32, "keys")


def _offsets(offsets: Any, key_count: int, function: str) -> Any:
    """The batch offsets of a many-batch call, checked on the host (a copy of len(batches) + 1 words): at
    least one entry, the first 0, the last `key_count`, none below its predecessor."""
    offsets = _arrays.as_array(offsets, np.uint64, "offsets")
    host = _arrays.to_numpy(offsets)
    if host.ndim != 1 or len(host) == 0:
        raise ValueError(f"{function}: offsets must be a one-dimensional array of batches + 1 entries")
    if host.dtype != np.uint64:
        raise ValueError(f"{function}: offsets must be uint64, got {host.dtype}")
    if int(host[0]) != 0 or int(host[-1]) != key_count or bool(np.any(host[1:] < host[:-1])):
        raise ValueError(f"{function}: offsets must rise from 0 to len(keys) = {key_count}")
    return offsets


class _SlabTable:
    """What SlabMap and SlabMultimap share: the compiled table (`_core`) and its mode-independent operations."""

    _core: Any
    _cuda: bool

    @property
    def device(self) -> str:
        """'cpu' or 'cuda:N'."""
        return self._core.device

    def _status_array(self, like: Any, size: int) -> Any:
        return _arrays.empty(like, size, np.int32)

    def contains(self, keys: Any) -> Any:
        """A boolean array: whether each key is present (holds at least one value)."""
        keys = _keys(keys)
        found = _arrays.empty(keys, len(keys), np.uint8)
        self._core.contains(keys, found)
        return _arrays.as_bool(found)

    def execute(self, operations: Any, keys: Any, values: Any) -> tuple[Any, Any]:
        """A mixed batch, all elements concurrent: element i does operations[i] (Operation codes, int32 or
        uint32) on (keys[i], values[i]) (values are read for insertions only). Returns (values_out,
        statuses): values_out[i] is the value a successful FIND found (0 elsewhere) and statuses[i] the
        int32 Status of element i. Exhaustion is reported per element (OUT_OF_MEMORY). A SlabMultimap's
        ERASE removes one instance and it refuses INSERT_OR_ASSIGN (ValueError)."""
        keys = _keys(keys)
        operations = _arrays.as_array(operations, np.int32, "operations")
        values = _arrays.as_array(values, np.uint32, "values")
        values_out = _arrays.full(keys, len(keys), 0, np.uint32)
        statuses = self._status_array(keys, len(keys))
        self._core.execute(operations, keys, values, values_out, statuses)
        return values_out, statuses

    def items(self, library: str | None = None) -> tuple[Any, Any]:
        """(keys, values): every live pair (a multimap's duplicates included), in no particular order, as two
        uint32 arrays in the table's memory, owned by the arrays (no copy): NumPy on the CPU; on CUDA, arrays
        of `library` ('cupy' or 'torch'; default CuPy when installed, else PyTorch)."""
        return self._core.items(_arrays.owned_library(self._cuda, library))

    def __len__(self) -> int:
        """The number of live pairs (counted by walking every list: O(slabs in use))."""
        return self._core.size()

    def clear(self) -> None:
        """Removes every pair (added pool memory stays)."""
        self._core.clear()

    def flush(self) -> None:
        """Reclaims erased slots and empty overflow slabs, keeping every pair."""
        self._core.flush()

    def rehash(self, capacity: int, *, base_fill: float = 0.6) -> None:
        """Rebuilds the table with buckets for `capacity` pairs, keeping every pair. On MemoryError (the
        pairs do not fit, or no memory) the table is left as it was."""
        self._core.rehash(int(capacity), float(base_fill))

    def statistics(self) -> dict[str, float]:
        """Occupancy and memory use: bucket_count, pool_slabs, super_block_count, slabs_in_use, live,
        erased, longest_chain, mean_slabs_per_bucket, memory_utilization, bytes_per_live_entry,
        reserved_bytes."""
        return self._core.statistics()


class SlabMap(_SlabTable):
    """A concurrent hash map of uint32 keys to uint32 values in slab lists (the slab hash), on the CPU
    (``device="cpu"``, NumPy or other host arrays) or the current CUDA device (``device="cuda"``, CuPy,
    PyTorch or other CUDA arrays). Every array passed to a method lives on the map's device; results are
    arrays of the keys' library on that device.

    Keys must be <= MAX_USER_KEY (EMPTY_KEY and ERASED_KEY are reserved: a batch holding one raises
    ValueError and changes nothing); values are any uint32. A batch's operations run concurrently: for a
    key repeated in one batch the outcome is that of some sequential order of its operations (see
    include/warpdex/hash/slab_table.hpp); e.g. of several inserts of an absent key exactly one reports
    INSERTED and its value stays.

    The map grows its pool of overflow slabs when an insertion batch exhausts it (``grows=True``); it
    never rehashes by itself (`rehash` changes the bucket count). MemoryError is raised when memory runs
    out (the elements that fit were inserted), or reported per element with ``return_status=True``.

    On the cuda backend every operation runs on the stream given at construction (an integer, a CuPy or
    a PyTorch stream; default 0, the legacy default stream) and waits for it; the current CuPy / PyTorch
    stream is not consulted per call. Not safe to use from several Python threads at once.

    >>> import numpy as np, warpdex
    >>> m = warpdex.SlabMap(1000)
    >>> m.insert(np.array([1, 2], np.uint32), np.array([10, 20], np.uint32))
    >>> values, found = m.find(np.array([2, 3], np.uint32))
    >>> values.tolist(), found.tolist()
    ([20, 0], [True, False])
    """

    def __init__(
        self,
        capacity: int,
        *,
        key_dtype: Any = np.uint32,
        value_dtype: Any = np.uint32,
        base_fill: float = 0.6,
        grows: bool = True,
        seed: int = _warpdex.slab_default_seed,
        device: str = "cpu",
        stream: Any = None,
    ) -> None:
        """An empty map sized for `capacity` keys: buckets for a base-slab fill of `base_fill` (0.6: most
        lists stay one slab long) and a pool of overflow slabs. `key_dtype` and `value_dtype` must be
        uint32 (the slab hash's pairs are 32-bit). `seed` draws the bucket hash. Raises ValueError for bad
        arguments and MemoryError when the memory is not there."""
        for name, dtype in (("key_dtype", key_dtype), ("value_dtype", value_dtype)):
            if np.dtype(dtype) != np.uint32:
                raise ValueError(f"SlabMap: {name} must be uint32 (32-bit keys and values), got {np.dtype(dtype)}")
        if capacity < 0:
            raise ValueError(f"SlabMap: capacity must be >= 0, got {capacity}")
        self._library = None
        self._core = _warpdex.SlabMapCore(
            int(capacity), float(base_fill), 1, bool(grows), int(seed), device, _arrays.stream_of(None, stream)
        )
        self._cuda = self._core.device != "cpu"

    def insert(self, keys: Any, values: Any, *, return_status: bool = False) -> Any:
        """Inserts each (keys[i], values[i]) whose key is absent; a present key keeps its value. Returns
        None, or with `return_status` an int32 array of Status codes (INSERTED, ALREADY_PRESENT,
        OUT_OF_MEMORY) instead of raising MemoryError. O(n * list length)."""
        keys = _keys(keys)
        values = _arrays.as_array(values, np.uint32, "values")
        statuses = self._status_array(keys, len(keys)) if return_status else None
        self._core.insert(keys, values, statuses, False)
        return statuses

    def insert_or_assign(self, keys: Any, values: Any, *, return_status: bool = False) -> Any:
        """Inserts each pair, replacing the value of a present key (for a key repeated in the batch, one of
        its values stays). Statuses: INSERTED, ASSIGNED, OUT_OF_MEMORY. As `insert` otherwise."""
        keys = _keys(keys)
        values = _arrays.as_array(values, np.uint32, "values")
        statuses = self._status_array(keys, len(keys)) if return_status else None
        self._core.insert(keys, values, statuses, True)
        return statuses

    def erase(self, keys: Any, *, return_status: bool = False) -> Any:
        """Removes each key that is present (absent keys are ignored). With `return_status`, returns int32
        Status codes: ERASED or NOT_FOUND (a key repeated in the batch: one ERASED, the others NOT_FOUND)."""
        keys = _keys(keys)
        statuses = self._status_array(keys, len(keys)) if return_status else None
        self._core.erase(keys, statuses, False)
        return statuses

    def find(self, keys: Any, default: int = 0) -> tuple[Any, Any]:
        """(values, found): values[i] is the value of keys[i] where found[i], else `default` (a uint32);
        found is a boolean array. Both arrays of the keys' library, written in one pass of the library's
        find. O(n * list length)."""
        keys = _keys(keys)
        if not 0 <= default <= 0xFFFFFFFF:
            raise ValueError(f"SlabMap.find: default must be a uint32 (0 .. 2**32 - 1), got {default}")
        values = _arrays.empty(keys, len(keys), np.uint32)
        found = _arrays.empty(keys, len(keys), np.uint8)
        self._core.find_or_default(keys, values, found, int(default))
        return values, _arrays.as_bool(found)

    def find_status(self, keys: Any, *, values_out: Any = None, statuses_out: Any = None) -> tuple[Any, Any]:
        """(values, statuses): the library's find as it is, one pass with nothing added: statuses[i] is
        FOUND or NOT_FOUND (int32 or uint32 codes) and values[i] the value of a found key, left unwritten
        (uninitialized in a new array) where not found. Into `values_out` / `statuses_out` when given (as
        fast as `find`, which writes its defaults and found flags in the same pass)."""
        keys = _keys(keys)
        values = _arrays.empty(keys, len(keys), np.uint32) if values_out is None else _arrays.writable(values_out,
                                                                                                       "values_out")
        statuses = (self._status_array(keys, len(keys)) if statuses_out is None
                    else _arrays.writable(statuses_out, "statuses_out"))
        self._core.find(keys, values, statuses)
        return values, statuses

    def insert_many(self, keys: Any, values: Any, offsets: Any) -> Any:
        """Many insertion batches in one call: batch b is the pairs of keys[offsets[b]:offsets[b + 1]] and
        the same slice of values; `offsets` holds one entry more than there are batches, rising from 0 to
        len(keys) (uint64, on the map's device; a list for a CPU map). Returns int32 Status codes per
        element: INSERTED, ALREADY_PRESENT or OUT_OF_MEMORY, and REJECTED for every element of a batch of
        at most 2048 keys that holds a reserved key (that batch changes nothing; the others run; in a longer
        batch each element is checked alone), so one caller's bad key costs its own batch alone. The batches
        run as one batch would (a key in two of them is a repeated key). The pool does not grow inside this
        call: an element that found no slab reports OUT_OF_MEMORY and changed nothing (`insert` grows the
        pool). On CUDA one kernel runs every batch. Raises ValueError for offsets that do not rise from 0 to
        len(keys)."""
        keys = _keys(keys)
        values = _arrays.as_array(values, np.uint32, "values")
        offsets = _offsets(offsets, len(keys), "SlabMap.insert_many")
        statuses = self._status_array(keys, len(keys))
        self._core.insert_many(keys, values, offsets, statuses)
        return statuses

    def find_many(self, keys: Any, offsets: Any) -> tuple[Any, Any]:
        """(values, statuses) for many find batches in one call, batch b the keys of
        keys[offsets[b]:offsets[b + 1]] (`offsets` as `insert_many`'s): statuses[i] is FOUND (values[i] is
        the key's value), NOT_FOUND (values[i] is 0), or REJECTED for every element of a batch that holds a
        reserved key (values 0; batches as `insert_many`'s). On CUDA one kernel runs every batch.

        >>> import numpy as np, warpdex
        >>> m = warpdex.SlabMap(100)
        >>> m.insert_many(np.array([1, 2, 3], np.uint32), np.array([10, 20, 30], np.uint32), [0, 2, 3]).tolist()
        [2, 2, 2]
        >>> values, statuses = m.find_many(np.array([3, 4, 1], np.uint32), [0, 1, 3])
        >>> values.tolist(), statuses.tolist()
        ([30, 0, 10], [0, 1, 0])
        """
        keys = _keys(keys)
        offsets = _offsets(offsets, len(keys), "SlabMap.find_many")
        values = _arrays.full(keys, len(keys), 0, np.uint32)
        statuses = self._status_array(keys, len(keys))
        self._core.find_many(keys, offsets, values, statuses)
        return values, statuses


class SlabMultimap(_SlabTable):
    """The slab hash in multimap mode: uint32 keys each holding any number of uint32 values (duplicate pairs
    included), on the CPU or the current CUDA device as `SlabMap` (arrays, streams, growth, reserved keys
    and errors as there).

    A batch's operations run concurrently: every insert adds its pair (INSERTED, or OUT_OF_MEMORY adding
    nothing); `erase` removes one instance of each key (ERASED, or NOT_FOUND when none was left: n erasures
    of a key holding m values remove min(n, m)); `erase_all` removes every instance. `count` and
    `find_all` see the pairs present when they walk each list: run them without concurrent insertions.

    >>> import numpy as np, warpdex
    >>> m = warpdex.SlabMultimap(100)
    >>> m.insert(np.array([1, 1, 2], np.uint32), np.array([10, 11, 20], np.uint32))
    >>> offsets, values = m.find_all(np.array([1, 3], np.uint32))
    >>> offsets.tolist(), sorted(values.tolist())
    ([0, 2, 2], [10, 11])
    """

    def __init__(
        self,
        capacity: int,
        *,
        values_per_key: int = 1,
        base_fill: float = 0.6,
        grows: bool = True,
        seed: int = _warpdex.slab_default_seed,
        device: str = "cpu",
        stream: Any = None,
    ) -> None:
        """An empty multimap sized for `capacity` pairs whose keys hold about `values_per_key` values each
        (a key's values share its list, so the pool is sized for longer lists)."""
        if capacity < 0:
            raise ValueError(f"SlabMultimap: capacity must be >= 0, got {capacity}")
        if values_per_key < 1:
            raise ValueError(f"SlabMultimap: values_per_key must be at least 1, got {values_per_key}")
        self._core = _warpdex.SlabMultimapCore(
            int(capacity), float(base_fill), int(values_per_key), bool(grows), int(seed), device,
            _arrays.stream_of(None, stream),
        )
        self._cuda = self._core.device != "cpu"

    def insert(self, keys: Any, values: Any, *, return_status: bool = False) -> Any:
        """Adds every pair (keys[i], values[i]). Returns None, or with `return_status` int32 Status codes
        (INSERTED or OUT_OF_MEMORY) instead of raising MemoryError."""
        keys = _keys(keys)
        values = _arrays.as_array(values, np.uint32, "values")
        statuses = _arrays.empty(keys, len(keys), np.int32) if return_status else None
        self._core.insert(keys, values, statuses, False)
        return statuses

    def erase(self, keys: Any, *, return_status: bool = False) -> Any:
        """Erases one instance of each key (which one is unspecified); statuses ERASED or NOT_FOUND."""
        keys = _keys(keys)
        statuses = _arrays.empty(keys, len(keys), np.int32) if return_status else None
        self._core.erase(keys, statuses, False)
        return statuses

    def erase_all(self, keys: Any) -> Any:
        """Erases every instance of each key; returns int32 statuses: ERASED where the key had one, else
        NOT_FOUND."""
        keys = _keys(keys)
        statuses = _arrays.empty(keys, len(keys), np.int32)
        self._core.erase(keys, statuses, True)
        return statuses

    def count(self, keys: Any) -> Any:
        """uint64 counts: how many values each key holds."""
        keys = _keys(keys)
        counts = _arrays.empty(keys, len(keys), np.uint64)
        self._core.count(keys, counts)
        return counts

    def find_all(self, keys: Any) -> tuple[Any, Any]:
        """(offsets, values): the values of keys[i] are values[offsets[i]:offsets[i + 1]], in no particular
        order; offsets has len(keys) + 1 uint64 entries. Two passes (count, then fill); both arrays of the
        keys' library."""
        keys = _keys(keys)
        offsets = _arrays.empty(keys, len(keys) + 1, np.uint64)
        total = self._core.find_all_offsets(keys, offsets)
        values = _arrays.empty(keys, total, np.uint32)
        self._core.find_all(keys, offsets, values)
        return offsets, values
