"""The terrain game's board and pieces: heights from the heightmap, tiles with dovetails in the
base, start frames, labels; Runner / Lancer / Guardian volumes, marks, fit and printability."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import shapely
from shapely.geometry import Polygon, box

from stratstone_cad.base.overrides import parse_set
from stratstone_cad.base.params import on_layer_boundary, snap_depth, snap_height
from stratstone_cad.base.printers import Printer, get_printer, load_profiles
from stratstone_cad.errors import ParameterError, UserError
from stratstone_cad.games.terrain import cad as T
from stratstone_cad.games.terrain import parts as TA
from stratstone_cad.games.terrain.terrain_map import generate
from stratstone_cad.geometry.boards import label_strokes, stack_volume, stroke_region
from stratstone_cad.geometry.tiling import dovetail_outline
from stratstone_cad.printing.checks import check_mesh
from stratstone_cad.printing.stack import stack_mesh
from stratstone_cad.registry import load_params
from tests.meshtools import horizontal_heights, normals, overhang_ok

MK4 = Printer("prusa-mk4", "", 250, 210, 5)
STAIRS = tuple(tuple(2 * f for f in range(10)) for _ in range(10))  # the steepest legal ramp: 2 levels a step
CHECKER = tuple(tuple(2 * ((f + r) % 2) for f in range(10)) for r in range(10))  # every neighbour 2 apart
FLAT = tuple(tuple(0 for _ in range(10)) for _ in range(10))


@pytest.fixture(scope="module")
def terrain(params):
    return params.params_of("terrain")


def _top_at(mesh, x: float, y: float) -> float:
    """The height of the mesh's highest upward face over (x, y) (a ray cast from above)."""
    tri = mesh.vertices[mesh.triangles]
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    up = n[:, 2] > 1e-9
    best = -math.inf
    for t in tri[up]:
        a, b, c = t[:, :2]
        d = (b[1] - c[1]) * (a[0] - c[0]) + (c[0] - b[0]) * (a[1] - c[1])
        u = ((b[1] - c[1]) * (x - c[0]) + (c[0] - b[0]) * (y - c[1])) / d
        v = ((c[1] - a[1]) * (x - c[0]) + (a[0] - c[0]) * (y - c[1])) / d
        if u >= -1e-9 and v >= -1e-9 and u + v <= 1 + 1e-9:
            best = max(best, u * t[0, 2] + v * t[1, 2] + (1 - u - v) * t[2, 2])
    return best


@pytest.mark.parametrize("name", ["seed-1", "seed-7", "stairs", "checker", "flat"])
def test_every_cell_stands_at_base_plus_level_times_step(name, terrain, profiles, params):
    """Sampled at every cell centre, the board's top is base + level x step, on the layers."""
    heightmap = {"seed-1": terrain.heightmap, "seed-7": tuple(map(tuple, generate(7))), "stairs": STAIRS,
                 "checker": CHECKER, "flat": FLAT}[name]
    b = terrain.board
    prof = profiles["board"]
    base, step = snap_height(b.thickness_mm, prof, minimum_layers=3), snap_depth(b.step_mm, prof)
    mesh = stack_mesh(T.board_stack(b, heightmap, prof, params.mesh.tolerance_mm))
    check_mesh(mesh, name)
    g = b.grid()
    for r in range(10):
        for f in range(10):
            x, y = g.cell_centre(f, r)
            assert _top_at(mesh, x, y) == pytest.approx(base + heightmap[r][f] * step, abs=1e-6), (name, f, r)
    assert all(on_layer_boundary(z, prof) for z in horizontal_heights(mesh))
    # the rim is the base: level 0's height
    assert _top_at(mesh, b.rim_width_mm / 2, g.size_mm[1] / 2 + 3) <= base + 1e-6


def test_board_volume_is_its_columns_less_its_engravings(terrain, profiles, params):
    b = terrain.board
    prof = profiles["board"]
    base, step = snap_height(b.thickness_mm, prof, minimum_layers=3), snap_depth(b.step_mm, prof)
    e = snap_depth(b.engrave_depth_mm, prof)
    w, h = b.grid().size_mm
    hm = terrain.heightmap
    stack = T.board_stack(b, hm, prof, params.mesh.tolerance_mm)
    labels = stroke_region(label_strokes(b.labels(), b.label_height_mm), b.label_stroke_mm).area
    frames = sum(stroke_region(lines, b.label_stroke_mm).area for lines in b.frames().values())
    columns = sum(level * step * b.cell_pitch_mm ** 2 for row in hm for level in row)
    closed = (w * h - (4 - math.pi) * b.corner_radius_mm ** 2) * base + columns - (labels + frames) * e
    assert abs(stack_volume(stack) - closed) <= params.mesh.tolerance_mm * 2 * math.pi * b.corner_radius_mm * base
    assert stack_mesh(stack).volume_mm3() == pytest.approx(stack_volume(stack), rel=1e-8)


def test_start_squares_are_framed_red_full_blue_brackets(terrain, profiles, params):
    b = terrain.board
    frames = b.frames()
    assert sorted(frames) == sorted([(f, 0) for f in range(2, 8)] + [(f, 9) for f in range(2, 8)])  # c1-h1, c10-h10
    assert all(len(frames[(f, 0)]) == 1 and frames[(f, 0)][0][0] == frames[(f, 0)][0][-1] for f in range(2, 8))
    assert all(len(frames[(f, 9)]) == 4 for f in range(2, 8))
    # engraved into each start cell's top, whatever its level
    prof = profiles["board"]
    stack = T.board_stack(b, CHECKER, prof, params.mesh.tolerance_mm)
    base, step = snap_height(b.thickness_mm, prof, minimum_layers=3), snap_depth(b.step_mm, prof)
    for (f, r), lines in frames.items():
        top = base + CHECKER[r][f] * step
        region = stroke_region(lines, b.label_stroke_mm)
        under_top = next(s for s in stack if abs(s.z1 - top) < 1e-9 and s.z0 < top)
        assert under_top.region.intersection(region).area == pytest.approx(0, abs=1e-6), (f, r)


def test_coordinates_on_all_four_rims(terrain):
    b = terrain.board
    texts = sorted(lab.text for lab in b.labels())
    assert texts == sorted(list("abcdefghij") * 2 + [str(r) for r in range(1, 11)] * 2)
    w, h = b.grid().size_mm
    for lab in b.labels():  # every label inside the rim, two extrusions from the cells and the edge
        region = stroke_region(label_strokes([lab], b.label_height_mm), b.label_stroke_mm)
        cells = box(b.rim_width_mm, b.rim_width_mm, w - b.rim_width_mm, h - b.rim_width_mm)
        assert region.distance(cells) >= 0.8 - 1e-9 and box(0, 0, w, h).buffer(-0.8).contains(region), lab


def test_tiles_fit_the_bed_and_join_in_the_base_only(terrain, profiles, params):
    """At the default 30 mm cells the board (332 mm) is wider than an MK4's bed: tiles cut on
    cell boundaries, each within the bed, with every dovetail below the base's top."""
    b = terrain.board
    job = TA.plan(terrain, MK4, profiles, params.mesh)[0]
    plan = job.args["plan"]
    assert plan.count == 4
    g = b.grid()
    assert set(plan.xcuts) <= set(g.wall_lines()[0]) and set(plan.ycuts) <= set(g.wall_lines()[1])
    tiles = T.make_board(**job.args)
    base = snap_height(b.thickness_mm, profiles["board"], minimum_layers=3)
    ux, uy = MK4.usable_mm
    stacks = T.tiled(T.board_stack(b, terrain.heightmap, profiles["board"], params.mesh.tolerance_mm), plan, b,
                     joint_top=base, socket_top=base + profiles["board"].layer_height_mm, profile=profiles["board"])
    for tile, stack in zip(tiles, stacks, strict=True):
        check_mesh(tile, "terrain tile")
        lo, hi = tile.bounds()
        assert hi[0] - lo[0] <= ux + 1e-6 and hi[1] - lo[1] <= uy + 1e-6
        assert all(on_layer_boundary(z, profiles["board"]) for z in horizontal_heights(tile))
        # above the base every slab ends on straight cut lines: its region's box is a cell-boundary box
        for s in stack:
            if s.z0 >= base + profiles["board"].layer_height_mm - 1e-9:
                x0, y0, x1, y1 = s.region.bounds
                outer = box(x0, y0, x1, y1)
                assert all(abs(v - c) < 1e-6 or abs(v) < 1e-6 or v > 0 for v, c in ((x0, x0),))  # bounds exist
                for j in plan.joints:
                    tab = Polygon(dovetail_outline(j, b.joint_length_mm, b.joint_width_mm))
                    beyond = tab.difference(box(*(0, 0), *(j.at, 1e6)) if j.axis == "x" else box(0, 0, 1e6, j.at))
                    assert s.region.intersection(beyond).area < 1e-6 or outer.contains(beyond)


def test_heightmap_from_a_file_or_a_log_and_bad_maps_in_one_line(tmp_path):
    levels = [list(r) for r in STAIRS]
    f = tmp_path / "hills.json"
    f.write_text(json.dumps(levels))
    p = load_params(sets=parse_set([f"terrain.board.heightmap={f}"])).params_of("terrain")
    assert p.heightmap == STAIRS and p.map_name.startswith("map-") and len(p.map_name) == 12
    assert p.map_source["heightmap_file"] == str(f)
    log = tmp_path / "game.jsonl"
    log.write_text(json.dumps({"format": "stratstone-cad/log", "version": 1, "game": "terrain", "rules": "terrain/1",
                               "players": ["red", "blue"], "seed": None,
                               "setup": {"terrain_seed": None, "heightmap": levels}}) + "\n")
    q = load_params(sets=parse_set([f"terrain.board.heightmap={log}"])).params_of("terrain")
    assert q.heightmap == STAIRS and q.map_name == p.map_name  # the same map, the same name
    assert load_params(sets=parse_set(["terrain.board.seed=5"])).params_of("terrain").map_name == "seed-5"
    bad = [list(r) for r in STAIRS]
    bad[6][2] = 9
    f.write_text(json.dumps(bad))
    with pytest.raises(UserError) as e:
        load_params(sets=parse_set([f"terrain.board.heightmap={f}"]))
    assert str(e.value) == f"{f}: heightmap: c6 = 4 and c7 = 9 differ by 5, expected at most 2"
    f.write_text("[[1, 2], [3]]")
    with pytest.raises(UserError, match=r"hills.json: heightmap: 2 rows, expected 10"):
        load_params(sets=parse_set([f"terrain.board.heightmap={f}"]))


def _volume_closed(body, height):
    b, t = body.base_mm, body.top_mm
    if body.round:
        return math.pi * (b / 2) ** 2 * height
    return height / 3 * (b * b + t * t + math.sqrt(b * b * t * t))  # frustum h/3 (A1 + A2 + sqrt(A1 A2))


@pytest.mark.parametrize("kind", ["runner", "lancer", "guardian"])
@pytest.mark.parametrize("side", [0, 1])
def test_piece_volume_is_its_solid_less_its_marks(kind, side, terrain, profiles, params):
    """Cylinder pi r^2 h, frustum h/3 (A1 + A2 + sqrt(A1 A2)); a Guardian is a pyramid of
    height H = h B / (B - T) less its tip: B^2 H / 3 - T^2 (H - h) / 3, the same number. The
    marks take away their area x depth on each marked face."""
    pc = terrain.piece
    body = pc.body(kind)
    piece = profiles["piece"]
    height = snap_height(body.height_mm, piece, minimum_layers=4)
    symbol, strength = {k: (s, n) for k, s, n in TA.KIND_MARKS}[kind]
    mark = TA.PieceMark(symbol, strength, pc.symbol_size_mm, pc.stroke_mm, pc.pip_diameter_mm, pc.relief_mm, side == 1)
    mesh = T.piece(body, mark, piece, params.mesh.tolerance_mm, params.mesh.angular_tolerance_deg)
    check_mesh(mesh, kind)
    solid = _volume_closed(body, height)
    if kind == "guardian":
        full = height * body.base_mm / (body.base_mm - body.top_mm)
        assert solid == pytest.approx(body.base_mm ** 2 * full / 3 - body.top_mm ** 2 * (full - height) / 3)
    depth = snap_depth(pc.relief_mm, piece) if body.round else pc.relief_mm
    region = TA.mark_region(mark, body.mark_centre(mark), quad_segs=math.ceil(90 / params.mesh.angular_tolerance_deg))
    marks = len(body.faces(height)) * region.area * depth
    bound = params.mesh.tolerance_mm * (2 * math.pi * body.base_mm / 2 * height) if body.round else 1e-6 * solid
    assert abs(mesh.volume_mm3() - (solid - marks)) <= bound + 1e-3, (kind, side)


@pytest.mark.parametrize("kind", ["runner", "lancer", "guardian"])
def test_pieces_fit_a_cell_print_without_supports_and_sit_on_the_layers(kind, terrain, profiles, params):
    pc = terrain.piece
    piece = profiles["piece"]
    pitch = terrain.board.cell_pitch_mm
    for side in (0, 1):
        symbol, strength = {k: (s, n) for k, s, n in TA.KIND_MARKS}[kind]
        mark = TA.PieceMark(symbol, strength, pc.symbol_size_mm, pc.stroke_mm, pc.pip_diameter_mm, pc.relief_mm, side == 1)
        mesh = T.piece(pc.body(kind), mark, piece, params.mesh.tolerance_mm, params.mesh.angular_tolerance_deg)
        lo, hi = mesh.bounds()
        assert max(hi[0] - lo[0], hi[1] - lo[1]) <= pitch - 2 * pc.clearance_mm + 1e-9
        assert overhang_ok(mesh, piece.first_layer_height_mm), (kind, side)
        heights = horizontal_heights(mesh)
        assert all(on_layer_boundary(z, piece) for z in heights), heights
        assert heights[0] == 0.0 and heights[-1] == pytest.approx(snap_height(pc.body(kind).height_mm, piece, 4))
        # the foot is whole: no pocket reaches the bed
        foot = np.abs(normals(mesh)[:, 2] + 1) < 1e-9
        tri = mesh.vertices[mesh.triangles][foot]
        area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1).sum()
        b = pc.body(kind).base_mm
        assert area == pytest.approx(math.pi * b * b / 4 if kind == "runner" else b * b, rel=2e-3), (kind, side)


def test_sides_differ_by_their_symbols_outline_or_filled(terrain, profiles, params):
    """Red's symbol is an outline, Blue's the same symbol filled: a filled mark removes the
    symbol's inside too, on every marked face; the pips are the same."""
    pc = terrain.piece
    for kind, symbol, strength in TA.KIND_MARKS:
        body = pc.body(kind)
        red, blue = (TA.mark_region(TA.PieceMark(symbol, strength, pc.symbol_size_mm, pc.stroke_mm, pc.pip_diameter_mm,
                                                 pc.relief_mm, filled)) for filled in (False, True))
        assert blue.contains(red.buffer(-1e-6)) and blue.area > red.area + 10
        assert len([g for g in getattr(blue, "geoms", [blue])]) == 1 + strength  # the symbol and its pips
        assert len(body.faces(10.0)) == (1 if body.round else 4)


def test_pieces_are_two_of_each_per_side(terrain, profiles, params):
    jobs = [j for j in TA.plan(terrain, MK4, profiles, params.mesh) if j.outputs[0].part != "board-tile"]
    files = {j.outputs[0].file: j.outputs[0].count for j in jobs}
    assert files == {f"terrain/{k}-{c}.stl": 2 for k in ("runner", "lancer", "guardian") for c in ("red", "blue")}


def test_a_dovetail_on_a_start_frame_names_the_frame_inset():
    sets = parse_set(["terrain.board.frame_inset_mm=1.4", "terrain.board.joint_width_mm=30",
                      "terrain.board.joint_length_mm=15"])
    ps = load_params(sets=sets)
    with pytest.raises(ParameterError) as e:
        TA.plan(ps.params_of("terrain"), get_printer("prusa-mini"), load_profiles(), ps.mesh)
    assert "of a start frame, expected at least 0.8 mm (a larger frame_inset_mm, a smaller joint_width_mm" in str(e.value)
    ps = load_params(sets={**sets, "terrain.board.frame_inset_mm": "4"})  # the fix it names works
    assert len(TA.plan(ps.params_of("terrain"), get_printer("prusa-mini"), load_profiles(), ps.mesh)[0].outputs) == 9


@pytest.mark.parametrize(("sets", "message"), [
    (["terrain.piece.guardian_base_mm=29"],
     "terrain.piece.guardian_base_mm = 29: expected at most 28 so a guardian stands in a 30 mm cell "
     "(terrain.board.cell_pitch_mm) with 1 mm to spare on each side"),
    (["terrain.piece.lancer_top_mm=20"], "terrain.piece.lancer_top_mm = 20: expected at most 19 so the sides lean in"),
    (["terrain.piece.symbol_size_mm=16"], "terrain.piece.symbol_size_mm = 16: expected at most"),
    (["terrain.board.frame_inset_mm=14"], "terrain.board.frame_inset_mm = 14: expected at most 13.6"),
    (["terrain.board.label_height_mm=6"], "terrain.board.label_height_mm = 6: expected at least 7.001 with 1.2 mm strokes, so "
                                          "the inside of the '4' (and every closed letter or digit) stays 0.8 mm wide"),
    (["terrain.board.heightmap=/nonexistent/map.json"], "/nonexistent/map.json: file not found, expected a JSON heightmap or a terrain-game log"),
])
def test_bad_terrain_parameters_are_one_line(sets, message):
    with pytest.raises(UserError) as e:
        load_params(sets=parse_set(sets))
    assert message in str(e.value) and "\n" not in str(e.value)


def test_only_the_games_built_read_their_files():
    """A Stratstone build does not open the terrain heightmap (nor fail on a missing one);
    its values are still checked: a bad one of another game is still refused."""
    sets = parse_set(["terrain.board.heightmap=/nonexistent/map.json"])
    assert set(load_params(sets=sets, games=["stratstone"]).games) == {"stratstone"}
    with pytest.raises(UserError, match="file not found"):
        load_params(sets=sets, games=["terrain"])
    with pytest.raises(ParameterError, match="terrain.piece.lancer_top_mm = 20"):
        load_params(sets=parse_set(["terrain.piece.lancer_top_mm=20"]), games=["stratstone"])


def test_a_piece_symbol_too_big_names_the_largest_that_fits():
    with pytest.raises(ParameterError) as e:
        load_params(sets=parse_set(["terrain.piece.symbol_size_mm=16"]))
    most = float(str(e.value).split("at most ")[1].split(" ")[0])
    load_params(sets=parse_set([f"terrain.piece.symbol_size_mm={most}"]))


def test_stepped_board_joints_are_under_cells_clear_of_frames(terrain, profiles, params):
    job = TA.plan(terrain, MK4, profiles, params.mesh)[0]
    b = terrain.board
    keep = shapely.union_all([g for _, g in TA.keep_out(terrain)])
    xs, ys = b.grid().centre_lines()
    for j in job.args["plan"].joints:
        assert j.along in (ys if j.axis == "x" else xs)  # under the middle of a cell
        assert Polygon(dovetail_outline(j, b.joint_length_mm, b.joint_width_mm, b.joint_clearance_mm)).distance(keep) >= 0.8


def test_a_heightmap_that_is_not_a_regular_file_is_refused_without_reading_it(tmp_path):
    import os

    fifo = tmp_path / "map.fifo"
    os.mkfifo(fifo)  # reading it would block for ever
    for path, message in ((fifo, "is a FIFO"), (tmp_path, "is a folder")):
        with pytest.raises(UserError, match=f"^{path}: {message}, expected a JSON heightmap or a terrain-game log$"):
            load_params(sets=parse_set([f"terrain.board.heightmap={path}"]))


def test_a_stratstone_build_goes_past_a_missing_heightmap(tmp_path):
    """build passes its games to load_params: the next check (the printer) is reached."""
    from stratstone_cad.pipeline.build import build

    with pytest.raises(ParameterError, match="printer 'nope': unknown"):
        build(["stratstone"], "nope", tmp_path / "o", sets=parse_set(["terrain.board.heightmap=/nonexistent/map.json"]),
              progress=None)
    assert not (tmp_path / "o").exists()


def test_a_board_taller_than_the_printer_is_refused_naming_the_step_that_fits(tmp_path):
    from stratstone_cad.pipeline.build import build

    hill = tmp_path / "hill.json"
    hill.write_text(json.dumps([[min(20, f + r + 2) for f in range(10)] for r in range(10)]))  # j10 is level 20
    sets = parse_set([f"terrain.board.heightmap={hill}", "terrain.board.step_mm=9"])
    with pytest.raises(ParameterError) as e:
        build(["terrain"], "prusa-mini", tmp_path / "o", sets=sets, progress=None)
    assert str(e.value).startswith("terrain.board.step_mm = 9: the map-")
    assert str(e.value).endswith("board's level-20 cells stand 183 mm tall (3 mm base + 20 x 9 mm), expected at "
                                 "most 180 mm, the build height of Prusa MINI+ (a step_mm of at most 8.7, or a smaller "
                                 "thickness_mm)")
    assert not (tmp_path / "o").exists()
    ps = load_params(sets=parse_set([f"terrain.board.heightmap={hill}", "terrain.board.step_mm=8.7"]))
    (job,) = [j for j in TA.plan(ps.params_of("terrain"), get_printer("prusa-mini"), load_profiles(), ps.mesh) if "board" in j.id]
    assert job.outputs  # the step it names fits
