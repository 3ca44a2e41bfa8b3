"""warpdex's dpp family from Python: the maximal cliques of a graph, the external faces of a tetrahedral
mesh and the MRF segmentation of an image, on the CPU, and on the GPU when one is there (same results)."""

import numpy as np

import warpdex

# Maximal cliques of an undirected graph: two triangles sharing the edge 1-2, and a pendant vertex 5.
sources = np.array([0, 0, 1, 1, 2, 4], np.uint32)
targets = np.array([1, 2, 2, 3, 3, 5], np.uint32)
graph = warpdex.Graph(sources, targets, directed=False)
cliques = graph.maximal_cliques()
assert cliques.to_list() == [[4, 5], [0, 1, 2], [1, 2, 3]] and cliques.clique_number == 3

# External faces of a 10 x 10 x 10 grid of cubes, 5 tetrahedra each: only the boundary squares' halves.
points, cells = warpdex.make_tet_grid(10, numbering="random", seed=1)
faces = warpdex.external_faces(cells, points)
assert len(faces) == 4 * 3 * 10 * 10
corners = points[faces.triangles.astype(np.int64)]
normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
assert (np.einsum("ij,ij->i", normals, corners.mean(axis=1) - 5.0) > 0).all()  # all point outward

# MRF segmentation of a synthetic porous rock (two noisy gray levels) over its SLIC superpixels.
image, truth = warpdex.porous_volume((128, 128), seed=7)
segmentation = warpdex.mrf_segment(image, labels=2)
accuracy = float((segmentation.labels == truth).mean())
assert accuracy > 0.95, accuracy

if warpdex.cuda_available()[0]:
    device_graph = warpdex.Graph(sources, targets, directed=False, device="cuda")
    assert device_graph.maximal_cliques().to_list() == cliques.to_list()
    import cupy

    device_faces = warpdex.external_faces(cupy.asarray(cells), cupy.asarray(points))  # CuPy arrays back
    assert (device_faces.triangles.get() == faces.triangles).all()
    assert (warpdex.mrf_segment(image, device="cuda").labels == segmentation.labels).all()
print(f"ok: {cliques.count} cliques, {len(faces)} faces, segmentation accuracy {accuracy:.3f}")
