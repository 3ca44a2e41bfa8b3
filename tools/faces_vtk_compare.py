#!/usr/bin/env python3
"""`warpdex faces` against VTK's own surface filters, face for face, orientation included.

Meshes: tetrahedralized, hexahedral and mixed grids (layers of hexahedra, pyramids, tetrahedra and wedges)
written by `warpdex faces --generate ... --save-mesh` in several encodings; Gmsh meshes of shapes with holes
(a box less a ball, a cylinder less two cylinders, a ring) of tetrahedra, and extruded ones of hexahedra
(a recombined ring) and of wedges (a plate with holes); a hexahedral block with pyramids and tetrahedra on
it built here with VTK's own classes. Each is written by Gmsh (or VTK) as legacy .vtk and rewritten by
VTK's own writers as .vtu (ascii, binary, appended, zlib) and as a binary legacy file (VTK 9's version 5.1
layout). For each file, every warpdex method's surface (.vtp, with the original point ids) must equal the
polygons (triangles and quads) of vtkDataSetSurfaceFilter and of vtkGeometryFilter on the same file, as
oriented polygons (each rotated to start at its smallest id) in the original ids.

--bench SIDE also times, on a SIDE^3-cube grid (5 tetrahedra a cube, random numbering, read from a .vtu),
VTK's filters (Update() alone) against `warpdex faces` on the backends of --backends (its "faces" stage
alone), same machine, same run, and prints both and the ratio; --bench-only skips the comparison (and so
needs no Gmsh).

VTK runs as a fair peer: its SMP backend (Sequential, one thread, in the PyPI wheel) is set to STDThread on
every core (--vtk-smp, --vtk-threads), and the timed filters run in FastMode (--no-vtk-fast-mode turns it
off); the output says which. The comparison of surfaces runs the filters on those threads without FastMode.

Needs the packages of tools/vtk-requirements.txt: `tools/python-env.sh --vtk` installs them into .venv.
usage: .venv/bin/python tools/faces_vtk_compare.py WARPDEX [--bench SIDE [--bench-only] [--backends host,cuda]]
       [--keep DIR]
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
import time

# VTK's modules by name (not `import vtk`, which loads every module): a machine may carry only these.
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkCommonCore import vtkPoints, vtkSMPTools, vtkVersion
from vtkmodules.vtkCommonDataModel import VTK_TETRA, vtkHexahedron, vtkPyramid, vtkUnstructuredGrid
from vtkmodules.vtkFiltersGeometry import vtkDataSetSurfaceFilter, vtkGeometryFilter
from vtkmodules.vtkIOLegacy import vtkUnstructuredGridReader, vtkUnstructuredGridWriter
from vtkmodules.vtkIOXML import vtkXMLPolyDataReader, vtkXMLUnstructuredGridReader, vtkXMLUnstructuredGridWriter

METHODS = ["sort", "sort_hash", "hash", "partitioned"]
FAST_MODE = True  # the timed filters' FastMode (main sets it)


def configure_vtk_threads(backend, threads):
    """VTK's SMP backend and thread count for every filter after it; returns what VTK reports."""
    if not vtkSMPTools.SetBackend(backend):
        raise SystemExit(f"VTK has no SMP backend '{backend}' (it has {vtkSMPTools.GetBackend()})")
    vtkSMPTools.Initialize(threads)
    return vtkSMPTools.GetBackend(), vtkSMPTools.GetEstimatedNumberOfThreads()


def canonical(triangle):
    """The triangle rotated to start at its smallest id: equal for equal oriented triangles."""
    k = triangle.index(min(triangle))
    return tuple(triangle[k:] + triangle[:k])


def polydata_triangles(polydata, original_ids):
    """The polydata's triangles and quads in original point ids, as a multiset of canonical polygons."""
    cells = vtk_to_numpy(polydata.GetPolys().GetConnectivityArray())
    offsets = vtk_to_numpy(polydata.GetPolys().GetOffsetsArray())
    triangles = collections.Counter()
    for c in range(len(offsets) - 1):
        ids = cells[offsets[c]:offsets[c + 1]]
        if len(ids) not in (3, 4):
            raise SystemExit(f"a surface polygon with {len(ids)} points")
        triangles[canonical([int(original_ids[i]) for i in ids])] += 1
    return triangles


def read_grid(path):
    reader = vtkXMLUnstructuredGridReader() if path.endswith(".vtu") else vtkUnstructuredGridReader()
    reader.SetFileName(path)
    reader.Update()
    return reader.GetOutput()


def vtk_surface(grid, which, fast=False):
    """(triangles, seconds of Update()) of VTK's surface filter `which` on the grid (FastMode when `fast`)."""
    surface = vtkDataSetSurfaceFilter() if which == "vtkDataSetSurfaceFilter" else vtkGeometryFilter()
    surface.SetFastMode(fast)
    surface.SetInputData(grid)
    surface.PassThroughPointIdsOn()
    started = time.perf_counter()
    surface.Update()
    seconds = time.perf_counter() - started
    output = surface.GetOutput()
    ids = vtk_to_numpy(output.GetPointData().GetArray(surface.GetOriginalPointIdsName()))
    return polydata_triangles(output, ids), seconds


def warpdex_surface(warpdex, mesh, method, work, extra=(), backend="host"):
    """(polygons, the faces stage in seconds) of `warpdex faces` on `backend`."""
    out = os.path.join(work, "surface.vtp")
    done = subprocess.run([warpdex, "--backend", backend, "faces", mesh, "--method", method, "-o", out, *extra],
                          capture_output=True, text=True, env=dict(os.environ, OMP_WAIT_POLICY="passive"))
    if done.returncode != 0:
        raise SystemExit(f"warpdex faces {mesh} --method {method} failed:\n{done.stdout}{done.stderr}")
    faces_ms = float(re.search(r"faces ([0-9.]+) ms", done.stdout).group(1))
    reader = vtkXMLPolyDataReader()
    reader.SetFileName(out)
    reader.Update()
    output = reader.GetOutput()
    ids = vtk_to_numpy(output.GetPointData().GetArray("original_point_id"))
    return polydata_triangles(output, ids), faces_ms / 1e3


def generated_meshes(warpdex, work):
    """Grids written by warpdex in several encodings: [(path, description)]."""
    meshes = []
    for size, split, numbering, encoding, extension in [
            ("6x5x4", 5, "random", "appended-zlib", ".vtu"), ("7x3x5", 6, "regular", "binary", ".vtk"),
            ("4", 5, "regular", "ascii", ".vtu"), ("5", 6, "random", "binary-zlib", ".vtu"),
            ("3x4x2", 5, "random", "appended-base64", ".vtu"), ("2x2x3", 5, "random", "ascii", ".vtk"),
            ("5x4x3", "hex", "random", "appended-zlib", ".vtu"), ("3x2x4", "hex", "regular", "binary", ".vtk"),
            ("3x4x13", "mixed", "regular", "ascii", ".vtu"), ("4x3x8", "mixed", "random", "binary", ".vtk"),
            ("2x3x7", "mixed", "random", "appended", ".vtu")]:
        path = os.path.join(work, f"grid{split}-{numbering}-{size}-{encoding}{extension}")
        subprocess.run([warpdex, "--backend", "host", "faces", "--generate", size, "--split", str(split),
                        "--numbering", numbering, "--save-mesh", path, "--save-encoding", encoding, "--no-verify"],
                       check=True, capture_output=True)
        meshes.append((path, f"warpdex grid {size} split {split} {numbering}, {encoding}{extension}"))
    return meshes


def gmsh_written(work, models, size):
    """Each model meshed by Gmsh (`build(occ)` makes its volumes) and written as legacy .vtk, only the
    volume cells: [(path, description)]."""
    import gmsh  # only the comparison needs Gmsh
    meshes = []
    gmsh.initialize()
    gmsh.option.setNumber("General.Terminal", 0)
    try:
        for name, (build, description) in models.items():
            gmsh.model.add(name)
            build(gmsh.model.occ)
            gmsh.model.occ.synchronize()
            volumes = [tag for dim, tag in gmsh.model.getEntities(3)]
            gmsh.model.addPhysicalGroup(3, volumes)  # only the volume cells are written
            gmsh.option.setNumber("Mesh.MeshSizeMax", size)
            gmsh.model.mesh.generate(3)
            path = os.path.join(work, f"gmsh-{name}.vtk")
            gmsh.write(path)
            gmsh.model.remove()
            meshes.append((path, f"Gmsh {description}, Gmsh's legacy .vtk"))
    finally:
        gmsh.finalize()
    return meshes


def gmsh_meshes(work):
    """Gmsh tetrahedral meshes of shapes with holes: [(path, description)]."""
    shapes = {
        "box-less-ball": lambda occ: occ.cut([(3, occ.addBox(0, 0, 0, 1, 1, 1))], [(3, occ.addSphere(0.5, 0.5, 0.5, 0.3))]),
        "cylinder-less-two": lambda occ: occ.cut(
            [(3, occ.addCylinder(0, 0, 0, 0, 0, 2, 1))],
            [(3, occ.addCylinder(0.4, 0, -1, 0, 0, 4, 0.2)), (3, occ.addCylinder(-0.4, 0, -1, 0, 0, 4, 0.2))]),
        "ring": lambda occ: occ.addTorus(0, 0, 0, 1, 0.3),
    }
    return gmsh_written(work, {name: (build, name) for name, build in shapes.items()}, 0.12)


def extruded(surface, recombine):
    """`build` of a model: the surface made by `surface(occ)`, its mesh recombined into quads or not, extruded
    in 4 layers into hexahedra or wedges."""
    def build(occ):
        import gmsh
        dim_tags = surface(occ)
        occ.synchronize()
        if recombine:
            for dim, tag in dim_tags:
                gmsh.model.mesh.setRecombine(dim, tag)
        occ.extrude(dim_tags, 0, 0, 0.5, numElements=[4], recombine=True)
    return build


def gmsh_extruded_meshes(work):
    """Gmsh meshes of hexahedra (a ring's recombined quads, extruded in layers) and of wedges (a plate with
    two holes, its triangles extruded): [(path, description)]."""
    ring = lambda occ: occ.cut([(2, occ.addDisk(0, 0, 0, 1, 1))], [(2, occ.addDisk(0, 0, 0, 0.4, 0.4))])[0]
    plate = lambda occ: occ.cut([(2, occ.addRectangle(0, 0, 0, 2, 1))],
                                [(2, occ.addDisk(0.5, 0.5, 0, 0.2, 0.2)), (2, occ.addDisk(1.4, 0.5, 0, 0.25, 0.25))])[0]
    return gmsh_written(work, {"hex-ring": (extruded(ring, True), "hex-ring (extruded)"),
                               "wedge-plate": (extruded(plate, False), "wedge-plate (extruded)")}, 0.15)


def vtk_built_mesh(work):
    """A 3x3x2 block of hexahedra with, on its top, a pyramid on each top square and tetrahedra between
    neighbouring pyramids' apexes, built with VTK's classes and written by vtkUnstructuredGridWriter."""
    points = vtkPoints()
    n = 3
    index = {}
    for k in range(3):
        for j in range(n + 1):
            for i in range(n + 1):
                index[i, j, k] = points.InsertNextPoint(i, j, k)
    grid = vtkUnstructuredGrid()
    grid.SetPoints(points)
    for k in range(2):
        for j in range(n):
            for i in range(n):
                hexahedron = vtkHexahedron()
                corners = [(i, j, k), (i + 1, j, k), (i + 1, j + 1, k), (i, j + 1, k)]
                corners += [(x, y, z + 1) for x, y, z in corners]
                for v, corner in enumerate(corners):
                    hexahedron.GetPointIds().SetId(v, index[corner])
                grid.InsertNextCell(hexahedron.GetCellType(), hexahedron.GetPointIds())
    apex = {}
    for j in range(n):
        for i in range(n):
            apex[i, j] = points.InsertNextPoint(i + 0.5, j + 0.5, 2.5)
            pyramid = vtkPyramid()
            for v, corner in enumerate([(i, j, 2), (i + 1, j, 2), (i + 1, j + 1, 2), (i, j + 1, 2)]):
                pyramid.GetPointIds().SetId(v, index[corner])
            pyramid.GetPointIds().SetId(4, apex[i, j])
            grid.InsertNextCell(pyramid.GetCellType(), pyramid.GetPointIds())
    # A tetrahedron on each edge shared by two pyramids, between their apexes (positive volume).
    for j in range(n):
        for i in range(n - 1):
            ids = [index[i + 1, j, 2], index[i + 1, j + 1, 2], apex[i, j], apex[i + 1, j]]
            grid.InsertNextCell(VTK_TETRA, 4, ids)
    for j in range(n - 1):
        for i in range(n):
            ids = [index[i, j + 1, 2], index[i + 1, j + 1, 2], apex[i, j + 1], apex[i, j]]
            grid.InsertNextCell(VTK_TETRA, 4, ids)
    writer = vtkUnstructuredGridWriter()
    writer.SetInputData(grid)
    path = os.path.join(work, "vtk-hex-pyramid-tet.vtk")
    writer.SetFileName(path)
    writer.Write()
    return [(path, "hexahedra, pyramids and tetrahedra built with VTK's classes, VTK's legacy .vtk")]


def vtk_rewrites(path, work):
    """The mesh rewritten by VTK's writers: .vtu in four encodings and a binary legacy file."""
    grid = read_grid(path)
    base = os.path.join(work, os.path.splitext(os.path.basename(path))[0])
    written = []
    for label, mode, compress in [("ascii", "Ascii", False), ("binary", "Binary", False),
                                  ("binary-zlib", "Binary", True), ("appended-raw", "Appended", False),
                                  ("appended-zlib", "Appended", True)]:
        writer = vtkXMLUnstructuredGridWriter()
        writer.SetInputData(grid)
        getattr(writer, f"SetDataModeTo{mode}")()
        if mode == "Appended":
            writer.EncodeAppendedDataOff()
        if compress:
            writer.SetCompressorTypeToZLib()
        else:
            writer.SetCompressorTypeToNone()
        out = f"{base}-vtk-{label}.vtu"
        writer.SetFileName(out)
        writer.Write()
        written.append((out, f"rewritten by vtkXMLUnstructuredGridWriter, {label}"))
    writer = vtkUnstructuredGridWriter()
    writer.SetInputData(grid)
    writer.SetFileTypeToBinary()
    out = f"{base}-vtk-binary.vtk"
    writer.SetFileName(out)
    writer.Write()
    written.append((out, "rewritten by vtkUnstructuredGridWriter, binary"))
    return written


def unoriented(polygons):
    return collections.Counter(tuple(sorted(p)) for p in polygons.elements())


def compare(warpdex, mesh, description, work):
    """Every method against both VTK filters; returns the number of mismatches.

    warpdex orients by the points (every face outward, its check verifies it). VTK's filters orient by the
    cell tables; on wedges VTK 9.7's two filters disagree (vtkGeometryFilter follows vtkWedge's table,
    whose base (0,2,1) points outward, vtkDataSetSurfaceFilter the older ordering, (0,1,2) outward), so a
    mesh's wedges are inverted for one of them. Where the filters give the same oriented polygons, warpdex
    must equal both; where they differ, it must equal both up to orientation and one of them exactly.
    Apart from that, warpdex's table orientation (--no-points) must equal vtkGeometryFilter exactly."""
    grid = read_grid(mesh)
    references = {which: vtk_surface(grid, which)[0] for which in ["vtkDataSetSurfaceFilter", "vtkGeometryFilter"]}
    filters_agree = references["vtkDataSetSurfaceFilter"] == references["vtkGeometryFilter"]
    failures = 0
    for method in METHODS:
        ours, _ = warpdex_surface(warpdex, mesh, method, work)
        exact = [which for which, theirs in references.items() if ours == theirs]
        for which, theirs in references.items():
            if ours == theirs:
                continue
            if not filters_agree and exact and unoriented(ours) == unoriented(theirs):
                continue  # VTK's filters disagree on orientation, and warpdex equals the other exactly
            failures += 1
            print(f"MISMATCH {description} ({mesh}), method {method} vs {which}: {sum(ours.values())} vs "
                  f"{sum(theirs.values())} polygons" +
                  ("; equal up to orientation" if unoriented(ours) == unoriented(theirs) else ""))
    table, _ = warpdex_surface(warpdex, mesh, "sort", work, ["--no-points", "--no-verify"])
    if table != references["vtkGeometryFilter"]:
        failures += 1
        print(f"MISMATCH {description} ({mesh}), table orientation (--no-points) vs vtkGeometryFilter")
    faces = sum(references["vtkDataSetSurfaceFilter"].values())
    quads = sum(count for polygon, count in references["vtkDataSetSurfaceFilter"].items() if len(polygon) == 4)
    types = sorted({grid.GetCellType(c) for c in range(grid.GetNumberOfCells())})
    note = "" if filters_agree else "; VTK's two filters orient the wedges differently, warpdex outward"
    print(f"{'ok' if failures == 0 else 'FAILED'}: {description}: {grid.GetNumberOfCells()} cells of VTK types "
          f"{types}, {faces} faces ({quads} quads){note}")
    return failures


def bench(warpdex, side, work, backends):
    """VTK's filters and `warpdex faces` on each backend, on one SIDE^3-cube grid, same machine, same run; each
    surface is also compared with vtkGeometryFilter's."""
    path = os.path.join(work, f"bench-grid5-random-{side}.vtu")
    subprocess.run([warpdex, "--backend", "host", "faces", "--generate", str(side), "--numbering", "random",
                    "--save-mesh", path, "--save-encoding", "appended", "--no-verify"], check=True, capture_output=True)
    grid = read_grid(path)
    cells = grid.GetNumberOfCells()
    vtk_seconds = {}
    for which in ["vtkDataSetSurfaceFilter", "vtkGeometryFilter"]:
        surface, vtk_seconds[which] = vtk_surface(grid, which, FAST_MODE)
        print(f"VTK {which}: {vtk_seconds[which] * 1e3:.1f} ms for {cells} cells (Update() alone, "
              f"{vtkSMPTools.GetBackend()} {vtkSMPTools.GetEstimatedNumberOfThreads()} threads, "
              f"FastMode {'on' if FAST_MODE else 'off'})")
    fastest = min(vtk_seconds.values())
    mismatches = 0
    for backend in backends:
        for method in METHODS:
            polygons, seconds = warpdex_surface(warpdex, path, method, work, backend=backend)
            mismatches += polygons != surface
            print(f"warpdex faces --backend {backend} --method {method}: {seconds * 1e3:.1f} ms (the faces stage "
                  f"alone), {fastest / seconds:.1f}x the faster VTK filter"
                  f"{'' if polygons == surface else ', SURFACE DIFFERS from vtkGeometryFilter'}")
    return mismatches


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("warpdex")
    parser.add_argument("--bench", type=int, help="also time a SIDE^3-cube grid against VTK")
    parser.add_argument("--bench-only", action="store_true", help="only the timing (no Gmsh needed)")
    parser.add_argument("--backends", default="host", help="backends the timing runs, e.g. host,cuda")
    parser.add_argument("--keep", help="write the meshes here and keep them")
    parser.add_argument("--vtk-smp", default="STDThread", help="VTK's SMP backend (Sequential: one thread)")
    parser.add_argument("--vtk-threads", type=int, default=os.cpu_count(), help="VTK's threads (default: every core)")
    parser.add_argument("--no-vtk-fast-mode", action="store_true", help="time VTK's filters without FastMode")
    args = parser.parse_args()
    global FAST_MODE
    FAST_MODE = not args.no_vtk_fast_mode
    smp, threads = configure_vtk_threads(args.vtk_smp, args.vtk_threads)
    print(f"VTK {vtkVersion.GetVTKVersion()}: SMP backend {smp}, {threads} threads (of {os.cpu_count()} cores)")
    warpdex = os.path.abspath(args.warpdex)
    with tempfile.TemporaryDirectory() as temporary:
        work = args.keep or temporary
        os.makedirs(work, exist_ok=True)
        meshes = [] if args.bench_only else generated_meshes(warpdex, work)
        if not args.bench_only:
            for path, description in gmsh_meshes(work) + gmsh_extruded_meshes(work) + vtk_built_mesh(work):
                meshes.append((path, description))
                meshes.extend(vtk_rewrites(path, work))
        failures = sum(compare(warpdex, path, description, work) for path, description in meshes)
        if args.bench:
            failures += bench(warpdex, args.bench, work, args.backends.split(","))
    print(f"{len(meshes)} meshes, {failures} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
