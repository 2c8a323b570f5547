"""The Stratstone board and stones: closed-form volumes, layer boundaries, fit, stacking."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import Point, Polygon

from stratstone_cad.cad import stratstone as S
from stratstone_cad.cad.common import horizontal_face_heights, stroke_region, volume
from stratstone_cad.cad.glyphs import GLYPHS, mark_strokes, text_strokes
from stratstone_cad.mesh.checks import check_mesh
from stratstone_cad.mesh.tessellate import tessellate
from stratstone_cad.params import load_params, on_layer_boundary, parse_set, snap_depth, snap_height


@pytest.fixture(scope="module")
def board(params, profiles):
    return S.board_solid(params.stratstone, profiles["board"])


@pytest.fixture(scope="module")
def stones(params, profiles):
    p = params.stratstone
    return {(c, i): S.stone(p, c, i, profiles["piece"]) for c in range(3) for i in range(p.stone.per_colour)}


def test_snapping_lands_on_layer_boundaries(profiles):
    piece, board = profiles["piece"], profiles["board"]
    assert snap_height(7.4, piece) == pytest.approx(7.4)  # 0.2 + 48 x 0.15
    assert snap_height(7.3, piece) == pytest.approx(7.25)
    assert snap_height(0.01, piece) == pytest.approx(0.2)  # never below the first layer
    assert snap_depth(0.5, piece) == pytest.approx(0.45)
    assert snap_height(4.75, board) == pytest.approx(4.8)
    assert on_layer_boundary(6.35, piece) and not on_layer_boundary(6.4, piece)
    assert on_layer_boundary(0.0, board) and on_layer_boundary(4.2, board) and not on_layer_boundary(4.25, board)


def test_board_volume_matches_closed_form(board, params, profiles):
    p = params.stratstone
    b = p.board
    prof = profiles["board"]
    t = snap_height(b.thickness_mm, prof)
    d = snap_depth(b.recess_depth_mm, prof)
    e = snap_depth(b.engrave_depth_mm, prof)
    plate = (b.size_mm ** 2 - (4 - math.pi) * b.corner_radius_mm ** 2) * t
    recesses = b.cells ** 2 * math.pi * (p.recess_diameter_mm / 2) ** 2 * d
    labels = stroke_region(S.coordinate_strokes(p), b.label_stroke_mm).area * e
    assert labels > 0
    assert volume(board) == pytest.approx(plate - recesses - labels, rel=1e-6)


def test_board_bounding_box(board, params):
    bb = board.BoundingBox()
    size = params.stratstone.board.size_mm
    assert (bb.xmin, bb.ymin, bb.zmin) == pytest.approx((0, 0, 0), abs=1e-5)
    assert (bb.xmax, bb.ymax, bb.zmax) == pytest.approx((size, size, 4.8), abs=1e-5)


def test_board_horizontal_faces_on_the_030_profile(board, profiles):
    heights = sorted({round(z, 4) for z in horizontal_face_heights(board)})
    assert heights == [0.0, 3.3, 4.2, 4.8]  # bed, recess floor, engraving floor, top
    assert all(on_layer_boundary(z, profiles["board"]) for z in heights)


def test_board_cells_follow_the_log_notation(params):
    b = params.stratstone.board
    a1, d1, a4 = b.cell_centre(0, 0), b.cell_centre(3, 0), b.cell_centre(0, 3)
    assert a1[0] < d1[0] and a1[1] == d1[1]  # files a-d left to right
    assert a4[1] > a1[1] and a4[0] == a1[0]  # ranks 1-4 bottom to top
    # the engraved "a" is under file a, the "1" left of rank 1
    lines = S.coordinate_strokes(params.stratstone)
    a_strokes = stroke_region(lines[: len(GLYPHS["a"])], b.label_stroke_mm)
    assert abs(a_strokes.centroid.x - a1[0]) < 1.5 and a_strokes.centroid.y < b.rim_width_mm


def test_every_glyph_is_printable_stroke_art():
    for ch in GLYPHS:
        lines, width = text_strokes(ch, 6.0)
        region = stroke_region(lines, 1.0)
        assert region.is_valid and region.area > 3.0, ch
        assert width > 0


def test_stone_horizontal_faces_on_the_015_profile(stones, profiles):
    prof = profiles["piece"]
    for (c, i), s in stones.items():
        heights = sorted({round(z, 4) for z in horizontal_face_heights(s)})
        assert len(heights) == 3, (c, i, heights)  # bottom, mark floor, plateau
        assert heights[0] == 0.0
        assert all(on_layer_boundary(z, prof) for z in heights), (c, i, heights)
        assert s.BoundingBox().zmax == pytest.approx(heights[-1], abs=1e-5)


def test_mark_volume_is_its_area_times_its_depth(params, profiles):
    p = params.stratstone
    plain = load_params(sets=parse_set(["stratstone.stone.mark=false"])).stratstone
    depth = snap_depth(p.stone.mark_depth_mm, profiles["piece"])
    w = p.stone.mark_stroke_mm
    r_ring = mark_strokes("ring", p.stone.mark_size_mm).rings[0][2]
    ring_area = math.pi * ((r_ring + w / 2) ** 2 - (r_ring - w / 2) ** 2)  # = 2 pi r w
    bar = mark_strokes("bar", p.stone.mark_size_mm).lines[0]
    bar_area = math.dist(*bar) * w + math.pi * (w / 2) ** 2
    for colour, area in ((0, ring_area), (2, bar_area)):
        v_plain = volume(S.stone(plain, colour, 3, profiles["piece"]))
        v_marked = volume(S.stone(p, colour, 3, profiles["piece"]))
        assert v_plain - v_marked == pytest.approx(area * depth, rel=1e-6)


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
    p = params.stratstone
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
    p = params.stratstone
    for c in range(3):
        column = [stones[(c, i)] for i in range(p.stone.per_colour)]
        for level in range(1, len(column)):
            below = column[level - 1]
            top = _plateau(below)
            contact = _wire_polygon(top.outerWire())
            above = column[level:]
            mass = sum(volume(s) for s in above)
            cx = sum(s.Center().x * volume(s) for s in above) / mass
            cy = sum(s.Center().y * volume(s) for s in above) / mass
            assert contact.buffer(-2.0).contains(Point(cx, cy)), (c, level)


FLAT_WIDE = ["stratstone.stone.footprint_mm=80", "stratstone.board.cell_pitch_mm=82.01", "stratstone.stone.height_mm=3",
             "stratstone.stone.height_variation_mm=0", "stratstone.stone.mark=false"]
TALL_NARROW = ["stratstone.stone.footprint_mm=10", "stratstone.board.cell_pitch_mm=12", "stratstone.stone.height_mm=25",
               "stratstone.stone.mark=false"]


@pytest.mark.parametrize("sets", [[], FLAT_WIDE, TALL_NARROW], ids=["default", "flat-wide", "tall-narrow"])
def test_stones_need_no_supports(sets, profiles):
    """Every downward facing facet above the first layer leans at most 45 degrees from vertical."""
    p = load_params(sets=parse_set(sets)).stratstone
    first = profiles["piece"].first_layer_height_mm
    for c, i in ((0, 0), (1, 3), (2, 6), (0, 5)):
        m = tessellate(S.stone(p, c, i, profiles["piece"]), 0.05)
        tri = m.vertices[m.triangles]
        n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
        n /= np.linalg.norm(n, axis=1, keepdims=True)
        in_first_layer = np.all(tri[:, :, 2] <= first + 1e-6, axis=1)
        assert (n[~in_first_layer, 2] >= -math.cos(math.radians(45))).all(), (c, i)


@pytest.mark.parametrize("sets", [["stratstone.stone.plateau_fraction=0.5"], FLAT_WIDE, TALL_NARROW],
                         ids=["least-plateau", "flat-wide", "tall-narrow"])
def test_the_plateau_covers_half_the_footprint_at_the_limits(sets, profiles):
    p = load_params(sets=parse_set(sets)).stratstone
    for c, i in ((0, 1), (1, 6), (2, 2), (1, 0)):
        s = S.stone(p, c, i, profiles["piece"])
        assert _wire_polygon(_plateau(s).outerWire()).area >= 0.5 * _footprint(s).area, (c, i)


def test_same_seed_same_stone_other_seed_other_stone(params, profiles):
    p = params.stratstone
    other = load_params(sets=parse_set(["stratstone.stone.seed=99"])).stratstone
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
    for solid in (stones[(1, 2)], board):
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
    from stratstone_cad.catalog import GAMES
    from stratstone_cad.errors import ParameterError
    from stratstone_cad.params import get_printer

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
        board_job = GAMES["stratstone"].plan(ps, printer)[0]
    except ParameterError as e:
        assert "\n" not in str(e) and str(e).startswith("stratstone.")
        return
    parts = S.make_board(ps, printer, profiles, **board_job.args)
    parts.append(S.stone(ps.stratstone, data.draw(st.integers(0, 2)), data.draw(st.integers(0, 7)), profiles["piece"]))
    for i, part in enumerate(parts):
        mesh = tessellate(part, 0.05)
        check_mesh(mesh, f"part {i} with {sets}")
        prof = profiles["piece"] if i == len(parts) - 1 else profiles["board"]
        assert all(on_layer_boundary(z, prof) for z in horizontal_face_heights(part)), sets
    tri = mesh.vertices[mesh.triangles]  # the stone: no facet above the first layer needs support
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    above = ~np.all(tri[:, :, 2] <= profiles["piece"].first_layer_height_mm + 1e-6, axis=1)
    assert (n[above, 2] >= -math.cos(math.radians(45))).all(), sets
    ux, uy = printer.usable_mm
    for tile in parts[:-1]:
        bb = tile.BoundingBox()
        assert bb.xlen <= ux + 1e-6 and bb.ylen <= uy + 1e-6, sets
