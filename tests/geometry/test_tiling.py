"""Tiling a board that is larger than the bed: fit, cover, joints, keep-out, stepped boards."""

from __future__ import annotations

import functools
import math

import pytest
import shapely
from shapely.geometry import Polygon

from stratstone_cad.base.overrides import parse_set
from stratstone_cad.base.printers import Printer
from stratstone_cad.errors import ParameterError
from stratstone_cad.games.stratstone import cad as S
from stratstone_cad.games.stratstone import parts as SA
from stratstone_cad.geometry.boards import Slab, stack_volume
from stratstone_cad.geometry.tiling import Joint, dovetail_outline, lay_on_bed, plan_tiles, tile_stack
from stratstone_cad.printing.checks import check_mesh
from stratstone_cad.printing.stack import stack_mesh
from stratstone_cad.registry import load_params

SMALL_BED = Printer("small", "a 110 mm test bed", 110, 110, 5)


def _plan(params, printer):
    b = params.params_of("stratstone").board
    g = b.grid()
    return plan_tiles(g.size_mm, printer, b.joint_length_mm, b.joint_width_mm, g.wall_lines())


@pytest.fixture(scope="module")
def tiled(params, profiles):
    p = params.params_of("stratstone")
    b = p.board
    stack = S.board_stack(b, p.recess_diameter_mm, profiles["board"], params.mesh.tolerance_mm)
    plan = _plan(params, SMALL_BED)
    tiles = tile_stack(stack, plan, b.joint_length_mm, b.joint_width_mm, b.joint_clearance_mm)
    return stack, plan, tiles


def test_a_board_that_fits_is_one_tile(params):
    assert _plan(params, Printer("big", "", 250, 210, 5)).count == 1


def test_plan_cuts_along_walls_between_cells(params):
    plan = _plan(params, SMALL_BED)
    assert plan.count == 4
    assert plan.xcuts == plan.ycuts == [84.0]  # the wall between files b and c
    # dovetails sit at cell corners (the solid crossings of the walls), one per cut per tile edge
    assert sorted(j.along for j in plan.joints if j.axis == "x") == [48.0, 120.0]


@pytest.mark.parametrize(("over", "tiles"), [(0.0, 1), (0.5, 2)])
def test_a_board_at_the_usable_size_is_one_tile_and_half_a_mm_more_is_two(over, tiles):
    """The bed's usable size is the limit itself: a board exactly that long fits, 0.5 mm more does not."""
    bed = Printer("t", "", 160, 120, 5)  # usable 150 x 110
    assert plan_tiles((150.0 + over, 100.0), bed, 5.0, 9.0).count == tiles


def test_every_tile_fits_the_bed_exactly_at_the_limit():
    """A board cut into tiles of exactly the usable width (dovetail reach included) is
    accepted; 0.5 mm narrower a bed needs more tiles, never a tile that overhangs it."""
    plan = plan_tiles((190.0, 80.0), Printer("t", "", 110, 95, 5), 5.0, 9.0, ([95.0], []))  # usable 100 x 85
    assert plan.xcuts == [95.0] and not plan.rotated  # the left tile is 95 + 5 mm of dovetail = exactly 100
    with pytest.raises(ParameterError, match="cannot be cut into tiles"):  # usable 99.5 x 85: no cut line works
        plan_tiles((190.0, 80.0), Printer("u", "", 109.5, 95, 5), 5.0, 9.0, ([95.0], []))


def test_every_tile_fits_the_bed(tiled):
    _, _, tiles = tiled
    ux, uy = SMALL_BED.usable_mm
    for t in tiles:
        x0, y0, x1, y1 = shapely.union_all([s.region for s in t]).bounds
        w, h = x1 - x0, y1 - y0
        assert (w <= ux and h <= uy) or (h <= ux and w <= uy)


def test_tiles_cover_the_board_less_the_joint_gaps(tiled, params):
    """The tiles together are the board less the clearance ring around each dovetail, exactly."""
    stack, plan, tiles = tiled
    b = params.params_of("stratstone").board
    gap = sum(Polygon(dovetail_outline(j, b.joint_length_mm, b.joint_width_mm, b.joint_clearance_mm))
              .difference(Polygon(dovetail_outline(j, b.joint_length_mm, b.joint_width_mm))).area for j in plan.joints)
    # over the full height: the gaps behind the cut lie in the dovetail's own tile and are not cut
    total = sum(stack_volume(t) for t in tiles)
    assert total < stack_volume(stack)
    assert stack_volume(stack) - total < gap * 4.8
    assert stack_volume(stack) - total > 0.3 * gap * 3.3
    lo = [min(shapely.union_all([s.region for s in t]).bounds[i] for t in tiles) for i in (0, 1)]
    hi = [max(shapely.union_all([s.region for s in t]).bounds[i] for t in tiles) for i in (2, 3)]
    w, h = b.grid().size_mm
    assert lo == pytest.approx([0, 0], abs=1e-9) and hi == pytest.approx([w, h], abs=1e-9)


def test_tiles_do_not_overlap_and_joints_line_up(tiled, params):
    """Each dovetail sits in its socket with the clearance all round: no tile overlaps
    another, a dovetail grown by 90 % of the clearance still misses the other tile,
    grown by 150 % it touches it."""
    _, plan, tiles = tiled
    b = params.params_of("stratstone").board
    flat = [shapely.union_all([s.region for s in t]) for t in tiles]
    for i, a in enumerate(flat):
        for c in flat[i + 1:]:
            assert a.intersection(c).area == pytest.approx(0, abs=1e-9)
    for j in plan.joints:
        higher = next(t for t in plan.tiles() if (j.axis == "x" and t.x0 == j.at and t.y0 < j.along < t.y1)
                      or (j.axis == "y" and t.y0 == j.at and t.x0 < j.along < t.x1))
        other = flat[higher.index - 1]
        assert other.intersection(Polygon(dovetail_outline(j, b.joint_length_mm, b.joint_width_mm,
                                                           0.9 * b.joint_clearance_mm))).area == pytest.approx(0, abs=1e-9)
        assert other.intersection(Polygon(dovetail_outline(j, b.joint_length_mm, b.joint_width_mm,
                                                           1.5 * b.joint_clearance_mm))).area > 0.1


def test_tiles_mesh_watertight(tiled):
    _, _, tiles = tiled
    for i, t in enumerate(tiles):
        check_mesh(stack_mesh(t), f"tile {i + 1}")


def test_a_dovetail_flares(params):
    b = params.params_of("stratstone").board
    pts = dovetail_outline(Joint("x", 0.0, 0.0), b.joint_length_mm, b.joint_width_mm)
    neck = max(y for x, y in pts if x == 0.0) * 2
    head = max(y for x, y in pts if x > 0) * 2
    assert head == pytest.approx(b.joint_width_mm) and neck < head


def test_a_board_that_cannot_be_tiled_is_refused(params):
    with pytest.raises(ParameterError, match="printer 'tiny': a 168 x 168 mm board cannot be cut into tiles"):
        _plan(params, Printer("tiny", "", 20, 20, 5))


def test_tiles_lie_rotated_when_that_needs_fewer():
    """A long board on a bed that is long the other way: one tile, turned a quarter."""
    bed = Printer("tall", "", 170, 320, 5)  # usable 160 x 310
    plan = plan_tiles((300.0, 150.0), bed, 5.0, 9.0)
    assert plan.count == 1 and plan.rotated
    plan = plan_tiles((300.0, 150.0), Printer("wide", "", 320, 170, 5), 5.0, 9.0)
    assert plan.count == 1 and not plan.rotated


def test_a_rotated_plan_turns_the_tiles_on_the_bed():
    from shapely.geometry import box

    plan = plan_tiles((300.0, 150.0), Printer("tall", "", 170, 320, 5), 5.0, 9.0)
    ((slab,),) = lay_on_bed([[Slab(0, 5, box(0, 0, 300, 150))]], plan)
    assert (slab.z0, slab.z1) == (0, 5)  # a quarter turn about z at the origin: heights kept
    assert slab.region.bounds == pytest.approx((-150, 0, 0, 300))


def test_a_plans_tiles_are_numbered_row_by_row_from_the_lower_left():
    from stratstone_cad.geometry.tiling import Tile, TilePlan

    assert TilePlan((200.0, 100.0), [120.0], [40.0], []).tiles() == [
        Tile(1, 0, 0, 0.0, 0.0, 120.0, 40.0), Tile(2, 1, 0, 120.0, 0.0, 200.0, 40.0),
        Tile(3, 0, 1, 0.0, 40.0, 120.0, 100.0), Tile(4, 1, 1, 120.0, 40.0, 200.0, 100.0)]


def test_a_cut_across_y_gives_the_lower_tile_the_dovetail_and_the_upper_its_socket():
    from shapely.geometry import Point, box

    from stratstone_cad.geometry.tiling import TilePlan

    plan = TilePlan((100.0, 200.0), [], [100.0], [Joint("y", 100.0, 50.0)])
    (low,), (high,) = tile_stack([Slab(0.0, 5.0, box(0, 0, 100, 200))], plan, 5.0, 9.0, 0.2)
    assert low.region.bounds == pytest.approx((0, 0, 100, 105)) and low.region.contains(Point(50, 103))
    assert high.region.bounds == pytest.approx((0, 100, 100, 200))
    assert not high.region.contains(Point(50, 102)) and high.region.contains(Point(10, 102))
    assert high.region.area + low.region.area < 200 * 100  # the clearance between them


def test_sockets_stop_at_socket_top_and_a_missing_socket_top_is_the_joint_top():
    """A base of 3 mm under a 1 mm step: the socket is a pocket up to socket_top (3.3 mm),
    the step above it whole; without socket_top the socket is as tall as the dovetail."""
    from shapely.geometry import box

    from stratstone_cad.geometry.tiling import TilePlan

    plan = TilePlan((200.0, 100.0), [100.0], [], [Joint("x", 100.0, 50.0)])
    stack = [Slab(0.0, 3.0, box(0, 0, 200, 100)), Slab(3.0, 4.0, box(0, 0, 200, 100))]
    _, right = tile_stack(stack, plan, 5.0, 9.0, 0.2, joint_top=3.0, socket_top=3.3)
    assert [(s.z0, s.z1) for s in right] == [(0.0, 3.3), (3.3, 4.0)]
    assert right[0].region.area < 100 * 100 and right[1].region.area == pytest.approx(100 * 100)
    left, right = tile_stack(stack, plan, 5.0, 9.0, 0.2, joint_top=3.0)
    assert [(s.z0, s.z1) for s in right] == [(0.0, 3.0), (3.0, 4.0)] == [(s.z0, s.z1) for s in left]
    assert right[1].region.area == pytest.approx(100 * 100) and left[1].region.area == pytest.approx(100 * 100)


def test_cuts_follow_the_walls_or_none_are_made(params):
    """With wall lines given, cuts are only ever on them (never through a recess)."""
    b = params.params_of("stratstone").board
    g = b.grid()
    for bed in (Printer("a", "", 110, 110, 5), Printer("b", "", 70, 70, 5)):
        plan = plan_tiles(g.size_mm, bed, b.joint_length_mm, b.joint_width_mm, g.wall_lines())
        assert set(plan.xcuts) <= set(g.wall_lines()[0]) and set(plan.ycuts) <= set(g.wall_lines()[1])
    with pytest.raises(ParameterError, match="cannot be cut into tiles"):
        plan_tiles(g.size_mm, Printer("c", "", 45, 45, 5), b.joint_length_mm, b.joint_width_mm, g.wall_lines())


def test_dovetails_keep_clear_of_recesses_and_labels_or_the_plan_is_refused(profiles):
    """Joints go only where their sockets keep two extrusions from every recess and label;
    with nowhere to go, the message names the dovetail, what it hits, and what to change."""
    from stratstone_cad.assets.jobs import board_job

    ps = load_params(sets=parse_set(["stratstone.board.cell_pitch_mm=44"]))
    p = ps.params_of("stratstone")
    job = SA.plan(p, Printer("mini", "", 180, 180, 5), profiles, ps.mesh)[0]
    keep = shapely.union_all([g for _, g in SA.keep_out(p)])
    b = p.board
    for j in job.args["plan"].joints:
        assert Polygon(dovetail_outline(j, b.joint_length_mm, b.joint_width_mm, b.joint_clearance_mm)).distance(keep) >= 0.8
    wide = load_params(sets=parse_set(["stratstone.board.cell_pitch_mm=44", "stratstone.board.joint_width_mm=20",
                                       "stratstone.board.joint_length_mm=20"])).params_of("stratstone")
    with pytest.raises(ParameterError, match=r"^stratstone.board.joint_width_mm = 20: the dovetail at \(\d+(\.\d+)?, "
                                             r"\d+(\.\d+)?\) mm comes within \d.\d\d mm of a (recess|label), expected at least "
                                             r"0.8 mm \(a smaller joint_width_mm, a smaller joint_length_mm, a larger cell_pitch_mm or a printer with a larger "
                                             r"bed\)$"):
        board_job(game="stratstone", stem="board", maker="m:f", args={}, board=wide.board,
                  printer=Printer("mini", "", 180, 180, 5), keep_out=functools.partial(SA.keep_out, wide),
                  what="Stratstone board",
                  facts="", cut_fix="x")


def test_tiled_lays_the_whole_board_or_its_tiles_on_the_bed_with_the_boards_joints():
    """``tiled``: a board that fits is one stack, turned when the plan turns it; a board cut
    in two is its tiles cut with the board's joint sizes, turned too (a 400 x 100 mm board
    on a 120 x 250 mm bed: two tiles laid 100 mm wide)."""
    from types import SimpleNamespace

    from shapely.geometry import box

    from stratstone_cad.geometry.tiling import tiled

    joints = SimpleNamespace(joint_length_mm=5.0, joint_width_mm=9.0, joint_clearance_mm=0.2)
    board = [Slab(0.0, 5.0, box(0, 0, 300, 150))]
    ((whole,),) = tiled(board, plan_tiles((300.0, 150.0), Printer("tall", "", 170, 320, 5), 5.0, 9.0), joints)
    x0, y0, x1, y1 = whole.region.bounds
    assert (x1 - x0, y1 - y0) == pytest.approx((150, 300)) and whole.region.area == pytest.approx(300 * 150)
    long = [Slab(0.0, 5.0, box(0, 0, 400, 100))]
    plan = plan_tiles((400.0, 100.0), Printer("t", "", 120, 250, 5), 5.0, 9.0)
    assert plan.rotated and plan.xcuts == [200.0]
    tiles = tiled(long, plan, joints)
    assert sorted((round(b[2] - b[0], 6), round(b[3] - b[1], 6)) for b in (t[0].region.bounds for t in tiles)) == [
        (100, 200), (100, 205)]  # turned: the tile with the dovetail 5 mm longer
    # cut with the board's own joint sizes, in their places
    want = lay_on_bed(tile_stack(long, plan, 5.0, 9.0, 0.2), plan)
    assert all(a.region.equals(b.region) for (a,), (b,) in zip(tiles, want, strict=True))
    narrower = lay_on_bed(tile_stack(long, plan, 5.0, 9.0, 0.1), plan)
    assert not tiles[1][0].region.equals(narrower[1][0].region)  # the clearance shows in the socket
    # a stepped board: the joint and socket tops reach tile_stack as given
    stepped = [Slab(0.0, 3.0, box(0, 0, 400, 100)), Slab(3.0, 9.0, box(0, 0, 400, 100))]
    got = tiled(stepped, plan, joints, joint_top=3.0, socket_top=3.3)
    want = lay_on_bed(tile_stack(stepped, plan, 5.0, 9.0, 0.2, joint_top=3.0, socket_top=3.3), plan)
    assert [[(s.z0, s.z1) for s in t] for t in got] == [[(s.z0, s.z1) for s in t] for t in want] == [
        [(0.0, 3.0), (3.0, 9.0)], [(0.0, 3.3), (3.3, 9.0)]]
    assert all(a.region.equals(b.region) for ta, tb in zip(got, want, strict=True) for a, b in zip(ta, tb, strict=True))


def test_a_stepped_board_keeps_its_dovetails_in_the_base():
    """Joints of a stepped board are only below joint_top: above it every tile ends on the
    straight cut line; each socket is a pocket a layer taller than its dovetail."""
    from shapely.geometry import box

    stack = [Slab(0.0, 3.0, box(0, 0, 200, 100)), Slab(3.0, 9.0, box(50, 0, 200, 100))]
    plan = plan_tiles((200.0, 100.0), Printer("t", "", 130, 120, 5), 5.0, 9.0, ([100.0], []), joint_lines=([], [50.0]))
    assert plan.xcuts == [100.0] and [j.along for j in plan.joints] == [50.0]
    left, right = tile_stack(stack, plan, 5.0, 9.0, 0.2, joint_top=3.0, socket_top=3.3)
    # the left tile carries the dovetail up to 3.0 mm only
    assert [(s.z0, s.z1) for s in left] == [(0.0, 3.0), (3.0, 9.0)]
    assert left[0].region.bounds[2] == pytest.approx(105.0) and left[1].region.bounds[2] == pytest.approx(100.0)
    # the right tile's socket reaches 3.3 mm: a pocket under its column, closed above
    assert [(s.z0, s.z1) for s in right] == [(0.0, 3.3), (3.3, 9.0)]
    socket = Polygon(dovetail_outline(plan.joints[0], 5.0, 9.0, 0.2))
    assert right[0].region.intersection(socket).area == pytest.approx(0, abs=1e-9)
    assert right[1].region.bounds[0] == pytest.approx(100.0) and right[1].region.area == pytest.approx(100 * 100)
    for t in (left, right):
        check_mesh(stack_mesh(t), "stepped tile")


def test_a_joint_at_its_smallest_is_not_told_to_shrink():
    """joint_width_mm = 4 is the least it can be: the message names what can still change."""
    from stratstone_cad.assets.jobs import joint_fix

    b = load_params(sets=parse_set(["stratstone.board.joint_width_mm=4", "stratstone.board.joint_length_mm=2"])).params_of("stratstone").board
    assert joint_fix(b) == "a larger cell_pitch_mm or a printer with a larger bed"


def test_dovetail_spots_on_an_edge_counted_by_hand():
    """tiling._spots with a 10 mm wide, 6 mm long dovetail: it keeps half its width and a
    wall from the board's outer edge, its length more from a cut that crosses, one per
    started 80 mm, on the preferred line nearest each even spot."""
    from stratstone_cad.base.params import MIN_WALL_MM as w
    from stratstone_cad.geometry.tiling import _spots

    def spots(lo, hi, size, prefer, fits=lambda c: True, length=6.0):
        return _spots(lo, hi, size, prefer, length, 10.0, fits)

    assert spots(0, 200, 200, []) == pytest.approx([200 / 6, 100, 1000 / 6])  # three, evenly
    assert spots(0, 80, 200, []) == [40]  # 80 mm: one, mid-edge
    assert spots(0, 81, 200, []) == pytest.approx([20.25, 60.75])
    assert spots(0, 120, 200, [], length=30) == [60]  # two would not clear each other's ends
    assert spots(0, 200, 200, [10, 30, 50, 95, 105, 170, 200 - 5 - w + 0.01]) == [30, 95, 170]
    assert spots(0, 200, 200, [5 + w - 0.01, 5 + w, 100]) == [5 + w, 100]  # the outer end's margin
    assert spots(50, 250, 400, [50 + 11 + w - 0.01, 62, 150, 237, 250 - 11 - w + 0.01]) == [62, 150, 237]
    assert spots(0, 200, 200, [30, 95, 170], fits=lambda c: c != 95) == [30, 170]
    assert spots(0, 200, 200, [300]) == [100]  # a preferred line, but none on this edge: mid-edge


def test_a_dovetails_outline_counted_by_hand():
    from stratstone_cad.geometry.tiling import Joint, dovetail_outline

    assert dovetail_outline(Joint("x", 100.0, 50.0), 6.0, 12.0) == [
        (94, 46), (100, 46), (106, 44), (106, 56), (100, 54), (94, 54)]  # neck 2/3 of the head
    assert dovetail_outline(Joint("y", 50.0, 100.0), 6.0, 12.0) == [
        (104, 44), (104, 50), (106, 56), (94, 56), (96, 50), (96, 44)]  # the same, turned a quarter
    extra = 0.5 * (math.hypot(6, 2) / 6 - 1)  # the flared sides pushed out by 0.5 along their normal
    grown = dovetail_outline(Joint("x", 0.0, 0.0), 6.0, 12.0, 0.5)
    expected = [(-6, -4.5 - extra), (0, -4.5 - extra), (6.5, -6.5 - extra), (6.5, 6.5 + extra), (0, 4.5 + extra),
                (-6, 4.5 + extra)]
    assert [c for p in grown for c in p] == pytest.approx([c for p in expected for c in p])


def check(plan, keep_out, fixes=None):
    """check_keep_out on the default printer: 6 x 12 mm dovetails, 0.2 mm clearance."""
    from stratstone_cad.base.printers import get_printer
    from stratstone_cad.geometry.tiling import check_keep_out

    check_keep_out(plan, keep_out, 6.0, 12.0, 0.2, "p", get_printer(None), "fix the cut", "fix the joint", fixes)


def refused(plan, keep_out, fixes=None) -> str:
    from stratstone_cad.errors import ParameterError

    with pytest.raises(ParameterError) as e:
        check(plan, keep_out, fixes)
    return str(e.value)


def test_cuts_and_sockets_keep_a_wall_from_what_must_stay_whole():
    from shapely.geometry import box

    from stratstone_cad.base.params import MIN_WALL_MM as w
    from stratstone_cad.base.printers import get_printer
    from stratstone_cad.geometry.tiling import Joint, TilePlan

    printer = get_printer(None)

    across = TilePlan((200.0, 100.0), [100.0], [], [Joint("x", 100.0, 50.0)])
    check(across, [("label", box(100 + w, 0, 110, 5))])  # exactly a wall from the cut, far from the socket
    assert refused(across, [("well", box(100.5, 10, 110, 20))], {"well": "well.inset_mm"}) == (
        f"p.cell_pitch_mm: the tile cut at x = 100 mm for printer {printer.name!r} passes 0.50 mm from a well, "
        f"expected at least {w:g} mm (well.inset_mm, fix the cut)")
    assert refused(across, [("label", box(106.5, 48, 110, 52))], {"well": "well.inset_mm"}) == (
        f"p.joint_width_mm = 12: the dovetail at (100, 50) mm comes within 0.30 mm of a label, expected at least "
        f"{w:g} mm (fix the joint)")
    up = TilePlan((200.0, 100.0), [], [50.0], [Joint("y", 50.0, 100.0)])
    check(up, [("label", box(0, 50 + w, 5, 60))])
    assert refused(up, [("well", box(10, 50.4, 20, 60))]).startswith(
        f"p.cell_pitch_mm: the tile cut at y = 50 mm for printer {printer.name!r} passes 0.40 mm from a well")
    assert refused(up, [("label", box(98, 56.5, 102, 60))]).startswith(
        "p.joint_width_mm = 12: the dovetail at (100, 50) mm comes within 0.30 mm of a label")


def test_cuts_on_uneven_wall_lines_take_more_tiles_when_two_spots_would_share_a_line():
    """Walls at 30, 120 and 210 mm of a 240 mm board on a 100 mm bed: two tiles do not fit,
    three would put both cuts on the middle wall (the lines nearest 80 and 160 mm), so the
    planner goes on to four tiles, one cut per wall."""
    plan = plan_tiles((240.0, 50.0), Printer("t", "", 110, 110, 5), 5.0, 9.0, ([30.0, 120.0, 210.0], []))
    assert plan.xcuts == [30.0, 120.0, 210.0] and plan.count == 4


def test_the_last_tile_carries_no_dovetail_so_it_may_fill_the_bed():
    """A cut at 90 mm of a 190 mm board on a 100 mm bed: the left tile is 90 + 5 mm of
    dovetail, the right one exactly 100 mm (its dovetails are the left tile's)."""
    plan = plan_tiles((190.0, 50.0), Printer("t", "", 110, 110, 5), 5.0, 9.0, ([90.0], []))
    assert plan.xcuts == [90.0] and plan.count == 2


def test_a_last_tile_must_be_wider_than_two_dovetail_lengths():
    """5 mm dovetails: a last tile of exactly 10 mm is refused, 11 mm is cut."""
    bed = Printer("t", "", 115, 115, 5)  # usable 105 x 105: the left tile is 100 + 5 mm
    with pytest.raises(ParameterError, match="a 110 x 50 mm board cannot be cut into tiles"):
        plan_tiles((110.0, 50.0), bed, 5.0, 9.0, ([100.0], []))
    assert plan_tiles((111.0, 50.0), bed, 5.0, 9.0, ([100.0], [])).xcuts == [100.0]


@pytest.mark.parametrize(("size", "usable", "count", "xcuts", "ycuts", "turned"), [
    ((250.0, 120.0), (100, 150), 3, 2, 0, True),  # 3 x 1 as it lies, 2 x 2 turned
    ((90.0, 250.0), (100, 60), 5, 0, 4, True),  # 1 x 5 as it lies, 2 x 3 turned
    ((250.0, 90.0), (60, 100), 5, 4, 0, True),  # 5 x 1 as it lies, 3 x 2 turned
    ((120.0, 130.0), (100, 150), 2, 1, 0, False),  # 2 x 1 as it lies, 1 x 2 turned: a tie keeps the tiles unturned
])
def test_the_way_round_with_fewer_tiles_is_kept(size, usable, count, xcuts, ycuts, turned):
    """The planner tries the tiles both ways round on the bed and keeps the fewer; on the
    bed turned a quarter the same board lies turned (unless both ways take as many)."""
    plan = plan_tiles(size, Printer("t", "", usable[0] + 10, usable[1] + 10, 5), 5.0, 9.0)
    assert (plan.count, plan.rotated, len(plan.xcuts), len(plan.ycuts)) == (count, False, xcuts, ycuts)
    other = plan_tiles(size, Printer("t", "", usable[1] + 10, usable[0] + 10, 5), 5.0, 9.0)
    assert (other.count, other.rotated) == (count, turned)


def test_the_planner_gives_up_past_199_tiles_along_a_side():
    """1 mm dovetails on an 11 mm bed: 1990 mm is 199 tiles of 10 mm (+ 1 mm of dovetail);
    2000 mm would need 200 and is refused."""
    bed = Printer("t", "", 21, 21, 5)
    assert plan_tiles((1990.0, 10.0), bed, 1.0, 1.0).count == 199
    with pytest.raises(ParameterError, match="a 2000 x 10 mm board cannot be cut into tiles"):
        plan_tiles((2000.0, 10.0), bed, 1.0, 1.0)


def test_a_refused_board_is_named_by_both_its_sides():
    with pytest.raises(ParameterError) as e:
        plan_tiles((300.0, 200.0), Printer("tiny", "", 30, 40, 5), 5.0, 9.0, ([150.0], [100.0]), what="terrain board")
    assert str(e.value) == ("printer 'tiny': a 300 x 200 mm terrain board cannot be cut into tiles that fit "
                            "its 20 x 30 mm usable bed")


def test_dovetails_on_both_cuts_of_a_four_tile_board_counted_by_hand():
    """A 160 x 200 mm board on a 110 mm bed: cut at x = 80 and y = 100. 5 x 9 mm dovetails
    keep 5.3 mm from the board's edge, 10.3 mm from a crossing cut. Along x = 80 the
    preferred y lines 10 and 190 each fit their tile edge; along y = 100 the x line 10
    fits the left edge (0-80), 154 the right one (80-160, 158 is too near the board's edge).
    Every dovetail planned is one ``fits`` was asked about."""
    asked = []

    def fits(j):
        asked.append(j)
        return True

    plan = plan_tiles((160.0, 200.0), Printer("t", "", 120, 120, 5), 5.0, 9.0,
                      joint_lines=([10.0, 154.0, 158.0], [10.0, 190.0]), fits=fits)
    assert (plan.xcuts, plan.ycuts) == ([80.0], [100.0])
    assert plan.joints == [Joint("x", 80.0, 10.0), Joint("x", 80.0, 190.0),
                           Joint("y", 100.0, 10.0), Joint("y", 100.0, 154.0)]
    assert set(plan.joints) <= set(asked)


def test_a_dovetails_margins_are_exact():
    """tiling._spots, 10 mm wide and 6 mm long dovetails: a preferred line exactly at the
    margin (half the width and a wall from the board's edge, the length more from a
    crossing cut) is taken, 0.01 mm past it is not (the dovetail goes mid-edge). Only the
    board's own edges (0 and its size) get the short margin, not a cut 1 mm from them."""
    from stratstone_cad.base.params import MIN_WALL_MM as w
    from stratstone_cad.geometry.tiling import _spots

    def spots(lo, hi, size, prefer, length=6.0):
        return _spots(lo, hi, size, prefer, length, 10.0, lambda c: True)

    outer, inner = 5 + w, 5 + w + 6
    assert spots(0, 200, 200, [outer]) == [outer] and spots(0, 200, 200, [outer - 0.01]) == [100]
    assert spots(0, 200, 200, [200 - outer]) == [200 - outer] and spots(0, 200, 200, [200 - outer + 0.01]) == [100]
    assert spots(50, 250, 400, [50 + inner]) == [50 + inner] and spots(50, 250, 400, [50 + inner - 0.01]) == [150]
    assert spots(50, 250, 400, [250 - inner]) == [250 - inner] and spots(50, 250, 400, [250 - inner + 0.01]) == [150]
    assert spots(1, 201, 400, [1 + inner - 0.01]) == [101]
    assert spots(199, 399, 400, [399 - inner + 0.01]) == [299]


def test_evenly_spread_dovetails_on_an_inner_edge():
    """With no preferred lines: one dovetail per started 80 mm of the edge, evenly, when
    each gets more than twice its reach (half its width, a wall and its length) of the
    edge; else one mid-edge."""
    from stratstone_cad.base.params import MIN_WALL_MM as w
    from stratstone_cad.geometry.tiling import _spots

    def spots(lo, hi, length):
        return _spots(lo, hi, 400, [], length, 10.0, lambda c: True)

    assert spots(50, 250, 6.0) == pytest.approx([50 + 200 / 6, 150, 250 - 200 / 6])
    assert spots(100, 220, 30.0) == [160]  # 60 mm each would not clear two 35.8 mm reaches
    reach = 5 + w + 20
    assert spots(0, 4 * reach, 20.0) == [2 * reach]  # exactly twice the reach each: one
    assert spots(0, 4 * reach + 1, 20.0) == pytest.approx([reach + 0.25, 3 * reach + 0.75])


def test_a_socket_fits_exactly_a_wall_from_what_must_stay_whole():
    """socket_fits: the socket is the dovetail grown by the clearance (here a 12 mm wide,
    6 mm long dovetail, 0.2 mm: its head's face at x = 106.2 for a cut at x = 100); it
    fits exactly a wall from a keep-out, not 0.01 mm nearer; with nothing to keep out
    every socket fits."""
    from shapely.geometry import box

    from stratstone_cad.base.params import MIN_WALL_MM as w
    from stratstone_cad.geometry.tiling import socket_fits

    j = Joint("x", 100.0, 50.0)
    assert socket_fits([], 6.0, 12.0, 0.2)(j)
    assert socket_fits([("label", box(150, 0, 160, 100))], 6.0, 12.0, 0.2)(j)
    assert socket_fits([("label", box(106.2 + w, 48, 110, 52))], 6.0, 12.0, 0.2)(j)
    assert not socket_fits([("label", box(106.2 + w - 0.01, 48, 110, 52))], 6.0, 12.0, 0.2)(j)
    assert not socket_fits([("recess", box(0, 0, 10, 10)), ("label", box(95, 45, 96, 46))], 6.0, 12.0, 0.2)(j)


def test_a_cut_keeps_a_wall_to_the_board_edge_and_a_socket_names_its_own_fix():
    """A keep-out by the board's edge, half a millimetre beside the cut, is refused (the
    cut runs edge to edge); a socket exactly a wall from a label passes; a socket too near
    a keep-out that has its own fix names that fix first."""
    from shapely.geometry import box

    from stratstone_cad.base.params import MIN_WALL_MM as w
    from stratstone_cad.geometry.tiling import TilePlan

    across = TilePlan((200.0, 100.0), [100.0], [], [Joint("x", 100.0, 50.0)])
    assert refused(across, [("label", box(100.5, 0, 110, 0.1))]).startswith(
        "p.cell_pitch_mm: the tile cut at x = 100 mm for printer")
    up = TilePlan((200.0, 100.0), [], [50.0], [Joint("y", 50.0, 100.0)])
    assert refused(up, [("label", box(0, 50.5, 0.1, 60))]).startswith(
        "p.cell_pitch_mm: the tile cut at y = 50 mm for printer")
    check(across, [("label", box(106.2 + w, 48, 110, 52))])
    assert refused(across, [("label", box(106.5, 48, 110, 52))], {"label": "label.size_mm"}) == (
        f"p.joint_width_mm = 12: the dovetail at (100, 50) mm comes within 0.30 mm of a label, expected at least "
        f"{w:g} mm (label.size_mm, fix the joint)")
