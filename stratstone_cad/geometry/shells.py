"""Boards printed as shells: the same stack of slabs, hollowed from underneath.

A shell keeps every top surface, height, well, mark and engraving of the solid board and
removes the material below them. Under every point of a cell (and of each piece of rim
between the cell edges' lines) the board is hollow from the bed up to the highest
ceiling it can have: ``top_mm`` (whole layers of the board's profile) under the surface
above it, and ``wall_mm`` (whole extrusion widths) from any air beside it below that
top's upper face (the outline, a dovetail's socket, a well, a recess, an engraving, a
lower neighbour). A wall ``wall_mm`` thick stands on every cell edge's line, so no
ceiling spans more than one cell between the walls beneath it (a bridge a printer makes:
about 30 mm, where a whole tile's 150 mm is not).

Why each rule, and what it saves (PrusaSlicer 2.5's estimates, docs/printing.md):

- One ceiling a point, as high as it may be (:func:`hollows`), not one flat ceiling a
  cell. A cell whose surface dips (a well, a recess, an engraved letter) is hollow up to
  ``top_mm`` under the dip, and around the dip, ``wall_mm`` away from it, up to
  ``top_mm`` under the higher surface: the corners of a Sage Stones cell beside its well
  rise 2.4 mm higher than the well's floor, the ring round a Stratstone recess and the
  rim round its letters too. Each cavity is a column open to the bed and holds the
  higher ones above it, so every ceiling is flat, bridged between the walls under its
  edges (the cell's walls, the wall round a dip standing on the ceiling below it), and
  nothing overhangs: the shell prints as laid on the plate without supports. This took
  the Stratstone board from 56 % of its solid grams to under half, Sage Stones' from
  64 % to about 54 %.
- One wall on each cell edge's line, centred on it: the cells on either side share it
  (two walls, one a cell, would double it). A step between two cells' surfaces keeps the
  higher cell a wall from the lower one's air, so that side is a wall thick where it
  stands above the lower surface.
- A top is whole layers (3 x 0.30 mm: what PrusaSlicer prints as solid top layers) and a
  wall whole extrusions (2 x 0.4 mm: two perimeters): thinner would not print solid.
- A cavity narrower than :data:`MIN_CAVITY_MM` or smaller than
  :data:`MIN_CAVITY_AREA_MM2` (a dovetail's head, a sliver beside a socket or between a
  well's wall and a cell's) stays solid: a slicer would fill it with perimeters anyway.
- The ceilings are found for all the board at once: for each set of slabs under a
  possible top, the intersection of their regions shrunk by a wall (a few shapely
  operations a board, whatever its number of cells and wells).

Pure 2D regions (shapely), as the rest of :mod:`stratstone_cad.geometry.boards`: the mesh
and the B-rep solid are made from the very slabs this returns.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from stratstone_cad.base.params import EXTRUSION_WIDTH_MM, Profile
from stratstone_cad.geometry.boards import GridBoard, Slab, polygonal

#: A cavity narrower than this (mm) stays solid: a slicer fills it with walls anyway.
MIN_CAVITY_MM = 2.0
#: A cavity smaller than this (mm2) stays solid: a corner's sliver.
MIN_CAVITY_AREA_MM2 = 25.0
#: The grid (mm) the cavities' corners are put on.
GRID_MM = 1e-6
_AREA_EPS = 1e-6


@dataclass(frozen=True)
class Shell:
    """How a board is hollowed: its tops' and walls' thickness (mm)."""

    top_mm: float
    wall_mm: float

    @staticmethod
    def of(top_layers: int, wall_extrusions: int, profile: Profile) -> Shell:
        """A shell of whole layers of ``profile`` and whole extrusion widths."""
        return Shell(round(top_layers * profile.layer_height_mm, 6), round(wall_extrusions * EXTRUSION_WIDTH_MM, 6))


def cavity_base(footprint: Any, grid: GridBoard, wall_mm: float) -> Any:
    """Where cavities may be: the footprint less a wall ``wall_mm`` thick centred on every
    cell edge's line (the grid's outer lines included)."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely
    from shapely.geometry import box

    x0, y0, x1, y1 = footprint.bounds
    half = wall_mm / 2
    xs = [grid.rim_x_mm + k * grid.pitch_mm for k in range(grid.cols + 1)]
    ys = [grid.rim_y_mm + k * grid.pitch_mm for k in range(grid.rows + 1)]
    walls = [box(x - half, y0 - 1, x + half, y1 + 1) for x in xs]
    walls += [box(x0 - 1, y - half, x1 + 1, y + half) for y in ys]
    return footprint.difference(shapely.union_all(walls))


def _opened(region: Any) -> Any:
    """``region`` opened by :data:`MIN_CAVITY_MM`, less its parts smaller than
    :data:`MIN_CAVITY_AREA_MM2`, on a grid of :data:`GRID_MM` (so that the cavities of two
    levels share their edges exactly)."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely

    if region.is_empty:
        return region
    half = MIN_CAVITY_MM / 2
    opened = polygonal(region.buffer(-half, join_style="mitre").buffer(half, join_style="mitre").intersection(region))
    pieces = [p for p in getattr(opened, "geoms", [opened]) if p.area >= MIN_CAVITY_AREA_MM2]
    return polygonal(shapely.set_precision(shapely.MultiPolygon(pieces), GRID_MM))


def _levels(slabs: Sequence[Slab], shell: Shell, lowest: float) -> list[float]:
    """Every height a ceiling may have, lowest first: ``shell.top_mm`` under a slab's top,
    or where a slab starts (air beside it may begin there); none under ``lowest``."""
    zs = {round(s.z1 - shell.top_mm, 6) for s in slabs} | {round(s.z0, 6) for s in slabs}
    return sorted(z for z in zs if z >= lowest - 1e-9)


def _covered(slabs: Sequence[Slab], h: float, roof: float) -> bool:
    """Whether the stack's slabs fill the heights from ``h`` to ``roof`` (a top can lie there)."""
    return sum(max(0.0, min(s.z1, roof) - max(s.z0, h)) for s in slabs) >= roof - h - 1e-9


def hollows(slabs: Sequence[Slab], grid: GridBoard, shell: Shell, min_height_mm: float,
            within: Any = None) -> list[tuple[float, Any]]:
    """(h, region), highest h first: where the shell is hollow from the bed up to height h;
    each region holds the next one's (a cavity reaching higher rises out of the one under it).

    A point of the cavities' base (:func:`cavity_base`, within ``within``) is hollow up to h
    when every slab that starts below h + ``shell.top_mm`` holds the point and all of its
    surroundings ``shell.wall_mm`` wide: the top over it is whole, and no air (the outline,
    a socket, a well, a recess, an engraving, a lower neighbour) comes within a wall of the
    cavity below that top's upper face. That is the intersection of those slabs' regions,
    shrunk by a wall: one region for each set of slabs, however many cells and wells."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely

    slabs = sorted((s for s in slabs if not s.region.is_empty), key=lambda s: s.z0)
    if not slabs:
        return []
    base = cavity_base(slabs[0].region, grid, shell.wall_mm)
    if within is not None:
        base = base.intersection(within)
    reach: dict[int, tuple[float, Any]] = {}  # slabs under the roof -> (highest h, where it reaches)
    solid, counted = None, 0  # the intersection of the first ``counted`` slabs' regions
    for h in _levels(slabs, shell, min_height_mm):
        roof = h + shell.top_mm
        if not _covered(slabs, h, roof):
            continue
        below = sum(1 for s in slabs if s.z0 < roof - 1e-9)
        if below not in reach:
            while counted < below:
                solid = slabs[counted].region if solid is None else shapely.intersection(solid, slabs[counted].region)
                counted += 1
            inner = solid.buffer(-shell.wall_mm, join_style="mitre")
            reach[below] = (h, _opened(polygonal(base.intersection(inner))))
        else:
            reach[below] = (h, reach[below][1])
    return [(round(h, 6), r) for h, r in sorted(reach.values(), key=lambda hr: -hr[0]) if r.area > _AREA_EPS]


def cavities(slabs: Sequence[Slab], grid: GridBoard, shell: Shell, min_height_mm: float,
             within: Any = None) -> list[tuple[Any, float]]:
    """(region, ceiling) of every cavity of a stack, highest ceiling first: open from the bed
    up to the ceiling, ``shell.top_mm`` below the surface over it; none lower than
    ``min_height_mm``, none outside ``within`` (a tile's rectangle: its dovetails stay
    solid). The regions do not overlap: a cavity reaching higher rises out of the one under
    it, which is hollow from the bed to its own ceiling around it (:func:`hollows`)."""
    out: list[tuple[Any, float]] = []
    above = None
    for h, region in hollows(slabs, grid, shell, min_height_mm, within):
        band = region if above is None else polygonal(region.difference(above))
        if band.area > _AREA_EPS:
            out.append((band, h))
        above = region
    return out


def shelled(slabs: Sequence[Slab], grid: GridBoard, shell: Shell, min_height_mm: float,
            within: Any = None) -> list[Slab]:
    """The stack hollowed as the module docstring says (board coordinates, before it is
    laid on the bed). ``min_height_mm``: no cavity lower than this (a layer or two);
    ``within``: where cavities may be (a tile's rectangle; None: anywhere)."""
    holes = hollows(slabs, grid, shell, min_height_mm, within)
    if not holes:
        return list(slabs)
    ceilings = [h for h, _ in holes]  # highest first
    out: list[Slab] = []
    for s in sorted(slabs, key=lambda s: s.z0):
        cuts = [c for c in reversed(ceilings) if s.z0 + 1e-9 < c < s.z1 - 1e-9]
        for z0, z1 in itertools.pairwise([s.z0, *cuts, s.z1]):
            over = [r for h, r in holes if h >= z1 - 1e-9]  # the last: the widest hollow reaching z1
            region = polygonal(s.region.difference(over[-1])) if over else s.region
            if region.is_empty:
                continue
            if out and math.isclose(out[-1].z1, z0) and out[-1].region.equals(region):
                out[-1] = Slab(out[-1].z0, z1, region)
            else:
                out.append(Slab(z0, z1, region))
    return out
