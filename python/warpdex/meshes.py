"""The dpp family's external faces of tetrahedral meshes (include/warpdex/dpp/external_faces.hpp), and the
meshes they come from: VTK files (.vtk, .vtu; mesh_io.hpp) and generated grids of cubes (tet_mesh.hpp).

A mesh is `connectivity`, four point ids a cell (an (n, 4) uint32 array, or its n * 4 ids flat), and
optionally `points`, x, y, z a point (a (p, 3) float64 array, or flat). Host arrays run on the host backend,
CUDA arrays of the current device on the cuda backend (on `stream`, default the current CuPy / PyTorch
stream), C-contiguous arrays in place (an array that is not is flattened by its own reshape: a copy where
that copies, else refused with ValueError: pass numpy.ascontiguousarray(x)). Results are
arrays owning the library's buffers: NumPy on the host, CuPy or PyTorch on CUDA (`library`, default the
input's own).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _arrays
from . import _warpdex

DEFAULT_COLLISION_RUN_LIMIT: int = _warpdex.default_collision_run_limit
"""Runs of equal hashes longer than this are resolved by the tuple sort (method 'sort_hash')."""


@dataclass
class ExternalFaces:
    """The external faces of a tetrahedral mesh, ordered by cell, then by local face.

    `triangles`: (m, 3) uint32 point ids, ordered so that the normal points out of the mesh (right-hand
    rule); `cells`: uint32, the cell each face belongs to; `local_faces`: uint8, its face in that cell (0..3:
    VTK's table, local face k opposite vertex 3 - k). `statistics`: faces (4 * cells),
    hash_collision_runs and sorted_fallback (method 'sort_hash'), fight_rounds (method 'hash').
    """

    triangles: Any
    cells: Any
    local_faces: Any
    statistics: dict[str, int]

    def __len__(self) -> int:
        return len(self.cells)


def _flat(array: Any, dtype: Any, name: str, width: int) -> Any:
    array = _arrays.as_array(array, dtype, name)
    shape = tuple(array.shape)
    if len(shape) == 2 and shape[1] == width:
        return array.reshape(-1)
    if len(shape) == 1 and shape[0] % width == 0:
        return array
    raise ValueError(f"external_faces: {name} must be an (n, {width}) array or n * {width} values flat, got shape {shape}")


def external_faces(
    connectivity: Any,
    points: Any = None,
    *,
    point_count: int | None = None,
    method: str = "auto",
    hash: str = "fnv1a",
    collision_run_limit: int = DEFAULT_COLLISION_RUN_LIMIT,
    library: str | None = None,
    stream: Any = None,
) -> ExternalFaces:
    """The faces that belong to exactly one cell of the mesh, with their cells, as an `ExternalFaces`.

    A face is its three point ids whatever their order: one shared by two (or more) cells is internal.
    Without `points` every cell is taken as positively oriented in VTK's sense (as VTK, Gmsh and
    `make_tet_grid` write them) and faces keep the table's order; with them a face of an inverted cell is
    reversed so that it points away from the cell. Point ids must be below `point_count` (default: the
    points' count; no bound without points). `method`: 'auto' (the hash sort on CUDA, the partitioned
    engine on the CPU), 'sort' (sort the id triples), 'sort_hash' (sort a 32-bit `hash` of each face:
    'fnv1a', 'morton' or 'xor', then resolve equal hashes), 'hash' (hash fighting) or 'partitioned' (the
    CPU's partitioned engine; the tuple sort on CUDA); all give the same result.
    Raises ValueError for ids out of range, points not 3 a point, or connectivity not 4 ids a cell.

    >>> import numpy as np, warpdex
    >>> two = np.array([[0, 1, 2, 3], [1, 2, 3, 4]], np.uint32)  # two cells sharing the face (1, 2, 3)
    >>> faces = warpdex.external_faces(two)
    >>> faces.cells.tolist(), faces.local_faces.tolist()
    ([0, 0, 0, 1, 1, 1], [0, 2, 3, 0, 1, 2])
    """
    connectivity = _flat(connectivity, np.uint32, "connectivity", 4)
    if points is not None:
        points = _flat(points, np.float64, "points", 3)
        if point_count is None:
            point_count = len(points) // 3
    if point_count is None:
        point_count = 1 << 32  # every uint32 id
    if point_count < 0 or collision_run_limit < 1:
        raise ValueError("external_faces: point_count must be >= 0 and collision_run_limit >= 1")
    cuda = _arrays.is_cuda(connectivity)
    if library is None and cuda and _arrays.library_of(connectivity) in ("cupy", "torch"):
        library = _arrays.library_of(connectivity)
    triangles, cells, local_faces, statistics = _warpdex.external_faces(
        connectivity, points, int(point_count), method, hash, int(collision_run_limit),
        _arrays.owned_library(cuda, library), _arrays.stream_of(connectivity, stream),
    )
    return ExternalFaces(triangles, cells, local_faces, statistics)


def make_tet_grid(
    nx: int, ny: int | None = None, nz: int | None = None, *, tets_per_hex: int = 5, numbering: str = "regular",
    seed: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """(points, connectivity): the grid of nx * ny * nz unit cubes (ny and nz default to nx), each split
    into 5 or 6 positively oriented tetrahedra whose faces match across cubes, as NumPy arrays of shape
    (p, 3) float64 and (n, 4) uint32. `numbering`: 'regular' (points x fastest, cells cube by cube) or
    'random' (points, cells and each cell's vertex order shuffled by `seed`, orientation kept). Its
    external faces are the boundary squares' halves: 4 * (nx * ny + ny * nz + nz * nx).

    >>> import warpdex
    >>> points, cells = warpdex.make_tet_grid(2)
    >>> points.shape, cells.shape, len(warpdex.external_faces(cells))
    ((27, 3), (40, 4), 48)
    """
    ny = nx if ny is None else ny
    nz = nx if nz is None else nz
    points, connectivity = _warpdex.make_tet_grid(int(nx), int(ny), int(nz), int(tets_per_hex), numbering, int(seed))
    return points.reshape(-1, 3), connectivity.reshape(-1, 4)


def read_tet_mesh(path: Any) -> tuple[np.ndarray, np.ndarray]:
    """(points, connectivity) of a tetrahedral mesh file, as `make_tet_grid` returns them: a VTK legacy
    unstructured grid (.vtk, ASCII or BINARY) or a VTK XML one (.vtu: ascii, base64, appended, zlib).
    Every cell must be a tetrahedron. Raises ValueError naming the file and what is wrong for anything else."""
    points, connectivity = _warpdex.read_tet_mesh(str(path))
    return points.reshape(-1, 3), connectivity.reshape(-1, 4)
