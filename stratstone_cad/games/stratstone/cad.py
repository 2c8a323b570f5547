"""Stratstone: the board and the 24 pebble stones. Pure functions, params -> CadQuery solids.

Coordinates: the board's lower-left corner is the origin, x grows towards file d,
y towards rank 4, z up from the bed. Stones stand on z = 0, centred on the origin.

A pebble is a loft through closed splines of one seeded outline, scaled along a side
profile (:func:`side_profile`): a flat bottom a little smaller than the widest section,
so the side leans out gently and prints without supports, the widest section at 40 %
of the height, and a shoulder that rounds over into a flat top plateau (it meets the
plateau tangentially, as a real pebble's top does, instead of at a crease). The seed of stone n of colour set c is
``"{seed}:{c}:{n}"``, so every stone is unique and the same parameters give the same
stones.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from stratstone_cad.assets.makers import kernel_free
from stratstone_cad.base.params import Profile, snap_depth, snap_height
from stratstone_cad.games.stratstone.parts import PebbleParams, StratstoneBoard
from stratstone_cad.geometry.boards import Slab, discs, label_strokes, layered, outline, stroke_region
from stratstone_cad.geometry.coupons import cell_coupon, clearance_text
from stratstone_cad.geometry.glyphs import mark_strokes
from stratstone_cad.geometry.marks import MarkSpec
from stratstone_cad.geometry.tiling import TilePlan, tiled
from stratstone_cad.printing.checks import Mesh
from stratstone_cad.printing.stack import stack_mesh

if TYPE_CHECKING:  # CadQuery loads in the functions that use it: building a board never pays for it
    import cadquery as cq

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
_SECTIONS_ABOVE = 6  # sections from the bulge over the shoulder to the plateau
_OUTLINE_POINTS = 36
#: The width of the fit test's stone foot, inside its outline (mm).
FOOT_BAND_MM = 2.4


@dataclass(frozen=True)
class PebbleShape:
    """The pure-Python description of one pebble (mm)."""

    outline: list[tuple[float, float]]  # widest section, closed, counter-clockwise
    height_mm: float
    top_scale: float  # plateau outline = outline * top_scale
    bottom_scale: float  # bed outline = outline * bottom_scale


def pebble_shape(s: PebbleParams, colour: int, index: int, profile: Profile) -> PebbleShape:
    """The seeded outline and height of stone ``index`` of colour set ``colour``."""
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
    atan(pi / 8) = 21 degrees with the limits above). Above it the side rounds over as a
    quarter ellipse, from vertical at the bulge to horizontal at the plateau's edge, so
    the shoulder flows into the flat top without a crease. Sampling the curve densely
    keeps the loft's spline on it (and below the plateau), where three or four sections
    let it swing out past 45 degrees on flat, wide stones.
    """
    h, zb = shape.height_mm, _BULGE_AT * shape.height_mm
    b, t = shape.bottom_scale, shape.top_scale
    out = []
    for i in range(_SECTIONS_BELOW):
        z = zb * i / _SECTIONS_BELOW
        out.append((z, b + (1 - b) * math.sin(math.pi / 2 * z / zb)))
    for i in range(_SECTIONS_ABOVE + 1):
        a = math.pi / 2 * i / _SECTIONS_ABOVE
        out.append((zb + (h - zb) * math.sin(a), t + (1 - t) * math.cos(a)))
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


def stone(shape_params: PebbleParams, set_index: int, index: int, mark: MarkSpec | None, profile: Profile,
          name: str = "stone") -> cq.Shape:
    """Stone ``index`` (0-based) of colour set ``set_index`` (0, 1 = players, 2 = neutral).

    A solid standing on z = 0 with a flat top plateau at its height; ``mark`` is
    engraved into the plateau (None: no mark).
    """
    # start-up speed: CadQuery only where a stone is made: the boards are made while it loads
    import cadquery as cq

    from stratstone_cad.occ.shapes import checked, mark_engraving

    shape = pebble_shape(shape_params, set_index, index, profile)
    sections = side_profile(shape)
    wp = cq.Workplane("XY")
    prev = 0.0
    for z, k in sections:
        wp = wp.workplane(offset=z - prev).spline(_scaled(shape.outline, k), periodic=True).close()
        prev = z
    solid = checked(wp.loft(ruled=False, combine=True).val(), name)
    if mark is not None:
        depth = snap_depth(mark.depth_mm, profile)
        tool = mark_engraving(mark_strokes(mark.kind, mark.size_mm, mark.stroke_mm), mark.stroke_mm,
                              shape.height_mm, depth)
        solid = checked(solid.cut(tool), name)
    return solid


def board_stack(board: StratstoneBoard, recess_diameter_mm: float, profile: Profile, tolerance_mm: float) -> list[Slab]:
    """The whole board (before any tiling) as a stack of slabs: plate, cell recesses,
    engraved coordinates (see :mod:`stratstone_cad.geometry.boards`)."""
    top = snap_height(board.thickness_mm, profile, minimum_layers=3)
    grid = board.grid()
    labels = stroke_region(label_strokes(board.labels(), board.label_height_mm), board.label_stroke_mm)
    return layered([(outline(grid, tolerance_mm), top)],
                   [(discs(grid.centres(), recess_diameter_mm / 2, tolerance_mm),
                     top - snap_depth(board.recess_depth_mm, profile), top),
                    (labels, top - snap_depth(board.engrave_depth_mm, profile), top)])


# --------------------------------------------------------------------------- build makers
# Called by the build as maker(**job.args) (stratstone_cad.games.stratstone.parts plans them);
# each returns its parts in the order of the job's outputs.


def make_stone(shape: PebbleParams, set_index: int, index: int, mark: MarkSpec | None,
               profile: Profile) -> list[cq.Shape]:
    return [stone(shape, set_index, index, mark, profile, f"stone {set_index + 1}-{index + 1}")]


@kernel_free
def make_board(board: StratstoneBoard, recess_diameter_mm: float, profile: Profile, plan: TilePlan,
               tolerance_mm: float) -> list[Mesh]:
    """The board, or its tiles as ``plan`` (made by the plan for a printer) cuts it."""
    stack = board_stack(board, recess_diameter_mm, profile, tolerance_mm)
    return [stack_mesh(t, "stratstone board") for t in tiled(stack, plan, board, profile=profile)]


def fit_recess_stacks(board: StratstoneBoard, footprint_mm: float, clearances: tuple[float, ...], profile: Profile,
                      tolerance_mm: float) -> list[list[Slab]]:
    """The fit test's recesses: the first cell of the board made with each clearance, engraved with it."""
    return [cell_coupon(board_stack(board, footprint_mm + 2 * c, profile, tolerance_mm), board, 0, 0,
                        (footprint_mm + 2 * c, board.recess_depth_mm), clearance_text(c), profile) for c in clearances]


def largest_stone(shape: PebbleParams, sets: int, per_colour: int, profile: Profile) -> tuple[int, int]:
    """(colour set, index) of the set's widest stone: the one its recesses must take."""
    def width(ci: tuple[int, int]) -> float:
        return max(math.hypot(x, y) for x, y in pebble_shape(shape, ci[0], ci[1], profile).outline)

    return max(((c, i) for c in range(sets) for i in range(per_colour)), key=width)


@kernel_free
def make_fit_recesses(board: StratstoneBoard, footprint_mm: float, clearances: tuple[float, ...], profile: Profile,
                      tolerance_mm: float) -> list[Mesh]:
    return [stack_mesh(s, "stone recess coupon") for s in
            fit_recess_stacks(board, footprint_mm, clearances, profile, tolerance_mm)]


def make_fit_stone(shape: PebbleParams, sets: int, per_colour: int, profile: Profile, foot_mm: float) -> list[cq.Shape]:
    """The foot of the set's widest stone (:func:`largest_stone`, made as the set's is): its
    lowest ``foot_mm``, the part that sits in a recess, as a band :data:`FOOT_BAND_MM` wide
    inside its outline (what meets the recess's wall), in a fraction of the stone's print time."""
    import cadquery as cq

    from stratstone_cad.occ.shapes import checked

    c, i = largest_stone(shape, sets, per_colour, profile)
    solid = stone(shape, c, i, None, profile, f"stone {c + 1}-{i + 1}")
    keep = cq.Solid.makeBox(4 * shape.footprint_mm, 4 * shape.footprint_mm, foot_mm,
                            cq.Vector(-2 * shape.footprint_mm, -2 * shape.footprint_mm, 0))
    pebble = pebble_shape(shape, c, i, profile)
    inner = min(math.hypot(x, y) for x, y in pebble.outline) * pebble.bottom_scale - FOOT_BAND_MM
    hole = cq.Solid.makeCylinder(inner, foot_mm + 2.0, cq.Vector(0, 0, -1.0))
    return [checked(solid.intersect(keep).cut(hole), "the largest stone's foot")]


# --------------------------------------------------------------------------- B-rep solids
# The same parts as CadQuery solids (STEP files, stratstone_cad.models): given what the
# make_* function of the same name is given, they return a solid per output. A stone is
# a CadQuery solid already (its print mesh is tessellated from it).


def solid_stone(shape: PebbleParams, set_index: int, index: int, mark: MarkSpec | None,
                profile: Profile) -> list[cq.Shape]:
    return make_stone(shape, set_index, index, mark, profile)


def solid_board(board: StratstoneBoard, recess_diameter_mm: float, profile: Profile, plan: TilePlan,
                tolerance_mm: float) -> list[cq.Shape]:
    """The board (or its tiles) as B-rep solids, from the very slabs its mesh is made of."""
    from stratstone_cad.occ.brep import stack_solid  # CadQuery: only where a solid is asked for

    stack = board_stack(board, recess_diameter_mm, profile, tolerance_mm)
    return [stack_solid(t, "stratstone board") for t in tiled(stack, plan, board, profile=profile)]


def solid_fit_recesses(board: StratstoneBoard, footprint_mm: float, clearances: tuple[float, ...], profile: Profile,
                       tolerance_mm: float) -> list[cq.Shape]:
    from stratstone_cad.occ.brep import stack_solid  # CadQuery: only where a solid is asked for

    return [stack_solid(s, "stone recess coupon") for s in
            fit_recess_stacks(board, footprint_mm, clearances, profile, tolerance_mm)]


def solid_fit_stone(shape: PebbleParams, sets: int, per_colour: int, profile: Profile, foot_mm: float) -> list[cq.Shape]:
    return make_fit_stone(shape, sets, per_colour, profile, foot_mm)
