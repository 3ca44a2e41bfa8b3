"""JAX arrays on the CPU go in through DLPack, as NumPy arrays do, and give the same results (as NumPy
arrays: JAX arrays are immutable, so results are allocated by NumPy). Skips without JAX, which CI's
environment does not install (jax and jaxlib for the CPU take about 600 MB); run it with JAX installed:
pip install jax jaxlib, then pytest python/tests/test_jax.py."""

import numpy as np
import pytest

import warpdex

jax = pytest.importorskip("jax", reason="JAX is not installed")
jnp = pytest.importorskip("jax.numpy")


def test_jax_cpu_arrays_give_the_numpy_results(rng):
    keys = rng.permutation(np.arange(5000, dtype=np.uint32))
    values = rng.integers(0, 2**32, size=keys.size, dtype=np.uint32)
    jax_keys, jax_values = jnp.asarray(keys), jnp.asarray(values)
    sorted_keys, sorted_values = warpdex.radix_sort(jax_keys, jax_values)
    assert isinstance(sorted_keys, np.ndarray)
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(sorted_keys, keys[order])
    np.testing.assert_array_equal(sorted_values, values[order])
    table = warpdex.SlabMap(keys.size)
    table.insert(jax_keys, jax_values)
    found_values, found = table.find(jnp.asarray(np.arange(10_000, dtype=np.uint32)), default=7)
    np.testing.assert_array_equal(found, np.arange(10_000) < 5000)
    np.testing.assert_array_equal(found_values[keys], values)
    index = warpdex.SortedIndex(jnp.asarray(np.sort(keys)))
    np.testing.assert_array_equal(index.lower_bound(jax_keys), keys)
    np.testing.assert_array_equal(warpdex.unique_elements(jnp.asarray(keys % 100)), np.arange(100))
    if warpdex.HAS_LSM:
        _, cells = warpdex.make_tet_grid(3)
        np.testing.assert_array_equal(warpdex.external_faces(jnp.asarray(cells)).triangles,
                                      warpdex.external_faces(cells).triangles)


def test_jax_arrays_are_refused_as_outputs():
    table = warpdex.SlabMap(10)
    with pytest.raises(ValueError, match="immutable"):
        table.find_status(np.arange(4, dtype=np.uint32), values_out=jnp.zeros(4, jnp.uint32))
    with pytest.raises(ValueError, match="immutable"):
        warpdex.radix_sort(np.arange(4, dtype=np.uint32), keys_out=jnp.zeros(4, jnp.uint32))
