"""Tiling a board that is larger than the bed: fit, cover, joints."""

from __future__ import annotations

import pytest

from stratstone_cad.cad import stratstone as S
from stratstone_cad.cad.common import volume
from stratstone_cad.cad.tiling import Joint, cut_tiles, dovetail_outline, plan_tiles
from stratstone_cad.errors import ParameterError
from stratstone_cad.params import Printer

SMALL_BED = Printer("small", "a 110 mm test bed", 110, 110, 5)


def _plan(params, printer):
    b = params.stratstone.board
    return plan_tiles((b.size_mm, b.size_mm), printer, b.joint_length_mm, b.joint_width_mm,
                      (b.wall_lines_mm(), b.wall_lines_mm()))


@pytest.fixture(scope="module")
def tiled(params, profiles):
    b = params.stratstone.board
    board = S.board_solid(params.stratstone, profiles["board"])
    plan = _plan(params, SMALL_BED)
    tiles = cut_tiles(board, plan, b.joint_length_mm, b.joint_width_mm, b.joint_clearance_mm)
    return board, plan, tiles


def test_a_board_that_fits_is_one_tile(params):
    assert _plan(params, Printer("big", "", 250, 210, 5)).count == 1


def test_plan_cuts_along_walls_between_cells(params):
    plan = _plan(params, SMALL_BED)
    assert plan.count == 4
    assert plan.xcuts == plan.ycuts == [84.0]  # the wall between files b and c
    # dovetails sit at cell corners (the solid crossings of the walls), two per cut per tile edge
    assert sorted(j.along for j in plan.joints if j.axis == "x") == [48.0, 120.0]


def test_every_tile_fits_the_bed(tiled):
    _, _, tiles = tiled
    ux, uy = SMALL_BED.usable_mm
    for t in tiles:
        bb = t.BoundingBox()
        assert (bb.xlen <= ux and bb.ylen <= uy) or (bb.ylen <= ux and bb.xlen <= uy)


def test_tiles_cover_the_board(tiled, params):
    board, plan, tiles = tiled
    b = params.stratstone.board
    # Tiles together are the board less the clearance gaps around each dovetail.
    gap = sum(_area(dovetail_outline(j, b.joint_length_mm, b.joint_width_mm, b.joint_clearance_mm))
              - _area(dovetail_outline(j, b.joint_length_mm, b.joint_width_mm)) for j in plan.joints)
    # the socket's part behind the cut line lies in the tab's own tile: subtract what is not cut
    total = sum(volume(t) for t in tiles)
    assert total < volume(board)
    assert volume(board) - total < gap * 4.8  # at most the gaps' full height
    assert volume(board) - total > 0.3 * gap * 3.3  # and at least through the thinnest part
    # the union of the tiles' boxes spans the board's
    lo = [min(t.BoundingBox().xmin for t in tiles), min(t.BoundingBox().ymin for t in tiles)]
    hi = [max(t.BoundingBox().xmax for t in tiles), max(t.BoundingBox().ymax for t in tiles)]
    assert lo == pytest.approx([0, 0], abs=1e-6) and hi == pytest.approx([b.size_mm, b.size_mm], abs=1e-6)


def test_tiles_do_not_overlap_and_joints_line_up(tiled, params):
    """Each dovetail sits in its socket with the clearance all round: no tile overlaps
    another, a dovetail grown by 90 % of the clearance still misses the other tile,
    grown by 150 % it touches it."""
    import cadquery as cq

    _, plan, tiles = tiled
    b = params.stratstone.board
    for i, a in enumerate(tiles):
        for c in tiles[i + 1:]:
            assert volume(a.intersect(c)) == pytest.approx(0, abs=1e-6)
    by_index = {t.index: tiles[t.index - 1] for t in plan.tiles()}
    for j in plan.joints:
        higher = next(t for t in plan.tiles() if (j.axis == "x" and t.x0 == j.at and t.y0 < j.along < t.y1)
                      or (j.axis == "y" and t.y0 == j.at and t.x0 < j.along < t.x1))
        other = by_index[higher.index]

        def prism(grow, j=j):
            pts = dovetail_outline(j, b.joint_length_mm, b.joint_width_mm, grow)
            w = cq.Wire.makePolygon([cq.Vector(x, y, -1) for x, y in pts], close=True)
            return cq.Solid.extrudeLinear(cq.Face.makeFromWires(w), cq.Vector(0, 0, 10))

        assert volume(other.intersect(prism(0.9 * b.joint_clearance_mm))) == pytest.approx(0, abs=1e-6)
        assert volume(other.intersect(prism(1.5 * b.joint_clearance_mm))) > 0.1


def test_a_dovetail_flares(params):
    b = params.stratstone.board
    pts = dovetail_outline(Joint("x", 0.0, 0.0), b.joint_length_mm, b.joint_width_mm)
    neck = max(y for x, y in pts if x == 0.0) * 2
    head = max(y for x, y in pts if x > 0) * 2
    assert head == pytest.approx(b.joint_width_mm) and neck < head


def test_a_board_that_cannot_be_tiled_is_refused(params):
    with pytest.raises(ParameterError, match="printer 'tiny': a 168 x 168 mm board cannot be cut into tiles"):
        _plan(params, Printer("tiny", "", 20, 20, 5))


def _area(pts):
    return abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1], strict=True))) / 2


def test_tiles_lie_rotated_when_that_needs_fewer():
    """A long board on a bed that is long the other way: one tile, turned a quarter."""
    bed = Printer("tall", "", 170, 320, 5)  # usable 160 x 310
    plan = plan_tiles((300.0, 150.0), bed, 5.0, 9.0)
    assert plan.count == 1 and plan.rotated
    plan = plan_tiles((300.0, 150.0), Printer("wide", "", 320, 170, 5), 5.0, 9.0)
    assert plan.count == 1 and not plan.rotated


def test_a_rotated_plan_turns_the_tiles_on_the_bed():
    import cadquery as cq

    from stratstone_cad.cad.tiling import lay_on_bed

    box = cq.Solid.makeBox(300, 150, 5)
    plan = plan_tiles((300.0, 150.0), Printer("tall", "", 170, 320, 5), 5.0, 9.0)
    (tile,) = lay_on_bed([box], plan)
    bb = tile.BoundingBox()
    assert (bb.xlen, bb.ylen) == pytest.approx((150, 300))


def test_cuts_follow_the_walls_or_none_are_made(params):
    """With wall lines given, cuts are only ever on them (never through a recess)."""
    b = params.stratstone.board
    for bed in (Printer("a", "", 110, 110, 5), Printer("b", "", 70, 70, 5)):
        plan = plan_tiles((b.size_mm, b.size_mm), bed, b.joint_length_mm, b.joint_width_mm,
                          (b.wall_lines_mm(), b.wall_lines_mm()))
        assert set(plan.xcuts) <= set(b.wall_lines_mm()) and set(plan.ycuts) <= set(b.wall_lines_mm())
    with pytest.raises(ParameterError, match="cannot be cut into tiles"):
        plan_tiles((b.size_mm, b.size_mm), Printer("c", "", 45, 45, 5), b.joint_length_mm, b.joint_width_mm,
                   (b.wall_lines_mm(), b.wall_lines_mm()))
