"""The Sage Stones board and gems: wells, numbers, wrap arrows, gem fit, closed-form volumes."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from shapely.geometry import Point

from stratstone_cad.assets.jobs import subset
from stratstone_cad.base.overrides import parse_set
from stratstone_cad.base.params import on_layer_boundary, snap_depth, snap_height
from stratstone_cad.base.printers import Printer
from stratstone_cad.errors import ParameterError
from stratstone_cad.games.sage_stones import cad as G
from stratstone_cad.games.sage_stones import parts as SA
from stratstone_cad.games.sage_stones.parts import GemShape
from stratstone_cad.geometry.boards import circle_segments, label_strokes, stack_volume, stroke_region
from stratstone_cad.geometry.glyphs import MARKS, mark_area
from stratstone_cad.geometry.marks import MarkSpec, mark_spec
from stratstone_cad.printing.checks import check_mesh
from stratstone_cad.printing.stack import stack_mesh
from stratstone_cad.registry import load_params
from tests.meshtools import horizontal_heights, overhang_ok


@pytest.fixture(scope="module")
def sage(params):
    return params.params_of("sage-stones")


@pytest.fixture(scope="module")
def stack(sage, profiles, params):
    return G.board_stack(sage.board, sage.well_diameter_mm, profiles["board"], params.mesh.tolerance_mm)


@pytest.fixture(scope="module")
def board(stack):
    return stack_mesh(stack)


def _gem(sage, profiles, params, kind="ring"):
    g = sage.gem
    return G.gem(subset(g, GemShape), mark_spec(g, kind), profiles["piece"], params.mesh.tolerance_mm,
                 params.mesh.angular_tolerance_deg)


def test_63_wells_of_the_well_diameter(stack, sage, params, profiles):
    """The slab at the wells' depth has 63 round holes, each holding a circle of the well's
    diameter and no more than the mesh tolerance larger, centred on the cells."""
    b = sage.board
    top = stack[-1].z1
    floor = top - snap_depth(b.well_depth_mm, profiles["board"])
    wells_slab = next(s for s in stack if s.z0 >= floor - 1e-9)
    holes = [shapely.geometry.Polygon(r) for p in getattr(wells_slab.region, "geoms", [wells_slab.region]) for r in p.interiors]
    r = sage.well_diameter_mm / 2
    round_holes = [h for h in holes if abs(h.area - math.pi * r * r) < 0.05 * math.pi * r * r]
    assert len(round_holes) == 63 == 7 * 9
    centres = sorted((round(h.centroid.x, 6), round(h.centroid.y, 6)) for h in round_holes)
    assert centres == sorted((round(x, 6), round(y, 6)) for x, y in b.grid().centres())
    for h in round_holes:
        c = h.centroid
        assert h.contains(Point(c).buffer(r - 1e-6, quad_segs=64))  # the well is never too small
        assert h.exterior.hausdorff_distance(Point(c).buffer(r, quad_segs=64).exterior) <= params.mesh.tolerance_mm + 1e-6
    assert sage.well_diameter_mm == pytest.approx(18 + 2 * 0.5)


def test_numbers_on_every_edge_and_wrap_arrows_on_both_long_edges(sage):
    b = sage.board
    labels = b.labels()
    cols = [lab for lab in labels if lab.text in "3456789" and (lab.y < b.rim_width_mm or lab.y > b.grid().size_mm[1] - b.rim_width_mm)]
    rows = [lab for lab in labels if lab not in cols]
    assert sorted(lab.text for lab in cols) == sorted(list("3456789") * 2)  # both short edges
    assert sorted(lab.text for lab in rows) == sorted(list("123456789") * 2)  # both long edges
    assert {lab.rotation_deg for lab in cols} == {lab.rotation_deg for lab in rows} == {0.0, 180.0}
    # column 3 is on the left, row 1 nearest: the log's 5-7 is column 5, row 7
    g = b.grid()
    five = next(lab for lab in cols if lab.text == "5" and lab.rotation_deg == 0)
    seven = next(lab for lab in rows if lab.text == "7" and lab.rotation_deg == 0)
    assert (five.x, seven.y) == (g.cell_centre(2, 0)[0], g.cell_centre(0, 6)[1])
    arrows = b.arrows()
    assert len(arrows) == 2 * 9 * 2  # shaft and head, at every row, on both long edges
    shafts = [a for a in arrows if len(a) == 2]
    w, _ = g.size_mm
    assert sum(1 for a in shafts if a[0][0] < w / 2) == sum(1 for a in shafts if a[0][0] > w / 2) == 9
    assert all(a[1][0] > a[0][0] for a in shafts)  # every arrow points east, the way the rows continue


def test_numbers_and_arrows_are_engraved(stack, sage, profiles):
    """The top slab has no material where the numbers and arrows are; the slab under it does."""
    b = sage.board
    marks = stroke_region(label_strokes(b.labels(), b.label_height_mm) + b.arrows(), b.label_stroke_mm)
    top, below = stack[-1], stack[-2]
    assert top.region.intersection(marks).area == pytest.approx(0, abs=1e-6)
    assert below.region.intersection(marks).area == pytest.approx(marks.area, rel=1e-9)
    assert top.z1 - top.z0 == pytest.approx(snap_depth(b.engrave_depth_mm, profiles["board"]))


def test_board_volume_closed_form_and_layers(board, stack, sage, profiles, params):
    b = sage.board
    prof, tol = profiles["board"], params.mesh.tolerance_mm
    t = snap_height(b.thickness_mm, prof)
    d, e = snap_depth(b.well_depth_mm, prof), snap_depth(b.engrave_depth_mm, prof)
    w, h = b.grid().size_mm
    r = sage.well_diameter_mm / 2
    marks = stroke_region(label_strokes(b.labels(), b.label_height_mm) + b.arrows(), b.label_stroke_mm).area
    closed = (w * h - (4 - math.pi) * b.corner_radius_mm ** 2) * t - 63 * math.pi * r * r * d - marks * e
    assert board.volume_mm3() == pytest.approx(stack_volume(stack), rel=1e-8)
    assert abs(board.volume_mm3() - closed) <= tol * (2 * math.pi * b.corner_radius_mm * t + 63 * 2 * math.pi * r * d)
    check_mesh(board, "sage board")
    assert horizontal_heights(board) == [0.0, 2.4, 3.6, 4.8]  # bed, well floor, engraving floor, top
    assert all(on_layer_boundary(z, prof) for z in horizontal_heights(board))


def test_the_board_tiles_on_a_small_bed_with_dovetails_clear_of_wells(sage, profiles, params):
    from shapely.geometry import Polygon

    from stratstone_cad.geometry.tiling import dovetail_outline

    mini = Printer("prusa-mini", "", 180, 180, 5)
    job = SA.plan(sage, mini, profiles, params.mesh)[0]
    plan = job.args["plan"]
    assert plan.count > 1 and plan.joints
    keep = shapely.union_all([g for _, g in SA.keep_out(sage)])
    b = sage.board
    for j in plan.joints:
        assert Polygon(dovetail_outline(j, b.joint_length_mm, b.joint_width_mm, b.joint_clearance_mm)).distance(keep) >= 0.8
    tiles = G.make_board(**job.args)
    for t in tiles:
        check_mesh(t, "sage tile")
        lo, hi = t.bounds()
        assert hi[0] - lo[0] <= 170 + 1e-6 and hi[1] - lo[1] <= 170 + 1e-6


def test_a_gem_fits_a_well(sage, profiles, params):
    """The printed gem is the glass gems' diameter: it stands in its well with the clearance
    all round, and its top stands above the board for fingers to lift it."""
    gem = _gem(sage, profiles, params)
    lo, hi = gem.bounds()
    assert hi[0] - lo[0] == pytest.approx(sage.gem.diameter_mm, abs=1e-6)
    footprint = shapely.MultiPoint(gem.vertices[:, :2]).convex_hull
    assert Point(0, 0).buffer(sage.well_diameter_mm / 2 - sage.board.clearance_mm + 1e-3, quad_segs=256).contains(footprint)
    assert hi[2] > snap_depth(sage.board.well_depth_mm, profiles["board"]) + 2


def test_gem_volume_is_a_cylinder_and_a_spherical_zone_less_its_mark(sage, profiles, params):
    """pi a^2 e for the side, pi h / 6 (3 a^2 + 3 b^2 + h^2) for the dome between the side's
    top (radius a) and the flat top (radius b), less the mark's area x depth; the mesh is
    within the tolerance of it (the round surfaces are polygons)."""
    g = sage.gem
    piece, tol = profiles["piece"], params.mesh.tolerance_mm
    height = snap_height(g.height_mm, piece, minimum_layers=4)
    a, b, e = g.diameter_mm / 2, g.top_diameter_mm / 2, g.edge_height_mm
    h = height - e
    plain = math.pi * a * a * e + math.pi * h / 6 * (3 * a * a + 3 * b * b + h * h)
    _, r = G.dome(subset(g, GemShape), height)
    surface = 2 * math.pi * a * e + 2 * math.pi * r * h + math.pi * a * a + math.pi * b * b  # side, zone, bottom, top
    shape = subset(g, GemShape)
    unmarked = G.gem(shape, None, piece, tol, params.mesh.angular_tolerance_deg)
    assert abs(unmarked.volume_mm3() - plain) <= tol * surface
    assert unmarked.volume_mm3() < plain  # the polygons lie inside the round surfaces
    depth = snap_depth(g.mark_depth_mm, piece)
    for kind in g.marks:
        marked = G.gem(shape, MarkSpec(kind, g.mark_size_mm, g.mark_stroke_mm, g.mark_depth_mm), piece, tol,
                       params.mesh.angular_tolerance_deg)
        # the mark's polygons lie within the tolerance of its round ends and discs
        assert unmarked.volume_mm3() - marked.volume_mm3() == pytest.approx(mark_area(g.mark_size_mm, g.mark_stroke_mm) * depth,
                                                                            rel=0.02), kind


def test_six_gem_colours_six_different_marks_each_printable(sage, profiles, params):
    g = sage.gem
    assert g.colours == ["yellow", "red", "blue", "green", "white", "black"]  # the engine's colour ids
    assert len(set(g.marks)) == 6 and set(g.marks) <= set(MARKS) - {"none"}
    piece = profiles["piece"]
    for kind in g.marks:
        gem = _gem(sage, profiles, params, kind)
        check_mesh(gem, f"gem {kind}")
        heights = horizontal_heights(gem)
        top = snap_height(g.height_mm, piece, minimum_layers=4)
        assert heights == [0.0, pytest.approx(top - snap_depth(g.mark_depth_mm, piece)), pytest.approx(top)], kind
        assert all(on_layer_boundary(z, piece) for z in heights)
        assert overhang_ok(gem, piece.first_layer_height_mm), kind


def test_identical_gems_are_made_once_and_printed_ten_times(sage, profiles, params):
    jobs = [j for j in SA.plan(sage, Printer("x", "", 250, 210, 5), profiles, params.mesh) if j.id.startswith("sage-stones/gem")]
    assert [j.outputs[0].file for j in jobs] == [f"sage-stones/gem-{c}.stl" for c in sage.gem.colours]
    assert {j.outputs[0].count for j in jobs} == {10}


@pytest.mark.parametrize(("sets", "message"), [
    (["sage-stones.board.cell_pitch_mm=19.5"],
     "sage-stones.board.cell_pitch_mm = 19.5: expected at least 19.8 (gem 18 + 2 x clearance 0.5 + a 0.8 mm wall"),
    (["sage-stones.gem.height_mm=12"], "sage-stones.gem.height_mm = 12: expected at most 10.044 with a 2.4 mm side under a 9.5 mm top, or the dome would bulge past the side"),
    (["sage-stones.gem.marks=ring,ring,bars,dot,triangle,dots"], "expected a different mark for each set"),
    (["sage-stones.board.side_rim_width_mm=15"], "sage-stones.board.side_rim_width_mm = 15: expected at least 20.8"),
    (["sage-stones.board.well_depth_mm=4.5"], "sage-stones.board.well_depth_mm = 4.5: expected at most 3.8"),
    # a bound the parameter cannot reach names what else to change
    (["sage-stones.board.rim_width_mm=40", "sage-stones.board.arrow_length_mm=30"],
     "expected at least 72.8: the row numbers take the outer 40 mm (rim_width_mm) and the 30 mm wrap arrows need "
     "32.8 mm beside them; side_rim_width_mm is at most 60, so use a smaller rim_width_mm or arrow_length_mm"),
    (["sage-stones.board.thickness_mm=1.5", "sage-stones.board.engrave_depth_mm=0.3"],
     "sage-stones.board.well_depth_mm = 2.4: expected at most 0.5 to leave a 1 mm floor under the wells in the 1.5 mm "
     "board (sage-stones.board.thickness_mm); well_depth_mm is at least 0.6, so use a thicker board"),
    (["sage-stones.gem.colours=a,b,c,d,e,e"], "sage-stones.gem.colours = ['a', 'b', 'c', 'd', 'e', 'e']: expected six different names"),
    (["sage-stones.die.pip_spacing_mm=6"], "sage-stones.die.pip_spacing_mm = 6: expected at most 3.862 so the two's "
                                           "3.67423 mm pips stay 0.8 mm inside the rounded edges"),
    (["sage-stones.die.pip_spacing_mm=2.4"], "sage-stones.die.pip_spacing_mm = 2.4: expected at least 2.688 so the "
                                             "three's pips stay 0.8 mm apart"),
    (["sage-stones.die.pip_depth_mm=4.5"], "sage-stones.die.pip_depth_mm = 4.5: expected at most 4, a quarter of the die"),
    (["sage-stones.die.edge_radius_mm=6"], "sage-stones.die.edge_radius_mm = 6: expected at most 4.601 so the one's "
                                           "5.19615 mm pip fits on the flat of the face"),
    (["sage-stones.die.colour=White!"], "sage-stones.die.colour = 'White!': expected a name of lower-case letters"),
])
def test_bad_sage_parameters_are_one_line(sets, message):
    with pytest.raises(ParameterError) as e:
        load_params(sets=parse_set(sets))
    assert message in str(e.value) and "\n" not in str(e.value)


def test_gem_side_is_polygon_within_tolerance(sage, params, profiles):
    """The gem's side: circle_segments corners on the circle, every chord within the tolerance."""
    gem = _gem(sage, profiles, params)
    r = np.hypot(gem.vertices[:, 0], gem.vertices[:, 1])
    a = sage.gem.diameter_mm / 2
    assert r.max() == pytest.approx(a, abs=1e-6)
    n = max(circle_segments(a, params.mesh.tolerance_mm), 4 * math.ceil(90 / params.mesh.angular_tolerance_deg))
    assert a * (1 - math.cos(math.pi / n)) <= params.mesh.tolerance_mm


# --------------------------------------------------------------------------- the dice


@pytest.fixture(scope="module")
def die_solid(sage, profiles, params):
    return G.solid_die(subset(sage.die, SA.DieShape), profiles["piece"], params.mesh.tolerance_mm)[0]


def _rounded_cube_volume(size: float, r: float) -> float:
    """A cube of edge ``size`` with every edge and corner rounded at radius ``r``: the core,
    six slabs, twelve quarter cylinders along the edges and eight eighths of a ball."""
    c = size - 2 * r
    return c ** 3 + 6 * c * c * r + 3 * math.pi * r * r * c + 4 / 3 * math.pi * r ** 3


def test_a_die_is_a_rounded_cube_on_the_layers_numbered_1_2_3_each_opposite_itself(sage, profiles, params, die_solid):
    """Counted on the B-rep: each face's pip floors (flat faces parallel to it, a pip's
    depth inside it), 1 opposite 1, 2 opposite 2, 3 opposite 3; the edge a whole number of
    layers, every flat face of the mesh on a layer boundary, the mesh watertight."""
    shape, piece = subset(sage.die, SA.DieShape), profiles["piece"]
    size = SA.die_size(shape, piece)
    assert on_layer_boundary(size, piece) and abs(size - sage.die.size_mm) <= piece.layer_height_mm / 2
    bb = die_solid.BoundingBox()
    assert (bb.xlen, bb.ylen, bb.zlen) == pytest.approx((size, size, size), abs=1e-6)
    assert (bb.xmin, bb.ymin, bb.zmin) == pytest.approx((-size / 2, -size / 2, 0.0), abs=1e-6)
    counts = {}
    for face, axis in (("+x", 0), ("-x", 0), ("+y", 1), ("-y", 1), ("+z", 2), ("-z", 2)):
        sign = 1 if face[0] == "+" else -1
        outer = size / 2 + sign * size / 2 if axis == 2 else sign * size / 2  # the face's plane
        floors = [f for f in die_solid.Faces() if f.geomType() == "PLANE"
                  and abs(f.normalAt().toTuple()[axis] - sign) < 1e-9
                  and 0.3 < sign * (outer - f.Center().toTuple()[axis]) < size / 4]
        counts[face] = len(floors)
    assert counts == {"+x": 1, "-x": 1, "+y": 2, "-y": 2, "+z": 3, "-z": 3}
    mesh = G.die(shape, piece, params.mesh.tolerance_mm)
    check_mesh(mesh, "die")
    assert all(on_layer_boundary(z, piece) for z in horizontal_heights(mesh))
    assert sage.die.count == 3  # "roll 3d3"


def test_every_face_of_a_die_removes_the_same_plastic_and_its_centre_of_mass_is_the_centre(sage, profiles,
                                                                                           die_solid):
    """Fair by construction, measured on the solid: what the pips take out of the rounded
    cube, near each face, is the same volume (and the closed form: a pip's area times its
    depth); the solid is the rounded cube less six times that; its centre of mass is the
    cube's centre within 0.05 mm (a test with the pips the same width on every face, so the
    one's face would lose a third of the three's plastic, fails the first)."""
    import cadquery as cq

    shape, piece = subset(sage.die, SA.DieShape), profiles["piece"]
    size, r = SA.die_size(shape, piece), shape.edge_radius_mm
    pips = SA.die_pips(shape, piece)
    per_face = {f: sum(math.pi / 4 * p.diameter_mm ** 2 * p.depth_mm for p in pips if p.face == f)
                for f in SA.DIE_FACES}
    assert max(per_face.values()) == pytest.approx(min(per_face.values()), rel=1e-12)
    whole = cq.Workplane("XY").box(size, size, size, centered=(True, True, False)).edges().fillet(r).val()
    assert whole.Volume() == pytest.approx(_rounded_cube_volume(size, r), rel=1e-6)
    taken = whole.cut(die_solid)
    reach = size / 4  # no pip is deeper than a quarter of the die
    side = size / 2 - max(p.depth_mm for p in pips) - 0.01  # clear of the other faces' pips
    measured = {}
    for face in SA.DIE_FACES:
        axis, sign = "xyz".index(face[1]), 1 if face[0] == "+" else -1
        lo, hi = [-side, -side, size / 2 - side], [side, side, size / 2 + side]
        outer = size / 2 + sign * size / 2 if axis == 2 else sign * size / 2
        lo[axis], hi[axis] = sorted((outer - sign * reach, outer + sign))
        near = cq.Solid.makeBox(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], cq.Vector(*lo))
        measured[face] = taken.intersect(near).Volume()
    for face, v in measured.items():
        assert v == pytest.approx(per_face[face], rel=1e-6), (face, measured)
    assert die_solid.Volume() == pytest.approx(_rounded_cube_volume(size, r) - sum(per_face.values()), rel=1e-6)
    centre = die_solid.Center()
    assert math.dist(centre.toTuple(), (0.0, 0.0, size / 2)) < 0.05
