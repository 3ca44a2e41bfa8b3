#!/usr/bin/env python3
"""Per-call overhead of the Python package: the same library call made through `warpdex` and from C++.

For each operation (SlabMap.find_status and find, SlabMap.insert, radix_sort, SortedIndex.lower_bound) on `size` uint32
keys, times the median of many calls through the Python API and through `_warpdex.measure_cpp_call`
(the library called directly from C++ on data of the same size), each call followed by a synchronize of
its stream, and prints both and their difference: what the Python layer adds (argument checks, output
allocation, stream lookup, DLPack import). Host backend with NumPy arrays always; with --device cuda the
cuda backend with CuPy (or PyTorch) arrays.

  PYTHONPATH=build-host/python .venv/bin/python bench/python_overhead.py            # host, 2^10 keys
  python3 bench/python_overhead.py --device cuda --size 1024 --size 67108864        # on the GPU machine
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import warpdex
from warpdex import _warpdex


# The Python call each row times; the C++ call is the library's own: find_status against the find that writes
# statuses, find against the find that writes a default for misses and found flags (the same pass).
LABELS = ["find_status", "find", "insert", "radix_sort", "lower_bound"]


def median_seconds(call, synchronize, iterations):
    for _ in range(iterations // 10 + 1):
        call()
        synchronize()
    samples = []
    for _ in range(iterations):
        start = time.perf_counter()
        call()
        synchronize()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def python_calls(size, device, library):
    """(name, call, synchronize) for each operation on `size` distinct uint32 keys in random order."""
    keys = (np.arange(size, dtype=np.uint64) * 2654435761 % 4294967291).astype(np.uint32)
    np.random.default_rng(7).shuffle(keys)
    if device == "cpu":
        def synchronize():
            pass

        to_device = np.asarray
    elif library == "cupy":
        import cupy

        synchronize = cupy.cuda.get_current_stream().synchronize
        to_device = cupy.asarray
    else:
        import torch

        synchronize = torch.cuda.synchronize

        def to_device(array):
            return torch.from_dlpack(np.ascontiguousarray(array)).to("cuda")

    device_keys = to_device(keys)
    table = warpdex.SlabMap(size, device=device)
    table.insert(device_keys, device_keys)
    index = warpdex.SortedIndex(to_device(np.sort(keys)))
    return [
        ("slab_find", lambda: table.find_status(device_keys), synchronize),
        ("slab_find_default", lambda: table.find(device_keys), synchronize),
        ("slab_insert", lambda: table.insert(device_keys, device_keys, return_status=True), synchronize),
        ("radix_sort", lambda: warpdex.radix_sort(device_keys), synchronize),
        ("lower_bound", lambda: index.lower_bound(device_keys), synchronize),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", choices=["cpu", "cuda"], action="append")
    parser.add_argument("--size", type=int, action="append", help="keys per call (default 1024)")
    parser.add_argument("--iterations", type=int, default=0, help="timed calls (default: by size)")
    parser.add_argument("--library", choices=["cupy", "torch"], default=None)
    arguments = parser.parse_args()
    devices = arguments.device or (["cpu", "cuda"] if warpdex.cuda_available()[0] else ["cpu"])
    sizes = arguments.size or [1024]
    library = arguments.library
    if library is None and "cuda" in devices:
        try:
            import cupy  # noqa: F401

            library = "cupy"
        except ImportError:
            library = "torch"
    print(f"warpdex {warpdex.__version__}; median of timed calls, each followed by a synchronize")
    print(f"{'operation':<12} {'device':<6} {'keys':>10} {'python us':>10} {'C++ us':>10} {'overhead us':>12} {'ratio':>7}")
    for device in devices:
        for size in sizes:
            iterations = arguments.iterations or max(20, min(2000, (1 << 24) // max(size, 1)))
            cpp_cache = {}
            for (name, call, synchronize), label in zip(python_calls(size, device, library), LABELS):
                python_seconds = median_seconds(call, synchronize, iterations)
                if name not in cpp_cache:
                    cpp_cache[name] = _warpdex.measure_cpp_call(name, size, iterations, device)
                cpp_seconds = cpp_cache[name]
                print(f"{label:<12} {device:<6} {size:>10} {python_seconds * 1e6:>10.2f} {cpp_seconds * 1e6:>10.2f} "
                      f"{(python_seconds - cpp_seconds) * 1e6:>12.2f} {python_seconds / cpp_seconds:>7.3f}")


if __name__ == "__main__":
    main()
