"""CAD solid -> triangle mesh with a bounded deviation."""

from __future__ import annotations

import cadquery as cq
import numpy as np
from OCP.BRepMesh import BRepMesh_IncrementalMesh
from OCP.BRepTools import BRepTools

from .checks import Mesh, merge_vertices


def tessellate(shape: cq.Shape, tolerance_mm: float, angular_tolerance_rad: float = 0.2) -> Mesh:
    """Triangulate ``shape`` so the mesh stays within about ``tolerance_mm`` of the surface.

    ``Shape.tessellate`` alone meshes with a *relative* deflection (a fraction of each
    edge's size), which left 0.1 mm chords on the stones at "0.05"; here the shape is
    meshed with an absolute deflection first (any older triangulation is dropped, so
    the result does not depend on what meshed the shape before). OpenCascade meshes
    each face on its own but shares every edge's discretisation between its two
    faces, so after merging coincident vertices the mesh is closed. Returns float64
    vertices (mm) and int64 triangles.
    """
    BRepTools.Clean_s(shape.wrapped)
    BRepMesh_IncrementalMesh(shape.wrapped, tolerance_mm, False, angular_tolerance_rad, False)
    vertices, triangles = shape.tessellate(tolerance_mm, angular_tolerance_rad)
    v = np.array([(p.x, p.y, p.z) for p in vertices], dtype=np.float64)
    f = np.array(triangles, dtype=np.int64).reshape(-1, 3)
    return merge_vertices(v, f)
