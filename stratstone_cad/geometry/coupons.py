"""The fit test's coupons (``stratstone-cad build fit-test``): small pieces of a board's own
stack of slabs, each holding one fit of the set at one clearance, the clearance engraved
on a tab beside it.

A coupon is cut from the very stack the board is made of (its ``board_stack``, given the
clearance to test in place of the parameter's value), so a fit that works on the coupon
works on the board: a cell's well or recess with a ring of the board round it, from the
pocket's floor up (:func:`cell_coupon`), or the two sides of one tile joint, cut by the
tiling's own dovetail code (:func:`joint_coupons`). What is left out (the board's body
under a pocket, the joint's full height) holds no fit and would only add print time: the
plate prints in under 30 minutes. Pure 2D regions, as the rest of
:mod:`stratstone_cad.geometry.boards`; the games' ``cad.py`` meshes them, and makes what goes
into each fit (a gem's foot, the widest stone's foot)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from stratstone_cad.base.params import MIN_WALL_MM, TOL, Profile, snap_depth
from stratstone_cad.geometry.boards import BoardParams, Label, Slab, label_strokes, polygonal, stroke_region
from stratstone_cad.geometry.tiling import Joint, TilePlan, tile_stack

#: The step between a coupon's three clearances (mm).
CLEARANCE_STEP_MM = 0.1
#: How much of the board a cell coupon keeps around its pocket (mm): the wall between two
#: pockets of the board is about this or less.
RING_MM = 1.6
#: A flat coupon's height in layers (a joint's, the kit frame's): the default engraving's four
#: layers over a floor of one (:func:`flat_top`: more when the engraving is deeper).
JOINT_LAYERS = 5
#: What a joint coupon keeps past a socket's two walls, at the side and behind (mm): room for
#: the clearance's own growth of the socket (at most 1 mm, so a wall of 1.1 mm at least is left).
JOINT_MARGIN_MM = 0.5
#: The width of the engraved clearance's tab, less its walls (mm): three characters.
TAB_MM = 11.0
#: The engraved clearance's cap height (mm): three or four characters beside a 22 mm cell.
LABEL_HEIGHT_MM = 4.0


def clearances(value: float, lo: float, hi: float, step: float = CLEARANCE_STEP_MM) -> tuple[float, float, float]:
    """The three clearances a coupon is printed at: ``value`` and one ``step`` either side,
    moved inside the parameter's range [``lo``, ``hi``] when ``value`` is at its edge (mm)."""
    first = min(max(value - step, lo), hi - 2 * step)
    return tuple(round(first + k * step, 6) for k in range(3))  # type: ignore[return-value]


def clearances_of(params: Any, field: str) -> tuple[float, float, float]:
    """:func:`clearances` about the value of ``params``' field ``field`` (``clearance_mm``,
    ``joint_clearance_mm``), within the range that field's :func:`~stratstone_cad.base.params.param` declares."""
    meta = params.__dataclass_fields__[field].metadata
    return clearances(getattr(params, field), meta["lo"], meta["hi"])


def flat_top(board: BoardParams, profile: Profile) -> float:
    """The top (mm) of a flat coupon, one whose fit is in the plane: :data:`JOINT_LAYERS`
    layers of ``profile``, or the board's engraving and one layer under it if that is more."""
    layers = max(JOINT_LAYERS, round(snap_depth(board.engrave_depth_mm, profile) / profile.layer_height_mm) + 1)
    return round(profile.first_layer_height_mm + (layers - 1) * profile.layer_height_mm, 9)


def clearance_text(value: float) -> str:
    """How a clearance is engraved: ``0.5``, ``0.15`` (mm, no unit)."""
    return f"{round(value, 2):g}"


def label_strip(board: BoardParams) -> float:
    """Width (mm) of the strip beside a coupon's fit that carries its engraved clearance."""
    return LABEL_HEIGHT_MM + board.label_stroke_mm + 2 * MIN_WALL_MM + 0.5


def _cropped(slabs: Sequence[Slab], window: Any) -> list[Slab]:
    out = []
    for s in slabs:
        part = polygonal(s.region.intersection(window))
        if not part.is_empty:
            out.append(Slab(s.z0, s.z1, part))
    return out


def labelled(slabs: Sequence[Slab], strip: Any, text: str, board: BoardParams, profile: Profile,
             rotation_deg: float = 0.0) -> list[Slab]:
    """The stack with ``strip`` (a region beside it, the stack's full height) added and
    ``text`` engraved in the strip's middle as the board's coordinates are (its stroke and
    depth, :data:`LABEL_HEIGHT_MM` high, turned by ``rotation_deg``)."""
    import shapely  # start-up speed: shapely only where a region is drawn

    top = max(s.z1 for s in slabs)
    floor = round(top - snap_depth(board.engrave_depth_mm, profile), 9)
    cx, cy = strip.centroid.x, strip.centroid.y
    ink = stroke_region(label_strokes([Label(text, cx, cy, rotation_deg)], LABEL_HEIGHT_MM), board.label_stroke_mm)
    out = []
    for s in slabs:
        for z0, z1 in itertools.pairwise([s.z0, *([floor] if s.z0 + TOL < floor < s.z1 - TOL else []), s.z1]):
            region = shapely.union_all([s.region, strip])
            if z0 >= floor - TOL:
                region = region.difference(ink)
            out.append(Slab(z0, z1, polygonal(region)))
    return out


def cell_coupon(stack: Sequence[Slab], board: BoardParams, col: int, row: int, pocket: tuple[float, float],
                text: str, profile: Profile) -> list[Slab]:
    """The pocket (well or recess) of one cell of the board's ``stack``, ``pocket`` = (its
    diameter, its depth) in mm: the board's material within :data:`RING_MM` of the pocket's
    edge (and within the cell), from the pocket's floor to the top, so the pocket is a hole
    through the coupon (its floor and the board's body under it print for nothing), with a
    tab on its near side engraved with ``text``; moved so the coupon's lower-left corner is at
    the origin, on the bed."""
    from shapely import affinity  # start-up speed: shapely only where a region is drawn
    from shapely.geometry import Point, box

    diameter, depth = pocket
    x0, y0, x1, y1 = board.grid().cell_box(col, row)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    ring = Point(cx, cy).buffer(diameter / 2 + RING_MM, quad_segs=32).intersection(box(x0, y0, x1, y1))
    edge = cy - diameter / 2 - RING_MM / 2  # the tab overlaps the ring's outer half
    width = TAB_MM + board.label_stroke_mm + 2 * MIN_WALL_MM
    tab = box(cx - width / 2, edge - label_strip(board), cx + width / 2, edge)
    slabs = labelled(_cropped(stack, ring), tab, text, board, profile)
    top = max(s.z1 for s in slabs)
    floor = round(top - snap_depth(depth, profile), 9)
    left, low = min(x0, cx - width / 2), edge - label_strip(board)
    return [Slab(round(max(s.z0, floor) - floor, 9), round(s.z1 - floor, 9), affinity.translate(s.region, -left, -low))
            for s in slabs if s.z1 > floor + TOL]


def joint_coupons(board: BoardParams, values: Sequence[float], profile: Profile) -> list[list[Slab]]:
    """The two sides of one tile joint of a board, :func:`flat_top` high (the fit is in the
    plane; the board's full height prints for nothing): the dovetail's side, then
    a socket's side for each clearance of ``values``, engraved with it beside the socket;
    each moved to the origin. The tiling's own code cuts them
    (:func:`~stratstone_cad.geometry.tiling.tile_stack`) from a plain piece of the board (as
    its rim is) with the board's joint sizes: the dovetail is the board's, each socket the
    dovetail grown by the clearance."""
    from shapely import affinity  # start-up speed: shapely only where a region is drawn
    from shapely.geometry import box

    cut, mid = 100.0, 100.0  # where the joint is on the plain piece (any place: nothing else is on it)
    reach = board.joint_length_mm + 2 * MIN_WALL_MM + JOINT_MARGIN_MM  # the dovetail's side, from the cut
    half = board.joint_width_mm / 2 + 2 * MIN_WALL_MM + JOINT_MARGIN_MM
    beside = LABEL_HEIGHT_MM + board.label_stroke_mm + 2 * MIN_WALL_MM  # the clearance's strip, behind the socket
    depth = reach + beside
    plan = TilePlan((2 * cut, 2 * mid), [cut], [], [Joint("x", cut, mid)])
    top = flat_top(board, profile)
    plain = [Slab(0.0, min(top, board.thickness_mm), box(cut - reach, mid - half, cut + depth, mid + half))]
    out = []
    for k, value in enumerate([values[0], *values]):
        tab, socket = tile_stack(plain, plan, board.joint_length_mm, board.joint_width_mm, value)
        if k == 0:  # the dovetail's side: the same for every clearance
            slabs, x0 = tab, cut - reach
        else:
            strip = box(cut + reach, mid - half, cut + depth, mid + half)
            slabs, x0 = labelled(socket, strip, clearance_text(value), board, profile, 90.0), cut
        out.append([Slab(s.z0, s.z1, affinity.translate(s.region, -x0, -(mid - half))) for s in slabs])
    return out
