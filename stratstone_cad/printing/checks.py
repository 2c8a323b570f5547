"""Mesh checks every part passes before it is written, and mesh measurements.

The edge checks (closed, consistently wound) are done here with numpy; the test suite
checks the written files again with trimesh and numpy-stl, independent readers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from stratstone_cad.errors import GeometryError

PLA_DENSITY_G_PER_MM3 = 1.24e-3  # 1.24 g/cm3


@dataclass(frozen=True)
class Mesh:
    """A triangle mesh: vertices (n, 3) float64 in mm, triangles (m, 3) int64."""

    vertices: np.ndarray
    triangles: np.ndarray

    def volume_mm3(self) -> float:
        """Signed volume by the divergence theorem (positive for outward winding)."""
        a, b, c = (self.vertices[self.triangles[:, i]] for i in range(3))
        return float(np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0)

    def bounds(self) -> tuple[list[float], list[float]]:
        return self.vertices.min(axis=0).tolist(), self.vertices.max(axis=0).tolist()

    def translated(self, offset: tuple[float, float, float]) -> Mesh:
        return Mesh(self.vertices + np.asarray(offset, dtype=np.float64), self.triangles)


def first_use_numbering(first: np.ndarray, inverse: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """From ``np.unique(..., return_index=True, return_inverse=True)``: the rows to keep, in
    order of first appearance, and each input row's number among them (so the numbering
    does not depend on how ``np.unique`` sorted the values)."""
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return first[order], rank[inverse.reshape(-1)]


def merge_vertices(v: np.ndarray, f: np.ndarray, digits: int = 6) -> Mesh:
    """Merge vertices equal after rounding to ``digits`` decimals (1 nm), drop degenerate triangles.

    Deterministic: vertex order follows first use, triangle order is kept.
    """
    key = np.round(v, digits)
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    kept, number = first_use_numbering(first, inverse)
    new_f = number[f]
    new_v = key[kept]
    keep = (new_f[:, 0] != new_f[:, 1]) & (new_f[:, 1] != new_f[:, 2]) & (new_f[:, 0] != new_f[:, 2])
    return Mesh(new_v, new_f[keep])


def check_mesh(mesh: Mesh, what: str) -> None:
    """Raise GeometryError unless the mesh is closed, consistently wound, of positive
    volume and accepted as a manifold by manifold3d. ``what`` names the part and its
    parameters in the message.

    Raises:
        GeometryError: the mesh is empty, not watertight, not consistently wound, has no positive volume, or manifold3d
            rejects it.
    """
    # start-up speed: manifold3d only where a mesh is made
    import manifold3d

    if len(mesh.triangles) == 0:
        raise GeometryError(f"{what}: the mesh has no triangles")
    tri = mesh.triangles.astype(np.int64)
    n = int(tri.max()) + 1
    half = np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]])  # directed edges, a -> b
    lo, hi = half.min(axis=1), half.max(axis=1)
    _, shared = np.unique(lo * n + hi, return_counts=True)
    if (shared != 2).any():  # closed: every edge between exactly two triangles
        raise GeometryError(f"{what}: the mesh is not watertight (it has open or shared edges)")
    _, directed = np.unique(half[:, 0] * n + half[:, 1], return_counts=True)
    if (directed != 1).any():  # consistent: the two triangles run along a shared edge in opposite directions
        raise GeometryError(f"{what}: the mesh's triangles are not consistently wound")
    vol = mesh.volume_mm3()
    if not vol > 0:
        raise GeometryError(f"{what}: the mesh's volume is {vol:.3f} mm3, expected a positive volume")
    m = manifold3d.Manifold(manifold3d.Mesh(vert_properties=mesh.vertices.astype(np.float32),
                                            tri_verts=mesh.triangles.astype(np.uint32)))
    status = m.status()
    if status != manifold3d.Error.NoError:
        raise GeometryError(f"{what}: manifold3d rejects the mesh ({status.name})")


def mesh_facts(mesh: Mesh) -> dict:
    """Bounding box, volume, triangle count and PLA mass, rounded for the manifest."""
    lo, hi = mesh.bounds()
    vol = mesh.volume_mm3()
    return {
        "bbox_mm": {"min": [round(x, 3) + 0.0 for x in lo], "max": [round(x, 3) + 0.0 for x in hi],
                    "size": [round(b - a, 3) + 0.0 for a, b in zip(lo, hi, strict=True)]},
        "volume_mm3": round(vol, 2),
        "triangles": len(mesh.triangles),
        "mass_pla_g": round(vol * PLA_DENSITY_G_PER_MM3, 2),
    }
