"""Split any board into bed-sized tiles joined by dovetails.

Everything here is pure Python: planning (:func:`plan_tiles`) lets the build know the
tiles' names without loading a CAD kernel, and cutting (:func:`tile_stack`) works on a
board's stack of 2D regions (see :mod:`stratstone_cad.geometry.boards`).

How a board is cut: cuts run along x and y through the board's preferred cut lines
(its walls between cells) when that gives tiles that fit the bed, else evenly. Along
each cut, dovetails stick out of the lower tile (smaller x or y) into the higher one:
the dovetail is the board's own material, moved from one tile to the other, so it
keeps any recess or engraving it crosses; the socket in the higher tile is the
dovetail grown by the joint clearance. A dovetail's vertical walls print without
supports, and the tiles lock together in the plane. On a stepped board (the terrain)
the dovetails stay in the base, under the cells (:func:`tile_stack`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from stratstone_cad.base.params import MIN_WALL_MM, Profile
from stratstone_cad.base.printers import Printer
from stratstone_cad.errors import ParameterError
from stratstone_cad.geometry.boards import BoardParams, Slab, polygonal
from stratstone_cad.geometry.shells import Shell, shelled


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

    @classmethod
    def from_plain(cls, data: Mapping[str, Any]) -> TilePlan:
        """The plan from its JSON form (:func:`stratstone_cad.pipeline.keys.plain` applied throughout)."""
        if data.get("class") != f"{cls.__module__}.{cls.__qualname__}":
            raise ValueError(f"not a tile plan: {data.get('class')!r}")
        joints = [Joint(str(j["axis"]), float(j["at"]), float(j["along"])) for j in data["joints"]]
        return cls((float(data["size"][0]), float(data["size"][1])), [float(x) for x in data["xcuts"]],
                   [float(y) for y in data["ycuts"]], joints, bool(data["rotated"]))

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
               candidates: tuple[list[float], list[float]] = ([], []), what: str = "board",
               joint_lines: tuple[list[float], list[float]] | None = None,
               fits: Callable[[Joint], bool] | None = None) -> TilePlan:
    """Plan the tiles of a ``size`` (x, y) mm board for ``printer``'s bed.

    ``candidates`` are the lines (x, y) cuts may follow (a board's walls or cell
    boundaries); ``joint_lines`` the lines dovetails prefer to sit on along a cut (the
    solid crossings of a board's walls, or its cells' centres), by default the cut
    lines. ``fits(joint)`` says whether a dovetail may go there (its socket clear of
    the board's recesses and labels). Tries the tiles both ways round on the bed and
    keeps the plan with fewer tiles. Each tile edge gets one dovetail per started 80 mm,
    on the preferred lines that fit nearest an even spread; an edge where none fits gets
    one mid-edge, which :func:`check_keep_out` then reports. Raises ParameterError when
    the board cannot be split into tiles that fit the bed.

    Raises:
        ParameterError: the board cannot be cut into tiles that fit the printer's usable bed.
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
    prefer = candidates if joint_lines is None else joint_lines
    joints = []
    edges_x = [0.0, *xc, size[0]]
    edges_y = [0.0, *yc, size[1]]
    def ok(j: Joint) -> bool:
        return fits is None or fits(j)

    for x in xc:
        for r in range(len(edges_y) - 1):
            spots = _spots(edges_y[r], edges_y[r + 1], size[1], prefer[1], joint_length, joint_width,
                           lambda y, x=x: ok(Joint("x", x, y)))
            joints += [Joint("x", x, y) for y in spots]
    for y in yc:
        for c in range(len(edges_x) - 1):
            spots = _spots(edges_x[c], edges_x[c + 1], size[0], prefer[0], joint_length, joint_width,
                           lambda x, y=y: ok(Joint("y", y, x)))
            joints += [Joint("y", y, x) for x in spots]
    return TilePlan(size, xc, yc, joints, rotated)


JOINT_SPACING_MM = 80.0  # one dovetail per started 80 mm of a tile's edge


def _spots(lo: float, hi: float, size: float, prefer: list[float], joint_length: float, joint_width: float,
           fits: Callable[[float], bool]) -> list[float]:
    """Where the dovetails of a tile edge from ``lo`` to ``hi`` go: on preferred lines
    that fit, nearest to an even spread; else evenly spaced when nothing is preferred,
    else (nothing fits) mid-edge.

    A dovetail keeps clear of the edge's ends: by its half-width and a wall at the
    board's outer edge, and by its length too where another cut crosses (that cut's
    dovetails reach that far).
    """
    outer = joint_width / 2 + MIN_WALL_MM
    inner = outer + joint_length
    first = lo + (outer if lo <= 1e-9 else inner)
    last = hi - (outer if hi >= size - 1e-9 else inner)
    n = max(1, math.ceil((hi - lo) / JOINT_SPACING_MM - 1e-9))
    even = [lo + (hi - lo) * (k + 0.5) / n for k in range(n)]
    inside = [c for c in prefer if first <= c <= last and fits(c)]
    if not inside:
        if not prefer and n > 1 and (hi - lo) / n > 2 * inner:
            return even
        return [(lo + hi) / 2]
    return sorted({min(inside, key=lambda c: abs(c - e)) for e in even})


def socket_fits(keep_out: list[tuple[str, Any]], joint_length: float, joint_width: float,
                clearance: float) -> Callable[[Joint], bool]:
    """``fits(joint)``: whether a dovetail's socket keeps two extrusions from ``keep_out``."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely
    from shapely.geometry import Polygon

    union = shapely.union_all([g for _, g in keep_out]) if keep_out else None

    def fits(j: Joint) -> bool:
        if union is None:
            return True
        return Polygon(dovetail_outline(j, joint_length, joint_width, clearance)).distance(union) >= MIN_WALL_MM - 1e-9

    return fits


def check_keep_out(plan: TilePlan, keep_out: list[tuple[str, Any]], joint_length: float, joint_width: float,
                   clearance: float, prefix: str, printer: Printer, cut_fix: str, joint_fix: str,
                   fixes: Mapping[str, str] | None = None) -> None:
    """Raise ParameterError unless every cut and every dovetail socket stays at least
    two extrusions (0.8 mm) away from what must stay whole (recesses, wells, labels).

    ``keep_out`` is a list of (name, shapely geometry) in board coordinates; the
    message names the first one hit, where, and the parameters that fix it: ``fixes``
    (by keep-out name, e.g. a start frame's inset) first, then ``cut_fix`` or ``joint_fix``.

    Raises:
        ParameterError: a tile cut or a dovetail comes too close to a cell's feature.
    """
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    from shapely.geometry import LineString, Polygon

    def own(name: str) -> str:
        return f"{fixes[name]}, " if fixes and name in fixes else ""

    w, h = plan.size
    lines = [("x", x, LineString([(x, 0), (x, h)])) for x in plan.xcuts]
    lines += [("y", y, LineString([(0, y), (w, y)])) for y in plan.ycuts]
    for axis, at, line in lines:
        for name, geom in keep_out:
            gap = line.distance(geom)
            if gap < MIN_WALL_MM - 1e-9:
                raise ParameterError(
                    f"{prefix}.cell_pitch_mm: the tile cut at {axis} = {at:g} mm for printer {printer.name!r} passes "
                    f"{gap:.2f} mm from a {name}, expected at least {MIN_WALL_MM:g} mm ({own(name)}{cut_fix})")
    for j in plan.joints:
        socket = Polygon(dovetail_outline(j, joint_length, joint_width, clearance))
        for name, geom in keep_out:
            gap = socket.distance(geom)
            if gap < MIN_WALL_MM - 1e-9:
                x, y = (j.at, j.along) if j.axis == "x" else (j.along, j.at)
                raise ParameterError(
                    f"{prefix}.joint_width_mm = {joint_width:g}: the dovetail at ({x:g}, {y:g}) mm comes within "
                    f"{gap:.2f} mm of a {name}, expected at least {MIN_WALL_MM:g} mm ({own(name)}{joint_fix})")


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


def tile_region(plan: TilePlan, tile: Tile, joint_length: float, joint_width: float, clearance: float,
                with_tabs: bool, with_sockets: bool) -> Any:
    """The 2D region a tile owns at one height: its rectangle, plus the dovetails it
    carries across its high edges, minus the sockets on its low edges."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely
    from shapely.geometry import Polygon, box

    region = box(tile.x0, tile.y0, tile.x1, tile.y1)
    own = [j for j in plan.joints if (j.axis == "x" and j.at == tile.x1 and tile.y0 < j.along < tile.y1)
           or (j.axis == "y" and j.at == tile.y1 and tile.x0 < j.along < tile.x1)]
    holes = [j for j in plan.joints if (j.axis == "x" and j.at == tile.x0 and tile.y0 < j.along < tile.y1)
             or (j.axis == "y" and j.at == tile.y0 and tile.x0 < j.along < tile.x1)]
    if with_tabs and own:
        region = shapely.union_all([region, *(Polygon(dovetail_outline(j, joint_length, joint_width)) for j in own)])
    if with_sockets and holes:
        region = region.difference(shapely.union_all(
            [Polygon(dovetail_outline(j, joint_length, joint_width, clearance)) for j in holes]))
    return region


def tile_stack(slabs: list, plan: TilePlan, joint_length: float, joint_width: float, clearance: float,
               joint_top: float | None = None, socket_top: float | None = None) -> list[list]:
    """Cut a board's stack of slabs into tiles as planned; returns one stack per tile.

    The lower-left tile is first, then along x, then up. Each tile keeps its board
    coordinates (:func:`lay_on_bed` turns them when the plan says so). By default the
    dovetails run the board's full height. A stepped board (terrain) passes
    ``joint_top``: the dovetails are then only in its base, up to ``joint_top``, each
    socket a pocket up to ``socket_top`` (a layer higher, so the dovetail slides in)
    under the cell above it, and above the base every cut is straight along a cell
    boundary.
    """
    if joint_top is not None:  # split the slabs where the joints end
        breaks = sorted({joint_top, socket_top if socket_top is not None else joint_top})
        split = []
        for s in slabs:
            cuts = [z for z in breaks if s.z0 < z < s.z1]
            edges = [s.z0, *cuts, s.z1]
            split += [Slab(a, b, s.region) for a, b in itertools.pairwise(edges)]
        slabs = split
    hole_top = socket_top if socket_top is not None else joint_top
    out = []
    for t in plan.tiles():
        regions = {}
        stack = []
        for s in slabs:
            tabs = joint_top is None or s.z1 <= joint_top + 1e-9
            sockets = joint_top is None or s.z1 <= hole_top + 1e-9
            if (tabs, sockets) not in regions:
                regions[(tabs, sockets)] = tile_region(plan, t, joint_length, joint_width, clearance, tabs, sockets)
            part = polygonal(s.region.intersection(regions[(tabs, sockets)]))
            if part.is_empty:
                continue
            if stack and stack[-1].z1 == s.z0 and stack[-1].region.equals(part):  # one slab where nothing changes
                stack[-1] = Slab(stack[-1].z0, s.z1, part)
            else:
                stack.append(Slab(s.z0, s.z1, part))
        out.append(stack)
    return out


def _box(x0: float, y0: float, x1: float, y1: float) -> Any:
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    from shapely.geometry import box

    return box(x0, y0, x1, y1)


def lay_on_bed(stacks: list[list], plan: TilePlan) -> list[list]:
    """Tiles turned by 90 degrees about z when the plan lays them rotated on the bed."""
    if not plan.rotated:
        return stacks
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    from shapely import affinity

    return [[Slab(s.z0, s.z1, affinity.rotate(s.region, 90, origin=(0, 0))) for s in st] for st in stacks]


def tiled(slabs: list, plan: TilePlan, params, joint_top: float | None = None,
          socket_top: float | None = None, profile: Profile | None = None) -> list[list]:
    """A board's stack as the plan cuts it: itself when it fits the bed, else its tiles,
    laid on the bed (turned a quarter when the plan says so, a whole board too: a slicer's
    command line does not turn a part to fit). ``params`` holds the joint sizes
    (``joint_length_mm``, ``joint_width_mm``, ``joint_clearance_mm``);
    ``joint_top``/``socket_top`` as in :func:`tile_stack`.

    A board's parameters (:class:`~stratstone_cad.geometry.boards.BoardParams`) also say
    whether it prints as a shell (``shell``): each tile (or the whole board) is then
    hollowed from underneath (:func:`stratstone_cad.geometry.shells.shelled`) in whole
    layers of ``profile``, which a board must therefore be given."""
    if isinstance(params, BoardParams) and profile is None:
        raise TypeError("tiled: a board's tiles need its print profile (the shell's layers)")
    if plan.count == 1:
        tiles = [slabs]
    else:
        tiles = tile_stack(slabs, plan, params.joint_length_mm, params.joint_width_mm, params.joint_clearance_mm,
                           joint_top, socket_top)
    if isinstance(params, BoardParams) and params.shell and profile is not None:
        shell = Shell.of(params.shell_top_layers, params.shell_wall_extrusions, profile)
        lowest = profile.first_layer_height_mm + profile.layer_height_mm
        boxes = [None] if plan.count == 1 else [(t.x0, t.y0, t.x1, t.y1) for t in plan.tiles()]
        tiles = [shelled(t, params.grid(), shell, lowest, box and _box(*box)) for t, box in zip(tiles, boxes, strict=True)]
    return lay_on_bed(tiles, plan)
