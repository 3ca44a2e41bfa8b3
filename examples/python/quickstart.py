"""warpdex from Python: a slab hash map, a multisplit, a sorted index and string search on NumPy arrays,
and the same calls on CuPy arrays when a GPU is there. Every call reads and writes the arrays in place."""

import numpy as np

import warpdex

rng = np.random.default_rng(1)
keys = rng.choice(warpdex.MAX_USER_KEY, size=100_000, replace=False).astype(np.uint32)
values = np.arange(keys.size, dtype=np.uint32)

# A concurrent hash map: batched insert, find, erase (host backend: NumPy arrays).
table = warpdex.SlabMap(keys.size)
table.insert(keys, values)
found_values, found = table.find(keys[:5])
assert found.all() and (found_values == values[:5]).all()
statuses = table.erase(keys[:1000], return_status=True)
assert (statuses == warpdex.Status.ERASED).all() and len(table) == keys.size - 1000

# A stable multisplit into 16 buckets by bits [28, 32) of the key, values moved along.
split = warpdex.multisplit(keys, warpdex.BitFieldBuckets(shift=28, bits=4), values)
first_bucket = split.keys[split.offsets[0] : split.offsets[1]]
assert (first_bucket >> 28 == 0).all()

# Searches of a sorted array and of bytes.
index = warpdex.SortedIndex(np.sort(keys))
assert (index.lower_bound(keys) == np.searchsorted(np.sort(keys), keys)).all()
assert warpdex.count_matches(b"abracadabra", b"abra") == 2

# Bad input raises with the library's message, changing nothing.
try:
    table.insert(np.array([warpdex.EMPTY_KEY], np.uint32), np.array([0], np.uint32))
except ValueError as error:
    print("refused:", error)

# The same on the GPU: CuPy (or PyTorch) arrays run on the cuda backend, on the current stream.
if warpdex.cuda_available()[0]:
    import cupy

    device_keys, device_values = cupy.asarray(keys), cupy.asarray(values)
    device_table = warpdex.SlabMap(keys.size, device="cuda")
    device_table.insert(device_keys, device_values)
    device_found_values, device_found = device_table.find(device_keys)  # CuPy arrays
    assert bool(device_found.all()) and bool((device_found_values == device_values).all())
    assert (warpdex.radix_sort(device_keys).get() == np.sort(keys)).all()
print("ok:", len(table), "keys in the map; backends:", "host and cuda" if warpdex.cuda_available()[0] else "host")
