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


def test_find_status_writes_into_the_callers_arrays():
    table = warpdex.SlabMap(100)
    table.insert([1, 2], [10, 20])
    values_out = np.full(3, 99, np.uint32)
    statuses_out = np.empty(3, np.uint32)
    values, statuses = table.find_status(np.array([2, 5, 1], np.uint32), values_out=values_out,
                                         statuses_out=statuses_out)
    assert values is values_out and statuses is statuses_out
    assert statuses.tolist() == [Status.FOUND, Status.NOT_FOUND, Status.FOUND]
    assert values.tolist() == [20, 99, 10]  # not written where not found
    with pytest.raises(ValueError, match="statuses"):
        table.find_status(np.array([1], np.uint32), statuses_out=np.empty(1, np.float32))


def test_many_batches_in_one_call_against_a_dict(rng):
    keys = unique_keys(rng, 6000)
    values = rng.integers(0, 2**32, size=keys.size, dtype=np.uint32)
    # Batches of random sizes, empty ones among them.
    cuts = np.sort(rng.integers(0, keys.size, size=40))
    offsets = np.concatenate([[0], cuts, cuts[-1:], [keys.size]]).astype(np.uint64)
    table = warpdex.SlabMap(keys.size)
    statuses = table.insert_many(keys, values, offsets)
    assert statuses.dtype == np.int32 and np.all(statuses == Status.INSERTED)
    again = table.insert_many(keys, values, offsets)
    assert np.all(again == Status.ALREADY_PRESENT)
    oracle = dict(zip(keys.tolist(), values.tolist()))

    queries = np.concatenate([keys[:3000], unique_keys(rng, 3000)])
    query_offsets = np.array([0, 1000, 1000, 4500, 6000], np.uint64)
    found_values, found_statuses = table.find_many(queries, query_offsets)
    for query, value, status in zip(queries.tolist(), found_values.tolist(), found_statuses.tolist()):
        if query in oracle:
            assert (status, value) == (Status.FOUND, oracle[query])
        else:
            assert (status, value) == (Status.NOT_FOUND, 0)


def test_a_reserved_key_rejects_its_own_batch_alone():
    table = warpdex.SlabMap(100)
    keys = np.array([1, 2, warpdex.EMPTY_KEY, 4, 5, 6], np.uint32)
    values = np.array([10, 20, 30, 40, 50, 60], np.uint32)
    statuses = table.insert_many(keys, values, [0, 2, 4, 6])
    assert statuses.tolist() == [Status.INSERTED] * 2 + [Status.REJECTED] * 2 + [Status.INSERTED] * 2
    assert sorted(table.items()[0].tolist()) == [1, 2, 5, 6]
    found_values, found_statuses = table.find_many(np.array([1, warpdex.ERASED_KEY, 5, 4], np.uint32), [0, 1, 2, 4])
    assert found_statuses.tolist() == [Status.FOUND, Status.REJECTED, Status.FOUND, Status.NOT_FOUND]
    assert found_values.tolist() == [10, 0, 50, 0]


@pytest.mark.parametrize("offsets", [[], [1, 3], [0, 2], [0, 3, 2, 3], [[0, 3]]])
def test_many_batch_offsets_that_do_not_rise_from_zero_to_the_key_count_are_refused(offsets):
    table = warpdex.SlabMap(100)
    keys = np.array([1, 2, 3], np.uint32)
    with pytest.raises(ValueError, match="offsets"):
        table.insert_many(keys, keys, offsets)
    with pytest.raises(ValueError, match="offsets"):
        table.find_many(keys, offsets)
    assert len(table) == 0


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


def test_find_writes_the_default_and_found_flags_in_one_call():
    table = warpdex.SlabMap(100)
    table.insert(np.array([5, 6], np.uint32), np.array([50, 0xFFFFFFFF], np.uint32))
    for default in (0, 1, 0xFFFFFFFF):
        values, found = table.find(np.array([6, 7, 5, 7], np.uint32), default=default)
        assert values.dtype == np.uint32 and found.dtype == np.bool_
        assert values.tolist() == [0xFFFFFFFF, default, 50, default] and found.tolist() == [True, False, True, False]
    values, found = table.find(np.array([], np.uint32))
    assert values.size == found.size == 0
    for bad in (-1, 2**32):
        with pytest.raises(ValueError, match="default must be a uint32"):
            table.find(np.array([5], np.uint32), default=bad)


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


def test_multimap_against_a_dict_of_lists(rng):
    keys = rng.integers(0, 2000, size=20_000, dtype=np.uint32)  # about 10 values a key
    values = np.arange(keys.size, dtype=np.uint32)
    table = warpdex.SlabMultimap(keys.size // 4, values_per_key=10)
    assert np.all(table.insert(keys, values, return_status=True) == Status.INSERTED)
    model = {}
    for key, value in zip(keys.tolist(), values.tolist()):
        model.setdefault(key, []).append(value)
    assert len(table) == keys.size
    queries = np.arange(0, 2100, dtype=np.uint32)  # some absent
    np.testing.assert_array_equal(table.count(queries), [len(model.get(q, [])) for q in queries.tolist()])
    offsets, found = table.find_all(queries)
    for i, query in enumerate(queries.tolist()):
        assert sorted(found[offsets[i] : offsets[i + 1]].tolist()) == model.get(query, [])
    np.testing.assert_array_equal(table.contains(queries), [q in model for q in queries.tolist()])

    # erase removes one instance per element: min(n, m) of a key's m values for n erasures.
    erased = np.repeat(np.arange(0, 100, dtype=np.uint32), 3)
    statuses = table.erase(erased, return_status=True).reshape(-1, 3)
    for key, row in zip(range(100), statuses):
        held = len(model.get(key, []))
        assert (row == Status.ERASED).sum() == min(3, held)
    remaining = {k: len(v) - min(3, len(v)) if k < 100 else len(v) for k, v in model.items()}
    np.testing.assert_array_equal(table.count(queries), [remaining.get(q, 0) for q in queries.tolist()])
    statuses = table.erase_all(np.arange(100, 200, dtype=np.uint32))
    assert statuses.tolist() == [Status.ERASED if remaining.get(k, 0) > 0 else Status.NOT_FOUND for k in range(100, 200)]
    for key in range(100, 200):
        remaining.pop(key, None)
    item_keys, _ = table.items()
    assert len(table) == item_keys.size == sum(remaining.values())
    table.flush()
    assert len(table) == sum(remaining.values())


def test_multimap_mixed_batches_and_bad_operations():
    table = warpdex.SlabMultimap(100)
    table.insert([7, 7], [1, 2])
    operations = np.array([warpdex.Operation.INSERT, warpdex.Operation.ERASE, warpdex.Operation.FIND], np.int32)
    values_out, statuses = table.execute(operations, np.array([8, 7, 9], np.uint32), np.array([80, 0, 0], np.uint32))
    assert statuses.tolist() == [Status.INSERTED, Status.ERASED, Status.NOT_FOUND]
    assert table.count([7, 8]).tolist() == [1, 1]
    with pytest.raises(ValueError, match="insert_or_assign"):
        table.execute(np.array([warpdex.Operation.INSERT_OR_ASSIGN], np.int32), [1], [1])
    with pytest.raises(ValueError, match="reserved key"):
        table.insert([warpdex.EMPTY_KEY], [1])
    with pytest.raises(ValueError, match="values_per_key"):
        warpdex.SlabMultimap(10, values_per_key=0)
