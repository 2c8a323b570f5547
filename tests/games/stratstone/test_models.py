"""The Stratstone board and stones: closed-form volumes, layer boundaries, fit, stacking, looks."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import Point, Polygon

from stratstone_cad.assets.jobs import subset
from stratstone_cad.base.overrides import parse_set
from stratstone_cad.base.params import on_layer_boundary, snap_depth, snap_height
from stratstone_cad.games.stratstone import cad as S
from stratstone_cad.games.stratstone.parts import PebbleParams
from stratstone_cad.geometry.boards import label_strokes, stack_volume, stroke_region
from stratstone_cad.geometry.glyphs import MARKS, glyph, mark_area, mark_strokes, text_strokes
from stratstone_cad.geometry.marks import MarkSpec, mark_spec
from stratstone_cad.occ.shapes import horizontal_face_heights, volume
from stratstone_cad.occ.tessellate import tessellate
from stratstone_cad.printing.checks import check_mesh
from stratstone_cad.printing.stack import stack_mesh
from stratstone_cad.registry import load_params
from tests.meshtools import horizontal_heights, mesh_neighbour_angles, neighbour_angles, normals, overhang_ok


def make_stone(p, c, i, profiles):
    """Stone i of colour set c, as the build makes it."""
    s = p.stone
    return S.stone(subset(s, PebbleParams), c, i, mark_spec(s, s.marks[c]), profiles["piece"])


@pytest.fixture(scope="module")
def stack(params, profiles):
    p = params.params_of("stratstone")
    return S.board_stack(p.board, p.recess_diameter_mm, profiles["board"], params.mesh.tolerance_mm)


@pytest.fixture(scope="module")
def board(stack):
    return stack_mesh(stack)


@pytest.fixture(scope="module")
def stones(params, profiles):
    p = params.params_of("stratstone")
    return {(c, i): make_stone(p, c, i, profiles) for c in range(3) for i in range(p.stone.per_colour)}


def test_snapping_lands_on_layer_boundaries(profiles):
    piece, board = profiles["piece"], profiles["board"]
    assert snap_height(7.4, piece) == pytest.approx(7.4)  # 0.2 + 48 x 0.15
    assert snap_height(7.3, piece) == pytest.approx(7.25)
    assert snap_height(0.01, piece) == pytest.approx(0.2)  # never below the first layer
    assert snap_depth(0.5, piece) == pytest.approx(0.45)
    assert snap_height(4.75, board) == pytest.approx(4.8)
    assert on_layer_boundary(6.35, piece) and not on_layer_boundary(6.4, piece)
    assert on_layer_boundary(0.0, board) and on_layer_boundary(4.2, board) and not on_layer_boundary(4.25, board)


def test_board_volume_matches_closed_form(board, stack, params, profiles):
    """The mesh is exactly the stack (flat faces), and the stack is the closed form up to the
    round corners and recesses, which are polygons within the mesh tolerance of their circles."""
    p = params.params_of("stratstone")
    b = p.board
    prof, tol = profiles["board"], params.mesh.tolerance_mm
    t = snap_height(b.thickness_mm, prof)
    d = snap_depth(b.recess_depth_mm, prof)
    e = snap_depth(b.engrave_depth_mm, prof)
    w, h = b.grid().size_mm
    r = p.recess_diameter_mm / 2
    plate = (w * h - (4 - math.pi) * b.corner_radius_mm ** 2) * t
    recesses = b.cells ** 2 * math.pi * r ** 2 * d
    labels = stroke_region(label_strokes(b.labels(), b.label_height_mm), b.label_stroke_mm).area * e
    assert labels > 0
    assert board.volume_mm3() == pytest.approx(stack_volume(stack), rel=1e-8)  # vertices rounded to 1 nm
    bound = tol * (2 * math.pi * b.corner_radius_mm * t + b.cells ** 2 * 2 * math.pi * r * d)
    assert abs(board.volume_mm3() - (plate - recesses - labels)) <= bound
    assert abs(board.volume_mm3() - (plate - recesses - labels)) > 0  # the polygons do differ from the circles


def test_board_bounding_box(board, params):
    lo, hi = board.bounds()
    w, h = params.params_of("stratstone").board.grid().size_mm
    assert lo == pytest.approx((0, 0, 0), abs=1e-6)
    assert hi == pytest.approx((w, h, 4.8), abs=1e-6)


def test_board_horizontal_faces_on_the_030_profile(board, profiles):
    heights = horizontal_heights(board)
    assert heights == [0.0, 3.3, 3.6, 4.8]  # bed, recess floor, engraving floor, top
    assert all(on_layer_boundary(z, profiles["board"]) for z in heights)


def test_board_cells_follow_the_log_notation(params):
    b = params.params_of("stratstone").board
    g = b.grid()
    a1, d1, a4 = g.cell_centre(0, 0), g.cell_centre(3, 0), g.cell_centre(0, 3)
    assert a1[0] < d1[0] and a1[1] == d1[1]  # files a-d left to right
    assert a4[1] > a1[1] and a4[0] == a1[0]  # ranks 1-4 bottom to top
    # the engraved "a" is under file a on the near rim and again, turned, on the far rim;
    # the "1" left of rank 1 and again, turned, right of it
    labels = {(lab.text, lab.rotation_deg): lab for lab in b.labels()}
    w, h = g.size_mm
    near, far = labels[("a", 0.0)], labels[("a", 180.0)]
    assert (near.x, far.x) == (a1[0], a1[0]) and near.y < b.rim_width_mm and far.y > h - b.rim_width_mm
    left, right = labels[("1", 0.0)], labels[("1", 180.0)]
    assert (left.y, right.y) == (a1[1], a1[1]) and left.x < b.rim_width_mm and right.x > w - b.rim_width_mm
    region = stroke_region(label_strokes([near], b.label_height_mm), b.label_stroke_mm)
    assert abs(region.centroid.x - a1[0]) < 1.5 and region.bounds[3] < b.rim_width_mm - 0.8


def test_labels_read_right_way_up_from_both_sides(params):
    """The far rim's labels are the near rim's turned half round about their centres: a
    player across the table reads them as the near player reads theirs."""
    from shapely import affinity

    b = params.params_of("stratstone").board
    labels = b.labels()
    for near in (lab for lab in labels if lab.rotation_deg == 0):
        far = next(lab for lab in labels if lab.text == near.text and lab.rotation_deg == 180
                   and (lab.x == near.x or lab.y == near.y))
        a = stroke_region(label_strokes([near], 7.0), 1.2)
        f = stroke_region(label_strokes([far], 7.0), 1.2)
        turned = affinity.rotate(affinity.translate(a, far.x - near.x, far.y - near.y), 180, origin=(far.x, far.y))
        assert turned.symmetric_difference(f).area < 1e-6, near.text


def test_every_glyph_is_printable_stroke_art():
    for ch in "abcdefghij0123456789":
        lines, width = text_strokes(ch, 6.0)
        region = stroke_region(lines, 1.0)
        assert region.is_valid and region.area > 3.0, ch
        assert width > 0 and glyph(ch)


def test_stone_horizontal_faces_on_the_015_profile(stones, profiles):
    prof = profiles["piece"]
    for (c, i), s in stones.items():
        heights = sorted({round(z, 4) for z in horizontal_face_heights(s)})
        assert len(heights) == 3, (c, i, heights)  # bottom, mark floor, plateau
        assert heights[0] == 0.0
        assert all(on_layer_boundary(z, prof) for z in heights), (c, i, heights)
        assert s.BoundingBox().zmax == pytest.approx(heights[-1], abs=1e-5)


def test_every_mark_has_the_same_groove_area(params, profiles):
    """Each mark cut into a stone removes exactly mark_area x depth (closed forms: a ring
    2 pi r w, strokes L w + pi w^2 / 4, discs pi r^2, a round-cornered outline), so the
    marks of a set are equally visible: no bar at 40 % of a ring's area."""
    s = params.params_of("stratstone").stone
    shape = subset(s, PebbleParams)
    piece = profiles["piece"]
    depth = snap_depth(s.mark_depth_mm, piece)
    size, w = s.mark_size_mm, s.mark_stroke_mm
    area = mark_area(size, w)
    r_ring = mark_strokes("ring", size, w).rings[0][2]
    assert 2 * math.pi * r_ring * w == pytest.approx(area)
    (x0, y0), (x1, y1) = mark_strokes("bars", size, w).lines[0]
    assert 2 * (math.hypot(x1 - x0, y1 - y0) * w + math.pi * w ** 2 / 4) == pytest.approx(area)
    v_plain = volume(S.stone(shape, 1, 3, None, piece))
    for kind in MARKS[:-1]:
        v_marked = volume(S.stone(shape, 1, 3, MarkSpec(kind, size, w, s.mark_depth_mm), piece))
        assert v_plain - v_marked == pytest.approx(area * depth, rel=1e-5), kind


def _wire_polygon(wire) -> Polygon:
    """A closed wire sampled at 200 points, as a shapely polygon (its x, y)."""
    return Polygon([(p.x, p.y) for p in (wire.positionAt(t) for t in np.linspace(0, 1, 200, endpoint=False))])


def _plateau(solid):
    """The top plateau: the largest planar face at the stone's top (a ring mark leaves an island)."""
    planes = [f for f in solid.Faces() if f.geomType() == "PLANE"]
    z = max(f.Center().z for f in planes)
    return max((f for f in planes if abs(f.Center().z - z) < 1e-6), key=lambda f: f.Area())


def _footprint(solid) -> Polygon:
    """The stone's outline seen from above, from its tessellation."""
    m = tessellate(solid, 0.02)
    tris = m.vertices[m.triangles][:, :, :2]
    polys = [Polygon(t) for t in tris if Polygon(t).area > 1e-9]
    return shapely.union_all(polys)


@pytest.fixture(scope="module")
def footprints(stones):
    return {k: _footprint(s) for k, s in stones.items()}


def test_24_stones_pairwise_different(stones, footprints, params):
    assert len(stones) == 24
    for a, b in itertools.combinations(stones, 2):
        fa, fb = footprints[a], footprints[b]
        differ = fa.symmetric_difference(fb).area / min(fa.area, fb.area)
        same_height = abs(stones[a].BoundingBox().zmax - stones[b].BoundingBox().zmax) < 1e-6
        # footprints differ by 3 % of their area at least, or the heights differ
        assert differ > 0.03 or not same_height, (a, b, differ)


def test_every_stone_fits_any_cell_with_the_clearance(footprints, params):
    p = params.params_of("stratstone")
    room = Point(0, 0).buffer(p.recess_diameter_mm / 2 - p.board.clearance_mm + 1e-6, quad_segs=64)
    for k, fp in footprints.items():
        assert room.contains(fp), k
        assert fp.bounds[2] - fp.bounds[0] >= p.stone.footprint_mm * p.stone.min_scale * (1 - p.stone.elongation) * 0.8


def test_plateau_is_flat_and_covers_half_the_footprint(stones, footprints):
    for k, s in stones.items():
        top = _plateau(s)
        assert abs(top.normalAt().z - 1) < 1e-9
        plateau = _wire_polygon(top.outerWire())
        outer = type(top).makeFromWires(top.outerWire())
        assert outer.Area() >= 0.5 * footprints[k].area, k
        # A stack stands: each stone's centre of mass lies well inside its plateau and its base.
        com = s.Center()
        assert plateau.buffer(-3.0).contains(Point(com.x, com.y)), k
        bottom = min(s.Faces(), key=lambda f: f.Center().z if f.geomType() == "PLANE" else 1e9)
        base = _wire_polygon(bottom.outerWire())
        assert base.buffer(-3.0).contains(Point(com.x, com.y)), k
        assert base.area >= 0.85 * footprints[k].area


def test_stack_of_8_stands(stones, params, profiles):
    """Stack the 8 stones of a set centred on each other: the combined centre of mass
    of the stones above any contact lies inside the contact (the lower plateau)."""
    p = params.params_of("stratstone")
    for c in range(3):
        column = [stones[(c, i)] for i in range(p.stone.per_colour)]
        vol = [volume(s) for s in column]
        centre = [s.Center() for s in column]
        for level in range(1, len(column)):
            contact = _wire_polygon(_plateau(column[level - 1]).outerWire())
            mass = sum(vol[level:])
            cx = sum(centre[i].x * vol[i] for i in range(level, len(column))) / mass
            cy = sum(centre[i].y * vol[i] for i in range(level, len(column))) / mass
            assert contact.buffer(-2.0).contains(Point(cx, cy)), (c, level)


FLAT_WIDE = ["stratstone.stone.footprint_mm=80", "stratstone.board.cell_pitch_mm=82.01", "stratstone.stone.height_mm=3",
             "stratstone.stone.height_variation_mm=0", "stratstone.stone.mark=false"]
TALL_NARROW = ["stratstone.stone.footprint_mm=10", "stratstone.board.cell_pitch_mm=12", "stratstone.stone.height_mm=25",
               "stratstone.stone.mark=false"]


@pytest.mark.parametrize("sets", [[], FLAT_WIDE, TALL_NARROW], ids=["default", "flat-wide", "tall-narrow"])
def test_stones_need_no_supports(sets, profiles):
    """Every downward facing facet above the first layer leans at most 45 degrees from vertical."""
    p = load_params(sets=parse_set(sets)).params_of("stratstone")
    first = profiles["piece"].first_layer_height_mm
    for c, i in ((0, 0), (1, 3), (2, 6), (0, 5)):
        assert overhang_ok(tessellate(make_stone(p, c, i, profiles), 0.05), first), (c, i)


@pytest.mark.parametrize("sets", [["stratstone.stone.plateau_fraction=0.5"], FLAT_WIDE, TALL_NARROW],
                         ids=["least-plateau", "flat-wide", "tall-narrow"])
def test_the_plateau_covers_half_the_footprint_at_the_limits(sets, profiles):
    p = load_params(sets=parse_set(sets)).params_of("stratstone")
    for c, i in ((0, 1), (1, 6), (2, 2), (1, 0)):
        s = make_stone(p, c, i, profiles)
        assert _wire_polygon(_plateau(s).outerWire()).area >= 0.5 * _footprint(s).area, (c, i)


def test_same_seed_same_stone_other_seed_other_stone(params, profiles):
    p = subset(params.params_of("stratstone").stone, PebbleParams)
    other = subset(load_params(sets=parse_set(["stratstone.stone.seed=99"])).params_of("stratstone").stone, PebbleParams)
    a = S.pebble_shape(p, 1, 4, profiles["piece"])
    assert a == S.pebble_shape(p, 1, 4, profiles["piece"])
    assert a != S.pebble_shape(other, 1, 4, profiles["piece"])


def test_every_stone_mesh_passes_the_checks(stones):
    for k, s in stones.items():
        check_mesh(tessellate(s, 0.05), f"stone {k}")


def test_tessellation_deviation_is_within_the_tolerance(stones, board, params):
    """Triangle centres (the points farthest from the true surface) lie within
    mesh.tolerance_mm of the CAD surface; vertices lie on it."""
    import cadquery as cq

    tol = params.mesh.tolerance_mm
    for solid in (stones[(1, 2)], stones[(2, 5)]):
        m = tessellate(solid, tol, math.radians(params.mesh.angular_tolerance_deg))
        tri = m.vertices[m.triangles]
        rng = np.random.default_rng(0)
        pick = rng.choice(len(tri), size=min(300, len(tri)), replace=False)
        shell = solid.Shells()[0]
        worst = 0.0
        for t in tri[pick]:
            for p in (t.mean(axis=0), (t[0] + t[1]) / 2, (t[1] + t[2]) / 2, (t[2] + t[0]) / 2):
                worst = max(worst, shell.distance(cq.Vertex.makeVertex(*p)))
        assert worst <= tol + 1e-6
        for v in m.vertices[rng.choice(len(m.vertices), size=50, replace=False)]:
            assert shell.distance(cq.Vertex.makeVertex(*v)) < 1e-4


@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_any_accepted_parameters_give_checked_parts(data, profiles):
    """Random overrides within the ranges: either a one-line ParameterError, or a board
    (tiled when needed) and stones that pass every mesh check with faces on the layers."""
    from stratstone_cad.base.printers import get_printer
    from stratstone_cad.errors import ParameterError
    from stratstone_cad.registry import ASSETS

    sets = {}
    for name, lo, hi in (("stratstone.board.cells", 2, 6), ("stratstone.board.cell_pitch_mm", 12, 84),
                         ("stratstone.board.rim_width_mm", 8, 20), ("stratstone.board.thickness_mm", 2, 8),
                         ("stratstone.board.recess_depth_mm", 0.3, 3), ("stratstone.board.clearance_mm", 0.2, 2),
                         ("stratstone.stone.footprint_mm", 10, 80), ("stratstone.stone.height_mm", 3, 14),
                         ("stratstone.stone.irregularity", 0, 0.15), ("stratstone.stone.elongation", 0, 0.35),
                         ("stratstone.stone.seed", 0, 10_000)):
        if data.draw(st.booleans()):
            value = data.draw(st.integers(lo, hi) if isinstance(lo, int) and isinstance(hi, int)
                              else st.floats(lo, hi).map(lambda x: round(x, 2)))
            sets[name] = str(value)
    printer = get_printer(data.draw(st.sampled_from(["prusa-mini", "prusa-mk4"])))
    try:
        ps = load_params(sets=sets)
        board_job = ASSETS["stratstone"].plan(ps.params_of("stratstone"), printer, profiles, ps.mesh)[0]
    except ParameterError as e:
        assert "\n" not in str(e) and str(e).startswith("stratstone.")
        return
    tiles = S.make_board(**board_job.args)
    for i, tile in enumerate(tiles):
        check_mesh(tile, f"tile {i} with {sets}")
        assert all(on_layer_boundary(z, profiles["board"]) for z in horizontal_heights(tile)), sets
        lo, hi = tile.bounds()
        ux, uy = printer.usable_mm
        assert hi[0] - lo[0] <= ux + 1e-6 and hi[1] - lo[1] <= uy + 1e-6, sets
    stone = make_stone(ps.params_of("stratstone"), data.draw(st.integers(0, 2)), data.draw(st.integers(0, 7)), profiles)
    mesh = tessellate(stone, 0.05)
    check_mesh(mesh, f"stone with {sets}")
    assert all(on_layer_boundary(z, profiles["piece"]) for z in horizontal_face_heights(stone)), sets
    assert overhang_ok(mesh, profiles["piece"].first_layer_height_mm), sets  # no facet above the first layer needs support


def test_the_shoulder_rounds_into_the_plateau(params, profiles):
    """Where the side meets the flat top it is nearly level (a real pebble's shoulder), not a
    35-48 degree crease: every facet touching the plateau's edge is within 12 degrees of it."""
    shape = subset(params.params_of("stratstone").stone, PebbleParams)
    for c, i in ((0, 0), (1, 3), (2, 6)):
        stone = S.stone(shape, c, i, None, profiles["piece"])  # unmarked: no groove walls meet the top
        m = tessellate(stone, params.mesh.tolerance_mm, math.radians(params.mesh.angular_tolerance_deg))
        tri = m.vertices[m.triangles]
        top = tri[:, :, 2].max()
        n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
        n /= np.linalg.norm(n, axis=1, keepdims=True)
        on_top = np.all(np.abs(tri[:, :, 2] - top) < 1e-6, axis=1)
        touching = np.any(np.abs(tri[:, :, 2] - top) < 1e-6, axis=1) & ~on_top
        slope = np.degrees(np.arccos(np.clip(n[touching, 2], -1, 1)))
        assert touching.sum() > 20 and slope.max() < 12, ((c, i), slope.max())


def test_neighbouring_facets_of_a_smooth_side_differ_by_about_8_degrees_at_most(stones, params, profiles):
    """Shading shows no facets: across every edge inside one curved CAD face of a stone or a
    gem, the two triangles' normals differ by at most 8 degrees (real edges, the rims of
    the bottom and of the mark, are not inside a face)."""
    from stratstone_cad.games.sage_stones import cad as G
    from stratstone_cad.games.sage_stones.parts import GemShape

    angle = math.radians(params.mesh.angular_tolerance_deg)
    for k, solid in stones.items():
        worst = neighbour_angles(solid, params.mesh.tolerance_mm, angle)
        assert worst <= 8.0, (k, worst)
    g = params.params_of("sage-stones").gem
    gem = G.gem(subset(g, GemShape), mark_spec(g, "ring"), profiles["piece"], params.mesh.tolerance_mm,
                params.mesh.angular_tolerance_deg)
    centre = gem.vertices[gem.triangles].mean(axis=1)
    r = np.hypot(centre[:, 0], centre[:, 1])
    dome = (centre[:, 2] > g.edge_height_mm + 0.01) & (r > g.top_diameter_mm / 2 + 0.01)
    side = np.abs(normals(gem)[:, 2]) < 0.1  # the straight side
    assert dome.sum() > 100 and mesh_neighbour_angles(gem, dome) <= 8.0
    assert side.sum() > 100 and mesh_neighbour_angles(gem, side) <= 8.0
