"""warpdex: warp-centric GPU data structures and index-based search, on NumPy, CuPy and PyTorch arrays.

Every function and structure runs on the host backend (the CPU's cores) for host arrays and on the cuda
backend for CUDA arrays of the current device, reading and writing the caller's arrays in place (no
copy). Errors of the library raise ValueError (bad input; nothing was changed), MemoryError (memory ran
out) or RuntimeError (a CUDA call failed), with the library's message.
"""

from __future__ import annotations

from . import _warpdex
from .distributed import HAS_NCCL, DistributedSlabMap
from .hash import EMPTY_KEY, ERASED_KEY, MAX_USER_KEY, Operation, SlabMap, SlabMultimap, Status
if _warpdex.has_lsm:
    from .dpp import count_elements, elements_occurring_once, find_once, group_by, unique_elements
    from .graph import NO_VERTEX, CliqueSet, Graph
    from .meshes import ExternalFaces, external_faces, make_tet_grid, read_tet_mesh
    from .segment import Segmentation, mrf_segment, porous_volume, read_image, slic_superpixels, write_image
    from .lsm import LSMMap, LSMOperation
from .search import MAX_PATTERNS_PER_PASS, GrepResult, SortedIndex, count_matches, find_matches, grep
from .split import (
    BitFieldBuckets,
    DeltaBuckets,
    HistogramResult,
    MultisplitResult,
    SplitterBuckets,
    histogram,
    multisplit,
    radix_sort,
)

__version__: str = _warpdex.__version__

HAS_CUDA: bool = _warpdex.has_cuda
"""Whether this build of the extension has the CUDA backend (built with nvcc)."""


def cuda_available() -> tuple[bool, str]:
    """(available, reason): whether CUDA arrays can be used (the build has the CUDA backend and a device is
    usable), and if not, why."""
    return _warpdex.cuda_available()


HAS_LSM: bool = _warpdex.has_lsm
"""Whether this build has the LSM family, the dpp family (duplicate search, maximal cliques, external faces,
MRF segmentation) and the graphs (they need the CCCL headers)."""

__all__ = [
    "HAS_LSM",
    "HAS_NCCL",
    "DistributedSlabMap",
    "BitFieldBuckets",
    "CliqueSet",
    "DeltaBuckets",
    "EMPTY_KEY",
    "ERASED_KEY",
    "ExternalFaces",
    "Graph",
    "GrepResult",
    "HAS_CUDA",
    "HistogramResult",
    "LSMMap",
    "LSMOperation",
    "MAX_PATTERNS_PER_PASS",
    "MAX_USER_KEY",
    "MultisplitResult",
    "NO_VERTEX",
    "Operation",
    "Segmentation",
    "SlabMap",
    "SlabMultimap",
    "SortedIndex",
    "SplitterBuckets",
    "Status",
    "count_elements",
    "count_matches",
    "cuda_available",
    "elements_occurring_once",
    "external_faces",
    "find_matches",
    "find_once",
    "grep",
    "group_by",
    "histogram",
    "make_tet_grid",
    "mrf_segment",
    "multisplit",
    "porous_volume",
    "radix_sort",
    "read_image",
    "read_tet_mesh",
    "slic_superpixels",
    "unique_elements",
    "write_image",
]
