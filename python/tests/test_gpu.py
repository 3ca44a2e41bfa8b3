"""The cuda backend through CuPy and PyTorch arrays, cross-checked against NumPy oracles and the host
backend. Skips, saying why, where there is no CUDA device, no CUDA backend in the build, or no CuPy /
PyTorch."""

import numpy as np
import pytest

import warpdex

_available, _reason = warpdex.cuda_available()
pytestmark = pytest.mark.skipif(not _available, reason=f"no CUDA: {_reason}")


def _cupy():
    return pytest.importorskip("cupy", reason="CuPy is not installed")


def _torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    return torch


def to_device(library, array):
    if library == "cupy":
        return _cupy().asarray(array)
    torch = _torch()
    return torch.from_dlpack(array.copy()).to("cuda")


def to_host(array):
    if hasattr(array, "get"):
        return array.get()
    if hasattr(array, "cpu"):
        return array.cpu().numpy()
    return np.asarray(array)


def pointer(array):
    return array.data.ptr if hasattr(array, "get") else array.data_ptr()


LIBRARIES = ["cupy", "torch"]


@pytest.mark.parametrize("library", LIBRARIES)
def test_multisplit_writes_into_the_callers_device_arrays(library, rng):
    keys = rng.integers(0, 2**32, size=1 << 16, dtype=np.uint32)
    values = np.arange(keys.size, dtype=np.uint32)
    device_keys, device_values = to_device(library, keys), to_device(library, values)
    keys_out, values_out = to_device(library, np.empty_like(keys)), to_device(library, np.empty_like(values))
    result = warpdex.multisplit(
        device_keys, warpdex.BitFieldBuckets(4, 6), device_values, keys_out=keys_out, values_out=values_out
    )
    # Zero copy: the same device memory came back, written in place.
    assert pointer(result.keys) == pointer(keys_out) and pointer(result.values) == pointer(values_out)
    host = warpdex.multisplit(keys, warpdex.BitFieldBuckets(4, 6), values)
    np.testing.assert_array_equal(to_host(keys_out), host.keys)
    np.testing.assert_array_equal(to_host(values_out), host.values)
    np.testing.assert_array_equal(result.offsets, host.offsets)


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("algorithm", ["automatic", "three_pass", "single_pass", "reduced_bit_sort", "partition"])
def test_multisplit_algorithms_agree_with_the_host(library, algorithm, rng):
    keys = rng.integers(0, 10_000, size=100_000, dtype=np.uint32)
    # The partition splits into at most 3 buckets (with more it is automatic).
    splitters = np.array([2000, 9000] if algorithm == "partition" else [100, 2000, 2001, 9000], np.uint32)
    result = warpdex.multisplit(
        to_device(library, keys), warpdex.SplitterBuckets(to_device(library, splitters)), algorithm=algorithm
    )
    expected = warpdex.multisplit(keys, warpdex.SplitterBuckets(splitters))
    np.testing.assert_array_equal(to_host(result.keys), expected.keys)
    assert type(result.keys).__module__.partition(".")[0] == library  # allocated by the caller's library


@pytest.mark.parametrize("library", LIBRARIES)
def test_radix_sort_and_histogram_on_the_device(library, rng):
    keys = rng.integers(0, 2**32, size=200_000, dtype=np.uint32)
    values = np.arange(keys.size, dtype=np.uint32)
    sorted_keys, sorted_values = warpdex.radix_sort(to_device(library, keys), to_device(library, values))
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(to_host(sorted_keys), keys[order])
    np.testing.assert_array_equal(to_host(sorted_values), values[order])
    wide = rng.integers(0, 2**64, size=50_000, dtype=np.uint64, endpoint=False)
    np.testing.assert_array_equal(to_host(warpdex.radix_sort(to_device(library, wide), descending=True)),
                                  np.sort(wide)[::-1])
    counts, not_counted = warpdex.histogram(to_device(library, keys), 64, range=(0, 2**31))
    host_counts, host_not_counted = warpdex.histogram(keys, 64, range=(0, 2**31))
    np.testing.assert_array_equal(counts, host_counts)
    assert not_counted == host_not_counted


@pytest.mark.parametrize("library", LIBRARIES)
def test_slab_map_on_the_device_matches_the_host(library, rng):
    keys = np.unique(rng.integers(0, warpdex.MAX_USER_KEY, size=300_000, dtype=np.uint32))
    keys = rng.permutation(keys)
    values = rng.integers(0, 2**32, size=keys.size, dtype=np.uint32)
    table = warpdex.SlabMap(keys.size // 2, device="cuda")
    statuses = table.insert(to_device(library, keys), to_device(library, values), return_status=True)
    assert np.all(to_host(statuses) == warpdex.Status.INSERTED)
    queries = np.concatenate([keys[:50_000], rng.integers(0, warpdex.MAX_USER_KEY, size=50_000, dtype=np.uint32)])
    found_values, found = table.find(to_device(library, queries), default=0)
    oracle = dict(zip(keys.tolist(), values.tolist()))
    expected_found = np.array([q in oracle for q in queries.tolist()])
    np.testing.assert_array_equal(to_host(found), expected_found)
    np.testing.assert_array_equal(to_host(found_values), [oracle.get(q, 0) for q in queries.tolist()])
    np.testing.assert_array_equal(to_host(table.contains(to_device(library, queries))), expected_found)
    erased = np.ascontiguousarray(keys[::2])
    assert np.all(to_host(table.erase(to_device(library, erased), return_status=True)) == warpdex.Status.ERASED)
    item_keys, item_values = table.items(library=library)
    assert type(item_keys).__module__.partition(".")[0] == library
    remaining = dict(zip(to_host(item_keys).tolist(), to_host(item_values).tolist()))
    erased_keys = set(erased.tolist())  # once: a set per item made this check quadratic
    assert remaining == {k: v for k, v in oracle.items() if k not in erased_keys}


@pytest.mark.parametrize("library", LIBRARIES)
def test_many_batches_on_the_device_match_the_host(library, rng):
    keys = rng.permutation(np.unique(rng.integers(0, warpdex.MAX_USER_KEY, size=40_000, dtype=np.uint32)))
    keys[100] = warpdex.EMPTY_KEY  # in the second batch (1000 keys): that batch is rejected whole
    values = rng.integers(0, 2**32, size=keys.size, dtype=np.uint32)
    offsets = np.array([0, 64, 1064, 1064, 20_000, keys.size], np.uint64)
    results = []
    for device in ("cpu", "cuda"):
        table = warpdex.SlabMap(keys.size, device=device)
        put = (lambda array: array) if device == "cpu" else (lambda array: to_device(library, array))
        statuses = table.insert_many(put(keys), put(values), put(offsets))
        found_values, found_statuses = table.find_many(put(keys), put(offsets))
        results.append([to_host(array) for array in (statuses, found_values, found_statuses)])
    for on_host, on_device in zip(*results):
        np.testing.assert_array_equal(on_device, on_host)
    assert np.all(results[0][0][64:1064] == warpdex.Status.REJECTED)
    assert np.all(np.delete(results[0][0], np.s_[64:1064]) == warpdex.Status.INSERTED)


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_sorted_index_on_the_device_matches_numpy(library, dtype, rng):
    keys = np.sort(rng.integers(0, 1 << 20, size=1 << 20, dtype=dtype))
    queries = rng.integers(0, 1 << 20, size=1 << 20, dtype=dtype)  # unsorted: 'automatic' sorts them
    index = warpdex.SortedIndex(to_device(library, keys))
    device_queries = to_device(library, queries)
    for algorithm in ("automatic", "binary", "btree", "kary", "sorted_queries"):
        positions = index.lower_bound(device_queries, algorithm=algorithm)
        assert type(positions).__module__.partition(".")[0] == library
        np.testing.assert_array_equal(to_host(positions), np.searchsorted(keys, queries, side="left"))
    first, last = index.equal_range(device_queries)
    np.testing.assert_array_equal(to_host(last), np.searchsorted(keys, queries, side="right"))
    np.testing.assert_array_equal(to_host(index.contains(device_queries)), np.isin(queries, keys))


@pytest.mark.parametrize("library", LIBRARIES)
def test_string_matching_on_the_device_matches_the_host(library, rng):
    text = rng.choice(np.frombuffer(b"ab", np.uint8), size=1 << 20)
    device_text = to_device(library, text)
    for length in (2, 8, 13):
        pattern = text[4096 : 4096 + length].tobytes()
        assert warpdex.count_matches(device_text, pattern) == warpdex.count_matches(text, pattern)
        positions = warpdex.find_matches(device_text, pattern)
        assert type(positions).__module__.partition(".")[0] == library
        np.testing.assert_array_equal(to_host(positions), warpdex.find_matches(text, pattern))
    patterns = [b"ab", b"abba", b"b" * 9]
    np.testing.assert_array_equal(warpdex.count_matches(device_text, patterns), warpdex.count_matches(text, patterns))


@pytest.mark.skipif(not warpdex.HAS_LSM, reason="this build has no LSM")
@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_lsm_map_on_the_device_matches_the_host(library, dtype, rng):
    device_map = warpdex.LSMMap(dtype, batch_size=1 << 12, device="cuda")
    host_map = warpdex.LSMMap(dtype, batch_size=1 << 12)
    for _ in range(4):
        keys = rng.integers(0, 1 << 18, size=20_000, dtype=dtype)
        values = rng.integers(0, 2**32, size=keys.size, dtype=np.uint32)
        operations = rng.choice(np.array([0, 0, 1], np.uint8), size=keys.size)
        device_map.update(to_device(library, keys), to_device(library, values), to_device(library, operations))
        host_map.update(keys, values, operations)
    assert len(device_map) == len(host_map)
    queries = rng.integers(0, 1 << 18, size=50_000, dtype=dtype)
    for device_result, host_result in zip(device_map.lookup(to_device(library, queries)), host_map.lookup(queries)):
        np.testing.assert_array_equal(to_host(device_result), host_result)
    upper = queries + dtype(1000)
    np.testing.assert_array_equal(
        to_host(device_map.count(to_device(library, queries), to_device(library, upper))), host_map.count(queries, upper)
    )
    for device_result, host_result in zip(
        device_map.range(to_device(library, queries[:500]), to_device(library, upper[:500])),
        host_map.range(queries[:500], upper[:500]),
    ):
        assert type(device_result).__module__.partition(".")[0] == library
        np.testing.assert_array_equal(to_host(device_result), host_result)
    for device_result, host_result in zip(device_map.successor(to_device(library, queries)),
                                          host_map.successor(queries)):
        np.testing.assert_array_equal(to_host(device_result), host_result)
    for device_result, host_result in zip(device_map.items(library=library), host_map.items()):
        np.testing.assert_array_equal(to_host(device_result), host_result)


@pytest.mark.skipif(not warpdex.HAS_LSM, reason="this build has no dpp family")
@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("words", [1, 3])
@pytest.mark.parametrize("method", ["sort", "hash"])
def test_duplicate_search_on_the_device_matches_the_host(library, words, method, rng):
    shape = (200_000,) if words == 1 else (200_000, words)
    elements = rng.integers(0, 60 if words > 1 else 150_000, size=shape, dtype=np.uint32)
    device_elements = to_device(library, elements)
    np.testing.assert_array_equal(to_host(warpdex.find_once(device_elements, method=method)),
                                  warpdex.find_once(elements, method=method))
    once = warpdex.elements_occurring_once(device_elements, method=method)
    assert type(once).__module__.partition(".")[0] == library
    np.testing.assert_array_equal(to_host(once), warpdex.elements_occurring_once(elements))
    for order in ("ascending", "first_occurrence"):
        np.testing.assert_array_equal(to_host(warpdex.unique_elements(device_elements, order=order)),
                                      warpdex.unique_elements(elements, order=order))
        for device_result, host_result in zip(warpdex.count_elements(device_elements, order=order),
                                              warpdex.count_elements(elements, order=order)):
            np.testing.assert_array_equal(to_host(device_result), host_result)


@pytest.mark.skipif(not warpdex.HAS_LSM, reason="this build has no graph family")
@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("weight_dtype", [np.int32, np.float32])
def test_sssp_on_the_device_matches_the_host(library, weight_dtype, rng):
    if library == "cupy":
        _cupy()
    else:
        _torch()
    vertex_count, edge_count = 50_000, 400_000
    sources = rng.integers(0, vertex_count, size=edge_count, dtype=np.uint32)
    targets = rng.integers(0, vertex_count, size=edge_count, dtype=np.uint32)
    weights = (rng.integers(0, 1000, size=edge_count) if weight_dtype == np.int32
               else rng.uniform(0, 10, size=edge_count)).astype(weight_dtype)
    device_graph = warpdex.Graph(sources, targets, weights, device="cuda")
    host_graph = warpdex.Graph(sources, targets, weights)
    expected, expected_tree, _ = host_graph.sssp(0, predecessors=True)
    for algorithm in ("auto", "delta-stepping", "near-far", "bellman-ford", "async-delta-stepping"):
        distances, tree, _ = device_graph.sssp(0, algorithm=algorithm, predecessors=True, library=library)
        assert type(distances).__module__.partition(".")[0] == library
        np.testing.assert_array_equal(to_host(distances), expected)
        np.testing.assert_array_equal(to_host(tree), expected_tree)


@pytest.mark.skipif(not warpdex.HAS_LSM, reason="this build has no dpp family")
@pytest.mark.parametrize("library", LIBRARIES)
def test_maximal_cliques_on_the_device_match_the_host(library, rng):
    to_device(library, np.zeros(1, np.uint32))  # skips without the library
    sources = rng.integers(0, 20_000, size=200_000, dtype=np.uint32)
    targets = (sources + rng.integers(1, 64, size=sources.size, dtype=np.uint32)) % np.uint32(20_000)
    device_graph = warpdex.Graph(sources, targets, directed=False, device="cuda")
    host_graph = warpdex.Graph(sources, targets, directed=False)
    for min_size in (1, 3):
        device_cliques = device_graph.maximal_cliques(min_size=min_size, library=library)
        host_cliques = host_graph.maximal_cliques(min_size=min_size)
        assert type(device_cliques.vertices).__module__.partition(".")[0] == library
        np.testing.assert_array_equal(to_host(device_cliques.vertices), host_cliques.vertices)
        np.testing.assert_array_equal(device_cliques.offsets, host_cliques.offsets)
        assert device_cliques.size_histogram == host_cliques.size_histogram
    assert device_graph.maximal_cliques(count_only=True).size_histogram == host_cliques.size_histogram


@pytest.mark.skipif(not warpdex.HAS_LSM, reason="this build has no dpp family")
@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("method", ["auto", "sort", "sort_hash", "hash", "partitioned"])
def test_external_faces_on_the_device_match_the_host(library, method):
    points, cells = warpdex.make_tet_grid(40, 30, 20, numbering="random", seed=5)
    device_cells, device_points = to_device(library, cells), to_device(library, points)
    expected = warpdex.external_faces(cells, points, method="sort")
    for with_points in (False, True):
        faces = warpdex.external_faces(device_cells, device_points if with_points else None, method=method)
        assert type(faces.triangles).__module__.partition(".")[0] == library
        if with_points:
            np.testing.assert_array_equal(to_host(faces.triangles), expected.triangles)
        np.testing.assert_array_equal(to_host(faces.cells), expected.cells)
        np.testing.assert_array_equal(to_host(faces.local_faces), expected.local_faces)
    assert len(expected) == 4 * (40 * 30 + 30 * 20 + 20 * 40)


@pytest.mark.skipif(not warpdex.HAS_LSM, reason="this build has no dpp family")
@pytest.mark.parametrize("library", LIBRARIES)
def test_segmentation_on_the_device_matches_the_host(library):
    image, truth = warpdex.porous_volume((256, 256), seed=7)
    superpixels, count = warpdex.slic_superpixels(image, device="cuda")
    host_superpixels, host_count = warpdex.slic_superpixels(image)
    np.testing.assert_array_equal(superpixels, host_superpixels)
    assert count == host_count
    device_result = warpdex.mrf_segment(to_device(library, image))  # a CUDA image: the cuda backend
    assert type(device_result.labels).__module__.partition(".")[0] == library
    host_result = warpdex.mrf_segment(image)
    np.testing.assert_array_equal(to_host(device_result.labels), host_result.labels)
    assert device_result.mu == host_result.mu and device_result.sigma == host_result.sigma
    assert (host_result.labels == truth).mean() > 0.95
    volume, _ = warpdex.porous_volume((32, 64, 64), seed=3)
    np.testing.assert_array_equal(warpdex.mrf_segment(volume, labels=3, device="cuda").labels,
                                  warpdex.mrf_segment(volume, labels=3).labels)


@pytest.mark.parametrize("library", LIBRARIES)
def test_slab_multimap_on_the_device_matches_the_host(library, rng):
    keys = rng.integers(0, 50_000, size=400_000, dtype=np.uint32)
    values = np.arange(keys.size, dtype=np.uint32)
    device_table = warpdex.SlabMultimap(keys.size, values_per_key=8, device="cuda")
    host_table = warpdex.SlabMultimap(keys.size, values_per_key=8)
    device_table.insert(to_device(library, keys), to_device(library, values))
    host_table.insert(keys, values)
    queries = np.arange(0, 60_000, dtype=np.uint32)
    np.testing.assert_array_equal(to_host(device_table.count(to_device(library, queries))), host_table.count(queries))
    offsets, found = device_table.find_all(to_device(library, queries))
    host_offsets, host_found = host_table.find_all(queries)
    np.testing.assert_array_equal(to_host(offsets), host_offsets)
    device_found = to_host(found)
    for i in range(0, queries.size, 997):  # values of a key come in no particular order
        part = slice(int(host_offsets[i]), int(host_offsets[i + 1]))
        assert sorted(device_found[part].tolist()) == sorted(host_found[part].tolist())
    erased = to_device(library, np.repeat(np.arange(0, 1000, dtype=np.uint32), 2))
    device_table.erase(erased)
    host_table.erase(to_host(erased))
    np.testing.assert_array_equal(to_host(device_table.count(to_device(library, queries))), host_table.count(queries))
    assert len(device_table) == len(host_table)


def test_the_current_cupy_stream_is_used(rng):
    cupy = _cupy()
    keys = rng.integers(0, 2**32, size=1 << 20, dtype=np.uint32)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        device_keys = cupy.asarray(keys)
        sorted_keys = warpdex.radix_sort(device_keys)
        stream.synchronize()
    np.testing.assert_array_equal(sorted_keys.get(), np.sort(keys))


def test_the_current_torch_stream_is_used(rng):
    torch = _torch()
    keys = np.unique(rng.integers(0, warpdex.MAX_USER_KEY, size=1 << 20, dtype=np.uint32))
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        device_keys = to_device("torch", keys)
        sorted_keys = warpdex.radix_sort(device_keys, descending=True)
        table = warpdex.SlabMap(keys.size, device="cuda", stream=stream)
        table.insert(device_keys, device_keys)
        found = table.contains(device_keys)
        stream.synchronize()
    np.testing.assert_array_equal(to_host(sorted_keys), keys[::-1])
    assert bool(found.all())


def test_mixed_devices_and_host_builds_are_refused(rng):
    cupy = _cupy()
    with pytest.raises(ValueError, match="other arrays are on"):
        warpdex.multisplit(cupy.arange(8, dtype=cupy.uint32), warpdex.BitFieldBuckets(0, 1),
                           keys_out=np.empty(8, np.uint32))
    host_table = warpdex.SlabMap(10)
    with pytest.raises(ValueError, match="lives on cpu"):
        host_table.insert(cupy.arange(4, dtype=cupy.uint32), cupy.arange(4, dtype=cupy.uint32))
    if cupy.cuda.runtime.getDeviceCount() > 1:
        with cupy.cuda.Device(1):
            other = cupy.arange(8, dtype=cupy.uint32)
        with pytest.raises(ValueError, match="current device"):
            warpdex.radix_sort(other)
