"""The duplicate search on the host backend against numpy.unique."""

import numpy as np
import pytest

import warpdex

pytestmark = pytest.mark.skipif(not warpdex.HAS_LSM, reason="this build has no dpp family (no CCCL headers)")


def make_elements(rng, kind, size):
    if kind == "uint32":
        return rng.integers(0, size // 2, size=size, dtype=np.uint32)
    if kind == "uint64":
        return rng.integers(0, size // 2, size=size, dtype=np.uint64) << np.uint64(33)  # high words differ only
    words = int(kind[-1])
    return rng.integers(0, 6, size=(size, words), dtype=np.uint32)  # many repeated tuples


KINDS = ["uint32", "uint64", "tuple2", "tuple3", "tuple4"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("method", ["auto", "sort", "hash"])
def test_once_indicator_and_once_elements_match_numpy(rng, kind, method):
    elements = make_elements(rng, kind, 3000)
    _, inverse, counts = np.unique(elements, axis=0, return_inverse=True, return_counts=True)
    expected_once = counts[inverse.reshape(-1)] == 1
    once = warpdex.find_once(elements, method=method)
    assert once.dtype == np.bool_
    np.testing.assert_array_equal(once, expected_once)
    np.testing.assert_array_equal(warpdex.elements_occurring_once(elements, method=method), elements[expected_once])


@pytest.mark.parametrize("kind", KINDS)
def test_unique_and_counts_match_numpy(rng, kind):
    elements = make_elements(rng, kind, 3000)
    distinct, first, counts = np.unique(elements, axis=0, return_index=True, return_counts=True)
    np.testing.assert_array_equal(warpdex.unique_elements(elements), distinct)
    got_distinct, got_counts, got_first = warpdex.count_elements(elements)
    np.testing.assert_array_equal(got_distinct, distinct)
    np.testing.assert_array_equal(got_counts, counts)
    np.testing.assert_array_equal(got_first, first)
    assert got_counts.dtype == np.uint64 and warpdex.count_elements(elements, first_positions=False)[2] is None
    by_first = np.argsort(first, kind="stable")
    np.testing.assert_array_equal(warpdex.unique_elements(elements, order="first_occurrence"), distinct[by_first])
    in_order = warpdex.count_elements(elements, order="first_occurrence")
    np.testing.assert_array_equal(in_order[1], counts[by_first])
    np.testing.assert_array_equal(in_order[2], first[by_first])


def test_edge_cases_and_bad_input():
    assert warpdex.find_once(np.array([], np.uint32)).tolist() == []
    assert warpdex.unique_elements(np.array([5], np.uint64)).tolist() == [5]
    assert warpdex.unique_elements(np.zeros((0, 3), np.uint32)).shape == (0, 3)
    with pytest.raises(ValueError, match="k = 2, 3 or 4"):
        warpdex.find_once(np.zeros((4, 5), np.uint32))
    with pytest.raises(ValueError, match="C-contiguous"):
        warpdex.find_once(np.zeros((4, 4), np.uint32)[:, :2])
    with pytest.raises(ValueError, match="uint32"):
        warpdex.find_once(np.zeros(4, np.int64))
    with pytest.raises(ValueError, match="method"):
        warpdex.find_once(np.zeros(4, np.uint32), method="guess")
    with pytest.raises(ValueError, match="order"):
        warpdex.unique_elements(np.zeros(4, np.uint32), order="random")


@pytest.mark.parametrize("key_type", [np.uint32, np.uint64])
@pytest.mark.parametrize("value_type", [np.int64, np.uint64])
@pytest.mark.parametrize("reduction", ["sum", "min", "max"])
@pytest.mark.parametrize("method", ["auto", "sort", "partitioned"])
def test_group_by_matches_numpy(rng, key_type, value_type, reduction, method):
    keys = rng.integers(0, 700, size=40000).astype(key_type) * key_type(0x10001)
    values = rng.integers(np.iinfo(value_type).min, np.iinfo(value_type).max, size=keys.size, dtype=value_type)
    distinct, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
    reduce = {"sum": np.add, "min": np.minimum, "max": np.maximum}[reduction]
    expected = np.full(distinct.size, {"sum": 0, "min": np.iinfo(value_type).max, "max": np.iinfo(value_type).min}[reduction], value_type)
    with np.errstate(over="ignore"):
        reduce.at(expected, inverse, values)  # sums wrap around modulo 2**64, as the library's
    got_keys, got_values, got_counts = warpdex.group_by(keys, values, reduction=reduction, method=method)
    assert got_keys.dtype == key_type and got_values.dtype == value_type and got_counts.dtype == np.uint64
    np.testing.assert_array_equal(got_keys, distinct)
    np.testing.assert_array_equal(got_values, expected)
    np.testing.assert_array_equal(got_counts, counts)
    by_first = np.argsort(first)
    got = warpdex.group_by(keys, values, reduction=reduction, order="first_occurrence", method=method)
    for got_array, expected_array in zip(got, (distinct[by_first], expected[by_first], counts[by_first])):
        np.testing.assert_array_equal(got_array, expected_array)


def test_group_by_refuses_bad_input():
    keys = np.array([1, 2, 3], np.uint32)
    with pytest.raises(ValueError, match="values has 2 elements but keys has 3"):
        warpdex.group_by(keys, np.array([1, 2], np.int64))
    with pytest.raises(Exception, match="'mean'.*sum, min or max"):
        warpdex.group_by(keys, np.array([1, 2, 3], np.int64), reduction="mean")
    with pytest.raises(ValueError, match="order"):
        warpdex.group_by(keys, np.array([1, 2, 3], np.int64), order="descending")
    empty = warpdex.group_by(np.array([], np.uint64), np.array([], np.uint64))
    assert [a.size for a in empty] == [0, 0, 0]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("method", ["auto", "sort", "partitioned"])
@pytest.mark.parametrize("order", ["ascending", "first_occurrence"])
def test_unique_and_counts_by_every_method_match_numpy(rng, kind, method, order):
    elements = make_elements(rng, kind, 40000)  # past one partition of the host's engine
    distinct, first, counts = np.unique(elements, axis=0, return_index=True, return_counts=True)
    by = np.argsort(first) if order == "first_occurrence" else np.arange(first.size)
    np.testing.assert_array_equal(warpdex.unique_elements(elements, order=order, method=method), distinct[by])
    got_distinct, got_counts, got_first = warpdex.count_elements(elements, order=order, method=method)
    np.testing.assert_array_equal(got_distinct, distinct[by])
    np.testing.assert_array_equal(got_counts, counts[by])
    np.testing.assert_array_equal(got_first, first[by])
