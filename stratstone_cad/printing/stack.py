"""Parts made of flat faces, built from 2D regions -> watertight triangle meshes (manifold3d).

A board is a stack of slabs: each slab's region is extruded between its heights and the
extrusions are united by manifold3d, whose booleans always return a manifold mesh. A
terrain piece is a frustum or cylinder with a relief: a region drawn on a face and
extruded straight up or down (a sheared prism). No CadQuery: see
:mod:`stratstone_cad.geometry.boards` for why these parts are built this way. Every mesh is
returned with merged vertices in a canonical order, so the same part gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from stratstone_cad.errors import GeometryError
from stratstone_cad.printing.checks import Mesh, merge_vertices


def _cross_section(region: Any) -> Any:
    # start-up speed: manifold3d only where a mesh is made
    import manifold3d

    contours = []
    for poly in getattr(region, "geoms", [region]):
        if poly.is_empty:
            continue
        contours.append(np.asarray(poly.exterior.coords[:-1], dtype=np.float64))
        contours += [np.asarray(r.coords[:-1], dtype=np.float64) for r in poly.interiors]
    return manifold3d.CrossSection(contours, manifold3d.FillRule.EvenOdd)


def prism(region: Any, z0: float, z1: float) -> Any:
    """A manifold: ``region`` extruded from height ``z0`` to ``z1``."""
    return _cross_section(region).extrude(z1 - z0).translate((0.0, 0.0, z0))


def face_prism(region: Any, origin: Sequence[float], u: Sequence[float], v: Sequence[float],
               w0: float, w1: float) -> Any:
    """A manifold: ``region``, drawn in a face's coordinates (``u``, ``v`` unit vectors in
    the face from ``origin``), extruded straight up from ``w0`` to ``w1`` mm above the face
    (measured along z, so the walls are vertical whatever the face's slope)."""
    m = np.array([[u[0], v[0], 0.0, origin[0]], [u[1], v[1], 0.0, origin[1]], [u[2], v[2], 1.0, origin[2] + w0]])
    return _cross_section(region).extrude(w1 - w0).transform(m)


def stack_mesh(slabs: Sequence[Any], what: str = "board") -> Mesh:
    """The mesh of a stack of :class:`~stratstone_cad.geometry.boards.Slab` (mm).

    A stack hollowed from underneath (a shell board: :mod:`stratstone_cad.geometry.shells`)
    is made as the stack filled in (each slab holding all the slabs above it) less its
    cavities as columns from under the bed: the same solid, several times faster for
    manifold3d than uniting the hollow slabs, whose faces meet at many heights.

    Raises:
        GeometryError: the board has no material.
    """
    # start-up speed: manifold3d only where a mesh is made
    import manifold3d

    slabs = sorted((s for s in slabs if not s.region.is_empty and s.z1 > s.z0), key=lambda s: s.z0)
    if not slabs:
        raise GeometryError(f"{what}: the board has no material")
    filled, columns = open_cavities(slabs)
    body = manifold3d.Manifold.batch_boolean([prism(r, z0, z1) for z0, z1, r in filled], manifold3d.OpType.Add)
    if columns:
        tools = [prism(r, min(z for z, _, _ in filled) - 1.0, top) for r, top in columns]
        body = manifold3d.Manifold.batch_boolean([body, *tools], manifold3d.OpType.Subtract)
    return manifold_mesh(body, what)


def open_cavities(slabs: Sequence[Any]) -> tuple[list[tuple[float, float, Any]], list[tuple[Any, float]]]:
    """``slabs`` (bottom first) as (filled, columns): each slab's region with everything
    above it added ((z0, z1, region), material from the bed up to every top), and the
    cavities as (region, top) columns open to the bed, when the stack's missing material
    is such columns (each slab's hollow holds the next one's); else the slabs and none."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely

    plain = ([(s.z0, s.z1, s.region) for s in slabs], [])
    above = [s.region for s in slabs]
    for k in range(len(slabs) - 2, -1, -1):
        above[k] = shapely.union_all([slabs[k].region, above[k + 1]])
    hollows = [above[k].difference(s.region) for k, s in enumerate(slabs)]
    if all(h.area <= 1e-6 for h in hollows):
        return plain
    if any(hollows[k + 1].difference(hollows[k]).area > 1e-6 for k in range(len(slabs) - 1)):
        return plain
    columns = []
    for k, s in enumerate(slabs):
        rest = hollows[k].difference(hollows[k + 1]) if k + 1 < len(slabs) else hollows[k]
        if rest.area > 1e-6:
            columns.append((rest, s.z1))
    filled: list[tuple[float, float, Any]] = []
    for k, s in enumerate(slabs):  # one prism where the filled regions do not change
        if filled and filled[-1][1] == s.z0 and filled[-1][2].equals(above[k]):
            filled[-1] = (filled[-1][0], s.z1, filled[-1][2])
        else:
            filled.append((s.z0, s.z1, above[k]))
    return filled, columns


def manifold_mesh(body: Any, what: str) -> Mesh:
    """A manifold's triangles as a :class:`Mesh` (merged, canonical order).

    Raises:
        GeometryError: manifold3d cannot build the part.
    """
    # start-up speed: manifold3d only where a mesh is made
    import manifold3d

    if body.status() != manifold3d.Error.NoError:
        raise GeometryError(f"{what}: manifold3d cannot build the part ({body.status().name})")
    m = body.to_mesh64()
    v = np.asarray(m.vert_properties, dtype=np.float64)[:, :3]
    f = np.asarray(m.tri_verts, dtype=np.int64)
    return canonical(merge_vertices(v, f))


def canonical(mesh: Mesh) -> Mesh:
    """The same mesh in an order that depends only on its geometry: vertices sorted by
    (x, y, z), each triangle starting at its smallest vertex (winding kept), triangles
    sorted. A boolean library free to order its output (threads) then still gives
    byte-identical files."""
    order = np.lexsort((mesh.vertices[:, 2], mesh.vertices[:, 1], mesh.vertices[:, 0]))
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    tri = rank[mesh.triangles]
    shift = np.argmin(tri, axis=1)
    rows = np.arange(len(tri))[:, None]
    tri = tri[rows, (shift[:, None] + np.arange(3)) % 3]
    tri = tri[np.lexsort((tri[:, 2], tri[:, 1], tri[:, 0]))]
    return Mesh(mesh.vertices[order], tri)
