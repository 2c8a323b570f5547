"""Boards printed as shells: the same stack of slabs, hollowed from underneath.

A shell keeps every top surface, height, well, mark and engraving of the solid board and
removes the material below them: cavities open to the bed, each a column up to one flat
ceiling ``top_mm`` (whole layers of the board's profile) under the surface above it. A
wall ``wall_mm`` thick (whole extrusion widths) stands inside every outer face (the
outline, a dovetail's socket), between any two cavities, and on a cell edge's line
wherever a ceiling would otherwise span more than a cell, so every ceiling is anchored on
walls all round, every bridge line across it (along the grid's x or y) spans at most one
cell between walls (a bridge a printer makes: about 30 mm, where a whole tile's 150 mm
is not), nothing overhangs a cavity, and the shell prints as laid on the plate without
supports.

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
- A wall on a cell edge only where a span needs it (:func:`walled_pieces`): a ceiling
  whose every chord along x, or every chord along y, is at most a cell less a wall
  (:func:`spans`) needs no wall under the cell edges it crosses; one that does not is
  tried with its necks narrower than :data:`NECK_MM` closed, then cut by walls on the
  grid's four outer lines (the rim from the cells), then by a wall on every cell edge, as
  before. On the Sage Stones board the wells' own walls (each well's side, 0.8 mm, down to
  the bed) already anchor every ceiling between them: four corners round a cell vertex
  are one diamond-shaped ceiling about 17 mm across, and the wall on every cell edge,
  with the slivers too narrow to hollow between it and a well's wall (0.3 mm at an edge's
  middle), was 20 of its 72 cm3. Without them: 62.8 cm3, 87.3 g -> 76.5 g (61 % -> 53.5
  % of the solid board), 9 h 04 min -> 7 h 01 min. The Stratstone board 39.9 -> 39.5 cm3,
  the terrain board's four tiles 160.6 -> 156.8 (rows of one height bridged across).
- A cavity narrower than :data:`MIN_CAVITY_MM` or smaller than
  :data:`MIN_CAVITY_AREA_MM2` (a dovetail's head, a sliver beside a socket or between a
  well's wall and a cell's) stays solid: a slicer would fill it with perimeters anyway.
  The opening grows corners back mitred up to twice the distance (a square corner stays
  square): with a longer mitre the spikes of two Sage Stones corners reached through the
  1.3 mm gap between two wells' walls and joined every ceiling of the board into one.
- A wall on a cell edge's line is one, centred on it: the cells on either side share it.
- A cavity rising out of a lower one's ceiling (no wall between them) would weigh less
  (Sage Stones 63.7 cm3 with every cell edge walled) but leave that ceiling's edge
  hanging over air beside the higher cavity, a bridge not anchored all round: not done.
  Nor a ceiling stepped up at 45 degrees in place of the wall between the cavity under a
  well's floor and the one round it: that wall is the well's own side (2.4 mm of it is
  there in any case) and a stepped one is as thick a layer, so it moves the plastic
  rather than saving it.
- A top is whole layers (3 x 0.30 mm: what PrusaSlicer prints as solid top layers) and a
  wall whole extrusions (2 x 0.4 mm: two perimeters): thinner would not print solid.
- Speed: one intersection and one inward buffer for each set of slabs under a possible
  top, one opening a ceiling height, however many cells and wells a board has (a board's
  cavities were found cell by cell, with shapely operations for every cell and dip); the
  spans are measured on the pieces' edges with numpy, not by cutting lines.

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
#: A neck of a cavity narrower than this (mm) is closed when the cavity does not bridge as
#: one piece: its parts then bridge each on its own (a gap between two wells' walls).
NECK_MM = 3.2
#: A cavity's corners nearer than this (mm) to the line through their neighbours are
#: dropped: a 3MF's float32 vertex could not tell them apart.
SNAP_MM = 1e-4
#: How densely :func:`axis_span` lays its chords (mm).
SPAN_STEP_MM = 0.5
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


def grid_walls(footprint: Any, grid: GridBoard, wall_mm: float, outer_only: bool = False) -> Any:
    """A wall ``wall_mm`` thick centred on every cell edge's line across ``footprint`` (the
    grid's outer lines included); ``outer_only``: on the four outer lines only."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely
    from shapely.geometry import box

    x0, y0, x1, y1 = footprint.bounds
    half = wall_mm / 2
    xs = [grid.rim_x_mm + k * grid.pitch_mm for k in range(grid.cols + 1)]
    ys = [grid.rim_y_mm + k * grid.pitch_mm for k in range(grid.rows + 1)]
    if outer_only:
        xs, ys = [xs[0], xs[-1]], [ys[0], ys[-1]]
    walls = [box(x - half, y0 - 1, x + half, y1 + 1) for x in xs]
    walls += [box(x0 - 1, y - half, x1 + 1, y + half) for y in ys]
    return shapely.union_all(walls)


def _opened(region: Any, width: float = MIN_CAVITY_MM) -> Any:
    """``region`` opened by ``width``, less its parts smaller than :data:`MIN_CAVITY_AREA_MM2`.
    The corners grown back are mitred up to twice the distance (a square corner stays
    square): a sharper spike is bevelled, where a longer mitre reached through a neck
    narrower than ``width`` between two wells' walls and left it open."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely

    if region.is_empty:
        return region
    half = width / 2
    opened = region.buffer(-half, join_style="mitre").buffer(half, join_style="mitre", mitre_limit=2.0)
    opened = polygonal(opened.intersection(region))
    pieces = [p for p in getattr(opened, "geoms", [opened]) if p.area >= MIN_CAVITY_AREA_MM2]
    return polygonal(shapely.MultiPolygon(pieces))


def _parts(region: Any) -> list[Any]:
    return [p for p in getattr(region, "geoms", [region]) if not p.is_empty]


def axis_span(piece: Any, axis: int, step: float = SPAN_STEP_MM) -> float:
    """The longest chord of ``piece`` along an axis (0: x, 1: y): the longest bridge line
    a slicer lays across it in that direction, on lines ``step`` mm apart (each line's
    crossings with the piece's rings, paired in order)."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import numpy as np
    import shapely

    rings = shapely.get_rings(shapely.get_parts(piece))
    edges = np.concatenate([np.hstack([c[:-1], c[1:]]) for c in (shapely.get_coordinates(r) for r in rings)])
    u0, v0, u1, v1 = (edges[:, [axis, 1 - axis, 2 + axis, 3 - axis]]).T  # u along the chords, v across
    lo, hi = piece.bounds[1 - axis], piece.bounds[3 - axis]
    best = 0.0
    for v in np.arange(lo + step / 2, hi, step):
        cross = (v0 <= v) != (v1 <= v)
        us = np.sort(u0[cross] + (v - v0[cross]) * (u1[cross] - u0[cross]) / (v1[cross] - v0[cross]))
        if len(us) >= 2:
            best = max(best, float(np.max(us[1::2] - us[0::2])))
    return best


def spans(piece: Any, limit: float) -> bool:
    """Whether a ceiling over ``piece`` bridges it: every chord along one of the grid's axes
    at most ``limit`` (each bridge line anchored at both ends on a wall within a cell's width)."""
    x0, y0, x1, y1 = piece.bounds
    if min(x1 - x0, y1 - y0) <= limit:
        return True
    return any(axis_span(piece, a, 4 * SPAN_STEP_MM) <= limit and axis_span(piece, a) <= limit for a in (0, 1))


def _apart(pieces: list[Any], wall_mm: float) -> list[Any]:
    """``pieces`` with a wall between any two (a later one gives way to an earlier one)."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely

    pieces = list(pieces)
    if len(pieces) < 2:
        return pieces
    near = shapely.STRtree(pieces).query(pieces, predicate="dwithin", distance=wall_mm - 1e-6)
    moved = set()
    for i, j in sorted({(int(a), int(b)) for a, b in near.T if a < b}):
        pieces[j] = polygonal(pieces[j].difference(pieces[i].buffer(wall_mm, join_style="mitre")))
        moved.add(j)
    return [q for k, p in enumerate(pieces) for q in (_parts(_opened(p)) if k in moved else [p])]


def walled_pieces(region: Any, walls: Sequence[Any], limit: float, shell: Shell) -> list[Any]:
    """The cavities of ``region`` (one ceiling's), with a wall on a cell edge only where a
    span needs it: a piece that :func:`spans` ``limit`` (a cell less a wall) is kept as it
    is, the rest tried again with its narrow necks closed (:data:`NECK_MM`), then cut by
    each of ``walls`` in turn (:func:`grid_walls`: on the grid's four outer lines, then on
    every cell edge)."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely

    tries = [lambda p: _opened(p, NECK_MM),
             *(lambda p, w=w: _opened(polygonal(p.difference(w))) for w in walls)]
    todo, keep = _parts(_opened(region)), []
    for cut in tries:
        todo = _apart(todo, shell.wall_mm)
        bridged = [spans(p, limit) for p in todo]
        keep += [p for p, ok in zip(todo, bridged, strict=True) if ok]
        todo = [q for p, ok in zip(todo, bridged, strict=True) if not ok for q in _parts(cut(p))]
    # no two corners closer than a float32 (a 3MF's vertex) tells apart at a board's size
    return [p for p in shapely.simplify(keep + _apart(todo, shell.wall_mm), SNAP_MM) if not p.is_empty]


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
    its one flat ceiling, a wall (``shell.wall_mm``) from every other cavity and on the cell
    edges' lines where its span needs one (:func:`walled_pieces`), so its ceiling is
    anchored on walls all round.

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
    walls = [grid_walls(free, grid, shell.wall_mm, outer_only) for outer_only in (True, False)]  # the board's, once
    for h, inner in sorted(reach.values(), key=lambda hr: -hr[0]):
        region = free.intersection(inner)
        region = polygonal(region if taken is None else region.difference(taken))
        region = polygonal(shapely.MultiPolygon(walled_pieces(region, walls, grid.pitch_mm - shell.wall_mm, shell)))
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
