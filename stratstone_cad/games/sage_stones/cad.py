"""Sage Stones: the board with a well per cell, the printable gems and the dice.

Board coordinates as in :mod:`stratstone_cad.geometry.boards`: column 3 on the left, row 1
nearest, z up from the bed. A gem stands on z = 0 centred on the origin: a straight side
``edge_height_mm`` high, then a spherical dome up to a flat top at the gem's height, its
colour's mark engraved in the top. Both are built from 2D regions with manifold3d (see
:mod:`stratstone_cad.geometry.boards` for why), not CadQuery. A die stands on z = 0
centred on the origin: the hull of a sphere in each corner (a cube with rounded edges
and corners) less its pips, cylinders of :func:`~stratstone_cad.games.sage_stones.parts.die_pips`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from stratstone_cad.assets.makers import kernel_free
from stratstone_cad.base.params import Profile, snap_depth, snap_height
from stratstone_cad.games.sage_stones.parts import DieShape, GemShape, Pip, SageBoard, die_pips, die_size
from stratstone_cad.geometry.boards import (
    Slab,
    circle_segments,
    discs,
    label_strokes,
    layered,
    mark_region,
    outline,
    stroke_region,
)
from stratstone_cad.geometry.coupons import cell_coupon, clearance_text, joint_coupons
from stratstone_cad.geometry.glyphs import mark_strokes
from stratstone_cad.geometry.marks import MarkSpec
from stratstone_cad.geometry.tiling import TilePlan, tiled
from stratstone_cad.printing.checks import Mesh
from stratstone_cad.printing.stack import manifold_mesh, prism, stack_mesh

if TYPE_CHECKING:  # CadQuery loads in the functions that use it: building a board never pays for it
    import cadquery as cq


#: The width of the fit test's gem foot, inside its side (mm).
FOOT_BAND_MM = 2.4


def board_stack(board: SageBoard, well_diameter_mm: float, profile: Profile, tolerance_mm: float) -> list[Slab]:
    """The whole board (before any tiling) as a stack of slabs: plate, 63 wells, numbers
    and wrap arrows (see :mod:`stratstone_cad.geometry.boards`)."""
    top = snap_height(board.thickness_mm, profile, minimum_layers=3)
    grid = board.grid()
    marks = stroke_region(label_strokes(board.labels(), board.label_height_mm) + board.arrows(), board.label_stroke_mm)
    return layered([(outline(grid, tolerance_mm), top)],
                   [(discs(grid.centres(), well_diameter_mm / 2, tolerance_mm),
                     top - snap_depth(board.well_depth_mm, profile), top),
                    (marks, top - snap_depth(board.engrave_depth_mm, profile), top)])


def dome(shape: GemShape, height: float) -> tuple[float, float]:
    """(centre z, radius) of the sphere through the side's top edge and the flat top's edge."""
    a, b, e = shape.diameter_mm / 2, shape.top_diameter_mm / 2, shape.edge_height_mm
    c = (a * a - b * b + e * e - height * height) / (2 * (e - height))
    return c, math.hypot(a, e - c)


def gem_profile(shape: GemShape, height: float, tolerance_mm: float, angle_deg: float) -> list[tuple[float, float]]:
    """The gem's half section (r, z), counter-clockwise from the axis at the bed: the flat
    bottom, the straight side, the dome as an arc of ``dome`` sampled so that every chord
    stays within ``tolerance_mm`` of it and turns by at most ``angle_deg``, the flat top."""
    a, b, e = shape.diameter_mm / 2, shape.top_diameter_mm / 2, shape.edge_height_mm
    c, r = dome(shape, height)
    t0, t1 = math.atan2(e - c, a), math.atan2(height - c, b)
    step = min(math.radians(angle_deg), 2 * math.acos(max(-1.0, 1 - tolerance_mm / r)))
    n = max(2, math.ceil((t1 - t0) / step))
    arc = [(r * math.cos(t0 + (t1 - t0) * i / n), c + r * math.sin(t0 + (t1 - t0) * i / n)) for i in range(1, n)]
    return [(0.0, 0.0), (a, 0.0), (a, e), *arc, (b, height), (0.0, height)]


def gem(shape: GemShape, mark: MarkSpec | None, profile: Profile, tolerance_mm: float, angle_deg: float,
        foot_mm: float | None = None) -> Mesh:
    """One gem standing on z = 0: a revolved side-and-dome section (see :func:`gem_profile`)
    with its mark engraved in the flat top. Built from 2D regions with manifold3d, like
    the boards: the mark's floor and the top are exact planes on the layers, the round
    surfaces polygons within ``tolerance_mm`` whose neighbouring facets turn by at most
    ``angle_deg``. With ``foot_mm``, only the gem's lowest ``foot_mm``, a band
    :data:`FOOT_BAND_MM` wide inside its side (the fit test's gem: what meets a well's wall)."""
    # start-up speed: manifold3d only where a mesh is made
    import manifold3d

    height = snap_height(shape.height_mm, profile, minimum_layers=4)
    section = manifold3d.CrossSection([gem_profile(shape, height, tolerance_mm, angle_deg)])
    around = max(circle_segments(shape.diameter_mm / 2, tolerance_mm), 4 * math.ceil(90 / angle_deg))
    body = manifold3d.Manifold.revolve(section, around)
    if mark is not None:
        depth = snap_depth(mark.depth_mm, profile)
        region = mark_region(mark_strokes(mark.kind, mark.size_mm, mark.stroke_mm), mark.stroke_mm,
                             math.ceil(90 / angle_deg))
        body = body - prism(region, height - depth, height + 1.0)
    if foot_mm is not None:  # the fit test's gem: its foot, a band inside its side
        body = body.trim_by_plane((0.0, 0.0, -1.0), -foot_mm) - manifold3d.Manifold.cylinder(
            foot_mm + 2.0, shape.diameter_mm / 2 - FOOT_BAND_MM, circular_segments=around).translate((0.0, 0.0, -1.0))
    return manifold_mesh(body, "gem")


def pip_segments(shape: DieShape, pips: list[Pip], tolerance_mm: float) -> int:
    """One number of sides for every pip's polygon, within ``tolerance_mm`` of the widest
    pip's circle (a multiple of 4, so a pip in a side face has a corner at its top and no
    facet level with the layers): the polygons' areas then keep the circles' ratios, and
    every face's pips remove the same volume in the mesh too."""
    return circle_segments(max(p.diameter_mm for p in pips) / 2, tolerance_mm)


#: How a pip's cutter, a cylinder standing on the origin along z, turns to point its axis
#: out of the pip's face: degrees about x, y and z (one of them turns).
_PIP_TURNS = {"+z": (0.0, 0.0, 0.0), "-z": (180.0, 0.0, 0.0), "+x": (0.0, 90.0, 0.0), "-x": (0.0, -90.0, 0.0),
              "+y": (-90.0, 0.0, 0.0), "-y": (90.0, 0.0, 0.0)}
#: How far a pip's cutter reaches out of its face (mm): a clean cut through the surface.
_PIP_OUTSIDE_MM = 1.0


def die(shape: DieShape, profile: Profile, tolerance_mm: float) -> Mesh:
    """One die standing on z = 0, centred on the origin in x and y: the convex hull of
    eight spheres of the edge radius (every flat face an exact plane, the edges and corners
    polygons within ``tolerance_mm``), less its pips."""
    # start-up speed: manifold3d only where a mesh is made
    import manifold3d

    size, r = die_size(shape, profile), shape.edge_radius_mm
    ball = manifold3d.Manifold.sphere(r, circle_segments(r, tolerance_mm))
    c = size / 2 - r
    body = manifold3d.Manifold.batch_hull([ball.translate((x, y, z)) for x in (-c, c) for y in (-c, c)
                                           for z in (r, size - r)])
    pips = die_pips(shape, profile)
    n = pip_segments(shape, pips, tolerance_mm)
    cuts = []
    for pip in pips:
        cyl = manifold3d.Manifold.cylinder(_PIP_OUTSIDE_MM + pip.depth_mm, pip.diameter_mm / 2, pip.diameter_mm / 2, n)
        cuts.append(cyl.translate((0.0, 0.0, -pip.depth_mm)).rotate(_PIP_TURNS[pip.face]).translate(pip.centre))
    return manifold_mesh(body - manifold3d.Manifold.batch_boolean(cuts, manifold3d.OpType.Add), "die")


# --------------------------------------------------------------------------- build makers


@kernel_free
def make_board(board: SageBoard, well_diameter_mm: float, profile: Profile, plan: TilePlan,
               tolerance_mm: float) -> list[Mesh]:
    stack = board_stack(board, well_diameter_mm, profile, tolerance_mm)
    return [stack_mesh(t, "sage stones board") for t in tiled(stack, plan, board, profile=profile)]


@kernel_free
def make_gem(shape: GemShape, mark: MarkSpec | None, profile: Profile, tolerance_mm: float,
             angular_tolerance_deg: float) -> list[Mesh]:
    return [gem(shape, mark, profile, tolerance_mm, angular_tolerance_deg)]


@kernel_free
def make_die(shape: DieShape, profile: Profile, tolerance_mm: float) -> list[Mesh]:
    return [die(shape, profile, tolerance_mm)]


def fit_well_stacks(board: SageBoard, gem_diameter_mm: float, clearances: tuple[float, ...], profile: Profile,
                    tolerance_mm: float) -> list[list[Slab]]:
    """The fit test's gem wells: the first cell of the board made with each clearance, engraved with it."""
    return [cell_coupon(board_stack(board, gem_diameter_mm + 2 * c, profile, tolerance_mm), board, 0, 0,
                        (gem_diameter_mm + 2 * c, board.well_depth_mm), clearance_text(c), profile) for c in clearances]


def fit_joint_stacks(board: SageBoard, clearances: tuple[float, ...], profile: Profile) -> list[list[Slab]]:
    """The fit test's tile joint: the dovetail's side, then the socket's side at each clearance."""
    return joint_coupons(board, clearances, profile)


@kernel_free
def make_fit_wells(board: SageBoard, gem_diameter_mm: float, clearances: tuple[float, ...], profile: Profile,
                   tolerance_mm: float) -> list[Mesh]:
    return [stack_mesh(s, "gem well coupon") for s in
            fit_well_stacks(board, gem_diameter_mm, clearances, profile, tolerance_mm)]


@kernel_free
def make_fit_gem(shape: GemShape, profile: Profile, tolerance_mm: float, angular_tolerance_deg: float,
                 foot_mm: float) -> list[Mesh]:
    """The fit test's gem: the set's gem (as :func:`make_gem` makes it) up to ``foot_mm``, what sits in a well."""
    return [gem(shape, None, profile, tolerance_mm, angular_tolerance_deg, foot_mm)]


@kernel_free
def make_fit_joint(board: SageBoard, clearances: tuple[float, ...], profile: Profile) -> list[Mesh]:
    return [stack_mesh(s, "tile joint coupon") for s in fit_joint_stacks(board, clearances, profile)]


# --------------------------------------------------------------------------- B-rep solids
# The same parts as CadQuery solids (STEP files, stratstone_cad.models), given what the
# make_* function of the same name is given: one solid per output.


def solid_board(board: SageBoard, well_diameter_mm: float, profile: Profile, plan: TilePlan,
                tolerance_mm: float) -> list[cq.Shape]:
    """The board (or its tiles) as B-rep solids, from the very slabs its mesh is made of."""
    from stratstone_cad.occ.brep import stack_solid  # CadQuery: only where a solid is asked for

    stack = board_stack(board, well_diameter_mm, profile, tolerance_mm)
    return [stack_solid(t, "sage stones board") for t in tiled(stack, plan, board, profile=profile)]


def solid_gem(shape: GemShape, mark: MarkSpec | None, profile: Profile, tolerance_mm: float,
              angular_tolerance_deg: float) -> list[cq.Shape]:
    """The gem as a B-rep: the section of :func:`gem_profile` revolved, its dome a true
    arc of :func:`dome` (the mesh's facets are chords of it, within ``tolerance_mm``), the
    mark's region (the mesh's polygons) engraved by one cut."""
    import cadquery as cq

    from stratstone_cad.occ.brep import region_prism
    from stratstone_cad.occ.shapes import checked

    height = snap_height(shape.height_mm, profile, minimum_layers=4)
    a, b, e = shape.diameter_mm / 2, shape.top_diameter_mm / 2, shape.edge_height_mm
    c, r = dome(shape, height)
    t0, t1 = math.atan2(e - c, a), math.atan2(height - c, b)
    mid = (r * math.cos((t0 + t1) / 2), c + r * math.sin((t0 + t1) / 2))
    # the XZ workplane: local (x, y) is (r, z); revolved about its local y, the z axis
    section = (cq.Workplane("XZ").moveTo(0.0, 0.0).lineTo(a, 0.0).lineTo(a, e).threePointArc(mid, (b, height))
               .lineTo(0.0, height).close())
    body = checked(section.revolve(360.0, (0.0, 0.0, 0.0), (0.0, 1.0, 0.0)).val(), "gem")
    if mark is not None:
        depth = snap_depth(mark.depth_mm, profile)
        region = mark_region(mark_strokes(mark.kind, mark.size_mm, mark.stroke_mm), mark.stroke_mm,
                             math.ceil(90 / angular_tolerance_deg))
        body = checked(body.cut(region_prism(region, height - depth, height + 1.0)), "gem")
    return [body]


def solid_die(shape: DieShape, profile: Profile, tolerance_mm: float) -> list[cq.Shape]:
    """The die as a B-rep: a cube with every edge filleted at the edge radius (round
    edges, spherical corners: the solid the mesh's hull of spheres approximates), less its
    pips as true cylinders."""
    import cadquery as cq

    from stratstone_cad.occ.shapes import checked

    size = die_size(shape, profile)
    body = cq.Workplane("XY").box(size, size, size, centered=(True, True, False)).edges() \
        .fillet(shape.edge_radius_mm).val()
    for pip in die_pips(shape, profile):
        cyl = cq.Solid.makeCylinder(pip.diameter_mm / 2, _PIP_OUTSIDE_MM + pip.depth_mm, cq.Vector(0, 0, -pip.depth_mm))
        for axis, angle in zip(((1, 0, 0), (0, 1, 0), (0, 0, 1)), _PIP_TURNS[pip.face], strict=True):
            if angle:
                cyl = cyl.rotate(cq.Vector(0, 0, 0), cq.Vector(*axis), angle)
        body = body.cut(cyl.translate(cq.Vector(*pip.centre)))
    return [checked(body, "die")]


def solid_fit_wells(board: SageBoard, gem_diameter_mm: float, clearances: tuple[float, ...], profile: Profile,
                    tolerance_mm: float) -> list[cq.Shape]:
    from stratstone_cad.occ.brep import stack_solid  # CadQuery: only where a solid is asked for

    return [stack_solid(s, "gem well coupon") for s in
            fit_well_stacks(board, gem_diameter_mm, clearances, profile, tolerance_mm)]


def solid_fit_joint(board: SageBoard, clearances: tuple[float, ...], profile: Profile) -> list[cq.Shape]:
    from stratstone_cad.occ.brep import stack_solid  # CadQuery: only where a solid is asked for

    return [stack_solid(s, "tile joint coupon") for s in fit_joint_stacks(board, clearances, profile)]


def solid_fit_gem(shape: GemShape, profile: Profile, tolerance_mm: float, angular_tolerance_deg: float,
                  foot_mm: float) -> list[cq.Shape]:
    import cadquery as cq

    from stratstone_cad.occ.shapes import checked

    (body,) = solid_gem(shape, None, profile, tolerance_mm, angular_tolerance_deg)
    keep = cq.Solid.makeBox(2 * shape.diameter_mm, 2 * shape.diameter_mm, foot_mm,
                            cq.Vector(-shape.diameter_mm, -shape.diameter_mm, 0))
    hole = cq.Solid.makeCylinder(shape.diameter_mm / 2 - FOOT_BAND_MM, foot_mm + 2.0, cq.Vector(0, 0, -1.0))
    return [checked(body.intersect(keep).cut(hole), "the gem's foot")]
