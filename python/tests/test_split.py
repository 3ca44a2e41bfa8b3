"""The split family on the host backend (NumPy) against NumPy oracles."""

import numpy as np
import pytest

import warpdex


def stable_split_oracle(keys, bucket_ids, values=None):
    order = np.argsort(bucket_ids, kind="stable")
    return keys[order], None if values is None else values[order]


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
@pytest.mark.parametrize("bits", [1, 5, 9])
def test_bit_field_multisplit_matches_a_stable_partition(rng, dtype, bits):
    keys = rng.integers(0, np.iinfo(dtype).max, size=5000, dtype=dtype, endpoint=True)
    shift = 3
    ids = (keys >> dtype(shift)) & dtype((1 << bits) - 1)
    result = warpdex.multisplit(keys, warpdex.BitFieldBuckets(shift=shift, bits=bits))
    expected, _ = stable_split_oracle(keys, ids)
    np.testing.assert_array_equal(result.keys, expected)
    counts = np.bincount(ids.astype(np.int64), minlength=1 << bits)
    np.testing.assert_array_equal(result.offsets, np.concatenate([[0], np.cumsum(counts)]))
    assert result.values is None and result.offsets.dtype == np.uint64


def test_descending_bit_field_reverses_the_bucket_order(rng):
    keys = rng.integers(0, 2**32, size=3000, dtype=np.uint32)
    ids = 15 - ((keys >> np.uint32(4)) & np.uint32(15))
    result = warpdex.multisplit(keys, warpdex.BitFieldBuckets(shift=4, bits=4, descending=True))
    np.testing.assert_array_equal(result.keys, stable_split_oracle(keys, ids)[0])


def test_pairs_move_their_values_and_outputs_are_the_callers_arrays(rng):
    keys = rng.integers(0, 1000, size=4000, dtype=np.uint32)
    values = np.arange(keys.size, dtype=np.uint32)
    keys_out = np.empty_like(keys)
    values_out = np.empty_like(values)
    result = warpdex.multisplit(
        keys, warpdex.DeltaBuckets(delta=100, count=10), values, keys_out=keys_out, values_out=values_out
    )
    # Zero copy: the results are the arrays the caller passed, written in place.
    assert result.keys is keys_out and result.values is values_out
    expected_keys, expected_values = stable_split_oracle(keys, keys // 100, values)
    np.testing.assert_array_equal(keys_out, expected_keys)
    np.testing.assert_array_equal(values_out, expected_values)


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64, np.float32])
def test_splitter_buckets(rng, dtype):
    if dtype == np.float32:
        keys = rng.standard_normal(3000).astype(np.float32)
        splitters = np.array([-1.0, -0.25, 0.0, 0.5, 2.0], np.float32)
    else:
        keys = rng.integers(0, 10_000, size=3000, dtype=dtype)
        splitters = np.array([10, 500, 501, 7000], dtype)
    ids = np.searchsorted(splitters, keys, side="right")
    result = warpdex.multisplit(keys, warpdex.SplitterBuckets(splitters))
    np.testing.assert_array_equal(result.keys, stable_split_oracle(keys, ids)[0])
    assert result.offsets.size == splitters.size + 2


def test_a_key_outside_the_buckets_is_refused_and_nothing_is_written():
    keys = np.array([1, 2, 350], np.uint32)
    keys_out = np.full(3, 7, np.uint32)
    with pytest.raises(ValueError, match="outside"):
        warpdex.multisplit(keys, warpdex.DeltaBuckets(delta=100, count=3), keys_out=keys_out)
    np.testing.assert_array_equal(keys_out, [7, 7, 7])


def test_unsorted_splitters_are_refused():
    with pytest.raises(ValueError, match="increasing"):
        warpdex.multisplit(np.arange(5, dtype=np.uint32), warpdex.SplitterBuckets(np.array([3, 1], np.uint32)))


def test_bad_arrays_are_refused_with_a_message():
    with pytest.raises(ValueError, match="uint32"):
        warpdex.multisplit(np.arange(4, dtype=np.int32), warpdex.BitFieldBuckets(0, 1))
    with pytest.raises(ValueError, match="contiguous"):
        warpdex.multisplit(np.arange(8, dtype=np.uint32)[::2], warpdex.BitFieldBuckets(0, 1))
    with pytest.raises(ValueError, match="one-dimensional"):
        warpdex.multisplit(np.zeros((2, 2), np.uint32), warpdex.BitFieldBuckets(0, 1))
    with pytest.raises(ValueError, match="keys_out holds 3"):
        warpdex.multisplit(np.arange(4, dtype=np.uint32), warpdex.BitFieldBuckets(0, 1), keys_out=np.empty(3, np.uint32))
    with pytest.raises(ValueError, match="algorithm"):
        warpdex.multisplit(np.arange(4, dtype=np.uint32), warpdex.BitFieldBuckets(0, 1), algorithm="fast")
    with pytest.raises(TypeError, match="buckets"):
        warpdex.multisplit(np.arange(4, dtype=np.uint32), 4)


def test_lists_are_accepted_by_copying():
    result = warpdex.multisplit([5, 1, 4, 0], warpdex.BitFieldBuckets(0, 1))
    assert result.keys.tolist() == [4, 0, 5, 1]


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
@pytest.mark.parametrize("descending", [False, True])
def test_radix_sort_matches_numpy(rng, dtype, descending):
    keys = rng.integers(0, np.iinfo(dtype).max, size=6000, dtype=dtype, endpoint=True)
    keys[:100] = keys[100:200]  # duplicates
    expected = np.sort(keys)
    if descending:
        expected = expected[::-1]
    np.testing.assert_array_equal(warpdex.radix_sort(keys, descending=descending, digit_bits=5), expected)


def test_radix_sort_pairs_is_stable(rng):
    keys = rng.integers(0, 50, size=5000, dtype=np.uint32)
    values = np.arange(keys.size, dtype=np.uint32)
    keys_out = np.empty_like(keys)
    sorted_keys, sorted_values = warpdex.radix_sort(keys, values, keys_out=keys_out)
    order = np.argsort(keys, kind="stable")
    assert sorted_keys is keys_out
    np.testing.assert_array_equal(sorted_keys, keys[order])
    np.testing.assert_array_equal(sorted_values, values[order])


def test_radix_sort_refuses_bad_arguments():
    with pytest.raises(ValueError, match="digit_bits"):
        warpdex.radix_sort(np.arange(4, dtype=np.uint32), digit_bits=9)
    with pytest.raises(ValueError, match="uint32 keys only"):
        warpdex.radix_sort(np.arange(4, dtype=np.uint64), np.arange(4, dtype=np.uint32))


def test_even_histogram_matches_its_formula(rng):
    samples = rng.integers(0, 1200, size=8000, dtype=np.uint32)
    counts, not_counted = warpdex.histogram(samples, 16, range=(0, 1024))
    inside = samples[samples < 1024]
    np.testing.assert_array_equal(counts, np.bincount(inside // 64, minlength=16))
    assert not_counted == samples.size - inside.size


def test_float_histograms_count_nan_as_not_counted(rng):
    samples = rng.uniform(-1.0, 9.0, size=4000).astype(np.float32)
    samples[::50] = np.nan
    boundaries = np.array([0.0, 0.5, 2.0, 4.0, 8.0], np.float32)
    counts, not_counted = warpdex.histogram(samples, boundaries)
    finite = samples[~np.isnan(samples)]
    bins = np.searchsorted(boundaries, finite, side="right") - 1
    inside = (bins >= 0) & (bins < 4)
    np.testing.assert_array_equal(counts, np.bincount(bins[inside], minlength=4))
    assert not_counted == samples.size - inside.sum()
    even_counts, _ = warpdex.histogram(samples, 8, range=(0.0, 8.0))
    assert even_counts.sum() == np.count_nonzero((finite >= 0) & (finite < 8))


def test_histogram_refuses_bad_ranges():
    with pytest.raises(ValueError, match="lower"):
        warpdex.histogram(np.arange(4, dtype=np.float32), 4, range=(2.0, 1.0))
    with pytest.raises(ValueError, match="range"):
        warpdex.histogram(np.arange(4, dtype=np.float32), 4)
    with pytest.raises(ValueError, match="increasing"):
        warpdex.histogram(np.arange(4, dtype=np.float32), np.array([1, 0, 2], np.float32))


def test_lists_that_would_change_value_are_refused():
    with pytest.raises(ValueError, match="without changing them"):
        warpdex.radix_sort([1.5, 0.25])
    with pytest.raises(ValueError, match="outside the range"):
        warpdex.radix_sort([-1, 2])
    with pytest.raises(ValueError, match="outside the range"):
        warpdex.radix_sort([2**32])
    assert warpdex.radix_sort([3, 1, 2]).tolist() == [1, 2, 3]
    assert warpdex.radix_sort([]).tolist() == []
