"""SortedIndex and string matching on the host backend against NumPy / Python oracles."""

import numpy as np
import pytest

import warpdex


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_sorted_index_searches_match_numpy(rng, dtype):
    top = np.iinfo(dtype).max
    keys = np.sort(rng.integers(0, 5000, size=20_000, dtype=dtype))  # many duplicates
    keys[-3:] = top  # the largest key value is usable
    queries = np.concatenate([rng.integers(0, 5200, size=3000, dtype=dtype), np.array([0, top], dtype)])
    index = warpdex.SortedIndex(keys)
    assert len(index) == keys.size
    lower = index.lower_bound(queries)
    assert lower.dtype == np.uint64
    np.testing.assert_array_equal(lower, np.searchsorted(keys, queries, side="left"))
    for algorithm in ("binary", "btree", "kary", "sorted_queries"):
        np.testing.assert_array_equal(
            index.upper_bound(queries, algorithm=algorithm), np.searchsorted(keys, queries, side="right")
        )
    first, last = index.equal_range(queries)
    np.testing.assert_array_equal(first, np.searchsorted(keys, queries, side="left"))
    np.testing.assert_array_equal(last, np.searchsorted(keys, queries, side="right"))
    np.testing.assert_array_equal(index.contains(queries), np.isin(queries, keys))


def test_sorted_index_keeps_the_callers_keys_and_checks_their_order():
    keys = np.array([1, 2, 4], np.uint32)
    index = warpdex.SortedIndex(keys)
    del keys  # the index holds them
    assert index.lower_bound([3]).tolist() == [2]
    with pytest.raises(ValueError, match="ascending"):
        warpdex.SortedIndex(np.array([2, 1], np.uint32))
    assert len(warpdex.SortedIndex(np.array([], np.uint32))) == 0
    assert warpdex.SortedIndex(np.array([], np.uint64)).lower_bound(np.array([5], np.uint64)).tolist() == [0]


def test_sorted_index_refuses_bad_queries():
    index = warpdex.SortedIndex(np.array([1, 2], np.uint32))
    with pytest.raises(ValueError, match="uint32"):
        index.lower_bound(np.array([1], np.uint64))
    with pytest.raises(ValueError, match="search algorithm|algorithm"):
        index.lower_bound(np.array([1], np.uint32), algorithm="quick")
    with pytest.raises(ValueError, match="uint32 or uint64"):
        warpdex.SortedIndex(np.array([1.0], np.float32))


def naive_positions(text: bytes, pattern: bytes):
    return [p for p in range(len(text) - len(pattern) + 1) if text[p : p + len(pattern)] == pattern]


@pytest.mark.parametrize("pattern_length", [1, 3, 8, 9, 40])
@pytest.mark.parametrize("algorithm", ["automatic", "drk", "wom", "two_stage"])
def test_string_matching_matches_a_naive_matcher(rng, pattern_length, algorithm):
    text = rng.choice(np.frombuffer(b"ab", np.uint8), size=20_000).tobytes()  # many overlapping matches
    pattern = text[1000 : 1000 + pattern_length]
    expected = naive_positions(text, pattern)
    assert warpdex.count_matches(text, pattern, algorithm=algorithm) == len(expected)
    positions = warpdex.find_matches(text, pattern, algorithm=algorithm)
    assert positions.dtype == np.uint64 and positions.tolist() == expected


def test_several_patterns_are_counted_in_one_pass(rng):
    text = rng.choice(np.frombuffer(b"acgt", np.uint8), size=30_000).tobytes()
    patterns = [b"a", b"acg", b"acgtacgt", b"ttt", b"acg", b"gattaca" * 3]
    counts = warpdex.count_matches(np.frombuffer(text, np.uint8), patterns)
    assert counts.tolist() == [len(naive_positions(text, p)) for p in patterns]


def test_text_forms_and_bad_patterns():
    assert warpdex.count_matches("aaaa", "aa") == 3
    assert warpdex.count_matches(bytearray(b"xyx"), b"x") == 2
    assert warpdex.count_matches(b"ab", b"abc") == 0  # longer than the text
    assert warpdex.find_matches(b"", b"a").tolist() == []
    with pytest.raises(ValueError, match="empty"):
        warpdex.count_matches(b"abc", b"")
    with pytest.raises(ValueError, match="uint8"):
        warpdex.count_matches(np.arange(4, dtype=np.uint32), b"a")
    with pytest.raises(TypeError, match="bytes or str"):
        warpdex.count_matches(b"abc", 5)
    # past one shared-memory table's patterns the count still runs, in one pass
    assert warpdex.count_matches(b"abca", [b"a"] * (warpdex.MAX_PATTERNS_PER_PASS + 1) + [b"bc"]).tolist() == [2] * (
        warpdex.MAX_PATTERNS_PER_PASS + 1
    ) + [1]
