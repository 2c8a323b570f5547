"""The terrain game: the terrain board from a heightmap, and the Runner, Lancer and Guardian.

The board is a stack of slabs (see :mod:`stratstone_cad.geometry.boards`): the base with the
rim's engraved coordinates, then a column per cell up to its level, start frames
engraved into their cells' tops. Tiles are cut on the cell boundaries with the
dovetails in the base only (under the cells; each socket a pocket a layer taller than
its dovetail), so the terrain above is never notched.

Pieces stand on z = 0 centred on the origin; their marks are a 2D region
(:func:`stratstone_cad.games.terrain.parts.mark_region`) engraved into each marked face with
vertical walls and a floor parallel to the face, so nothing overhangs. Boards and pieces are made of flat
faces and built without CadQuery (see :mod:`stratstone_cad.geometry.boards` for why).
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from typing import TYPE_CHECKING, Any

import shapely
from shapely.geometry import box

from stratstone_cad.assets.makers import kernel_free
from stratstone_cad.base.params import MIN_WALL_MM, Profile, snap_depth, snap_height
from stratstone_cad.games.terrain.parts import PieceBody, PieceMark, TerrainBoard, heights, mark_region
from stratstone_cad.geometry.boards import GridBoard, Slab, circle_segments, disc, label_strokes, layered, outline, stroke_region
from stratstone_cad.geometry.coupons import RING_MM, TAB_MM, clearance_text, flat_top, label_strip, labelled
from stratstone_cad.geometry.glyphs import centred_text
from stratstone_cad.geometry.tiling import TilePlan, tiled
from stratstone_cad.printing.checks import Mesh
from stratstone_cad.printing.stack import face_prism, manifold_mesh, prism, stack_mesh

#: The side of the square of cells the kit frame's coupon is cut round (mm): a piece of tile
#: large enough to lift out of its frame with a fingernail, small enough to print in minutes.
FIT_SPAN_MM = 8.0

if TYPE_CHECKING:  # CadQuery loads in the functions that use it: building a board never pays for it
    import cadquery as cq


def board_stack(board: TerrainBoard, heightmap: tuple[tuple[int, ...], ...], profile: Profile,
                tolerance_mm: float) -> list[Slab]:
    """The whole board (before any tiling) as a stack of slabs. ``heightmap[rank][file]``:
    ``heightmap[0][0]`` is a1, as in the engine log."""
    base, step = heights(board, profile)
    grid = board.grid()
    by_level: dict[int, list] = defaultdict(list)
    for r, row in enumerate(heightmap):
        for f, level in enumerate(row):
            if level > 0:
                by_level[level].append(box(*grid.cell_box(f, r)))
    columns = [(outline(grid, tolerance_mm), base)]
    columns += [(shapely.union_all(cells), base + level * step) for level, cells in sorted(by_level.items())]
    depth = snap_depth(board.engrave_depth_mm, profile)
    labels = stroke_region(label_strokes(board.labels(), board.label_height_mm), board.label_stroke_mm)
    cuts = [(labels, base - depth, base)]
    for (f, r), lines in sorted(board.frames().items()):
        top = base + heightmap[r][f] * step
        cuts.append((stroke_region(lines, board.label_stroke_mm), top - depth, top))
    return layered(columns, cuts)


def kit_tile_stack(board: TerrainBoard, clearance_mm: float, mark_height_mm: float, design: tuple[tuple[int, ...], ...],
                   mark: str, profile: Profile) -> list[Slab]:
    """A kit tile as a stack of slabs: a 5 x 5 quadrant of the board without its rim
    (``design[row][col]``, row 0 its own south edge), each cell a column at its level as on
    the board, its sides in by half the kit's clearance; under it, engraved and mirrored to
    read from below, the design's letter and an arrow to the tile's own north (its turn).

    A shell as the board is when ``board.shell`` (:func:`stratstone_cad.geometry.shells.shelled`:
    the same tops, a wall under a cell edge where a ceiling needs it), except under the mark: the rectangles
    around the letter and around the arrow stay solid from the bed up (``within`` leaves
    them out, and the shell keeps its wall from each stroke), so the engraving is cut into
    flat faces of its own and reads as on the solid tile (a cavity beside a stroke would
    leave the letter a groove along a thin rib)."""
    from stratstone_cad.geometry.shells import Shell, shelled

    solid, mark_box = _kit_tile_solid(board, clearance_mm, mark_height_mm, design, mark, profile)
    if not board.shell:
        return solid
    n, pitch = len(design), board.cell_pitch_mm
    shell = Shell.of(board.shell_top_layers, board.shell_wall_extrusions, profile)
    lowest = profile.first_layer_height_mm + profile.layer_height_mm  # as tiled() hollows a board
    return shelled(solid, GridBoard(n, n, pitch, 0.0, 0.0), shell, lowest, box(0, 0, n * pitch, n * pitch).difference(mark_box))


def _kit_tile_solid(board: TerrainBoard, clearance_mm: float, mark_height_mm: float,
                    design: tuple[tuple[int, ...], ...], mark: str, profile: Profile) -> tuple[list[Slab], Any]:
    """The solid kit tile's stack (:func:`kit_tile_stack`) and the rectangle of its mark."""
    from shapely import affinity

    base, step = heights(board, profile)
    pitch, n = board.cell_pitch_mm, len(design)
    side = n * pitch
    tile = tile_outline(box(0, 0, side, side), clearance_mm)
    by_level: dict[int, list] = defaultdict(list)
    for r, row in enumerate(design):
        for c, level in enumerate(row):
            if level > 0:
                by_level[level].append(box(c * pitch, r * pitch, (c + 1) * pitch, (r + 1) * pitch))
    columns = [(tile, base)] + [(shapely.union_all(cells).intersection(tile).simplify(0), base + level * step)
                                for level, cells in sorted(by_level.items())]
    h = mark_height_mm
    arrow = [[(side / 2 + h, side / 2 - h), (side / 2 + h, side / 2 + h)],
             [(side / 2 + h * 0.6, side / 2 + h * 0.6), (side / 2 + h, side / 2 + h), (side / 2 + h * 1.4, side / 2 + h * 0.6)]]
    region = stroke_region(centred_text(mark, h, side / 2 - h * 0.6, side / 2) + arrow, board.label_stroke_mm)
    under = affinity.scale(region, -1.0, 1.0, origin=(side / 2, side / 2))  # read from below, north kept
    stack = layered(columns, [(under, 0.0, snap_depth(board.engrave_depth_mm, profile))])
    return stack, shapely.union_all([box(*g.bounds) for g in getattr(under, "geoms", [under])])


def tile_outline(cells: Any, clearance_mm: float) -> Any:
    """A kit tile's outline: the square of its cells (a shapely box) in by half the kit's
    clearance on every side; the frame's opening takes the other half (:func:`frame_opening`)."""
    return _grown(cells, -clearance_mm / 2)


def frame_opening(cells: Any, clearance_mm: float) -> Any:
    """The kit frame's opening: the square of the cells (a shapely box) out by half the
    kit's clearance on every side, so a tile (:func:`tile_outline`) lies in it with the
    clearance between its side and the frame's."""
    return _grown(cells, clearance_mm / 2)


def _grown(square: Any, by: float) -> Any:
    """The box ``square`` out by ``by`` mm on every side (in where negative)."""
    x0, y0, x1, y1 = square.bounds
    return box(x0 - by, y0 - by, x1 + by, y1 + by)


def fit_frame_stacks(board: TerrainBoard, value: float, clearances: tuple[float, ...],
                     profile: Profile) -> list[list[Slab]]:
    """The fit test's kit frame (:mod:`stratstone_cad.assets.fit_test`): a piece of tile, a
    :data:`FIT_SPAN_MM` square of cells in by half the kit's clearance ``value`` as a kit tile
    is (:func:`tile_outline`); then for each of ``clearances`` a small frame round that square,
    opened as the kit's frame is (:func:`frame_opening`) so far that the piece laid in it
    leaves that clearance on every side, the gap a tile leaves against the kit's frame when
    the kit is made with it; the clearance engraved on a tab below. Each as high as
    :func:`~stratstone_cad.geometry.coupons.flat_top` (the fit is in the plane), moved to the origin."""
    from shapely import affinity

    top = flat_top(board, profile)
    square = box(0.0, 0.0, FIT_SPAN_MM, FIT_SPAN_MM)
    stacks = [[Slab(0.0, top, tile_outline(square, value))]]
    width = TAB_MM + board.label_stroke_mm + 2 * MIN_WALL_MM
    for c in clearances:
        opening = frame_opening(square, 2 * c - value)  # the piece is in by value / 2: the frame takes the rest
        ring = opening.buffer(RING_MM, join_style="mitre").difference(opening)
        x0, y0, x1, _ = ring.bounds
        mid = (x0 + x1) / 2
        tab = box(min(x0, mid - width / 2), y0 - label_strip(board), max(x1, mid + width / 2), y0 + RING_MM / 2)
        stacks.append(labelled([Slab(0.0, top, ring)], tab, clearance_text(c), board, profile))
    out = []
    for stack in stacks:
        x0, y0 = min(s.region.bounds[0] for s in stack), min(s.region.bounds[1] for s in stack)
        out.append([Slab(s.z0, s.z1, affinity.translate(s.region, -x0, -y0)) for s in stack])
    return out


def _solid_frame(board: TerrainBoard) -> TerrainBoard:
    """The board's parameters for the kit's frame: printed solid (a rim 3 mm tall leaves no
    room for a shell's top and walls over a cavity)."""
    return dataclasses.replace(board, shell=False)


def kit_frame_stack(board: TerrainBoard, clearance_mm: float, profile: Profile, tolerance_mm: float) -> list[Slab]:
    """The kit's frame as a stack of slabs: the board's rim alone, as tall as the tiles'
    base, its coordinates engraved on top; inside it the 10 x 10 cells' square opened by
    half the kit's clearance, where the four tiles lie in any arrangement."""
    base, _ = heights(board, profile)
    grid = board.grid()
    x0, y0, _, _ = grid.cell_box(0, 0)
    _, _, x1, y1 = grid.cell_box(grid.cols - 1, grid.rows - 1)
    ring = outline(grid, tolerance_mm).difference(frame_opening(box(x0, y0, x1, y1), clearance_mm)).simplify(0)
    labels = stroke_region(label_strokes(board.labels(), board.label_height_mm), board.label_stroke_mm)
    return layered([(ring, base)], [(labels, base - snap_depth(board.engrave_depth_mm, profile), base)])


def piece(body: PieceBody, mark: PieceMark, profile: Profile, tolerance_mm: float, angle_deg: float) -> Mesh:
    """A piece standing on z = 0 with its mark on its top (Runner) or on its four sides.

    Built from flat faces (see :mod:`stratstone_cad.printing.stack`): a square frustum is
    exact; the Runner's cylinder and the marks' round ends are polygons within
    ``tolerance_mm`` of the circle whose neighbouring sides turn by ``angle_deg`` at most.
    """
    # start-up speed: manifold3d only where a mesh is made
    import manifold3d

    height = snap_height(body.height_mm, profile, minimum_layers=4)
    if body.round:
        r = body.base_mm / 2
        n = max(circle_segments(r, tolerance_mm), 4 * math.ceil(90 / angle_deg))
        solid = prism(disc((0.0, 0.0), r, tolerance_mm, hole=False, segments=n), 0.0, height)
        depth = snap_depth(mark.relief_mm, profile)  # the top's relief lands on a layer boundary
    else:
        solid = manifold3d.CrossSection.square((body.base_mm, body.base_mm), center=True).extrude(
            height, scale_top=(body.top_mm / body.base_mm, body.top_mm / body.base_mm))
        depth = mark.relief_mm  # a side's relief has no horizontal face
    region = mark_region(mark, body.mark_centre(mark), quad_segs=math.ceil(90 / angle_deg))
    tools = []
    for origin, u, v in body.faces(height):
        n_z = u[0] * v[1] - u[1] * v[0]  # the face normal's z: a vertical offset dz moves the face by dz x n_z
        tools.append(face_prism(region, origin, u, v, -depth / n_z, 1.0))  # from the floor up into the air
    body_mesh = manifold3d.Manifold.batch_boolean([solid, *tools], manifold3d.OpType.Subtract)
    return manifold_mesh(body_mesh, f"{body.kind} ({mark.symbol})")


# --------------------------------------------------------------------------- build makers


@kernel_free
def make_board(board: TerrainBoard, heightmap: tuple[tuple[int, ...], ...], profile: Profile, plan: TilePlan,
               tolerance_mm: float) -> list[Mesh]:
    base, _ = heights(board, profile)
    stack = board_stack(board, heightmap, profile, tolerance_mm)
    tiles = tiled(stack, plan, board, joint_top=base, socket_top=base + profile.layer_height_mm,
                  profile=profile)
    return [stack_mesh(t, "terrain board") for t in tiles]


@kernel_free
def make_kit_tile(board: TerrainBoard, clearance_mm: float, mark_height_mm: float,
                  design: tuple[tuple[int, ...], ...], mark: str, profile: Profile) -> list[Mesh]:
    return [stack_mesh(kit_tile_stack(board, clearance_mm, mark_height_mm, design, mark, profile), f"kit tile {mark}")]


@kernel_free
def make_kit_frame(board: TerrainBoard, clearance_mm: float, profile: Profile, plan: TilePlan,
                   tolerance_mm: float) -> list[Mesh]:
    base, _ = heights(board, profile)
    tiles = tiled(kit_frame_stack(board, clearance_mm, profile, tolerance_mm), plan, _solid_frame(board), joint_top=base,
                  socket_top=base + profile.layer_height_mm, profile=profile)
    return [stack_mesh(t, "kit frame") for t in tiles]


@kernel_free
def make_fit_frame(board: TerrainBoard, value: float, clearances: tuple[float, ...], profile: Profile) -> list[Mesh]:
    return [stack_mesh(s, "kit frame coupon") for s in fit_frame_stacks(board, value, clearances, profile)]


@kernel_free
def make_piece(body: PieceBody, mark: PieceMark, profile: Profile, tolerance_mm: float,
               angular_tolerance_deg: float) -> list[Mesh]:
    return [piece(body, mark, profile, tolerance_mm, angular_tolerance_deg)]


# --------------------------------------------------------------------------- B-rep solids
# The same parts as CadQuery solids (STEP files, stratstone_cad.models), given what the
# make_* function of the same name is given: one solid per output.


def solid_board(board: TerrainBoard, heightmap: tuple[tuple[int, ...], ...], profile: Profile, plan: TilePlan,
                tolerance_mm: float) -> list[cq.Shape]:
    """The board (or its tiles) as B-rep solids, from the very slabs its mesh is made of."""
    from stratstone_cad.occ.brep import stack_solid  # CadQuery: only where a solid is asked for

    base, _ = heights(board, profile)
    stack = board_stack(board, heightmap, profile, tolerance_mm)
    tiles = tiled(stack, plan, board, joint_top=base, socket_top=base + profile.layer_height_mm,
                  profile=profile)
    return [stack_solid(t, "terrain board") for t in tiles]


def solid_kit_tile(board: TerrainBoard, clearance_mm: float, mark_height_mm: float,
                   design: tuple[tuple[int, ...], ...], mark: str, profile: Profile) -> list[cq.Shape]:
    """The kit tile as a B-rep solid, from the very slabs its mesh is made of."""
    from stratstone_cad.occ.brep import stack_solid  # CadQuery: only where a solid is asked for

    return [stack_solid(kit_tile_stack(board, clearance_mm, mark_height_mm, design, mark, profile), f"kit tile {mark}")]


def solid_kit_frame(board: TerrainBoard, clearance_mm: float, profile: Profile, plan: TilePlan,
                    tolerance_mm: float) -> list[cq.Shape]:
    """The kit's frame (or its pieces) as B-rep solids, from the very slabs its mesh is made of."""
    from stratstone_cad.occ.brep import stack_solid  # CadQuery: only where a solid is asked for

    base, _ = heights(board, profile)
    tiles = tiled(kit_frame_stack(board, clearance_mm, profile, tolerance_mm), plan, _solid_frame(board), joint_top=base,
                  socket_top=base + profile.layer_height_mm, profile=profile)
    return [stack_solid(t, "kit frame") for t in tiles]


def solid_fit_frame(board: TerrainBoard, value: float, clearances: tuple[float, ...],
                    profile: Profile) -> list[cq.Shape]:
    """The fit test's kit frame coupons as B-rep solids, from the very slabs their meshes are made of."""
    from stratstone_cad.occ.brep import stack_solid  # CadQuery: only where a solid is asked for

    return [stack_solid(s, "kit frame coupon") for s in fit_frame_stacks(board, value, clearances, profile)]


def solid_piece(body: PieceBody, mark: PieceMark, profile: Profile, tolerance_mm: float,
                angular_tolerance_deg: float) -> list[cq.Shape]:
    """The piece as a B-rep: a true cylinder (the mesh's is a polygon within
    ``tolerance_mm`` of it, corners on the circle) or the frustum, its mark's region (the
    mesh's polygons) engraved into each marked face by one cut, as :func:`piece` does."""
    import cadquery as cq

    from stratstone_cad.occ.brep import pocketed_solid, region_prism
    from stratstone_cad.occ.shapes import checked

    height = snap_height(body.height_mm, profile, minimum_layers=4)
    what = f"{body.kind} ({mark.symbol})"
    region = mark_region(mark, body.mark_centre(mark), quad_segs=math.ceil(90 / angular_tolerance_deg))
    if body.round:  # one pocket in a flat top: one boolean cut is quick
        depth = snap_depth(mark.relief_mm, profile)
        solid = cq.Solid.makeCylinder(body.base_mm / 2, height)
        tool = region_prism(region, height - depth, height + 1.0)
        return [checked(solid.cut(tool), what)]
    # Four pockets in sloped faces: faces with the pockets' outlines as holes, not four cuts
    # (see pocketed_solid). Each side a trapezoid in its own (u, v), u x v pointing out.
    foot, top = body.base_mm / 2, body.top_mm / 2
    faces: list = [([(-foot, -foot), (foot, -foot), (foot, foot), (-foot, foot)], (0.0, 0.0, 0.0), (1.0, 0.0, 0.0),
                    (0.0, -1.0, 0.0), None, 0.0),
                   ([(-top, -top), (top, -top), (top, top), (-top, top)], (0.0, 0.0, height), (1.0, 0.0, 0.0),
                    (0.0, 1.0, 0.0), None, 0.0)]
    for origin, u, v in body.faces(height):
        n_z = u[0] * v[1] - u[1] * v[0]
        slant = height / v[2]
        faces.append(([(-foot, 0.0), (foot, 0.0), (top, slant), (-top, slant)], origin, u, v, region,
                      -mark.relief_mm / n_z))
    return [pocketed_solid(faces, what)]
