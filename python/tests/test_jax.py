"""JAX arrays go in through DLPack, as NumPy and CuPy arrays do, and give the same results. JAX arrays are
immutable, so results are allocated by NumPy for arrays on the CPU and by CuPy (else PyTorch) for arrays on a
GPU, which then run on the cuda backend. Skips without JAX, which CI's environment does not install (jax and
jaxlib for the CPU take about 600 MB); run it with JAX installed: pip install jax jaxlib, then pytest
python/tests/test_jax.py. The GPU case runs where JAX sees a GPU."""

import numpy as np
import pytest

import warpdex

jax = pytest.importorskip("jax", reason="JAX is not installed")
jnp = pytest.importorskip("jax.numpy")


def _jax_devices(platform):
    try:
        return jax.devices(platform)
    except RuntimeError:  # no backend of that platform
        return []


def _check_jax_arrays(rng, device):
    """The operations on JAX arrays placed on `device` against NumPy; returns the library of the results."""
    on_device = lambda array: jax.device_put(array, device)
    host = warpdex._arrays.to_numpy
    keys = rng.permutation(np.arange(5000, dtype=np.uint32))
    values = rng.integers(0, 2**32, size=keys.size, dtype=np.uint32)
    jax_keys, jax_values = on_device(keys), on_device(values)
    sorted_keys, sorted_values = warpdex.radix_sort(jax_keys, jax_values)
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(host(sorted_keys), keys[order])
    np.testing.assert_array_equal(host(sorted_values), values[order])
    table = warpdex.SlabMap(keys.size, device="cuda" if device.platform == "gpu" else "cpu")
    table.insert(jax_keys, jax_values)
    found_values, found = table.find(on_device(np.arange(10_000, dtype=np.uint32)), default=7)
    np.testing.assert_array_equal(host(found), np.arange(10_000) < 5000)
    np.testing.assert_array_equal(host(found_values)[keys], values)
    np.testing.assert_array_equal(host(found_values)[5000:], 7)
    index = warpdex.SortedIndex(on_device(np.sort(keys)))
    np.testing.assert_array_equal(host(index.lower_bound(jax_keys)), keys)
    np.testing.assert_array_equal(host(warpdex.unique_elements(on_device(keys % 100))), np.arange(100))
    if warpdex.HAS_LSM:
        _, cells = warpdex.make_tet_grid(3)
        np.testing.assert_array_equal(host(warpdex.external_faces(on_device(cells)).triangles),
                                      warpdex.external_faces(cells).triangles)
    return warpdex._arrays.library_of(sorted_keys)


def test_jax_cpu_arrays_give_the_numpy_results(rng):
    devices = _jax_devices("cpu")
    if not devices:
        pytest.skip("JAX has no CPU device")
    assert _check_jax_arrays(rng, devices[0]) == "numpy"


def test_jax_gpu_arrays_run_on_the_cuda_backend(rng):
    devices = _jax_devices("gpu")
    if not devices or not warpdex.HAS_CUDA:
        pytest.skip("no GPU that both JAX and warpdex see")
    assert _check_jax_arrays(rng, devices[0]) in ("cupy", "torch")


def test_jax_arrays_are_refused_as_outputs():
    table = warpdex.SlabMap(10)
    with pytest.raises(ValueError, match="immutable"):
        table.find_status(np.arange(4, dtype=np.uint32), values_out=jnp.zeros(4, jnp.uint32))
    with pytest.raises(ValueError, match="immutable"):
        warpdex.radix_sort(np.arange(4, dtype=np.uint32), keys_out=jnp.zeros(4, jnp.uint32))
