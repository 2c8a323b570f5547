"""Split any board into bed-sized tiles joined by dovetails.

Planning (:func:`plan_tiles`) is pure Python, so the build can know the tiles' names
without loading CadQuery (a rebuild that finds everything cached never imports it).
Cutting (:func:`cut_tiles`) imports CadQuery when called.

How a board is cut: cuts run along x and y through the board's preferred cut lines
(its walls between cells) when that gives tiles that fit the bed, else evenly. Along
each cut, dovetails stick out of the lower tile (smaller x or y) into the higher one:
the dovetail is the board's own material, moved from one tile to the other, so it
keeps any recess or engraving it crosses; the socket in the higher tile is the
dovetail grown by the joint clearance. A dovetail's vertical walls print without
supports, and the tiles lock together in the plane.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..errors import ParameterError
from ..params import Printer


@dataclass(frozen=True)
class Joint:
    """One dovetail: on the cut ``axis`` ("x": a cut at x = at), centred at ``along``."""

    axis: str
    at: float
    along: float


@dataclass(frozen=True)
class Tile:
    """A tile's cell of the plan: the rectangle it owns before joints (mm)."""

    index: int  # 1-based, row by row from the lower left
    col: int
    row: int
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass(frozen=True)
class TilePlan:
    """Where a board is cut and where its dovetails go."""

    size: tuple[float, float]
    xcuts: list[float]
    ycuts: list[float]
    joints: list[Joint] = field(default_factory=list)
    rotated: bool = False  # tiles lie rotated by 90 degrees on the bed

    @property
    def count(self) -> int:
        return (len(self.xcuts) + 1) * (len(self.ycuts) + 1)

    def tiles(self) -> list[Tile]:
        xs = [0.0, *self.xcuts, self.size[0]]
        ys = [0.0, *self.ycuts, self.size[1]]
        out = []
        for r in range(len(ys) - 1):
            for c in range(len(xs) - 1):
                out.append(Tile(len(out) + 1, c, r, xs[c], ys[r], xs[c + 1], ys[r + 1]))
        return out


def _split(length: float, usable: float, reach: float, candidates: list[float]) -> list[float] | None:
    """Fewest cuts of [0, length] so every piece plus its dovetail reach fits ``usable``.

    A piece that has a cut on its high side carries dovetails reaching ``reach`` past it.
    With candidate lines (a board's walls) the cuts are chosen among them only, nearest
    to an even split: cutting elsewhere could run along a recess and leave a sliver of
    wall. Without candidates the cuts are even. Returns the cut positions, or None when
    no split fits.
    """
    if length <= usable + 1e-9:
        return []
    for n in range(2, (len(candidates) + 2) if candidates else 200):
        even = [length * k / n for k in range(1, n)]
        cuts = sorted({min(candidates, key=lambda c: abs(c - e)) for e in even}) if candidates else even
        if len(cuts) != n - 1:
            continue
        edges = [0.0, *cuts, length]
        widths = [edges[i + 1] - edges[i] + (reach if i < n - 1 else 0.0) for i in range(n)]
        if all(w <= usable + 1e-9 for w in widths) and min(widths) > 2 * reach:
            return cuts
    return None


def plan_tiles(size: tuple[float, float], printer: Printer, joint_length: float, joint_width: float,
               candidates: tuple[list[float], list[float]] = ([], []), what: str = "board") -> TilePlan:
    """Plan the tiles of a ``size`` (x, y) mm board for ``printer``'s bed.

    Tries the tiles both ways round on the bed and keeps the plan with fewer tiles.
    Dovetails sit on the preferred lines of the other axis inside each tile's edge
    (cell corners are solid), else mid-edge. Raises ParameterError when the board
    cannot be split into tiles that fit.
    """
    ux, uy = printer.usable_mm
    plans = []
    for rotated, (bx, by) in ((False, (ux, uy)), (True, (uy, ux))):
        xc = _split(size[0], bx, joint_length, candidates[0])
        yc = _split(size[1], by, joint_length, candidates[1])
        if xc is not None and yc is not None:
            plans.append(((len(xc) + 1) * (len(yc) + 1), rotated, xc, yc))
    if not plans:
        raise ParameterError(
            f"printer {printer.name!r}: a {size[0]:g} x {size[1]:g} mm {what} cannot be cut into tiles "
            f"that fit its {ux:g} x {uy:g} mm usable bed")
    _, rotated, xc, yc = min(plans, key=lambda p: (p[0], p[1]))
    joints = []
    edges_x = [0.0, *xc, size[0]]
    edges_y = [0.0, *yc, size[1]]
    margin = joint_width / 2 + joint_length

    def spots(lo: float, hi: float, prefer: list[float]) -> list[float]:
        inside = [c for c in prefer if lo + margin <= c <= hi - margin]
        return inside or [(lo + hi) / 2]

    for x in xc:
        for r in range(len(edges_y) - 1):
            joints += [Joint("x", x, y) for y in spots(edges_y[r], edges_y[r + 1], candidates[1])]
    for y in yc:
        for c in range(len(edges_x) - 1):
            joints += [Joint("y", y, x) for x in spots(edges_x[c], edges_x[c + 1], candidates[0])]
    return TilePlan(size, xc, yc, joints, rotated)


def dovetail_outline(j: Joint, length: float, width: float, grow: float = 0.0) -> list[tuple[float, float]]:
    """The dovetail's outline in the plane (mm), grown by ``grow`` on every side.

    The neck (on the cut line) is 2/3 of the head's width: the sides flare at about
    17 degrees (1:3.3 over the default 5 mm length), enough to lock without a thin
    neck. The outline starts ``length`` behind the cut line so it overlaps its own
    tile solidly.
    """
    neck, head = width * 2 / 3 / 2 + grow, width / 2 + grow
    # Grow the flared sides along their normal: widen the ends by grow / cos(flare).
    flare = math.atan2(head - neck, length)
    extra = grow * (1 / math.cos(flare) - 1)
    pts_local = [(-length, -neck - extra), (0.0, -neck - extra), (length + grow, -head - extra),
                 (length + grow, head + extra), (0.0, neck + extra), (-length, neck + extra)]
    if j.axis == "x":
        return [(j.at + u, j.along + v) for u, v in pts_local]
    return [(j.along - v, j.at + u) for u, v in pts_local]


def cut_tiles(board, plan: TilePlan, joint_length: float, joint_width: float, clearance: float,
              z0: float = -1.0, z1: float = 1000.0) -> list:
    """Cut a board solid into tiles as planned; returns one CadQuery solid per tile.

    The lower-left tile is first, then along x, then up. Each tile keeps its board
    coordinates (the build lays it on the bed).
    """
    import cadquery as cq

    from .common import checked

    def prism(outline: list[tuple[float, float]]) -> cq.Shape:
        wire = cq.Wire.makePolygon([cq.Vector(x, y, z0) for x, y in outline], close=True)
        return cq.Solid.extrudeLinear(cq.Face.makeFromWires(wire), cq.Vector(0, 0, z1 - z0))

    tabs = {j: prism(dovetail_outline(j, joint_length, joint_width)) for j in plan.joints}
    sockets = {j: prism(dovetail_outline(j, joint_length, joint_width, clearance)) for j in plan.joints}
    out = []
    for t in plan.tiles():
        region = prism([(t.x0, t.y0), (t.x1, t.y0), (t.x1, t.y1), (t.x0, t.y1)])
        own = [tabs[j] for j in plan.joints if (j.axis == "x" and j.at == t.x1 and t.y0 < j.along < t.y1)
               or (j.axis == "y" and j.at == t.y1 and t.x0 < j.along < t.x1)]
        holes = [sockets[j] for j in plan.joints if (j.axis == "x" and j.at == t.x0 and t.y0 < j.along < t.y1)
                 or (j.axis == "y" and j.at == t.y0 and t.x0 < j.along < t.x1)]
        if own:
            region = region.fuse(*own).clean()
        if holes:
            region = region.cut(*holes)
        out.append(checked(board.intersect(region), f"board tile {t.index} of {plan.count}"))
    return out


def lay_on_bed(tiles: list, plan: TilePlan) -> list:
    """Tiles turned by 90 degrees about z when the plan lays them rotated on the bed."""
    if not plan.rotated:
        return tiles
    import cadquery as cq

    return [t.rotate(cq.Vector(0, 0, 0), cq.Vector(0, 0, 1), 90) for t in tiles]
