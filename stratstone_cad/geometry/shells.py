"""Boards printed as shells: the same stack of slabs, hollowed from underneath.

A shell keeps every top surface, height, well, mark and engraving of the solid board and
removes the material below them: under each cell (and each piece of rim between the cell
edges' lines) a cavity open to the bed reaches up to ``top_mm`` below the lowest surface
above it, so every top is at least ``top_mm`` thick (whole layers of the board's profile).
A wall ``wall_mm`` thick (whole extrusion widths) stands inside every outer face of the
footprint (the tile's outline, its dovetails' sockets) and on each side of every cell
edge's line, so no ceiling spans more than one cell between the walls beneath it (a
bridge a printer makes: about 30 mm, where a whole tile's 150 mm is not). Each cavity
has one flat ceiling, anchored on all its walls, so nothing floats over the cavity and
the shell prints as laid on the plate without supports. Cavities narrower than
:data:`MIN_CAVITY_MM` or smaller than :data:`MIN_CAVITY_AREA_MM2` (a dovetail's head, a
sliver beside a socket) stay solid.

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


def _pieces(region: Any) -> list[Any]:
    """``region`` opened by :data:`MIN_CAVITY_MM`, in parts no smaller than :data:`MIN_CAVITY_AREA_MM2`."""
    if region.is_empty:
        return []
    half = MIN_CAVITY_MM / 2
    opened = polygonal(region.buffer(-half, join_style="mitre").buffer(half, join_style="mitre").intersection(region))
    pieces = [p for p in getattr(opened, "geoms", [opened]) if p.area >= MIN_CAVITY_AREA_MM2]
    return sorted(pieces, key=lambda p: (round(p.bounds[1], 6), round(p.bounds[0], 6)))


def _surface(slabs: Sequence[Slab], region: Any) -> tuple[float, float, Any]:
    """(highest, lowest, dips): the highest and lowest surface over ``region``, and the
    part of it whose surface is lower than the highest."""
    top = max(s.z1 for s in slabs if s.region.intersection(region).area > _AREA_EPS)
    low = 0.0
    for s in slabs:
        if s.z0 > low + 1e-9 or region.difference(s.region).area > _AREA_EPS:
            break
        low = s.z1
    below = next(s for s in slabs if s.z0 < top - 1e-9 <= s.z1)
    return top, low, polygonal(region.difference(below.region))


def _walled(slabs: Sequence[Slab], region: Any, ceiling: float, shell: Shell, lowest: float) -> list[tuple[Any, float]]:
    """``region``'s cavities up to ``ceiling``: kept ``shell.wall_mm`` from any air beside
    them below the ceiling (the outline, a socket, a lower neighbour's side)."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely
    from shapely.geometry import box

    if ceiling < lowest - 1e-9:
        return []
    frame = box(*region.buffer(shell.wall_mm + 1.0).bounds)
    air = shapely.union_all([frame.difference(s.region) for s in slabs if s.z0 < ceiling - 1e-9])
    return [(p, round(ceiling, 6)) for p in _pieces(region.difference(air.buffer(shell.wall_mm, join_style="mitre")))]


def _hollow(slabs: Sequence[Slab], region: Any, shell: Shell, lowest: float) -> list[tuple[Any, float]]:
    """The cavities under ``region``, each piece of it hollowed the better of two ways:
    one cavity up to ``shell.top_mm`` below its lowest surface; or one under its highest
    surface, walled off by ``shell.wall_mm`` from every dip in it (a well, a recess, an
    engraving), and under each dip its own cavities, found the same way."""
    out: list[tuple[Any, float]] = []
    for piece in _pieces(region):
        top, low, dips = _surface(slabs, piece)
        flat = _walled(slabs, piece, low - shell.top_mm, shell, lowest)
        if dips.area <= _AREA_EPS or top - shell.top_mm < lowest - 1e-9:
            out += flat
            continue
        high = piece.difference(dips.buffer(shell.wall_mm, join_style="mitre"))
        nested = _walled(slabs, high, top - shell.top_mm, shell, lowest)
        nested += _hollow(slabs, dips.intersection(piece), shell, lowest)
        out += max(flat, nested, key=_volume)
    return out


def _volume(cavities: Sequence[tuple[Any, float]]) -> float:
    return sum(r.area * c for r, c in cavities)


def cavities(slabs: Sequence[Slab], grid: GridBoard, shell: Shell, min_height_mm: float,
             within: Any = None) -> list[tuple[Any, float]]:
    """(region, ceiling) of every cavity of a stack: open from the bed up to the ceiling,
    ``shell.top_mm`` below the surface over it; none lower than ``min_height_mm``, none
    outside ``within`` (a tile's rectangle: its dovetails stay solid)."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    from shapely.geometry import box

    if not slabs:
        return []
    slabs = sorted(slabs, key=lambda s: s.z0)
    margin = shell.wall_mm + 2.0
    out: list[tuple[Any, float]] = []
    base = cavity_base(slabs[0].region, grid, shell.wall_mm)
    for piece in _pieces(base if within is None else base.intersection(within)):
        x0, y0, x1, y1 = piece.bounds
        window = box(x0 - margin, y0 - margin, x1 + margin, y1 + margin)
        local = [Slab(s.z0, s.z1, polygonal(s.region.intersection(window))) for s in slabs]
        out += _hollow(local, piece, shell, min_height_mm)
    return out


def shelled(slabs: Sequence[Slab], grid: GridBoard, shell: Shell, min_height_mm: float,
            within: Any = None) -> list[Slab]:
    """The stack hollowed as the module docstring says (board coordinates, before it is
    laid on the bed). ``min_height_mm``: no cavity lower than this (a layer or two);
    ``within``: where cavities may be (a tile's rectangle; None: anywhere)."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely

    holes = cavities(slabs, grid, shell, min_height_mm, within)
    if not holes:
        return list(slabs)
    out: list[Slab] = []
    for s in slabs:
        cuts = sorted({c for _, c in holes if s.z0 + 1e-9 < c < s.z1 - 1e-9})
        for z0, z1 in itertools.pairwise([s.z0, *cuts, s.z1]):
            over = [r for r, c in holes if c >= z1 - 1e-9]
            region = polygonal(s.region.difference(shapely.union_all(over))) if over else s.region
            if region.is_empty:
                continue
            if out and math.isclose(out[-1].z1, z0) and out[-1].region.equals(region):
                out[-1] = Slab(out[-1].z0, z1, region)
            else:
                out.append(Slab(z0, z1, region))
    return out
