"""External faces of tetrahedral meshes against a NumPy oracle, on generated grids, random and
non-manifold meshes and mesh files."""

import numpy as np
import pytest

import warpdex

pytestmark = pytest.mark.skipif(not warpdex.HAS_LSM, reason="this build has no dpp family (no CCCL headers)")

# VTK's face table: local face k is the triangle opposite vertex 3 - k, outward for positive cells.
TABLE = np.array([[0, 1, 3], [1, 2, 3], [2, 0, 3], [0, 2, 1]])
METHODS = ["auto", "sort", "sort_hash", "hash", "partitioned"]


def oracle(connectivity, points=None):
    """(triangles, cells, local_faces): the faces whose sorted ids occur once, by cell then local face; with
    points, those of cells of negative volume reversed (their second and third ids swapped)."""
    triangles = connectivity[:, TABLE]  # (cells, 4, 3)
    if points is not None:
        p = points[connectivity]
        volume = np.einsum("ij,ij->i", np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), p[:, 3] - p[:, 0])
        inverted = volume < 0
        triangles[inverted] = triangles[inverted][:, :, [0, 2, 1]]
    flat = triangles.reshape(-1, 3)
    _, inverse, counts = np.unique(np.sort(flat, axis=1), axis=0, return_inverse=True, return_counts=True)
    once = counts[inverse.reshape(-1)] == 1
    faces = np.flatnonzero(once)
    return flat[once], (faces // 4).astype(np.uint32), (faces % 4).astype(np.uint8)


def check(result, expected):
    np.testing.assert_array_equal(result.triangles, expected[0])
    np.testing.assert_array_equal(result.cells, expected[1])
    np.testing.assert_array_equal(result.local_faces, expected[2])
    assert result.triangles.dtype == np.uint32 and result.local_faces.dtype == np.uint8


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("numbering, tets_per_hex", [("regular", 5), ("random", 6)])
def test_grid_faces_match_the_oracle_and_point_outward(method, numbering, tets_per_hex):
    nx, ny, nz = 3, 4, 5
    points, cells = warpdex.make_tet_grid(nx, ny, nz, tets_per_hex=tets_per_hex, numbering=numbering, seed=3)
    assert cells.shape == (nx * ny * nz * tets_per_hex, 4) and points.shape == ((nx + 1) * (ny + 1) * (nz + 1), 3)
    faces = warpdex.external_faces(cells, points, method=method)
    assert len(faces) == 4 * (nx * ny + ny * nz + nz * nx)
    check(faces, oracle(cells))
    check(warpdex.external_faces(cells.reshape(-1), points.reshape(-1), method=method), oracle(cells))
    # Outward: each face's normal points away from the centre of the box.
    corners = points[faces.triangles.astype(np.int64)]
    normal = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    outward = corners.mean(axis=1) - np.array([nx, ny, nz]) / 2
    assert np.all(np.einsum("ij,ij->i", normal, outward) > 0)


@pytest.mark.parametrize("method", METHODS)
def test_random_and_non_manifold_meshes_match_the_oracle(rng, method):
    # Ids from a small range: many shared faces, faces of three or more cells, and degenerate cells.
    cells = rng.integers(0, 14, size=(3000, 4), dtype=np.uint32)
    check(warpdex.external_faces(cells, method=method), oracle(cells))
    # With coordinates: inverted cells' faces are reversed.
    points = rng.normal(size=(14, 3))
    check(warpdex.external_faces(cells, points, method=method), oracle(cells, points))


@pytest.mark.parametrize("face_hash", ["fnv1a", "morton", "xor"])
@pytest.mark.parametrize("limit", [1, 2, 16])
def test_hash_sort_resolves_collisions(rng, face_hash, limit):
    cells = rng.integers(0, 40, size=(5000, 4), dtype=np.uint32)  # xor collides a lot on small ids
    result = warpdex.external_faces(cells, method="sort_hash", hash=face_hash, collision_run_limit=limit)
    check(result, oracle(cells))
    assert result.statistics["faces"] == 4 * len(cells)


def test_edge_cases_and_bad_input():
    assert len(warpdex.external_faces(np.zeros((0, 4), np.uint32))) == 0
    one = warpdex.external_faces(np.array([0, 1, 2, 3], np.uint32))
    assert one.triangles.tolist() == [[0, 1, 3], [1, 2, 3], [2, 0, 3], [0, 2, 1]]
    assert warpdex.external_faces([[0, 1, 2, 3]]).cells.tolist() == [0, 0, 0, 0]  # a list is converted
    with pytest.raises(ValueError, match="contiguous"):  # flattened to a strided view, not copied
        warpdex.external_faces(np.zeros((2, 8), np.uint32)[:, ::2])
    copied = np.asfortranarray(np.zeros((2, 4), np.uint32))  # its flattening must copy
    assert len(warpdex.external_faces(copied)) == 0  # every face of the two equal cells is shared
    with pytest.raises(ValueError, match="point id 7"):
        warpdex.external_faces(np.array([[0, 1, 2, 7]], np.uint32), point_count=5)
    with pytest.raises(ValueError, match="point id 4"):
        warpdex.external_faces(np.array([[0, 1, 2, 4]], np.uint32), np.zeros((4, 3)))
    with pytest.raises(ValueError, match=r"\(n, 4\)"):
        warpdex.external_faces(np.zeros((3, 3), np.uint32))
    with pytest.raises(ValueError, match=r"\(n, 3\)"):
        warpdex.external_faces(np.zeros((1, 4), np.uint32), np.zeros(5))
    with pytest.raises(ValueError, match="uint32"):
        warpdex.external_faces(np.zeros((1, 4), np.int64))
    with pytest.raises(ValueError, match="float64"):
        warpdex.external_faces(np.zeros((1, 4), np.uint32), np.zeros((4, 3), np.float32))
    with pytest.raises(ValueError, match="method"):
        warpdex.external_faces(np.zeros((1, 4), np.uint32), method="guess")
    with pytest.raises(ValueError, match="hash"):
        warpdex.external_faces(np.zeros((1, 4), np.uint32), method="sort_hash", hash="md5")
    with pytest.raises(ValueError, match="tets_per_hex|split"):
        warpdex.make_tet_grid(2, tets_per_hex=4)


LEGACY_VTK = """# vtk DataFile Version 3.0
two tetrahedra
ASCII
DATASET UNSTRUCTURED_GRID
POINTS 5 double
0 0 0  1 0 0  0 1 0  0 0 1  1 1 1
CELLS 2 10
4 0 1 2 3
4 1 2 3 4
CELL_TYPES 2
10
10
"""


def test_mesh_files(tmp_path):
    path = tmp_path / "two.vtk"
    path.write_text(LEGACY_VTK)
    points, cells = warpdex.read_tet_mesh(path)
    assert points.shape == (5, 3) and points.dtype == np.float64 and points[4].tolist() == [1, 1, 1]
    assert cells.tolist() == [[0, 1, 2, 3], [1, 2, 3, 4]]
    check(warpdex.external_faces(cells, points), oracle(cells, points))
    path.write_text(LEGACY_VTK.replace("CELLS 2 10", "CELLS 3 10"))
    with pytest.raises(ValueError, match="two.vtk"):
        warpdex.read_tet_mesh(path)
    with pytest.raises(ValueError):
        warpdex.read_tet_mesh(tmp_path / "missing.vtu")
