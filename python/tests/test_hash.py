"""SlabMap on the host backend (NumPy) against a Python dict."""

import numpy as np
import pytest

import warpdex
from warpdex import Status


def unique_keys(rng, size, high=warpdex.MAX_USER_KEY):
    keys = np.unique(rng.integers(0, high, size=size * 2, dtype=np.uint32, endpoint=True))
    return rng.permutation(keys)[:size]


def test_insert_find_erase_against_a_dict(rng):
    keys = unique_keys(rng, 20_000)
    values = rng.integers(0, 2**32, size=keys.size, dtype=np.uint32)
    table = warpdex.SlabMap(keys.size // 2)  # smaller than the keys: the pool grows
    statuses = table.insert(keys, values, return_status=True)
    assert statuses.dtype == np.int32 and np.all(statuses == Status.INSERTED)
    assert len(table) == keys.size
    oracle = dict(zip(keys.tolist(), values.tolist()))

    queries = np.concatenate([keys[:5000], unique_keys(rng, 5000)])
    found_values, found = table.find(queries, default=7)
    for query, value, hit in zip(queries.tolist(), found_values.tolist(), found.tolist()):
        assert hit == (query in oracle)
        assert value == oracle.get(query, 7)
    np.testing.assert_array_equal(table.contains(queries), [query in oracle for query in queries.tolist()])

    erased = np.ascontiguousarray(keys[::3])
    statuses = table.erase(erased, return_status=True)
    assert np.all(statuses == Status.ERASED)
    assert np.all(table.erase(erased, return_status=True) == Status.NOT_FOUND)
    for key in erased.tolist():
        del oracle[key]
    items_keys, items_values = table.items()
    assert dict(zip(items_keys.tolist(), items_values.tolist())) == oracle
    table.flush()
    assert len(table) == len(oracle) and table.statistics()["erased"] == 0


def test_insert_keeps_and_insert_or_assign_replaces(rng):
    keys = unique_keys(rng, 1000)
    table = warpdex.SlabMap(1000)
    table.insert(keys, np.zeros(keys.size, np.uint32))
    assert np.all(table.insert(keys, np.ones(keys.size, np.uint32), return_status=True) == Status.ALREADY_PRESENT)
    assert np.all(table.find(keys)[0] == 0)
    statuses = table.insert_or_assign(keys, np.full(keys.size, 5, np.uint32), return_status=True)
    assert np.all(statuses == Status.ASSIGNED)
    assert np.all(table.find(keys)[0] == 5)


def test_repeated_keys_in_one_batch_insert_once(rng):
    keys = np.repeat(unique_keys(rng, 300), 4)
    values = np.arange(keys.size, dtype=np.uint32)
    table = warpdex.SlabMap(300)
    statuses = table.insert(keys, values, return_status=True)
    per_key = statuses.reshape(-1, 4)
    assert np.all((per_key == Status.INSERTED).sum(axis=1) == 1)
    assert np.all((per_key == Status.ALREADY_PRESENT).sum(axis=1) == 3)
    found_values, found = table.find(np.ascontiguousarray(keys[::4]))
    # The value kept is the one of the insert that reported INSERTED.
    winners = values.reshape(-1, 4)[per_key == Status.INSERTED]
    assert np.all(found) and np.array_equal(found_values, winners)


def test_mixed_batch_against_a_sequential_model():
    table = warpdex.SlabMap(100)
    table.insert(np.array([1, 2], np.uint32), np.array([10, 20], np.uint32))
    operations = np.array([warpdex.Operation.FIND, warpdex.Operation.INSERT, warpdex.Operation.ERASE,
                           warpdex.Operation.INSERT_OR_ASSIGN, warpdex.Operation.FIND], np.int32)
    keys = np.array([1, 3, 2, 4, 9], np.uint32)
    values = np.array([0, 30, 0, 40, 0], np.uint32)
    values_out, statuses = table.execute(operations, keys, values)
    assert statuses.tolist() == [Status.FOUND, Status.INSERTED, Status.ERASED, Status.INSERTED, Status.NOT_FOUND]
    assert values_out.tolist() == [10, 0, 0, 0, 0]
    assert sorted(zip(*(a.tolist() for a in table.items()))) == [(1, 10), (3, 30), (4, 40)]


def test_reserved_keys_are_refused_and_nothing_changes():
    table = warpdex.SlabMap(10)
    for reserved in (warpdex.EMPTY_KEY, warpdex.ERASED_KEY):
        with pytest.raises(ValueError, match="reserved key"):
            table.insert(np.array([5, reserved], np.uint32), np.array([1, 2], np.uint32))
    assert len(table) == 0
    table.insert([warpdex.MAX_USER_KEY, 0], [1, 2])  # the extremes of the user keys
    assert table.find([warpdex.MAX_USER_KEY, 0])[0].tolist() == [1, 2]


def test_a_fixed_map_reports_exhaustion_per_element_or_raises_memory_error(rng):
    # 45 keys a bucket need two overflow slabs each; the fixed pool holds about one a bucket.
    keys = unique_keys(rng, 100_000)
    table = warpdex.SlabMap(20_000, grows=False)
    statuses = table.insert(keys, keys, return_status=True)
    assert np.any(statuses == Status.OUT_OF_MEMORY)
    inserted = keys[statuses == Status.INSERTED]
    assert len(table) == inserted.size
    assert np.all(table.contains(inserted))
    with pytest.raises(MemoryError):
        table.insert(keys, keys)


def test_rehash_keeps_every_pair(rng):
    keys = unique_keys(rng, 5000)
    table = warpdex.SlabMap(100)
    table.insert(keys, keys + np.uint32(1))
    before = table.statistics()["bucket_count"]
    table.rehash(5000)
    assert table.statistics()["bucket_count"] > before
    values, found = table.find(keys)
    assert np.all(found) and np.array_equal(values, keys + np.uint32(1))


def test_items_are_numpy_arrays_that_own_library_memory():
    table = warpdex.SlabMap(10)
    table.insert([3], [4])
    keys, values = table.items()
    del table
    assert isinstance(keys, np.ndarray) and not keys.flags.owndata  # a view of the library's buffer
    assert keys.tolist() == [3] and values.tolist() == [4]


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="uint32"):
        warpdex.SlabMap(10, key_dtype=np.uint64)
    with pytest.raises(ValueError, match="device"):
        warpdex.SlabMap(10, device="tpu")
    table = warpdex.SlabMap(10)
    with pytest.raises(ValueError, match="values has 1 elements but keys has 2"):
        table.insert(np.array([1, 2], np.uint32), np.array([1], np.uint32))
    with pytest.raises(ValueError, match="uint32"):
        table.find(np.array([1.0]))
    with pytest.raises(TypeError, match="keys must be an array"):
        table.find(object())
    if not warpdex.HAS_CUDA:
        with pytest.raises(ValueError, match="no CUDA backend|CUDA"):
            warpdex.SlabMap(10, device="cuda")
