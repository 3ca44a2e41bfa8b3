"""The graph family: a CSR graph built from edge arrays, single-source shortest paths and maximal cliques
(include/warpdex/graph/csr_graph.hpp, sssp.hpp, include/warpdex/dpp/maximal_cliques.hpp)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _arrays
from . import _warpdex

NO_VERTEX: int = _warpdex.no_vertex
"""The predecessor of the source's unreachable vertices (and no vertex at all): 2**32 - 1."""


@dataclass
class CliqueSet:
    """The maximal cliques of an undirected graph (`Graph.maximal_cliques`).

    `vertices` holds the returned cliques' vertex indices one clique after another (uint32, in the graph's
    memory: NumPy on the CPU, CuPy or PyTorch on CUDA; None with ``count_only``), clique i being
    ``vertices[offsets[i]:offsets[i + 1]]`` (`offsets`: NumPy uint64, one more than the returned cliques).
    Cliques come grouped by size, ascending; each clique's vertices ascending; within a size in a fixed
    order (the same on every device). `size_histogram[s]` counts the maximal cliques of exactly s vertices,
    returned or not (index 0 unused). `statistics`: rounds, all_cliques (maximal or not), largest_round,
    peak_bytes, oriented_max_degree.
    """

    vertices: Any
    offsets: Any
    size_histogram: list[int]
    min_size: int
    statistics: dict[str, Any]

    @property
    def count(self) -> int:
        """Maximal cliques of every size."""
        return sum(self.size_histogram)

    @property
    def clique_number(self) -> int:
        """The size of the largest clique (0 for a graph without vertices)."""
        return max(len(self.size_histogram) - 1, 0)

    def __len__(self) -> int:
        """The returned cliques (those of at least `min_size` vertices)."""
        return len(self.offsets) - 1

    def to_list(self) -> list[list[int]]:
        """The returned cliques as lists of vertex indices, in their order (copied to the host)."""
        if self.vertices is None:
            raise ValueError("CliqueSet.to_list: the cliques were counted only (count_only=True)")
        vertices = _arrays.to_numpy(self.vertices).tolist()
        bounds = self.offsets.tolist()
        return [vertices[bounds[i]:bounds[i + 1]] for i in range(len(bounds) - 1)]


class Graph:
    """A directed or undirected graph in CSR form on the CPU (``device="cpu"``) or the current CUDA device
    (``device="cuda"``), built from host arrays of edges: `sources` and `targets` (uint32 vertex ids) and
    optional `weights` (int32 or float32, >= 0, not NaN; none: every arc weighs 1). Self-loops are dropped
    and repeated arcs merged, keeping the smallest weight; an undirected edge is stored as its two arcs
    (`edge_count` counts arcs). Ids below `vertex_count` (0: the largest id + 1), or, with `compact_ids`,
    renumbered to 0 .. k - 1 in ascending order (`vertex_of` / `id_of` convert). Raises ValueError for a
    negative or NaN weight, an id at or above a nonzero vertex_count, or mismatched sizes.

    >>> import numpy as np, warpdex
    >>> g = warpdex.Graph(np.array([0, 1], np.uint32), np.array([1, 2], np.uint32), np.array([5, 7], np.int32))
    >>> g.sssp(0)[0].tolist()
    [0, 5, 12]
    """

    def __init__(
        self,
        sources: Any,
        targets: Any,
        weights: Any = None,
        *,
        vertex_count: int = 0,
        directed: bool = True,
        compact_ids: bool = False,
        device: str = "cpu",
    ) -> None:
        """Builds the graph on `device` from the edge arrays (see the class)."""
        sources = _arrays.as_array(sources, np.uint32, "sources")
        targets = _arrays.as_array(targets, np.uint32, "targets")
        core = _warpdex.GraphCoreInt32
        if weights is not None:
            weights = _arrays.as_array(weights, np.int32, "weights")
            dtype = _arrays.dtype_of(weights)
            if dtype == np.float32:
                core = _warpdex.GraphCoreFloat32
            elif dtype != np.int32:
                raise ValueError(f"Graph: weights must be int32 or float32, got {dtype}")
        self.weight_dtype = np.dtype(np.float32 if core is _warpdex.GraphCoreFloat32 else np.int32)
        self._core = core(sources, targets, weights, int(vertex_count), bool(directed), bool(compact_ids), device)
        self._cuda = self._core.device != "cpu"

    @property
    def device(self) -> str:
        """'cpu' or 'cuda:N'."""
        return self._core.device

    @property
    def vertex_count(self) -> int:
        """Vertices, isolated ones included."""
        return self._core.vertex_count()

    @property
    def edge_count(self) -> int:
        """Arcs stored (an undirected edge counts twice)."""
        return self._core.edge_count()

    def vertex_of(self, id: int) -> int:
        """The vertex index of an edge-list id (itself unless compact_ids)."""
        return self._core.vertex_of(int(id))

    def id_of(self, vertex: int) -> int:
        """The edge-list id of a vertex index."""
        return self._core.id_of(int(vertex))

    def maximal_cliques(
        self,
        *,
        min_size: int = 1,
        count_only: bool = False,
        memory_limit_bytes: int = 0,
        library: str | None = None,
    ) -> CliqueSet:
        """Every maximal clique of the undirected graph (ValueError for a directed one), as a `CliqueSet`
        of vertex indices (`id_of` maps them back with compact_ids). Only cliques of at least `min_size`
        vertices are returned (all are counted in the histogram); ``count_only`` returns the histogram
        alone. Isolated vertices are maximal 1-cliques. The enumeration visits every clique, maximal or
        not: it stops with MemoryError, saying how much it needs, before holding more than
        `memory_limit_bytes` (0: nine tenths of the device's or host's memory). Same result on both devices.

        >>> import numpy as np, warpdex
        >>> g = warpdex.Graph(np.array([0, 1, 2, 2], np.uint32), np.array([1, 2, 0, 3], np.uint32), directed=False)
        >>> g.maximal_cliques().to_list()
        [[2, 3], [0, 1, 2]]
        """
        if min_size < 1:
            raise ValueError(f"maximal_cliques: min_size must be at least 1, got {min_size}")
        vertices, histogram, statistics = self._core.maximal_cliques(
            int(min_size), bool(count_only), int(memory_limit_bytes), _arrays.owned_library(self._cuda, library)
        )
        offsets = np.zeros(1, np.uint64)
        if not count_only:
            sizes = np.arange(len(histogram), dtype=np.uint64)[min_size:]
            counts = np.array(histogram[min_size:], dtype=np.int64)
            offsets = np.concatenate([offsets, np.cumsum(np.repeat(sizes, counts), dtype=np.uint64)])
        return CliqueSet(vertices, offsets, list(histogram), int(min_size), statistics)

    def sssp(
        self,
        source: int,
        *,
        algorithm: str = "auto",
        delta: float = 0.0,
        bucket_count: int = 10,
        predecessors: bool = False,
        library: str | None = None,
    ) -> tuple[Any, Any, dict[str, Any]]:
        """(distances, predecessors, statistics): shortest paths from vertex index `source`.

        Distances are uint64 for int32 weights (exact) and float32 for float32 weights (float32 sums, equal
        to a sequential Dijkstra's); unreachable vertices have the largest uint64 or +inf and predecessor
        NO_VERTEX. `predecessors` (else None) is a uint32 shortest-path tree, deterministic. `algorithm`:
        'auto', 'delta-stepping', 'near-far', 'bellman-ford' or 'async-delta-stepping' (same results;
        'async-delta-stepping' is the asynchronous kernel on CUDA and the OpenMP delta-stepping over all
        cores on the CPU); `delta` (0: chosen) and `bucket_count` tune the bucketed ones. Arrays own the library's buffers: NumPy on the CPU, CuPy or
        PyTorch on CUDA (`library`; default CuPy when installed). `statistics`: algorithm, delta, rounds,
        relaxed_arcs, reached, seconds.
        """
        return self._core.sssp(
            int(source), algorithm, float(delta), int(bucket_count), bool(predecessors),
            _arrays.owned_library(self._cuda, library),
        )
