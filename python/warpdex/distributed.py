"""The distributed family from Python: DistributedSlabMap, a slab hash map sharded over the GPUs of this process
through NCCL (include/warpdex/distributed/distributed_slab_map.hpp, docs/distributed.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _arrays
from . import _warpdex

HAS_NCCL: bool = _warpdex.has_nccl
"""Whether this build has the NCCL communicator (DistributedSlabMap can be made)."""


class DistributedSlabMap:
    """A hash map of uint32 keys to uint32 values sharded over GPUs of this process: each key lives in the slab
    map of the GPU that owns it (a hash of the key), one NCCL rank per GPU, the buckets exchanged by copies
    between the GPUs where peer access joins them. Needs a build with NCCL (`HAS_NCCL`); raises RuntimeError
    otherwise.

    Every call is collective: it takes a list of CUDA arrays (CuPy, PyTorch or any DLPack producer), one per GPU
    in the order of `devices`, array i on GPU devices[i] (an empty array where a GPU has nothing), and returns
    results in the same shape, each GPU's answers in the order of its own batch. The arrays are used in place
    (no copy); the call waits for all work already queued on those GPUs, and returns with its results written.
    Keys must be <= MAX_USER_KEY (a batch holding a reserved key raises ValueError on every GPU, changing
    nothing). E.g. over two GPUs with CuPy: ``m = DistributedSlabMap(2**20)``, ``m.insert([k0, k1], [v0,
    v1])`` with k0, v0 on GPU 0 and k1, v1 on GPU 1, then ``values, found = m.find([q0, q1])``.
    """

    def __init__(self, expected_keys: int, devices: Sequence[int] | None = None) -> None:
        """An empty map sized for `expected_keys` keys over all GPUs, over `devices` (default: every visible
        GPU). Raises RuntimeError in a build without NCCL, ValueError for a device that does not exist or one
        listed twice, MemoryError when the memory is not there."""
        if expected_keys < 0:
            raise ValueError(f"DistributedSlabMap: expected_keys must be >= 0, got {expected_keys}")
        self._core = _warpdex.DistributedSlabMapCore(
            int(expected_keys), None if devices is None else [int(device) for device in devices]
        )

    @property
    def devices(self) -> list[int]:
        """The GPUs of the map, rank by rank."""
        return self._core.devices

    @property
    def exchanges_by_copies(self) -> bool:
        """Whether the calls exchange buckets by copies between the GPUs (peer access), else through NCCL."""
        return self._core.exchanges_by_copies

    def _per_gpu(self, arrays: Sequence[Any], dtype: Any, name: str) -> list[Any]:
        arrays = list(arrays)
        if len(arrays) != len(self.devices):
            raise ValueError(
                f"DistributedSlabMap: {name} holds {len(arrays)} arrays; pass one per GPU of the map ({len(self.devices)})"
            )
        return [_arrays.as_array(array, dtype, f"{name}[{rank}]") for rank, array in enumerate(arrays)]

    def insert(self, keys: Sequence[Any], values: Sequence[Any], *, return_status: bool = False) -> list[Any] | None:
        """Inserts each pair whose key is absent (a present key keeps its value). Returns None, or with
        `return_status` one int32 array of Status codes per GPU (INSERTED, ALREADY_PRESENT, OUT_OF_MEMORY)."""
        keys = self._per_gpu(keys, np.uint32, "keys")
        values = self._per_gpu(values, np.uint32, "values")
        statuses = [_arrays.empty(k, len(k), np.int32) for k in keys] if return_status else None
        self._core.insert(keys, values, statuses, False)
        return statuses

    def insert_or_assign(
        self, keys: Sequence[Any], values: Sequence[Any], *, return_status: bool = False
    ) -> list[Any] | None:
        """Inserts each pair, replacing the value of a present key. Statuses: INSERTED, ASSIGNED, OUT_OF_MEMORY."""
        keys = self._per_gpu(keys, np.uint32, "keys")
        values = self._per_gpu(values, np.uint32, "values")
        statuses = [_arrays.empty(k, len(k), np.int32) for k in keys] if return_status else None
        self._core.insert(keys, values, statuses, True)
        return statuses

    def find(self, keys: Sequence[Any]) -> tuple[list[Any], list[Any]]:
        """(values, statuses), one array each per GPU: statuses[g][i] is FOUND or NOT_FOUND (int32 Status codes)
        for keys[g][i], values[g][i] its value where found (0 elsewhere)."""
        keys = self._per_gpu(keys, np.uint32, "keys")
        values = [_arrays.full(k, len(k), 0, np.uint32) for k in keys]
        statuses = [_arrays.empty(k, len(k), np.int32) for k in keys]
        self._core.find(keys, values, statuses)
        return values, statuses

    def erase(self, keys: Sequence[Any], *, return_status: bool = False) -> list[Any] | None:
        """Removes each key that is present. With `return_status`, int32 Status codes per GPU (ERASED, NOT_FOUND)."""
        keys = self._per_gpu(keys, np.uint32, "keys")
        statuses = [_arrays.empty(k, len(k), np.int32) for k in keys] if return_status else None
        self._core.erase(keys, statuses)
        return statuses

    def sizes(self) -> list[int]:
        """The keys each GPU's table holds."""
        return self._core.sizes()

    def __len__(self) -> int:
        """The keys in the map, over all GPUs."""
        return self._core.size()
