"""Boards as shells (stratstone_cad.geometry.shells): every board of every game, built as the
build builds it (its tiles for the default printer), shell and solid. Measured on the
meshes, independently of how the cavities were found: the same top surface at every
cell's centre and on a 3 mm grid over the whole board (wells, marks, engravings), tops
at least the shell's thickness over every cavity under a cell's centre, walls at least
the shell's thickness in the first layer, no ceiling wider than a cell and no bridge line
along x or y longer than a cell, watertight. Then the rules on hand-built cells: a ceiling
rising beside a dip, the walls between cavities, and a wall under a cell edge only where a
span needs it."""

from __future__ import annotations

import importlib
import itertools

import numpy as np
import pytest
import shapely
import trimesh
from shapely.geometry import MultiPolygon, Point, Polygon, box

from stratstone_cad.base.printers import get_printer, load_profiles
from stratstone_cad.geometry.boards import BoardParams, GridBoard, Slab, _pinch_points, disc, stack_volume
from stratstone_cad.geometry.shells import Shell, _opened, axis_span, cavities, shelled
from stratstone_cad.registry import get_parts, load_params
from tests.meshtools import normals

GAMES = [g.name for g in get_parts(None)]


def _boards(shell: bool):
    sets = {f"{g}.board.shell": str(shell).lower() for g in GAMES}
    ps, profiles = load_params(sets=sets), load_profiles()
    out = {}
    for g in get_parts(None):
        for j in g.plan(ps.params_of(g.name), get_printer("prusa-mk4"), profiles, ps.mesh):
            board = j.args.get("board")
            if isinstance(board, BoardParams) and "plan" in j.args:
                module, func = j.maker.split(":")
                out[g.name] = (j, getattr(importlib.import_module(module), func)(**j.args))
    return out


@pytest.fixture(scope="module")
def boards():
    shells, solids = _boards(True), _boards(False)
    assert set(shells) == set(solids) == set(GAMES)
    return {g: (shells[g][0], shells[g][1], solids[g][1]) for g in GAMES}


def _flat(mesh, up: bool):
    """The horizontal triangles facing up (or down) as (2D triangles, z)."""
    n = normals(mesh)[:, 2]
    pick = n > 1 - 1e-9 if up else n < -1 + 1e-9
    tri = mesh.vertices[mesh.triangles][pick]
    return tri[:, :, :2], tri[:, 0, 2]


def _heights_at(tris, zs, points: np.ndarray) -> list[list[float]]:
    """For each point, the z of every flat triangle over it (edges included)."""
    tree = shapely.STRtree([Polygon(t) for t in tris])
    pt, tri = tree.query(shapely.points(points), predicate="intersects")
    out: list[list[float]] = [[] for _ in points]
    for i, j in zip(pt, tri, strict=True):
        out[i].append(float(zs[j]))
    return [sorted(h) for h in out]


def _tops(meshes, points):
    """The highest up-facing surface over each point across a board's tiles (None: no board there)."""
    best: list[float | None] = [None] * len(points)
    for m in meshes:
        for i, zs in enumerate(_heights_at(*_flat(m, True), points)):
            if zs and (best[i] is None or zs[-1] > best[i]):
                best[i] = zs[-1]
    return best


def _centres(job):
    board, plan = job.args["board"], job.args["plan"]
    centres = np.array(board.grid().centres())
    return centres @ np.array([[0.0, 1.0], [-1.0, 0.0]]) if plan.rotated else centres  # laid a quarter turned


def _shell(job) -> Shell:
    b = job.args["board"]
    return Shell.of(b.shell_top_layers, b.shell_wall_extrusions, job.args["profile"])


@pytest.mark.parametrize("game", GAMES)
def test_a_shell_has_the_solid_boards_top_everywhere(boards, game):
    job, shell, solid = boards[game]
    assert len(shell) == len(solid)
    lo = np.min([m.bounds()[0] for m in solid], axis=0)
    hi = np.max([m.bounds()[1] for m in solid], axis=0)
    xs, ys = np.arange(lo[0] + 0.37, hi[0], 3.0), np.arange(lo[1] + 0.41, hi[1], 3.0)
    grid = np.array([(x, y) for x in xs for y in ys])
    for points in (_centres(job), grid):
        got, want = _tops(shell, points), _tops(solid, points)
        bad = [(tuple(p), g, w) for p, g, w in zip(points, got, want, strict=True)
               if (g is None) != (w is None) or (g is not None and abs(g - w) > 0.01)]
        assert not bad, bad[:5]
    assert sum(m.volume_mm3() for m in shell) < 0.8 * sum(m.volume_mm3() for m in solid)


@pytest.mark.parametrize("game", GAMES)
def test_a_shells_tops_are_thick_over_every_cavity(boards, game):
    job, shell, _ = boards[game]
    top_mm = _shell(job).top_mm
    centres = _centres(job)
    hollow = 0
    for m in shell:
        ups, downs = _heights_at(*_flat(m, True), centres), _heights_at(*_flat(m, False), centres)
        for up, down in zip(ups, downs, strict=True):
            if not up:
                continue
            ceilings = [z for z in down if 1e-6 < z < up[-1]]
            if ceilings:
                hollow += 1
                assert up[-1] - max(ceilings) >= top_mm - 1e-6
                assert min(z for z in up if z > max(ceilings)) - max(ceilings) >= top_mm - 1e-6
    assert hollow == len(centres)  # every cell is hollow under its centre


def _ground(mesh):
    """The first layer's region: the union of the down-facing triangles on the bed."""
    tris, zs = _flat(mesh, False)
    return shapely.union_all([Polygon(t) for t in tris[np.abs(zs) < 1e-9]]).buffer(0)


@pytest.mark.parametrize("game", GAMES)
def test_a_shells_walls_are_thick_and_its_spans_short(boards, game):
    job, shell, _ = boards[game]
    wall = _shell(job).wall_mm
    pitch = job.args["board"].cell_pitch_mm
    for m in shell:
        assert trimesh.Trimesh(m.vertices, m.triangles, process=False).is_watertight
        ground = _ground(m)
        r = wall / 2 - 0.02  # every part of the first layer holds a disc as wide as the wall
        opened = ground.buffer(-r, join_style="mitre").buffer(r, join_style="mitre")
        assert opened.area >= ground.area * 0.995
        assert len(ground.interiors if isinstance(ground, Polygon) else
                   [h for g in ground.geoms for h in g.interiors]) > 0  # it is hollow
        assert longest_span(m) <= pitch - wall + 1e-6  # at most a cell between the walls under its edges
        v32 = m.vertices.astype(np.float32)  # a 3MF's numbers: lib3mf rejects a triangle with two corners alike
        assert len(np.unique(v32, axis=0)) == len(v32)


def longest_span(mesh) -> float:
    """The widest ceiling over air: twice the largest distance from a down-facing face above
    the bed to its nearest support (the edge of the ceiling, where a wall or a lower face is)."""
    return max((2 * shapely.maximum_inscribed_circle(poly, 0.05).length for poly in _ceilings(mesh)), default=0.0)


def _ceilings(mesh):
    """Every ceiling over air: each piece of the down-facing faces at one height above the bed."""
    tris, zs = _flat(mesh, False)
    for z in sorted(set(np.round(zs, 6))):
        if z < 1e-6:
            continue
        region = shapely.union_all([Polygon(t) for t in tris[np.isclose(zs, z, atol=1e-6)]])
        yield from getattr(region, "geoms", [region])


def bridge_span(mesh) -> float:
    """The longest bridge line a ceiling needs: for every ceiling over air (a piece of the
    down-facing faces above the bed), the longest chord along x or along y, whichever is
    shorter (a slicer bridges the piece in that direction), on lines 0.25 mm apart; the
    largest over the pieces."""
    worst = 0.0
    for poly in _ceilings(mesh):
        x0, y0, x1, y1 = poly.bounds
        along_x = [shapely.LineString([(x0 - 1, y), (x1 + 1, y)]) for y in np.arange(y0 + 0.1, y1, 0.25)]
        along_y = [shapely.LineString([(x, y0 - 1), (x, y1 + 1)]) for x in np.arange(x0 + 0.1, x1, 0.25)]
        chords = [shapely.length(shapely.get_parts(shapely.intersection(lines, poly))).max(initial=0.0)
                  for lines in (along_x, along_y)]
        worst = max(worst, min(chords))
    return worst


@pytest.mark.parametrize("game", GAMES)
def test_every_ceiling_bridges_along_an_axis_within_a_cell(boards, game):
    # where no wall stands on a cell edge (between the Sage Stones wells) a ceiling may cross
    # it, but a bridge line along the grid's x or y never spans more than a cell between walls
    job, shell, _ = boards[game]
    limit = job.args["board"].cell_pitch_mm - _shell(job).wall_mm
    for m in shell:
        assert bridge_span(m) <= limit + 0.3  # the lines are sampled: a chord between two may be a little longer


def test_the_solid_board_stays_a_parameter(boards):
    for game in GAMES:
        job, _, solid = boards[game]
        assert job.args["board"].shell
        assert longest_span(solid[0]) == 0.0  # a solid board has no ceiling over air


# --------------------------------------------------------------------------- the rules on a hand-built cell
# One 30 mm cell, 4.8 mm thick, with a round well 2.4 mm deep (r 10) and a groove 0.6 mm
# deep (shallower than a top): the ceilings and walls known in closed form.

_CELL = GridBoard(cols=1, rows=1, pitch_mm=30.0, rim_x_mm=0.0, rim_y_mm=0.0)
_SHELL = Shell(top_mm=0.9, wall_mm=0.8)


def _cell_stack():
    square = box(0, 0, 30, 30)
    well = Point(15, 15).buffer(10, quad_segs=32)
    groove = box(1.5, 27, 28.5, 28)
    return [Slab(0.0, 2.4, square), Slab(2.4, 4.2, square.difference(well)),
            Slab(4.2, 4.8, square.difference(well).difference(groove))], well, groove


def test_a_cavity_rises_beside_a_dip_to_a_top_under_the_higher_surface():
    stack, well, _ = _cell_stack()
    bands = {c: r for r, c in cavities(stack, _CELL, _SHELL, 0.6)}
    assert sorted(bands) == [1.5, 3.3, 3.9]  # under the well's floor, the groove and the cell's top
    ring = box(0.8, 0.8, 29.2, 29.2).difference(well.buffer(0.8, join_style="mitre"))  # a wall from the outline
    assert bands[3.9].area > 0.9 * ring.difference(box(0, 26.2, 30, 30)).area  # all but beside the groove
    assert bands[3.9].difference(ring).area < 1e-6
    assert well.buffer(-0.5).difference(bands[1.5]).area < 1e-6  # all under the well's floor is hollow
    assert box(0.8, 27.0, 29.2, 29.2).difference(bands[3.3]).area < 1e-6  # under the groove
    assert bands[3.3].within(box(0.8, 24.0, 29.2, 29.2))  # (and beside the well's wall, a wall from the rest)
    assert bands[3.3].distance(bands[3.9]) >= 0.8 - 1e-6
    hollow = stack_volume(stack) - stack_volume(shelled(stack, _CELL, _SHELL, 0.6))
    assert hollow == pytest.approx(sum(r.area * c for c, r in bands.items()), rel=1e-9)


def test_a_cavity_keeps_a_wall_from_a_dip_shallower_than_a_top_and_from_every_other_cavity():
    stack, well, groove = _cell_stack()
    found = cavities(stack, _CELL, _SHELL, 0.6)
    for region, ceiling in found:
        # air lower than the ceiling plus a top lies a wall away: the well (from 2.4 up), the groove (from 4.2 up)
        if ceiling > 2.4 - 0.9:
            assert region.distance(well) >= 0.8 - 1e-6, ceiling
        if ceiling > 4.2 - 0.9:
            assert region.distance(groove) >= 0.8 - 1e-6, ceiling
    for (a, _), (b, _) in itertools.combinations(found, 2):
        assert a.distance(b) >= 0.8 - 1e-6  # each ceiling anchored on walls all round


def test_pinch_points_are_the_points_where_a_boundary_touches_itself():
    two = MultiPolygon([box(0, 0, 1, 1), box(1, 1, 2, 2)])  # two squares meeting at a corner
    ring = Polygon([(0, 0), (4, 0), (4, 4), (0, 4)], [[(2, 0), (3, 1), (1, 1)]])  # a hole touching the outline
    twice = Polygon([(0, 0), (2, 0), (2, 2), (1, 1), (0, 2), (1, 1)])  # its ring passes (1, 1) twice
    assert _pinch_points(two) == [(1.0, 1.0)]
    assert _pinch_points(ring) == [(2.0, 0.0)]
    assert (1.0, 1.0) in _pinch_points(twice)
    assert _pinch_points(box(0, 0, 3, 3).difference(box(1, 1, 2, 2))) == []


# --------------------------------------------------------------------------- walls only where a span needs them
# Three by three cells of 22 mm, 4.8 mm thick: plain, and with a well 19 mm across and 2.4 mm
# deep in every cell (the Sage Stones board's): the wells' own walls anchor every ceiling
# between them, so no cell edge needs a wall there.

_NINE = GridBoard(cols=3, rows=3, pitch_mm=22.0, rim_x_mm=0.0, rim_y_mm=0.0)


def _nine(wells: bool) -> list[Slab]:
    square = box(0, 0, 66, 66)
    if not wells:
        return [Slab(0.0, 4.8, square)]
    holes = shapely.union_all([disc((11 + 22 * c, 11 + 22 * r), 9.5, 0.05) for c in range(3) for r in range(3)])
    return [Slab(0.0, 2.4, square), Slab(2.4, 4.8, square.difference(holes))]


def _inner_edges():
    """The lines of the inner cell edges."""
    return shapely.union_all([shapely.LineString([(v, -1), (v, 67)]) for v in (22, 44)] +
                             [shapely.LineString([(-1, v), (67, v)]) for v in (22, 44)])


def test_a_plain_board_keeps_a_wall_on_every_cell_edge():
    found = cavities(_nine(False), _NINE, _SHELL, 0.6)
    assert len(found) == 1
    region, ceiling = found[0]
    assert ceiling == pytest.approx(3.9)
    assert len(region.geoms) == 9  # a cavity a cell: the board bridged whole would span 64 mm
    assert region.distance(_inner_edges()) >= 0.4 - 1e-6  # half a wall from every inner edge's line


def test_between_wells_a_ceiling_crosses_the_cell_edges_and_still_bridges_within_a_cell():
    found = cavities(_nine(True), _NINE, _SHELL, 0.6)
    high = [r for r, c in found if c == pytest.approx(3.9)]
    assert len(high) == 1
    pieces = list(getattr(high[0], "geoms", [high[0]]))
    vertex = [p for p in pieces if p.contains(Point(22, 22))]
    assert len(vertex) == 1  # the four corners round an inner vertex: one ceiling over the edges' lines
    for p in pieces:  # the wells' walls anchor it: no ceiling joins two vertices through a neck
        assert sum(p.contains(Point(x, y)) for x in (22, 44) for y in (22, 44)) <= 1
        assert min(axis_span(p, 0), axis_span(p, 1)) <= 22.0 - 0.8


def test_a_neck_narrower_than_a_cavity_between_two_wells_walls_stays_solid():
    # two wells' walls 1.3 mm apart: the corners on either side are two cavities, not one
    walls = disc((11, 0), 9.5, 0.05).union(disc((33, 0), 9.5, 0.05)).buffer(0.8, join_style="mitre")
    region = box(12, -11, 32, 11).difference(walls)
    assert region.geom_type == "Polygon"
    opened = _opened(region)
    assert opened.geom_type == "MultiPolygon" and len(opened.geoms) == 2
    below, above = sorted(opened.geoms, key=lambda p: p.bounds[1])
    assert below.bounds[3] < 0 < above.bounds[1] and below.distance(above) >= 0.8  # a wall between them
