"""Boards printed as shells: the same stack of slabs, hollowed from underneath.

A shell keeps every top surface, height, well, mark and engraving of the solid board and
removes the material below them: cavities open to the bed, each a column up to one flat
ceiling ``top_mm`` (whole layers of the board's profile) under the surface above it. A
wall ``wall_mm`` thick (whole extrusion widths) stands on every cell edge's line, inside
every outer face (the outline, a dovetail's socket) and between any two cavities, so every
ceiling is anchored on walls all round, none spans more than one cell between the walls
beneath it (a bridge a printer makes: about 30 mm, where a whole tile's 150 mm is not),
nothing overhangs a cavity, and the shell prints as laid on the plate without supports.

Why each rule, and what it weighs (PrusaSlicer 2.5's estimates: docs/parts.md):

- Ceilings as high as they may be, found for the whole board at once (:func:`columns`):
  a point may be hollow up to h when no air (the outline, a socket, a well, a recess, an
  engraving, a lower neighbour) comes within a wall of it below h + ``top_mm``, so the top
  over it is whole and its sides a wall thick. The highest cavities are taken first and
  each lower one keeps a wall from them: the corners of a Sage Stones cell round its well
  reach 2.4 mm above the well's floor, the rim round a Stratstone recess and the rim
  round the engraved letters too (one flat ceiling a cell took the lowest surface's
  height or left the higher part solid). This took the Stratstone board from 40.7 to
  39.9 cm3 of plastic, Sage Stones' from 75.5 to 72.0, the terrain board's from 164.5
  to 160.6.
- A wall on a cell edge's line is one, centred on it: the cells on either side share it.
- A cavity rising out of a lower one's ceiling (no wall between them) would weigh less
  (Sage Stones 63.7 cm3) but leave that ceiling's edge hanging over air beside the higher
  cavity, a bridge not anchored all round: not done.
- A top is whole layers (3 x 0.30 mm: what PrusaSlicer prints as solid top layers) and a
  wall whole extrusions (2 x 0.4 mm: two perimeters): thinner would not print solid.
- A cavity narrower than :data:`MIN_CAVITY_MM` or smaller than
  :data:`MIN_CAVITY_AREA_MM2` (a dovetail's head, a sliver beside a socket or between a
  well's wall and a cell's) stays solid: a slicer would fill it with perimeters anyway.
- Speed: one intersection and one inward buffer for each set of slabs under a possible
  top, one opening a ceiling height, however many cells and wells a board has (a board's
  cavities were found cell by cell, with shapely operations for every cell and dip).

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
    :data:`MIN_CAVITY_AREA_MM2`."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely

    if region.is_empty:
        return region
    half = MIN_CAVITY_MM / 2
    opened = polygonal(region.buffer(-half, join_style="mitre").buffer(half, join_style="mitre").intersection(region))
    pieces = [p for p in getattr(opened, "geoms", [opened]) if p.area >= MIN_CAVITY_AREA_MM2]
    return polygonal(shapely.MultiPolygon(pieces))


def _levels(slabs: Sequence[Slab], shell: Shell, lowest: float) -> list[float]:
    """Every height a ceiling may have, lowest first: ``shell.top_mm`` under a slab's top,
    or where a slab starts (air beside it may begin there); none under ``lowest``."""
    zs = {round(s.z1 - shell.top_mm, 6) for s in slabs} | {round(s.z0, 6) for s in slabs}
    return sorted(z for z in zs if z >= lowest - 1e-9)


def _covered(slabs: Sequence[Slab], h: float, roof: float) -> bool:
    """Whether the stack's slabs fill the heights from ``h`` to ``roof`` (a top can lie there)."""
    return sum(max(0.0, min(s.z1, roof) - max(s.z0, h)) for s in slabs) >= roof - h - 1e-9


def columns(slabs: Sequence[Slab], grid: GridBoard, shell: Shell, min_height_mm: float,
            within: Any = None) -> list[tuple[float, Any]]:
    """(ceiling, region) of every cavity, highest first: each a column open to the bed up to
    its one flat ceiling, a wall (``shell.wall_mm``) from every other cavity and from the
    cell edges' lines, so its ceiling is anchored on walls all round.

    A point of a cell (within ``within``) may be hollow up to h when every slab that starts
    below h + ``shell.top_mm`` holds it and all of its surroundings a wall wide: the top
    over it is whole, and no air (the outline, a socket, a well, a recess, an engraving, a
    lower neighbour) comes within a wall of the cavity below that top's upper face. That is
    the intersection of those slabs' regions, shrunk by a wall: one region for each set of
    slabs, however many cells and wells. The highest ceilings are taken first; a lower
    cavity keeps a wall from them."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely

    slabs = sorted((s for s in slabs if not s.region.is_empty), key=lambda s: s.z0)
    if not slabs:
        return []
    free = slabs[0].region if within is None else slabs[0].region.intersection(within)
    walled = cavity_base(free, grid, shell.wall_mm)
    reach: dict[int, tuple[float, Any]] = {}  # slabs under the roof -> (highest h, the slabs' solid less a wall)
    solid, counted = None, 0  # the intersection of the first ``counted`` slabs' regions
    for h in _levels(slabs, shell, min_height_mm):
        roof = h + shell.top_mm
        if not _covered(slabs, h, roof):
            continue
        below = sum(1 for s in slabs if s.z0 < roof - 1e-9)
        while counted < below:
            solid = slabs[counted].region if solid is None else shapely.intersection(solid, slabs[counted].region)
            counted += 1
        inner = reach[below][1] if below in reach else solid.buffer(-shell.wall_mm, join_style="mitre")
        reach[below] = (h, inner)
    out: list[tuple[float, Any]] = []
    taken = None  # the higher cavities, widened by a wall
    for h, inner in sorted(reach.values(), key=lambda hr: -hr[0]):
        region = walled.intersection(inner)
        region = _opened(polygonal(region if taken is None else region.difference(taken)))
        if region.area > _AREA_EPS:
            out.append((round(h, 6), region))
            grown = region.buffer(shell.wall_mm, join_style="mitre")
            taken = grown if taken is None else shapely.union(taken, grown)
    return out


def cavities(slabs: Sequence[Slab], grid: GridBoard, shell: Shell, min_height_mm: float,
             within: Any = None) -> list[tuple[Any, float]]:
    """(region, ceiling) of every cavity of a stack, highest ceiling first (:func:`columns`):
    open from the bed up to the ceiling, ``shell.top_mm`` below the surface over it; none
    lower than ``min_height_mm``, none outside ``within`` (a tile's rectangle: its dovetails
    stay solid)."""
    return [(r, h) for h, r in columns(slabs, grid, shell, min_height_mm, within)]


def shelled(slabs: Sequence[Slab], grid: GridBoard, shell: Shell, min_height_mm: float,
            within: Any = None) -> list[Slab]:
    """The stack hollowed as the module docstring says (board coordinates, before it is
    laid on the bed). ``min_height_mm``: no cavity lower than this (a layer or two);
    ``within``: where cavities may be (a tile's rectangle; None: anywhere)."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely

    holes = columns(slabs, grid, shell, min_height_mm, within)
    if not holes:
        return list(slabs)
    ceilings = [h for h, _ in holes]  # highest first
    hollow = list(itertools.accumulate((r for _, r in holes), shapely.union))  # what is hollow up to each ceiling
    holes = list(zip(ceilings, hollow, strict=True))
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
