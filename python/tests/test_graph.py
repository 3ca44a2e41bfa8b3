"""Graph and sssp on the host backend against a Dijkstra written here."""

import heapq

import numpy as np
import pytest

import warpdex

pytestmark = pytest.mark.skipif(not warpdex.HAS_LSM, reason="this build has no graph family (no CCCL headers)")


def dijkstra(vertex_count, sources, targets, weights, source, directed, dtype):
    adjacency = [[] for _ in range(vertex_count)]
    for u, v, w in zip(sources.tolist(), targets.tolist(), weights.tolist()):
        if u == v:
            continue
        adjacency[u].append((v, w))
        if not directed:
            adjacency[v].append((u, w))
    distance = [None] * vertex_count
    distance[source] = dtype(0)
    heap = [(0.0, source)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > distance[u]:
            continue
        for v, w in adjacency[u]:
            candidate = dtype(distance[u] + dtype(w))  # float32 sums, as the library's
            if distance[v] is None or candidate < distance[v]:
                distance[v] = candidate
                heapq.heappush(heap, (float(candidate), v))
    return distance


@pytest.mark.parametrize("weight_dtype", [np.int32, np.float32])
@pytest.mark.parametrize("directed", [True, False])
def test_sssp_matches_dijkstra(rng, weight_dtype, directed):
    vertex_count, edge_count = 400, 1600
    sources = rng.integers(0, vertex_count, size=edge_count, dtype=np.uint32)
    targets = rng.integers(0, vertex_count, size=edge_count, dtype=np.uint32)
    if weight_dtype == np.int32:
        weights = rng.integers(0, 100, size=edge_count, dtype=np.int32)
    else:
        weights = rng.uniform(0, 10, size=edge_count).astype(np.float32)
    graph = warpdex.Graph(sources, targets, weights, vertex_count=vertex_count + 5, directed=directed)
    assert graph.vertex_count == vertex_count + 5  # the last five are isolated
    oracle_dtype = np.uint64 if weight_dtype == np.int32 else np.float32
    expected = dijkstra(vertex_count + 5, sources, targets, weights, 3, directed, oracle_dtype)
    unreachable = np.iinfo(np.uint64).max if weight_dtype == np.int32 else np.inf
    for algorithm in ("auto", "delta-stepping", "near-far", "bellman-ford", "async-delta-stepping"):
        distances, tree, stats = graph.sssp(3, algorithm=algorithm, predecessors=True)
        assert distances.dtype == oracle_dtype
        np.testing.assert_array_equal(distances, [unreachable if d is None else d for d in expected])
        assert stats["reached"] == sum(d is not None for d in expected) and stats["algorithm"] != "automatic"
        assert stats["algorithm"] == (algorithm if algorithm != "auto" else "async-delta-stepping")
    # The predecessor tree: tight arcs back to the source, NO_VERTEX where unreachable.
    arc_weight = {}
    for u, v, w in zip(sources.tolist(), targets.tolist(), weights.tolist()):
        for a, b in ((u, v), (v, u)) if not directed else ((u, v),):
            arc_weight[(a, b)] = min(w, arc_weight.get((a, b), w))
    assert tree[3] == 3
    for v, parent in enumerate(tree.tolist()):
        if expected[v] is None:
            assert parent == warpdex.NO_VERTEX
        elif v != 3:
            assert distances[v] == oracle_dtype(distances[parent] + oracle_dtype(arc_weight[(parent, v)]))


def test_unweighted_graphs_count_hops_and_ids_can_be_compacted():
    sources = np.array([10, 20, 30], np.uint32)
    targets = np.array([20, 30, 40], np.uint32)
    graph = warpdex.Graph(sources, targets, compact_ids=True, directed=False)
    assert graph.vertex_count == 4 and graph.edge_count == 6
    assert graph.vertex_of(30) == 2 and graph.id_of(3) == 40
    distances, tree, _ = graph.sssp(graph.vertex_of(10))
    assert distances.tolist() == [0, 1, 2, 3] and tree is None


def test_bad_graphs_and_sources_are_refused():
    with pytest.raises(ValueError, match="negative|>= 0"):
        warpdex.Graph([0], [1], np.array([-1], np.int32))
    with pytest.raises(ValueError, match="NaN"):
        warpdex.Graph([0], [1], np.array([np.nan], np.float32))
    with pytest.raises(ValueError, match="int32 or float32"):
        warpdex.Graph([0], [1], np.array([1.0], np.float64))
    with pytest.raises(ValueError, match="targets has 1 elements but sources has 2"):
        warpdex.Graph([0, 1], [1])
    graph = warpdex.Graph([0], [1])
    with pytest.raises(ValueError, match="out of range"):
        graph.sssp(2)
    with pytest.raises(ValueError, match="algorithm|auto"):
        graph.sssp(0, algorithm="dijkstra")
