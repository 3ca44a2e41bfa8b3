"""
The compiled core of the warpdex package: use the functions and classes of `warpdex`.
"""

from collections.abc import Sequence
from typing import Annotated

import numpy
from numpy.typing import NDArray


has_cuda: bool = ...

def cuda_available() -> tuple:
    """
    (available, reason): whether this build has the CUDA backend and a CUDA device is usable, and if not, why.
    """

def multisplit_bit_field(keys: Annotated[NDArray, dict(writable=False)], keys_out: NDArray, values: Annotated[NDArray, dict(writable=False)] | None, values_out: NDArray | None, shift: int, bits: int, descending: bool, algorithm: str, stream: int) -> Annotated[NDArray[numpy.uint64], dict(shape=(None,))]:
    """
    Stable multisplit by the bit field [shift, shift + bits) of uint32 or uint64 keys; returns the m + 1 bucket offsets.
    """

def multisplit_delta(keys: Annotated[NDArray, dict(writable=False)], keys_out: NDArray, values: Annotated[NDArray, dict(writable=False)] | None, values_out: NDArray | None, delta: int, count: int, algorithm: str, stream: int) -> Annotated[NDArray[numpy.uint64], dict(shape=(None,))]:
    """
    Stable multisplit into `count` buckets of width `delta` (bucket = key // delta); returns the m + 1 offsets.
    """

def multisplit_splitters(keys: Annotated[NDArray, dict(writable=False)], keys_out: NDArray, values: Annotated[NDArray, dict(writable=False)] | None, values_out: NDArray | None, splitters: Annotated[NDArray, dict(writable=False)], algorithm: str, stream: int) -> Annotated[NDArray[numpy.uint64], dict(shape=(None,))]:
    """
    Stable multisplit by strictly increasing splitters (bucket = splitters <= key); returns the m + 1 offsets.
    """

def radix_sort(keys: Annotated[NDArray, dict(writable=False)], keys_out: NDArray, values: Annotated[NDArray, dict(writable=False)] | None, values_out: NDArray | None, descending: bool, digit_bits: int, stream: int) -> None:
    """
    Stable LSD radix sort of uint32 keys (optionally with uint32 values) or uint64 keys into the outputs.
    """

def histogram(samples: Annotated[NDArray, dict(writable=False)], bins: int, lower: float, upper: float, boundaries: Annotated[NDArray, dict(writable=False)] | None, stream: int) -> tuple[Annotated[NDArray[numpy.uint64], dict(shape=(None,))], int]:
    """
    (counts, not_counted): even bins over [lower, upper) or range bins given by boundaries.
    """

slab_empty_key: int = ...

slab_erased_key: int = ...

slab_max_user_key: int = ...

slab_default_seed: int = ...

class SlabMapCore:
    """The compiled slab hash map; use warpdex.SlabMap."""

    def __init__(self, expected: int, base_fill: float, values_per_key: int, grows: bool, seed: int, device: str, stream: int) -> None: ...

    def insert(self, keys: Annotated[NDArray, dict(writable=False)], values: Annotated[NDArray, dict(writable=False)], statuses: NDArray | None, assign: bool) -> None: ...

    def erase(self, keys: Annotated[NDArray, dict(writable=False)], statuses: NDArray | None, every_instance: bool) -> None: ...

    def contains(self, keys: Annotated[NDArray, dict(writable=False)], found: NDArray) -> None: ...

    def execute(self, operations: Annotated[NDArray, dict(writable=False)], keys: Annotated[NDArray, dict(writable=False)], values: Annotated[NDArray, dict(writable=False)], values_out: NDArray, statuses: NDArray) -> None: ...

    def items(self, library: str) -> tuple: ...

    def size(self) -> int: ...

    def clear(self) -> None: ...

    def flush(self) -> None: ...

    def rehash(self, expected_keys: int, base_fill: float) -> None: ...

    def statistics(self) -> dict: ...

    @property
    def device(self) -> str: ...

    def find(self, keys: Annotated[NDArray, dict(writable=False)], values: NDArray, statuses: NDArray) -> None: ...

    def find_or_default(self, keys: Annotated[NDArray, dict(writable=False)], values: NDArray, found: NDArray, default: int) -> None: ...

    def insert_many(self, keys: Annotated[NDArray, dict(writable=False)], values: Annotated[NDArray, dict(writable=False)], offsets: Annotated[NDArray, dict(writable=False)], statuses: NDArray) -> None: ...

    def find_many(self, keys: Annotated[NDArray, dict(writable=False)], offsets: Annotated[NDArray, dict(writable=False)], values: NDArray, statuses: NDArray) -> None: ...

class SlabMultimapCore:
    """The compiled slab hash multimap; use warpdex.SlabMultimap."""

    def __init__(self, expected: int, base_fill: float, values_per_key: int, grows: bool, seed: int, device: str, stream: int) -> None: ...

    def insert(self, keys: Annotated[NDArray, dict(writable=False)], values: Annotated[NDArray, dict(writable=False)], statuses: NDArray | None, assign: bool) -> None: ...

    def erase(self, keys: Annotated[NDArray, dict(writable=False)], statuses: NDArray | None, every_instance: bool) -> None: ...

    def contains(self, keys: Annotated[NDArray, dict(writable=False)], found: NDArray) -> None: ...

    def execute(self, operations: Annotated[NDArray, dict(writable=False)], keys: Annotated[NDArray, dict(writable=False)], values: Annotated[NDArray, dict(writable=False)], values_out: NDArray, statuses: NDArray) -> None: ...

    def items(self, library: str) -> tuple: ...

    def size(self) -> int: ...

    def clear(self) -> None: ...

    def flush(self) -> None: ...

    def rehash(self, expected_keys: int, base_fill: float) -> None: ...

    def statistics(self) -> dict: ...

    @property
    def device(self) -> str: ...

    def count(self, keys: Annotated[NDArray, dict(writable=False)], counts: NDArray) -> None: ...

    def find_all_offsets(self, keys: Annotated[NDArray, dict(writable=False)], offsets: NDArray) -> int: ...

    def find_all(self, keys: Annotated[NDArray, dict(writable=False)], offsets: Annotated[NDArray, dict(writable=False)], values: NDArray) -> None: ...

class SortedIndexCore32:
    """The compiled sorted index; use warpdex.SortedIndex."""

    def __init__(self, keys: Annotated[NDArray, dict(writable=False)], check: bool, stream: int) -> None: ...

    def bound(self, queries: Annotated[NDArray, dict(writable=False)], positions: NDArray, upper: bool, algorithm: str) -> None: ...

    def equal_range(self, queries: Annotated[NDArray, dict(writable=False)], first: NDArray, last: NDArray, algorithm: str) -> None: ...

    def contains(self, queries: Annotated[NDArray, dict(writable=False)], found: NDArray, algorithm: str) -> None: ...

    def size(self) -> int: ...

class SortedIndexCore64:
    """The compiled sorted index; use warpdex.SortedIndex."""

    def __init__(self, keys: Annotated[NDArray, dict(writable=False)], check: bool, stream: int) -> None: ...

    def bound(self, queries: Annotated[NDArray, dict(writable=False)], positions: NDArray, upper: bool, algorithm: str) -> None: ...

    def equal_range(self, queries: Annotated[NDArray, dict(writable=False)], first: NDArray, last: NDArray, algorithm: str) -> None: ...

    def contains(self, queries: Annotated[NDArray, dict(writable=False)], found: NDArray, algorithm: str) -> None: ...

    def size(self) -> int: ...

max_patterns_per_pass: int = ...

def count_matches(text: Annotated[NDArray, dict(writable=False)], pattern: bytes, algorithm: str, stream: int) -> int:
    """Occurrences (overlapping) of one pattern in a uint8 text."""

def count_patterns(text: Annotated[NDArray, dict(writable=False)], patterns: Sequence[bytes], stream: int) -> Annotated[NDArray[numpy.uint64], dict(shape=(None,))]:
    """Occurrences of each of several patterns in one pass over a uint8 text."""

def find_matches(text: Annotated[NDArray, dict(writable=False)], pattern: bytes, algorithm: str, library: str, stream: int) -> object:
    """Every starting position of the pattern, ascending (uint64)."""

def grep(path: str, data: bytes, from_file: bool, name: str, patterns: Sequence[bytes], output: str, ignore_case: bool, invert_match: bool, word_regexp: bool, line_regexp: bool, only_matching: bool, byte_offset: bool, line_number: bool, with_filename: bool, chunk_bytes: int, device: str) -> tuple:
    """
    (output, matching_lines, binary, binary_matches) of a fixed-string grep, printed as GNU grep -F.
    """

def measure_cpp_call(kind: str, size: int, iterations: int, device: str) -> float:
    """
    Median seconds of one library call made from C++ ('slab_find', 'slab_find_default', 'slab_insert', 'radix_sort', 'lower_bound' on `size` uint32 keys), each followed by a synchronize; for bench/python_overhead.py.
    """

has_nccl: bool = ...

class DistributedSlabMapCore:
    def __init__(self, expected_keys: int, devices: Sequence[int] | None) -> None: ...

    def insert(self, keys: Sequence[Annotated[NDArray, dict(writable=False)]], values: Sequence[Annotated[NDArray, dict(writable=False)]], statuses: Sequence[NDArray] | None, assign: bool) -> None: ...

    def find(self, keys: Sequence[Annotated[NDArray, dict(writable=False)]], values: Sequence[NDArray], statuses: Sequence[NDArray]) -> None: ...

    def erase(self, keys: Sequence[Annotated[NDArray, dict(writable=False)]], statuses: Sequence[NDArray] | None) -> None: ...

    def size(self) -> int: ...

    def sizes(self) -> list[int]: ...

    @property
    def devices(self) -> list[int]: ...

    @property
    def exchanges_by_copies(self) -> bool: ...

class LSMMapCore32:
    """The compiled LSM; use warpdex.LSMMap."""

    def __init__(self, batch_size: int, cleanup_threshold: float, device: str, stream: int) -> None: ...

    def update(self, keys: Annotated[NDArray, dict(writable=False)], values: Annotated[NDArray, dict(writable=False)] | None, operations: Annotated[NDArray, dict(writable=False)] | None, kind: str) -> None: ...

    def lookup(self, queries: Annotated[NDArray, dict(writable=False)], values: NDArray, found: NDArray) -> None: ...

    def count(self, lower: Annotated[NDArray, dict(writable=False)], upper: Annotated[NDArray, dict(writable=False)], counts: NDArray) -> None: ...

    def range(self, lower: Annotated[NDArray, dict(writable=False)], upper: Annotated[NDArray, dict(writable=False)], library: str) -> tuple: ...

    def neighbour(self, queries: Annotated[NDArray, dict(writable=False)], keys: NDArray, values: NDArray, found: NDArray, successor: bool) -> None: ...

    def items(self, library: str) -> tuple: ...

    def cleanup(self) -> None: ...

    def size(self) -> int: ...

    def resident_entries(self) -> int: ...

    def resident_stale(self) -> int: ...

    def resident_tombstones(self) -> int: ...

    def occupied_levels(self) -> int: ...

    def set_cleanup_threshold(self, threshold: float) -> None: ...

    @property
    def device(self) -> str: ...

class LSMMapCore64:
    """The compiled LSM; use warpdex.LSMMap."""

    def __init__(self, batch_size: int, cleanup_threshold: float, device: str, stream: int) -> None: ...

    def update(self, keys: Annotated[NDArray, dict(writable=False)], values: Annotated[NDArray, dict(writable=False)] | None, operations: Annotated[NDArray, dict(writable=False)] | None, kind: str) -> None: ...

    def lookup(self, queries: Annotated[NDArray, dict(writable=False)], values: NDArray, found: NDArray) -> None: ...

    def count(self, lower: Annotated[NDArray, dict(writable=False)], upper: Annotated[NDArray, dict(writable=False)], counts: NDArray) -> None: ...

    def range(self, lower: Annotated[NDArray, dict(writable=False)], upper: Annotated[NDArray, dict(writable=False)], library: str) -> tuple: ...

    def neighbour(self, queries: Annotated[NDArray, dict(writable=False)], keys: NDArray, values: NDArray, found: NDArray, successor: bool) -> None: ...

    def items(self, library: str) -> tuple: ...

    def cleanup(self) -> None: ...

    def size(self) -> int: ...

    def resident_entries(self) -> int: ...

    def resident_stale(self) -> int: ...

    def resident_tombstones(self) -> int: ...

    def occupied_levels(self) -> int: ...

    def set_cleanup_threshold(self, threshold: float) -> None: ...

    @property
    def device(self) -> str: ...

max_duplicate_search_elements: int = ...

def find_once(elements: Annotated[NDArray, dict(writable=False)], once: NDArray, method: str, stream: int) -> int:
    """
    once[i] = 1 where elements[i] occurs exactly once; returns the fight rounds run.
    """

def elements_occurring_once(elements: Annotated[NDArray, dict(writable=False)], method: str, library: str, stream: int) -> object:
    """The elements occurring exactly once, in input order."""

def unique_elements(elements: Annotated[NDArray, dict(writable=False)], order: str, method: str, library: str, stream: int) -> object:
    """The distinct elements, ascending or in order of first occurrence."""

def count_elements(elements: Annotated[NDArray, dict(writable=False)], order: str, first_positions: bool, method: str, library: str, stream: int) -> tuple:
    """
    (elements, counts, first_positions or None): the distinct elements with their counts.
    """

def group_by(keys: Annotated[NDArray, dict(writable=False)], values: Annotated[NDArray, dict(writable=False)], reduction: str, order: str, method: str, library: str, stream: int) -> tuple:
    """
    (keys, values, counts): each distinct key with the reduction of its values and their count.
    """

class GraphCoreInt32:
    """The compiled CSR graph; use warpdex.Graph."""

    def __init__(self, sources: Annotated[NDArray, dict(writable=False)], targets: Annotated[NDArray, dict(writable=False)], weights: Annotated[NDArray, dict(writable=False)] | None, vertex_count: int, directed: bool, compact_ids: bool, device: str) -> None: ...

    def sssp(self, source: int, algorithm: str, delta: float, bucket_count: int, predecessors: bool, library: str) -> tuple: ...

    def maximal_cliques(self, min_size: int, count_only: bool, memory_limit_bytes: int, library: str) -> tuple: ...

    def vertex_count(self) -> int: ...

    def edge_count(self) -> int: ...

    def vertex_of(self, id: int) -> int: ...

    def id_of(self, vertex: int) -> int: ...

    @property
    def device(self) -> str: ...

class GraphCoreFloat32:
    """The compiled CSR graph; use warpdex.Graph."""

    def __init__(self, sources: Annotated[NDArray, dict(writable=False)], targets: Annotated[NDArray, dict(writable=False)], weights: Annotated[NDArray, dict(writable=False)] | None, vertex_count: int, directed: bool, compact_ids: bool, device: str) -> None: ...

    def sssp(self, source: int, algorithm: str, delta: float, bucket_count: int, predecessors: bool, library: str) -> tuple: ...

    def maximal_cliques(self, min_size: int, count_only: bool, memory_limit_bytes: int, library: str) -> tuple: ...

    def vertex_count(self) -> int: ...

    def edge_count(self) -> int: ...

    def vertex_of(self, id: int) -> int: ...

    def id_of(self, vertex: int) -> int: ...

    @property
    def device(self) -> str: ...

no_vertex: int = ...

def external_faces(connectivity: Annotated[NDArray, dict(writable=False)], points: Annotated[NDArray, dict(writable=False)] | None, point_count: int, method: str, hash: str, collision_run_limit: int, library: str, stream: int) -> tuple:
    """
    (triangles, cells, local_faces, statistics): the faces of a tetrahedral mesh that belong to one cell.
    """

def make_tet_grid(nx: int, ny: int, nz: int, tets_per_hex: int, numbering: str, seed: int) -> tuple:
    """
    (points, connectivity), flat: a grid of unit cubes split into tetrahedra.
    """

def read_tet_mesh(path: str) -> tuple:
    """
    (points, connectivity), flat: a tetrahedral mesh from a .vtk or .vtu file.
    """

default_collision_run_limit: int = ...

def mrf_segment(image: Annotated[NDArray, dict(writable=False)], dims: tuple[int, int, int], regions: Annotated[NDArray, dict(writable=False)], label_count: int, em_iterations: int, map_iterations: int, convergence_window: int, convergence_threshold: float, smoothness: float, memory_limit_bytes: int, device: str) -> tuple:
    """
    (labels, mu, sigma, statistics, timings): MRF segmentation of a flat image over its regions.
    """

def slic_superpixels(image: Annotated[NDArray, dict(writable=False)], dims: tuple[int, int, int], region_size: int, compactness: float, iterations: int, smoothing: int, device: str) -> tuple:
    """(labels, centres, superpixels): SLIC superpixels of a flat image."""

def read_gray_volume(path: str, dims: tuple[int, int, int], bit_depth: int) -> tuple:
    """
    (values, (width, height, depth), bit_depth): a gray image or volume from a raw, PNG or TIFF file.
    """

def write_gray_volume(path: str, image: Annotated[NDArray, dict(writable=False)], dims: tuple[int, int, int]) -> None:
    """
    Writes a flat gray image (uint8 or uint16) as a raw, PNG or TIFF file by the extension.
    """

def porous_volume(dims: tuple[int, int, int], seed: int, porosity: float) -> tuple:
    """
    (image, truth), flat: the synthetic porous volume and its ground truth.
    """

mrf_max_labels: int = ...

has_lsm: bool = ...
