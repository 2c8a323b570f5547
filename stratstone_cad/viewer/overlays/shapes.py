"""The meshes the overlays are made of, in the board's millimetres: polylines as tubes,
flat polygons, and the outlines, stars, arrows and halos the plan places. The polygons
are numpy arrays (n x 3, in order round the edge); the meshes PyVista's."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from stratstone_cad.viewer.overlays.style import HALO, HALO_TUBE


def polylines(lines: Sequence[np.ndarray]) -> Any:
    """Polylines (each n x 3) as one PolyData."""
    import pyvista as pv

    points = np.concatenate(lines)
    cells, start = [], 0
    for line in lines:
        cells += [len(line), *range(start, start + len(line))]
        start += len(line)
    return pv.PolyData(points, lines=np.array(cells))


def tubes(lines: Sequence[np.ndarray], radius: float) -> Any:
    """Polylines as round tubes, a ball at each point: the joints rounded (a tube alone
    pinches at a sharp corner, as a path's climb up a step has), the ends too (a flat cap
    seen edge on is a sliver)."""
    import pyvista as pv

    tube = polylines(lines).tube(radius=radius, n_sides=12, capping=True)
    joints = np.concatenate(lines)
    ball = pv.Sphere(radius=radius, theta_resolution=12, phi_resolution=8)
    return tube.merge(pv.PolyData(joints).glyph(geom=ball, scale=False, orient=False)).extract_surface(algorithm=None)


def flat(polygons: Sequence[np.ndarray]) -> Any:
    """Flat polygons (each n x 3, in order round its edge) as one PolyData."""
    import pyvista as pv

    if not polygons:
        return pv.PolyData()
    points = np.concatenate(polygons)
    faces, start = [], 0
    for poly in polygons:
        faces += [len(poly), *range(start, start + len(poly))]
        start += len(poly)
    return pv.PolyData(points, np.array(faces)).triangulate()


def square(x: float, y: float, z: float, half: float) -> np.ndarray:
    return np.array([[x - half, y - half, z], [x + half, y - half, z], [x + half, y + half, z], [x - half, y + half, z]])



def outline(x0: float, y0: float, x1: float, y1: float, z: float, width: float) -> list[np.ndarray]:
    """A rectangle's outline, ``width`` wide inside it, as four flat quads."""
    def quad(a: float, b: float, c: float, d: float) -> np.ndarray:
        return np.array([[a, b, z], [c, b, z], [c, d, z], [a, d, z]])

    return [quad(x0, y0, x1, y0 + width), quad(x0, y1 - width, x1, y1), quad(x0, y0, x0 + width, y1),
            quad(x1 - width, y0, x1, y1)]


def star(x: float, y: float, z: float, outer: float) -> np.ndarray:
    """A five-pointed star, flat, one point away from the viewer (towards +y)."""
    k = np.arange(10)
    r = np.where(k % 2 == 0, outer, 0.42 * outer)
    a = math.pi / 2 + k * math.pi / 5
    return np.c_[x + r * np.cos(a), y + r * np.sin(a), np.full(10, z)]


def arrow(x: float, y: float, z: float, dy: float, size: float) -> np.ndarray:
    """A flat arrow pointing along y (``dy`` = +1 or -1), its middle at (x, y)."""
    pts = [(-0.18, -0.5), (0.18, -0.5), (0.18, 0.0), (0.45, 0.0), (0.0, 0.5), (-0.45, 0.0), (-0.18, 0.0)]
    return np.array([[x + size * u, y + dy * size * v, z] for u, v in pts])


def halo(pitch: float) -> Any:
    """A ring to float over a piece's head: marks it whatever its footprint (a ring on the
    cell would hide under a piece as wide as its cell)."""
    import pyvista as pv

    return pv.ParametricTorus(ringradius=HALO * pitch, crosssectionradius=HALO_TUBE * pitch, u_res=48, v_res=12, w_res=2)
