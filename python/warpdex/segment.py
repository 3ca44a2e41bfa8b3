"""The dpp family's image segmentation (include/warpdex/dpp/mrf_segment.hpp, slic.hpp): MRF segmentation of a
gray image or volume over an oversegmentation (SLIC superpixels by default), and the gray image files and
synthetic porous volumes it is tried on (gray_volume.hpp, porous_volume.hpp).

Images are 2D (height, width) or 3D (depth, height, width) arrays of uint8 or uint16 (C order: x fastest,
as the library holds them). The library's image type keeps its own values, so an image is copied into it
(on the host: arrays on a CUDA device are copied to the host first); the work runs on `device` ('cpu' or
'cuda'; default the image's own) and the results, equal on both devices, come back as NumPy arrays of the
image's shape (CuPy / PyTorch arrays for CUDA images).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _arrays
from . import _warpdex

MAX_LABELS: int = _warpdex.mrf_max_labels
"""The most labels `mrf_segment` assigns."""


@dataclass
class Segmentation:
    """What `mrf_segment` returns: `labels` (uint8, the image's shape, 0 .. label_count - 1 by ascending
    mean intensity: 0 the darkest), `mu` and `sigma` (per label: the mean and standard deviation of its
    regions' intensities), `statistics` (regions, region_edges, cliques, clique_number,
    neighbourhood_elements, em_iterations, map_iterations, converged, energy) and `timings` (seconds per
    stage: regions, graph, cliques, neighbourhoods, em, output, total)."""

    labels: Any
    mu: list[float]
    sigma: list[float]
    statistics: dict[str, Any]
    timings: dict[str, float]


def _image(image: Any, function: str) -> tuple[np.ndarray, tuple[int, int, int], bool]:
    """(flat host values, (width, height, depth), whether the caller's array was on CUDA)."""
    image = _arrays.as_array(image, np.uint16, "image")
    cuda = _arrays.is_cuda(image)
    host = _arrays.to_numpy(image)
    if host.dtype not in (np.uint8, np.uint16):
        raise ValueError(f"{function}: the image must be uint8 or uint16, got {host.dtype}")
    if host.ndim == 2:
        dims = (host.shape[1], host.shape[0], 1)
    elif host.ndim == 3:
        dims = (host.shape[2], host.shape[1], host.shape[0])
    else:
        raise ValueError(f"{function}: the image must be 2D (height, width) or 3D (depth, height, width), "
                         f"got {host.ndim} dimensions")
    return np.ascontiguousarray(host).reshape(-1), dims, cuda


def _device(device: str | None, cuda: bool) -> str:
    return device if device is not None else ("cuda" if cuda else "cpu")


def _like(values: np.ndarray, image: Any, cuda: bool) -> Any:
    """`values` in the image's library when the image was on CUDA."""
    if not cuda:
        return values
    library = _arrays.library_of(image)
    if library == "torch":
        import torch

        return torch.from_numpy(values).to(image.device)
    import cupy

    return cupy.asarray(values)


def mrf_segment(
    image: Any,
    regions: Any = None,
    *,
    labels: int = 2,
    em_iterations: int = 20,
    map_iterations: int = 10,
    convergence_window: int = 3,
    convergence_threshold: float = 1e-4,
    smoothness: float = 1.0,
    memory_limit_bytes: int = 0,
    region_size: int = 4,
    compactness: float = 5.0,
    device: str | None = None,
) -> Segmentation:
    """Segments `image` into `labels` classes (2 .. MAX_LABELS) by expectation-maximization with MAP
    inference over the maximal cliques of its regions' adjacency graph (DPP-PMRF), as a `Segmentation`.

    `regions` is the oversegmentation: a uint32 region id a voxel (the image's shape; voxels sharing an id
    form one region, connected or not); default the SLIC superpixels of `region_size` and `compactness`
    (`slic_superpixels`). `smoothness` weighs a disagreeing neighbour against the data term; EM runs at
    most `em_iterations` (MAP `map_iterations` each) and stops when the energies of `convergence_window`
    iterations agree within `convergence_threshold`. Deterministic, the same on both devices. Raises
    ValueError for options out of range or regions of another size.

    >>> import numpy as np, warpdex
    >>> image = np.kron(np.array([[0, 1], [1, 0]], np.uint8), np.ones((8, 8), np.uint8)) * 200 + 20
    >>> warpdex.mrf_segment(image).labels[::8, ::8].tolist()
    [[0, 1], [1, 0]]
    """
    flat, dims, cuda = _image(image, "mrf_segment")
    chosen = _device(device, cuda)
    if regions is None:
        region_ids, _, _ = _warpdex.slic_superpixels(flat, dims, int(region_size), float(compactness), 10, 1, chosen)
    else:
        region_ids = np.ascontiguousarray(_arrays.to_numpy(_arrays.as_array(regions, np.uint32, "regions"))).reshape(-1)
    if min(labels, em_iterations, map_iterations, convergence_window, memory_limit_bytes) < 0:
        raise ValueError("mrf_segment: labels, iteration counts, the window and the memory limit must be >= 0")
    result, mu, sigma, statistics, timings = _warpdex.mrf_segment(
        flat, dims, region_ids, int(labels), int(em_iterations), int(map_iterations), int(convergence_window),
        float(convergence_threshold), float(smoothness), int(memory_limit_bytes), chosen,
    )
    shape = tuple(reversed(dims)) if dims[2] > 1 else (dims[1], dims[0])
    return Segmentation(_like(result.reshape(shape), image, cuda), mu, sigma, statistics, timings)


def slic_superpixels(
    image: Any,
    *,
    region_size: int = 4,
    compactness: float = 5.0,
    iterations: int = 10,
    smoothing: int = 1,
    device: str | None = None,
) -> tuple[Any, int]:
    """(labels, superpixels): SLIC superpixels (supervoxels in 3D) of `image` on a grid of `region_size`
    voxels (>= 2), weighing space by `compactness` (> 0) against intensity, after a box mean of radius
    `smoothing`: labels is a uint32 superpixel id a voxel (the image's shape; grid-cell numbering, some
    ids unused, a superpixel possibly in pieces) and superpixels the count of ids in use. The same on both
    devices.

    >>> import numpy as np, warpdex
    >>> labels, count = warpdex.slic_superpixels(np.zeros((8, 8), np.uint8))
    >>> labels.shape, count
    ((8, 8), 4)
    """
    if region_size < 0 or iterations < 0 or smoothing < 0:
        raise ValueError("slic_superpixels: region_size, iterations and smoothing must be >= 0")
    flat, dims, cuda = _image(image, "slic_superpixels")
    labels, _, superpixels = _warpdex.slic_superpixels(
        flat, dims, int(region_size), float(compactness), int(iterations), int(smoothing), _device(device, cuda)
    )
    shape = tuple(reversed(dims)) if dims[2] > 1 else (dims[1], dims[0])
    return _like(labels.reshape(shape), image, cuda), superpixels


def read_image(path: Any, *, shape: tuple[int, ...] | None = None, bit_depth: int = 16) -> np.ndarray:
    """A gray image or volume from a file, by its extension: .png (2D; color turned to gray), .tif /
    .tiff (2D, or a stack of pages as a volume) or raw (any other extension: `shape`, (height, width) or
    (depth, height, width), and `bit_depth` 8 or 16 (little-endian) are then needed). A NumPy array of
    uint8 (8-bit files) or uint16, (height, width) or (depth, height, width). Raises ValueError naming the
    file and what is wrong (truncated, corrupt, a size that does not match, an unsupported sample type)."""
    dims = (0, 0, 0)
    if shape is not None:
        if len(shape) not in (2, 3):
            raise ValueError(f"read_image: shape must be (height, width) or (depth, height, width), got {shape}")
        dims = (shape[-1], shape[-2], shape[0] if len(shape) == 3 else 1)
    values, (width, height, depth), read_depth = _warpdex.read_gray_volume(str(path), dims, int(bit_depth))
    values = values.astype(np.uint8) if read_depth == 8 else values
    return values.reshape((depth, height, width) if depth > 1 else (height, width))


def write_image(path: Any, image: Any) -> None:
    """Writes a uint8 or uint16 image (2D) or volume (3D) by the extension: .png (2D only), .tif / .tiff
    (a page a slice) or raw (the values, x fastest, little-endian). `read_image` reads it back."""
    flat, dims, _ = _image(image, "write_image")
    _warpdex.write_gray_volume(str(path), flat, dims)


def porous_volume(shape: tuple[int, ...], *, seed: int = 1, porosity: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """(image, truth): a synthetic porous rock of `shape` ((height, width) or (depth, height, width)) whose
    pores (balls placed from `seed` until they cover `porosity`) and solid are two gray levels, blurred and
    noisy (uint16), and the ground truth (uint8: 0 pore, 1 solid). The test image of `mrf_segment`.

    >>> import warpdex
    >>> image, truth = warpdex.porous_volume((64, 64), seed=7)
    >>> image.dtype.name, truth.shape, bool(((warpdex.mrf_segment(image).labels == truth).mean() > 0.9))
    ('uint16', (64, 64), True)
    """
    if len(shape) not in (2, 3):
        raise ValueError(f"porous_volume: shape must be (height, width) or (depth, height, width), got {shape}")
    dims = (shape[-1], shape[-2], shape[0] if len(shape) == 3 else 1)
    image, truth = _warpdex.porous_volume(dims, int(seed), float(porosity))
    return image.reshape(shape), truth.reshape(shape)
