"""CAD solid -> triangle mesh with a bounded deviation."""

from __future__ import annotations

import cadquery as cq
import numpy as np

from .checks import Mesh, merge_vertices


def tessellate(shape: cq.Shape, tolerance_mm: float, angular_tolerance_rad: float = 0.2) -> Mesh:
    """Triangulate ``shape`` so no point of the mesh is more than ``tolerance_mm`` off the surface.

    OpenCascade meshes each face on its own but shares the discretisation of every
    edge between its two faces, so after merging coincident vertices the mesh is
    closed. Returns float64 vertices (mm) and int64 triangles.
    """
    vertices, triangles = shape.tessellate(tolerance_mm, angular_tolerance_rad)
    v = np.array([(p.x, p.y, p.z) for p in vertices], dtype=np.float64)
    f = np.array(triangles, dtype=np.int64).reshape(-1, 3)
    return merge_vertices(v, f)
