"""Maximal cliques of undirected graphs (Graph.maximal_cliques) against a Bron-Kerbosch oracle in Python."""

import numpy as np
import pytest

import warpdex

pytestmark = pytest.mark.skipif(not warpdex.HAS_LSM, reason="this build has no dpp family (no CCCL headers)")


def bron_kerbosch(adjacency):
    """Every maximal clique (frozensets) of the graph given as a list of neighbour sets, with pivoting."""
    cliques = []

    def extend(clique, candidates, excluded):
        if not candidates and not excluded:
            cliques.append(frozenset(clique))
            return
        pivot = max(candidates | excluded, key=lambda u: len(adjacency[u] & candidates))
        for v in list(candidates - adjacency[pivot]):
            extend(clique | {v}, candidates & adjacency[v], excluded & adjacency[v])
            candidates = candidates - {v}
            excluded = excluded | {v}

    extend(set(), set(range(len(adjacency))), set())
    return cliques


def random_graph(rng, vertices, edges):
    sources = rng.integers(0, vertices, size=edges, dtype=np.uint32)
    targets = rng.integers(0, vertices, size=edges, dtype=np.uint32)
    adjacency = [set() for _ in range(vertices)]
    for s, t in zip(sources.tolist(), targets.tolist()):
        if s != t:
            adjacency[s].add(t)
            adjacency[t].add(s)
    return sources, targets, adjacency


def check_order(cliques):
    sizes = [len(c) for c in cliques]
    assert sizes == sorted(sizes)  # grouped by size, ascending
    assert all(c == sorted(c) for c in cliques)  # each clique's vertices ascending


@pytest.mark.parametrize("shape", [(40, 300), (60, 900), (300, 1200)])
def test_maximal_cliques_match_bron_kerbosch(rng, shape):
    vertices, edges = shape
    sources, targets, adjacency = random_graph(rng, vertices, edges)
    graph = warpdex.Graph(sources, targets, vertex_count=vertices, directed=False)
    result = graph.maximal_cliques()
    cliques = result.to_list()
    check_order(cliques)
    expected = bron_kerbosch(adjacency)
    assert sorted(map(sorted, cliques)) == sorted(map(sorted, expected))
    assert len(result) == result.count == len(expected)
    histogram = np.bincount([len(c) for c in expected])
    assert result.size_histogram == histogram.tolist()
    assert result.clique_number == max(len(c) for c in expected)
    assert result.vertices.dtype == np.uint32 and result.offsets.dtype == np.uint64
    assert result.statistics["all_cliques"] >= result.count

    at_least = 3
    large = graph.maximal_cliques(min_size=at_least)
    assert large.to_list() == [c for c in cliques if len(c) >= at_least]
    assert large.size_histogram == result.size_histogram and large.count == result.count
    counted = graph.maximal_cliques(count_only=True)
    assert counted.vertices is None and len(counted) == 0 and counted.size_histogram == result.size_histogram
    with pytest.raises(ValueError, match="counted only"):
        counted.to_list()


def test_cliques_of_small_graphs():
    # A grid's maximal cliques are its edges; isolated vertices are 1-cliques; a 5-clique is one clique.
    grid = [(r * 3 + c, r * 3 + c + 1) for r in range(3) for c in range(2)] + [(r * 3 + c, r * 3 + c + 3)
                                                                                for r in range(2) for c in range(3)]
    sources, targets = (np.array(side, np.uint32) for side in zip(*grid))
    result = warpdex.Graph(sources, targets, vertex_count=11, directed=False).maximal_cliques()
    assert result.size_histogram == [0, 2, 12]
    assert result.to_list()[:2] == [[9], [10]]
    complete = [(a, b) for a in range(5) for b in range(a + 1, 5)]
    sources, targets = (np.array(side, np.uint32) for side in zip(*complete))
    assert warpdex.Graph(sources, targets, directed=False).maximal_cliques().to_list() == [[0, 1, 2, 3, 4]]
    empty = warpdex.Graph(np.array([], np.uint32), np.array([], np.uint32), directed=False).maximal_cliques()
    assert empty.count == 0 and empty.clique_number == 0 and empty.to_list() == []


def test_cliques_use_vertex_indices_with_compact_ids():
    sources = np.array([100, 200, 300], np.uint32)
    targets = np.array([200, 300, 100], np.uint32)
    graph = warpdex.Graph(sources, targets, directed=False, compact_ids=True)
    (triangle,) = graph.maximal_cliques().to_list()
    assert triangle == [0, 1, 2] and [graph.id_of(v) for v in triangle] == [100, 200, 300]


def test_clique_errors():
    graph = warpdex.Graph(np.array([0], np.uint32), np.array([1], np.uint32))
    with pytest.raises(ValueError, match="directed"):
        graph.maximal_cliques()
    undirected = warpdex.Graph(np.array([0], np.uint32), np.array([1], np.uint32), directed=False)
    with pytest.raises(ValueError, match="min_size"):
        undirected.maximal_cliques(min_size=0)
    sources, targets, _ = random_graph(np.random.default_rng(5), 60, 900)
    with pytest.raises(MemoryError, match="cliques"):
        warpdex.Graph(sources, targets, directed=False).maximal_cliques(memory_limit_bytes=1000)
