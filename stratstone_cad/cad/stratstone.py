"""Stratstone: the board and the 24 pebble stones. Pure functions, params -> CadQuery solids.

Coordinates: the board's lower-left corner is the origin, x grows towards file d,
y towards rank 4, z up from the bed. Stones stand on z = 0, centred on the origin.

A pebble is a loft through four closed splines: the bottom outline (z = 0, flat, a
little smaller than the widest section so the side leans out gently and prints
without supports), the widest section, a shoulder, and the flat top plateau. All
four are the same seeded outline, scaled; the seed of stone n of colour set c is
``"{seed}:{c}:{n}"``, so every stone is unique and the same parameters give the same
stones.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import cadquery as cq

from ..params import ParamSet, Printer, Profile, StratstoneParams
from .common import checked, engraving, mark_engraving, rounded_rect, snap_depth, snap_height
from .glyphs import Polyline, centred_text, mark_strokes
from .tiling import cut_tiles, lay_on_bed, plan_tiles

# Section heights as fractions of the stone height and their scales of the outline.
# The bottom is 5 % narrower than the widest section at 40 % height; the lofted
# surface then leans out at most about 36 degrees from vertical anywhere (the test
# suite checks every facet against 45 degrees), so stones print without supports.
_BOTTOM_SCALE = 0.95
_BULGE_AT = 0.40
_SHOULDER_AT = 0.75
_OUTLINE_POINTS = 36


@dataclass(frozen=True)
class PebbleShape:
    """The pure-Python description of one pebble (mm)."""

    outline: list[tuple[float, float]]  # widest section, closed, counter-clockwise
    height_mm: float
    top_scale: float  # plateau outline = outline * top_scale
    shoulder_scale: float


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
    plateau = s.plateau_fraction + rng.uniform(0.0, 0.08)
    top = math.sqrt(min(plateau, 0.95))
    return PebbleShape(pts, height, top, (1.0 + top) / 2 + 0.02)


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
    h = shape.height_mm
    sections = [
        (0.0, _BOTTOM_SCALE),
        (_BULGE_AT * h, 1.0),
        (_SHOULDER_AT * h, shape.shoulder_scale),
        (h, shape.top_scale),
    ]
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
        tool = mark_engraving(mark_strokes(kind, p.stone.mark_size_mm), p.stone.mark_stroke_mm, h, depth)
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


def make_board(ps: ParamSet, printer: Printer, profiles: dict[str, Profile]) -> list[cq.Shape]:
    """The board, or its tiles when it does not fit ``printer``'s bed."""
    p = ps.stratstone
    b = p.board
    solid = board_solid(p, profiles["board"])
    plan = plan_tiles((b.size_mm, b.size_mm), printer, b.joint_length_mm, b.joint_width_mm,
                      (b.wall_lines_mm(), b.wall_lines_mm()), what="Stratstone board")
    if plan.count == 1:
        return [solid]
    return lay_on_bed(cut_tiles(solid, plan, b.joint_length_mm, b.joint_width_mm, b.joint_clearance_mm), plan)
