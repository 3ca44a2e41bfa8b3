"""MRF segmentation, SLIC superpixels and gray image files on the host backend: images whose regions are
known, the synthetic porous volume with its ground truth, round trips through the files, and bad input."""

import numpy as np
import pytest

import warpdex

pytestmark = pytest.mark.skipif(not warpdex.HAS_LSM, reason="this build has no dpp family (no CCCL headers)")


def blocks(rng, shape, block, levels):
    """(image, truth, regions): blocks of `block` voxels a side, each of a class whose intensity is
    levels[class] plus a little noise, the classes shuffled over the blocks in equal shares; regions are the
    blocks. Equal shares: EM starts its means at the quantiles of the region means, so a class far rarer
    than 1 / labels may be merged into a neighbour (a local optimum of the method, not an error)."""
    grid = tuple(extent // block for extent in shape)
    count = int(np.prod(grid))
    truth_grid = rng.permutation(np.arange(count) % len(levels)).astype(np.uint8).reshape(grid)
    truth = truth_grid
    region_grid = np.arange(truth_grid.size, dtype=np.uint32).reshape(grid)
    regions = region_grid
    for axis in range(len(shape)):
        truth = np.repeat(truth, block, axis=axis)
        regions = np.repeat(regions, block, axis=axis)
    noise = rng.integers(-6, 7, size=shape)
    image = (np.array(levels)[truth] + noise).astype(np.uint16)
    return image, truth, regions


@pytest.mark.parametrize("labels, levels", [(2, [300, 900]), (3, [200, 600, 1000])])
@pytest.mark.parametrize("shape", [(48, 64), (12, 16, 20)])
def test_labels_follow_the_regions_classes(rng, labels, levels, shape):
    image, truth, regions = blocks(rng, shape, 4, levels)
    result = warpdex.mrf_segment(image, regions, labels=labels, smoothness=0.0)
    assert result.labels.shape == shape and result.labels.dtype == np.uint8
    np.testing.assert_array_equal(result.labels, truth)  # the labels are the classes, darkest first
    np.testing.assert_allclose(result.mu, levels, atol=7)
    assert result.mu == sorted(result.mu) and len(result.sigma) == labels
    assert result.statistics["regions"] == regions.max() + 1
    assert result.timings["total"] >= result.timings["em"] >= 0
    # Region ids are any uint32 values: sparse ones give the same segmentation.
    sparse = warpdex.mrf_segment(image, regions * np.uint32(977) + np.uint32(5), labels=labels, smoothness=0.0)
    np.testing.assert_array_equal(sparse.labels, result.labels)


def test_porous_volume_is_segmented_accurately():
    image, truth = warpdex.porous_volume((96, 96), seed=7)
    assert image.dtype == np.uint16 and truth.dtype == np.uint8 and set(np.unique(truth)) == {0, 1}
    result = warpdex.mrf_segment(image)
    assert (result.labels == truth).mean() > 0.95
    # The default regions are the SLIC superpixels of the same options.
    superpixels, count = warpdex.slic_superpixels(image, region_size=6)
    assert superpixels.shape == image.shape and superpixels.dtype == np.uint32
    assert count == len(np.unique(superpixels)) <= (96 // 6) ** 2
    np.testing.assert_array_equal(warpdex.mrf_segment(image, superpixels, smoothness=2.0).labels,
                                  warpdex.mrf_segment(image, region_size=6, smoothness=2.0).labels)
    volume, volume_truth = warpdex.porous_volume((16, 32, 32), seed=3)
    assert volume.shape == (16, 32, 32)
    assert (warpdex.mrf_segment(volume).labels == volume_truth).mean() > 0.9


@pytest.mark.parametrize("suffix", [".png", ".tif", ".raw"])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_image_files_round_trip(tmp_path, rng, suffix, dtype):
    shapes = [(5, 7)] if suffix == ".png" else [(5, 7), (3, 5, 7)]
    for shape in shapes:
        image = rng.integers(0, np.iinfo(dtype).max, size=shape, endpoint=True).astype(dtype)
        path = tmp_path / f"image{len(shape)}{suffix}"
        warpdex.write_image(path, image)
        bits = 8 * np.dtype(dtype).itemsize
        back = warpdex.read_image(path, shape=shape, bit_depth=bits) if suffix == ".raw" else warpdex.read_image(path)
        assert back.dtype == dtype
        np.testing.assert_array_equal(back, image)


def test_bad_input(tmp_path):
    image = np.zeros((8, 8), np.uint8)
    for labels in (1, warpdex.segment.MAX_LABELS + 1):
        with pytest.raises(ValueError, match="label"):
            warpdex.mrf_segment(image, labels=labels)
    with pytest.raises(ValueError, match="region"):
        warpdex.mrf_segment(image, np.zeros(10, np.uint32))
    with pytest.raises(ValueError, match="uint8 or uint16"):
        warpdex.mrf_segment(image.astype(np.float32))
    with pytest.raises(ValueError, match="2D"):
        warpdex.slic_superpixels(np.zeros(8, np.uint8))
    with pytest.raises(ValueError, match="region_size|>= 2"):
        warpdex.slic_superpixels(image, region_size=1)
    with pytest.raises(ValueError, match="device"):
        warpdex.mrf_segment(image, device="tpu")
    path = tmp_path / "short.raw"
    path.write_bytes(b"\0" * 10)
    with pytest.raises(ValueError, match="short.raw"):
        warpdex.read_image(path, shape=(4, 4), bit_depth=8)
    (tmp_path / "fake.png").write_bytes(b"not a png")
    with pytest.raises(ValueError, match="fake.png"):
        warpdex.read_image(tmp_path / "fake.png")
    with pytest.raises(ValueError, match="2D|png"):
        warpdex.write_image(tmp_path / "volume.png", np.zeros((2, 3, 3), np.uint8))
