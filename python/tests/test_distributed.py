"""DistributedSlabMap: the slab map sharded over every visible GPU of this process (NCCL), through CuPy arrays one
per GPU, checked against a dict; its argument checks; and its refusal in a build without NCCL. The GPU cases skip,
saying why, without NCCL, a CUDA device or CuPy."""

import numpy as np
import pytest

import warpdex
from warpdex import DistributedSlabMap, Status


def test_a_build_without_nccl_refuses_the_map():
    if warpdex.HAS_NCCL:
        pytest.skip("this build has NCCL")
    with pytest.raises(RuntimeError, match="no NCCL"):
        DistributedSlabMap(10)


def _gpus():
    if not warpdex.HAS_NCCL:
        pytest.skip("this build has no NCCL")
    available, reason = warpdex.cuda_available()
    if not available:
        pytest.skip(f"no CUDA: {reason}")
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    return cupy, cupy.cuda.runtime.getDeviceCount()


def _on(cupy, device, values, dtype=np.uint32):
    with cupy.cuda.Device(device):
        return cupy.asarray(np.asarray(values, dtype))


def _host(array):
    return array.get()


def test_every_gpu_inserts_finds_and_erases_as_a_dict_would(rng):
    cupy, gpus = _gpus()
    m = DistributedSlabMap(60000)
    assert m.devices == list(range(gpus))
    # Each GPU a batch of its own: keys from a shared range (repeats within and across GPUs), uneven sizes.
    batches = [rng.integers(0, 40000, size=10000 + 3000 * g, dtype=np.uint32) for g in range(gpus)]
    values = [(np.arange(len(b), dtype=np.uint32) + (g << 20)).astype(np.uint32) for g, b in enumerate(batches)]
    statuses = m.insert(
        [_on(cupy, g, b) for g, b in enumerate(batches)], [_on(cupy, g, v) for g, v in enumerate(values)],
        return_status=True,
    )
    owner = {}  # key -> the values its insertions carried
    for b, v in zip(batches, values):
        for key, value in zip(b.tolist(), v.tolist()):
            owner.setdefault(key, set()).add(value)
    inserted = sum(int((_host(s) == Status.INSERTED).sum()) for s in statuses)
    assert inserted == len(owner)  # each distinct key inserted once, its repeats ALREADY_PRESENT
    assert len(m) == len(owner) and sum(m.sizes()) == len(owner)

    # Finds: every GPU asks for present and absent keys; a found value is one its key's insertions carried.
    queries = [rng.integers(0, 80000, size=5000, dtype=np.uint32) for _ in range(gpus)]
    found_values, found_statuses = m.find([_on(cupy, g, q) for g, q in enumerate(queries)])
    stored = {}
    for g, q in enumerate(queries):
        assert found_values[g].device.id == g and found_statuses[g].device.id == g
        for key, value, status in zip(q.tolist(), _host(found_values[g]).tolist(), _host(found_statuses[g]).tolist()):
            if key in owner:
                assert status == Status.FOUND and value in owner[key]
                assert stored.setdefault(key, value) == value  # the same value for every GPU that asks
            else:
                assert status == Status.NOT_FOUND and value == 0

    # Erase the even keys from the last GPU; then only the odd ones are found.
    evens = np.array(sorted(k for k in owner if k % 2 == 0), np.uint32)
    erase_batches = [np.array([], np.uint32)] * (gpus - 1) + [evens]
    erased = m.erase([_on(cupy, g, b) for g, b in enumerate(erase_batches)], return_status=True)
    assert (_host(erased[-1]) == Status.ERASED).all()
    everything = np.array(sorted(owner), np.uint32)
    _, after = m.find([_on(cupy, g, everything) for g in range(gpus)])
    for g in range(gpus):
        expected = np.where(everything % 2 == 0, Status.NOT_FOUND, Status.FOUND)
        np.testing.assert_array_equal(_host(after[g]), expected)
    assert len(m) == len(owner) - len(evens)


def test_bad_arguments_raise_and_change_nothing():
    cupy, gpus = _gpus()
    m = DistributedSlabMap(1000)
    keys = [_on(cupy, g, [1 + g, 2 + g]) for g in range(gpus)]
    m.insert(keys, keys)
    with pytest.raises(ValueError, match="one per GPU"):
        m.insert(keys + keys, keys + keys)
    with pytest.raises(ValueError, match="lives on cpu"):
        m.find([np.array([1], np.uint32)] + keys[1:])
    if gpus >= 2:
        with pytest.raises(ValueError, match="rank 0 is GPU cuda:0"):
            m.find([keys[1], keys[0]] + keys[2:])
    reserved = [_on(cupy, g, [5, 0xFFFFFFFF]) for g in range(gpus)]
    with pytest.raises(ValueError, match="reserved"):
        m.insert(reserved, reserved)
    assert len(m) == len({k for g in range(gpus) for k in (1 + g, 2 + g)})
