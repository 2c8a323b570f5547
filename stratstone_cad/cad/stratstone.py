"""Stratstone: the board and the 24 pebble stones. Pure functions, params -> CadQuery solids.

Coordinates: the board's lower-left corner is the origin, x grows towards file d,
y towards rank 4, z up from the bed. Stones stand on z = 0, centred on the origin.

A pebble is a loft through closed splines of one seeded outline, scaled along a side
profile (:func:`side_profile`): a flat bottom a little smaller than the widest section,
so the side leans out gently and prints without supports, the widest section at 40 %
of the height, and a flat top plateau. The seed of stone n of colour set c is
``"{seed}:{c}:{n}"``, so every stone is unique and the same parameters give the same
stones.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import cadquery as cq

from ..params import ParamSet, Printer, Profile, StratstoneParams, snap_depth, snap_height
from .common import checked, engraving, mark_engraving, rounded_rect
from .glyphs import Polyline, centred_text, mark_strokes
from .tiling import TilePlan, cut_tiles, lay_on_bed

# The bottom is up to 5 % narrower than the widest section at 40 % height, and never
# leans out by more than a tenth of the stone's height: the lofted surface then leans
# out at most about 20 degrees from vertical on the default stones and 30 on flat, wide
# ones (the tests check every facet above the first layer against 45 degrees), so
# stones print without supports.
_BOTTOM_INSET = 0.05  # of the radius
_BOTTOM_INSET_PER_HEIGHT = 0.1  # of the height
# The loft bulges a little past its widest section, so the footprint is up to ~2 %
# larger than that section; the plateau is sized with this margin to keep its share.
_FOOTPRINT_MARGIN = 1.04
_BULGE_AT = 0.40
_SECTIONS_BELOW = 2  # sections from the bed up to the bulge (the bulge itself is the next)
_SECTIONS_ABOVE = 3  # sections from the bulge up to the plateau
_OUTLINE_POINTS = 36


@dataclass(frozen=True)
class PebbleShape:
    """The pure-Python description of one pebble (mm)."""

    outline: list[tuple[float, float]]  # widest section, closed, counter-clockwise
    height_mm: float
    top_scale: float  # plateau outline = outline * top_scale
    bottom_scale: float  # bed outline = outline * bottom_scale


def pebble_shape(p: StratstoneParams, colour: int, index: int, profile: Profile) -> PebbleShape:
    """The seeded outline and height of stone ``index`` of colour set ``colour``."""
    s = p.stone
    rng = random.Random(f"{s.seed}:{colour}:{index}")
    harmonics = [(k, s.irregularity * rng.uniform(0.25, 1.0) / k ** 0.6, rng.uniform(0, 2 * math.pi)) for k in (2, 3, 4, 5)]
    squash = 1.0 - s.elongation * rng.uniform(0.0, 1.0)
    turn = rng.uniform(0, math.pi)
    pts = []
    for i in range(_OUTLINE_POINTS):
        t = 2 * math.pi * i / _OUTLINE_POINTS
        r = 1.0 + sum(a * math.cos(k * t + ph) for k, a, ph in harmonics)
        x, y = r * math.cos(t), r * math.sin(t) * squash
        pts.append((x * math.cos(turn) - y * math.sin(turn), x * math.sin(turn) + y * math.cos(turn)))
    # Centre on the outline's area centroid, then scale the widest point to the size.
    _area, cx, cy = _polygon_centroid(pts)
    pts = [(x - cx, y - cy) for x, y in pts]
    size = s.footprint_mm * rng.uniform(s.min_scale, 1.0)
    widest = max(math.hypot(x, y) for x, y in pts)
    # Spline overshoot between points is tiny at 36 points; keep 1 % for it.
    k = size / 2 / widest * 0.99
    pts = [(round(x * k, 5), round(y * k, 5)) for x, y in pts]
    height = snap_height(s.height_mm + rng.uniform(-1, 1) * s.height_variation_mm, profile, minimum_layers=4)
    plateau = (s.plateau_fraction + rng.uniform(0.0, 0.06)) * _FOOTPRINT_MARGIN
    top = math.sqrt(min(plateau, 0.95))
    bottom = 1.0 - min(_BOTTOM_INSET, _BOTTOM_INSET_PER_HEIGHT * height / (size / 2))
    return PebbleShape(pts, height, top, bottom)


def side_profile(shape: PebbleShape) -> list[tuple[float, float]]:
    """(z, scale of the outline) of the loft's sections, bottom to top.

    Below the bulge the side curves out like a quarter sine (steepest at the bed, where
    it leans out by (1 - bottom_scale) x radius over the bulge's height: at most
    atan(pi / 8) = 21 degrees with the limits above); above it the side falls in as a
    parabola to the plateau. Sampling the curve densely keeps the loft's spline on it,
    where three or four sections let it swing out past 45 degrees on flat, wide stones.
    """
    h, zb = shape.height_mm, _BULGE_AT * shape.height_mm
    b, t = shape.bottom_scale, shape.top_scale
    out = []
    for i in range(_SECTIONS_BELOW):
        z = zb * i / _SECTIONS_BELOW
        out.append((z, b + (1 - b) * math.sin(math.pi / 2 * z / zb)))
    for i in range(_SECTIONS_ABOVE + 1):
        u = i / _SECTIONS_ABOVE
        out.append((zb + (h - zb) * u, 1 - (1 - t) * u * u))
    return [(round(z, 6), round(k, 6)) for z, k in out]


def _polygon_centroid(pts: list[tuple[float, float]]) -> tuple[float, float, float]:
    a = cx = cy = 0.0
    for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1], strict=True):
        c = x0 * y1 - x1 * y0
        a += c
        cx += (x0 + x1) * c
        cy += (y0 + y1) * c
    a /= 2
    return a, cx / (6 * a), cy / (6 * a)


def _scaled(pts: list[tuple[float, float]], k: float) -> list[tuple[float, float]]:
    return [(x * k, y * k) for x, y in pts]


def stone(p: StratstoneParams, colour: int, index: int, profile: Profile) -> cq.Shape:
    """Stone ``index`` (0-based) of colour set ``colour`` (0, 1 = players, 2 = neutral).

    A solid standing on z = 0 with a flat top plateau at its height; the set mark is
    engraved into the plateau when ``stone.mark`` is on.
    """
    shape = pebble_shape(p, colour, index, profile)
    sections = side_profile(shape)
    wp = cq.Workplane("XY")
    prev = 0.0
    for z, k in sections:
        wp = wp.workplane(offset=z - prev).spline(_scaled(shape.outline, k), periodic=True).close()
        prev = z
    solid = wp.loft(ruled=False, combine=True).val()
    name = f"stone {p.stone.colours[colour]} {index + 1}"
    solid = checked(solid, name)
    kind = p.stone.marks[colour]
    if p.stone.mark and kind != "none":
        depth = snap_depth(p.stone.mark_depth_mm, profile)
        tool = mark_engraving(mark_strokes(kind, p.stone.mark_size_mm), p.stone.mark_stroke_mm, shape.height_mm, depth)
        solid = checked(solid.cut(tool), name)
    return solid


def coordinate_strokes(p: StratstoneParams) -> list[Polyline]:
    """The engraved coordinates: files a.. under the columns on the near rim, ranks 1..
    beside the rows on the left rim (the engine log's notation, read from the first
    player's side)."""
    b = p.board
    lines: list[Polyline] = []
    for i in range(b.cells):
        x, _ = b.cell_centre(i, 0)
        lines += centred_text("abcdefgh"[i], b.label_height_mm, x, b.rim_width_mm / 2)
        _, y = b.cell_centre(0, i)
        lines += centred_text(str(i + 1), b.label_height_mm, b.rim_width_mm / 2, y)
    return lines


def board_solid(p: StratstoneParams, profile: Profile) -> cq.Shape:
    """The whole board (before any tiling): plate, cell recesses, engraved coordinates."""
    b = p.board
    size = b.size_mm
    top = snap_height(b.thickness_mm, profile, minimum_layers=3)
    depth = snap_depth(b.recess_depth_mm, profile)
    solid = rounded_rect(0, 0, size, size, b.corner_radius_mm, 0, top)
    centres = [b.cell_centre(f, r) for f in range(b.cells) for r in range(b.cells)]
    pockets = (cq.Workplane("XY").workplane(offset=top - depth).pushPoints(centres)
               .circle(p.recess_diameter_mm / 2).extrude(depth + 1.0))
    solid = solid.cut(pockets.val())
    tool = engraving(coordinate_strokes(p), b.label_stroke_mm, top, snap_depth(b.engrave_depth_mm, profile))
    return checked(solid.cut(tool), "stratstone board")


# --------------------------------------------------------------------------- build makers
# Called by the build (stratstone_cad.catalog names them); each returns its parts in
# the order of the job's outputs.


def make_stone(ps: ParamSet, printer: Printer, profiles: dict[str, Profile], colour: int, index: int) -> list[cq.Shape]:
    return [stone(ps.stratstone, colour, index, profiles["piece"])]


def make_board(ps: ParamSet, printer: Printer, profiles: dict[str, Profile], plan: TilePlan) -> list[cq.Shape]:
    """The board, or its tiles as ``plan`` (made by the catalog for ``printer``) cuts it."""
    b = ps.stratstone.board
    solid = board_solid(ps.stratstone, profiles["board"])
    if plan.count == 1:
        return [solid]
    return lay_on_bed(cut_tiles(solid, plan, b.joint_length_mm, b.joint_width_mm, b.joint_clearance_mm), plan)
