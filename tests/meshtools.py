"""Mesh measurements the model tests share (on our Mesh or on a CadQuery solid)."""

from __future__ import annotations

import math

import numpy as np

from stratstone_cad.printing.checks import Mesh


def normals(mesh: Mesh) -> np.ndarray:
    tri = mesh.vertices[mesh.triangles]
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    return n / np.linalg.norm(n, axis=1, keepdims=True)


def horizontal_heights(mesh: Mesh) -> list[float]:
    """The z of every horizontal triangle (facing up or down), rounded to 0.1 micron."""
    flat = np.abs(np.abs(normals(mesh)[:, 2]) - 1) < 1e-9
    return sorted({round(float(z), 4) + 0.0 for z in mesh.vertices[mesh.triangles][flat][:, :, 2].ravel()})


def overhang_ok(mesh: Mesh, first_layer: float, limit_deg: float = 45.0) -> bool:
    """No facet above the first layer faces down more steeply than ``limit_deg`` from vertical."""
    tri = mesh.vertices[mesh.triangles]
    in_first_layer = np.all(tri[:, :, 2] <= first_layer + 1e-6, axis=1)
    return bool((normals(mesh)[~in_first_layer, 2] >= -math.cos(math.radians(limit_deg)) - 1e-9).all())


def neighbour_angles(solid, tolerance: float, angular: float) -> float:
    """The largest angle (degrees) between two triangles sharing an edge inside one CAD face
    of ``solid``, meshed as the build meshes it."""
    from OCP.BRep import BRep_Tool
    from OCP.TopLoc import TopLoc_Location

    from stratstone_cad.occ.tessellate import tessellate

    tessellate(solid, tolerance, angular)  # leaves its triangulation on the solid's faces
    worst = 0.0
    for face in solid.Faces():
        if face.geomType() == "PLANE":
            continue
        tri = BRep_Tool.Triangulation_s(face.wrapped, TopLoc_Location())
        pts = np.array([[tri.Node(i).X(), tri.Node(i).Y(), tri.Node(i).Z()] for i in range(1, tri.NbNodes() + 1)])
        tris = np.array([[tri.Triangle(i).Value(j) - 1 for j in (1, 2, 3)] for i in range(1, tri.NbTriangles() + 1)])
        n = np.cross(pts[tris[:, 1]] - pts[tris[:, 0]], pts[tris[:, 2]] - pts[tris[:, 0]])
        n /= np.linalg.norm(n, axis=1, keepdims=True)
        edges: dict[tuple[int, int], list[int]] = {}
        for t, (a, b, c) in enumerate(tris):
            for e in ((a, b), (b, c), (c, a)):
                edges.setdefault((min(e), max(e)), []).append(t)
        for ts in edges.values():
            if len(ts) == 2:
                cos = float(np.clip(np.dot(n[ts[0]], n[ts[1]]), -1, 1))
                worst = max(worst, math.degrees(math.acos(cos)))
    return worst


def mesh_neighbour_angles(mesh: Mesh, select: np.ndarray) -> float:
    """The largest angle (degrees) between two selected triangles of ``mesh`` that share an edge."""
    n = normals(mesh)
    tri = mesh.triangles
    edges: dict[tuple[int, int], list[int]] = {}
    for t in np.flatnonzero(select):
        a, b, c = tri[t]
        for e in ((a, b), (b, c), (c, a)):
            edges.setdefault((min(e), max(e)), []).append(int(t))
    worst = 0.0
    for ts in edges.values():
        if len(ts) == 2:
            worst = max(worst, math.degrees(math.acos(float(np.clip(np.dot(n[ts[0]], n[ts[1]]), -1, 1)))))
    return worst
