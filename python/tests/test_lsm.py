"""LSMMap on the host backend against a sorted-dict model of its batch semantics."""

import bisect

import numpy as np
import pytest

import warpdex

pytestmark = pytest.mark.skipif(not warpdex.HAS_LSM, reason="this build has no LSM (no CCCL headers at build time)")


def apply_batch(model, keys, values, operations):
    """The documented semantics: any erase of a key in the batch wins, else its last insert."""
    erased = {k for k, op in zip(keys, operations) if op == warpdex.LSMOperation.ERASE}
    for key, value, op in zip(keys, values, operations):
        if op == warpdex.LSMOperation.INSERT and key not in erased:
            model[key] = value
    for key in erased:
        model.pop(key, None)


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_batches_of_updates_and_every_query_against_a_model(rng, dtype):
    top = int(np.iinfo(dtype).max)
    table = warpdex.LSMMap(dtype, batch_size=256)
    model = {}
    universe = np.concatenate([rng.integers(0, top, size=3000, dtype=dtype, endpoint=True), np.array([0, top], dtype)])
    for _ in range(12):
        size = int(rng.integers(1, 700))  # batches smaller and larger than batch_size
        keys = rng.choice(universe, size=size)
        values = rng.integers(0, 2**32, size=size, dtype=np.uint32)
        operations = rng.choice(np.array([0, 0, 0, 1], np.uint8), size=size)
        table.update(keys, values, operations)
        # A batch larger than batch_size is applied in chunks of batch_size, in order.
        for start in range(0, size, 256):
            chunk = slice(start, start + 256)
            apply_batch(model, keys[chunk].tolist(), values[chunk].tolist(), operations[chunk].tolist())
    assert len(table) == len(model)
    ordered = sorted(model)

    queries = rng.choice(universe, size=2000)
    values, found = table.lookup(queries)
    assert found.tolist() == [q in model for q in queries.tolist()]
    assert values.tolist() == [model.get(q, 0) for q in queries.tolist()]

    lower = rng.choice(universe, size=300)
    upper = rng.choice(universe, size=300)
    counts = table.count(lower, upper)
    expected_counts = [max(0, bisect.bisect_right(ordered, u) - bisect.bisect_left(ordered, l))
                       for l, u in zip(lower.tolist(), upper.tolist())]
    assert counts.tolist() == expected_counts
    offsets, range_keys, range_values = table.range(lower, upper)
    assert offsets.tolist() == [0] + np.cumsum(expected_counts).tolist()
    for i, (l, u) in enumerate(zip(lower.tolist(), upper.tolist())):
        part = range_keys[offsets[i] : offsets[i + 1]].tolist()
        assert part == [k for k in ordered[bisect.bisect_left(ordered, l) : bisect.bisect_right(ordered, u)]]
        assert range_values[offsets[i] : offsets[i + 1]].tolist() == [model[k] for k in part]

    successor_keys, successor_values, has_successor = table.successor(queries)
    predecessor_keys, _, has_predecessor = table.predecessor(queries)
    for q, key, value, hit, before, has_before in zip(queries.tolist(), successor_keys.tolist(),
                                                      successor_values.tolist(), has_successor.tolist(),
                                                      predecessor_keys.tolist(), has_predecessor.tolist()):
        after = bisect.bisect_right(ordered, q)
        assert hit == (after < len(ordered))
        assert (key, value) == ((ordered[after], model[ordered[after]]) if hit else (0, 0))
        below = bisect.bisect_left(ordered, q)
        assert has_before == (below > 0) and before == (ordered[below - 1] if below > 0 else 0)

    item_keys, item_values = table.items()
    assert item_keys.tolist() == ordered and item_values.tolist() == [model[k] for k in ordered]
    table.cleanup()
    assert table.resident_tombstones == 0 and table.resident_stale == 0 and table.resident_entries == len(model)
    assert table.lookup(queries)[1].tolist() == [q in model for q in queries.tolist()]


def test_insert_erase_and_bulk_build():
    table = warpdex.LSMMap()
    table.insert([1, 2, 2], [10, 20, 21])  # the last insert of a key wins
    table.erase([1, 7])
    assert [a.tolist() for a in table.items()] == [[2], [21]]
    table.bulk_build([9, 3, 9], [1, 2, 3])
    assert [a.tolist() for a in table.items()] == [[3, 9], [2, 3]]
    assert table.resident_entries == 3 and table.resident_stale == 1  # the first pair of 9, hidden


def test_bad_input_is_refused_and_the_map_is_unchanged():
    table = warpdex.LSMMap()
    table.insert([1], [1])
    with pytest.raises(ValueError, match="operation"):
        table.update(np.array([2], np.uint32), np.array([2], np.uint32), np.array([7], np.uint8))
    with pytest.raises(ValueError, match="uint32"):
        table.insert(np.array([2], np.uint64), np.array([2], np.uint32))
    with pytest.raises(ValueError):
        table.insert(np.array([2, 3], np.uint32), np.array([2], np.uint32))
    assert [a.tolist() for a in table.items()] == [[1], [1]]
    with pytest.raises(ValueError, match="key_dtype"):
        warpdex.LSMMap(np.int32)
    with pytest.raises(ValueError, match="cleanup"):
        warpdex.LSMMap(cleanup_threshold=2.0)
