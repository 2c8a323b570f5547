"""The fit test (``stratstone-cad build fit-test``): its coupons hold the set's fits at the
three clearances they are engraved with, measured on the meshes the build writes; its plate
slices in PrusaSlicer in under 30 minutes; a clearance out of range is one line and exit 2;
one --set reaches the set's parts and the coupons alike."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import trimesh

from stratstone_cad.assets.fit_test import FIT_TEST, at, fit_test_set
from stratstone_cad.base.printers import get_printer, load_profiles
from stratstone_cad.geometry.boards import Label, label_strokes, stroke_region
from stratstone_cad.geometry.coupons import LABEL_HEIGHT_MM, clearance_text
from stratstone_cad.pipeline import build as B
from stratstone_cad.printing.slicing import find_prusaslicer
from stratstone_cad.registry import get_parts, load_params

PS = load_params()
SAGE, STRAT = PS.params_of("sage-stones"), PS.params_of("stratstone")
WELLS = (0.4, 0.5, 0.6)  # about sage-stones.board.clearance_mm = 0.5
RECESSES = (0.5, 0.6, 0.7)  # about stratstone.board.clearance_mm = 0.6
JOINTS = (0.1, 0.2, 0.3)  # about fit.joint_clearance_mm = 0.2, which every board's joint_clearance_mm follows
KIT = PS.params_of("terrain").kit
FRAMES = (0.2, 0.3, 0.4)  # about terrain.kit.clearance_mm = 0.3


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    """The fit test built once with its plate, sliced when PrusaSlicer is installed."""
    folder = tmp_path_factory.mktemp("fit")
    B.build([FIT_TEST], out_dir=folder, jobs=1, progress=None, plates=True,
            slice_plates=find_prusaslicer() is not None)
    return folder


def _mesh(out: Path, name: str) -> trimesh.Trimesh:
    return trimesh.load(out / FIT_TEST / f"{name}.stl", force="mesh")


def _section(mesh: trimesh.Trimesh, z: float):
    """The mesh's cross-section at height z as one shapely region, in the mesh's own x and y:
    the faces of its outlines, each hole cut from the face around it (even-odd)."""
    import functools

    import shapely
    from shapely.geometry import MultiLineString, Polygon

    segments = trimesh.intersections.mesh_plane(mesh, [0, 0, 1], [0, 0, z])
    faces = shapely.get_parts(shapely.polygonize(shapely.get_parts(shapely.union_all(
        MultiLineString([np.round(s[:, :2], 5).tolist() for s in segments])))))
    return functools.reduce(lambda a, b: a.symmetric_difference(b), [Polygon(f.exterior) for f in faces])


def _hole_radius(region) -> float:
    """The radius of the circle the coupon's round pocket (its one hole) is made to: the
    distance from the hole's centre to its nearest side (a pocket's sides touch its circle)."""
    (hole,) = region.interiors
    from shapely.geometry import Polygon

    poly = Polygon(hole)
    return poly.exterior.distance(poly.centroid)


def _widest(mesh: trimesh.Trimesh, centre: tuple[float, float]) -> float:
    return float(np.hypot(mesh.vertices[:, 0] - centre[0], mesh.vertices[:, 1] - centre[1]).max())


def test_the_fit_test_writes_its_coupons_at_the_clearances_about_each_parameter(out):
    names = sorted(p.stem for p in (out / FIT_TEST).glob("*.stl"))
    assert names == sorted(["gem", "stone", "joint-dovetail", "kit-tile", *(at("gem-well", c) for c in WELLS),
                            *(at("stone-recess", c) for c in RECESSES), *(at("joint-socket", c) for c in JOINTS),
                            *(at("kit-frame", c) for c in FRAMES)])
    for name in names:
        m = _mesh(out, name)
        assert m.is_watertight and m.is_winding_consistent and m.volume > 0, name


def test_each_well_leaves_its_engraved_clearance_round_the_gem(out):
    gem = _mesh(out, "gem")
    gem_r = _widest(gem, (0.0, 0.0))
    assert gem_r == pytest.approx(SAGE.gem.diameter_mm / 2, abs=1e-3)
    for c in WELLS:
        region = _section(_mesh(out, at("gem-well", c)), 0.15)
        assert _hole_radius(region) - gem_r == pytest.approx(c, abs=2e-3), c


def test_each_recess_leaves_its_engraved_clearance_round_the_largest_stone(out):
    stone = _mesh(out, "stone")
    assert _widest(stone, (0.0, 0.0)) <= STRAT.stone.footprint_mm / 2 + 1e-3
    for c in RECESSES:
        region = _section(_mesh(out, at("stone-recess", c)), 0.15)
        assert _hole_radius(region) - STRAT.stone.footprint_mm / 2 == pytest.approx(c, abs=2e-3), c


def test_each_socket_leaves_its_engraved_clearance_past_the_dovetail(out):
    from shapely import affinity
    from shapely.geometry import box

    tab = _section(_mesh(out, "joint-dovetail"), 0.15)
    cut = tab.bounds[2] - SAGE.board.joint_length_mm  # the dovetail reaches joint_length_mm past its cut
    dovetail = affinity.translate(tab, -cut).intersection(box(1e-3, -1e3, 1e3, 1e3))
    assert dovetail.bounds[2] == pytest.approx(SAGE.board.joint_length_mm, abs=1e-3)
    mid = dovetail.centroid.y
    gaps = []
    for c in JOINTS:
        socket = _section(_mesh(out, at("joint-socket", c)), 0.15)
        # along the dovetail, the socket ends c past its head; round it, the tiling's socket
        # (the outline grown by c, its flanks flaring over length + c) comes closest at the
        # head's corners, at about 0.72 c
        along = socket.intersection(box(0.0, mid - 0.01, 1e3, mid + 0.01)).bounds[0]
        assert along - SAGE.board.joint_length_mm == pytest.approx(c, abs=2e-3), c
        gaps.append(socket.distance(dovetail))
        assert 0.6 * c < gaps[-1] <= c + 1e-3, (c, gaps[-1])
    assert gaps == sorted(gaps) and gaps[0] < gaps[1] < gaps[2]


def test_each_kit_frame_leaves_its_engraved_clearance_round_the_piece_of_tile(out):
    """The piece is cut as a kit tile is (in by half the kit's clearance), each frame opened so
    that the piece laid in it has the frame's clearance on every side: the gap between a kit
    tile and the kit's frame when the kit is made with that clearance."""
    from stratstone_cad.games.terrain.cad import FIT_SPAN_MM

    x0, y0, x1, y1 = _section(_mesh(out, "kit-tile"), 0.15).bounds
    piece = (x1 - x0, y1 - y0)
    assert piece == pytest.approx((FIT_SPAN_MM - KIT.clearance_mm,) * 2, abs=1e-3)
    for c in FRAMES:
        (hole,) = _section(_mesh(out, at("kit-frame", c)), 0.15).interiors
        hx0, hy0, hx1, hy1 = hole.bounds
        assert ((hx1 - hx0 - piece[0]) / 2, (hy1 - hy0 - piece[1]) / 2) == pytest.approx((c, c), abs=1e-3), c


def test_the_kit_frame_coupons_are_cut_as_the_kits_tiles_and_frame():
    """The kit's own tile is in by half its clearance and its frame's opening out by the other
    half, as the coupons' piece and frames: the same code (tile_outline, frame_opening) cuts both."""
    import shapely

    from stratstone_cad.games.terrain.cad import kit_frame_stack, kit_tile_stack

    board, profile = PS.params_of("terrain").board, load_profiles()["board"]
    design = KIT.kit().designs[0]
    side = len(design) * board.cell_pitch_mm
    tile = kit_tile_stack(board, 0.4, KIT.mark_height_mm, design, "A", profile)
    assert shapely.union_all([s.region for s in tile]).bounds == pytest.approx((0.2, 0.2, side - 0.2, side - 0.2), abs=1e-6)
    frame = kit_frame_stack(board, 0.4, profile, 0.05)
    x0, y0, _, _ = board.grid().cell_box(0, 0)
    _, _, x1, y1 = board.grid().cell_box(9, 9)
    (hole,) = frame[0].region.interiors
    assert hole.bounds == pytest.approx((x0 - 0.2, y0 - 0.2, x1 + 0.2, y1 + 0.2), abs=1e-6)


def test_each_coupon_has_its_clearance_engraved(out):
    """The ink the engraving removes just under the top is the clearance's text, as the
    board's coordinates are engraved (their stroke): every label differs in area from the others."""
    for name, c in [*((at("gem-well", c), c) for c in WELLS), *((at("stone-recess", c), c) for c in RECESSES),
                    *((at("joint-socket", c), c) for c in JOINTS), *((at("kit-frame", c), c) for c in FRAMES)]:
        m = _mesh(out, name)
        top = m.bounds[1][2]
        removed = _section(m, 0.15).area - _section(m, top - 0.05).area
        ink = stroke_region(label_strokes([Label(clearance_text(c), 0, 0)], LABEL_HEIGHT_MM),
                            SAGE.board.label_stroke_mm).area
        assert removed == pytest.approx(ink, abs=0.05), name


def test_the_plate_holds_every_coupon_and_prints_in_under_30_minutes(out):
    if find_prusaslicer() is None:
        pytest.skip("prusa-slicer is not installed (apt-get install prusa-slicer)")
    assert (out / FIT_TEST / "fit-test.3mf").is_file()
    row = next(line for line in (out / "print-report.md").read_text().splitlines()
               if line.startswith(f"| {FIT_TEST}/fit-test.3mf |"))
    assert row.split(" | ")[1].startswith("16: ")
    m = re.search(r"\| (?:(\d+) h )?(\d+) min \| ([0-9.]+) g,", row)
    assert m, row
    minutes = int(m[1] or 0) * 60 + int(m[2])
    assert 0 < minutes < 30 and float(m[3]) > 0, row


def test_one_set_of_a_clearance_reaches_the_set_and_its_coupons():
    """--set sage-stones.board.clearance_mm=0.3: the board's wells and the fit test's middle well both at 0.3."""
    sets = {"sage-stones.board.clearance_mm": "0.3", "sage-stones.board.joint_clearance_mm": "0.15",
            "stratstone.board.clearance_mm": "0.4"}
    ps, printer, profiles = load_params(sets=sets), get_printer(None), load_profiles()
    jobs = {j.id: j for g in [*get_parts(["sage-stones", "stratstone"]), fit_test_set(get_parts(None))]
            for j in g.plan(ps.params_of(g.name), printer, profiles, ps.mesh)}
    assert jobs["sage-stones/board"].args["well_diameter_mm"] == pytest.approx(SAGE.gem.diameter_mm + 0.6)
    assert jobs["fit-test/gem-well"].args["clearances"] == pytest.approx((0.2, 0.3, 0.4))
    assert jobs["sage-stones/board"].args["board"].joint_clearance_mm == 0.15
    assert jobs["fit-test/joint"].args["clearances"] == pytest.approx((0.05, 0.15, 0.25))
    assert jobs["stratstone/board"].args["recess_diameter_mm"] == pytest.approx(STRAT.stone.footprint_mm + 0.8)
    assert jobs["fit-test/stone-recess"].args["clearances"] == pytest.approx((0.3, 0.4, 0.5))


def _board_clearances(sets: dict[str, str]) -> dict[str, float]:
    """The joint clearance each board's job (the kit's frame's too) and the joint coupon's middle are made with."""
    ps, printer, profiles = load_params(sets={"terrain.kit.print": "true", **sets}), get_printer(None), load_profiles()
    jobs = {j.id: j for g in [*get_parts(None), fit_test_set(get_parts(None))]
            for j in g.plan(ps.params_of(g.name), printer, profiles, ps.mesh)}
    out = {i: jobs[i].args["board"].joint_clearance_mm
           for i in ("stratstone/board", "sage-stones/board", "terrain/kit-frame")}
    return {**out, "fit-test/joint": jobs["fit-test/joint"].args["clearances"][1]}


def test_one_set_of_the_shared_joint_clearance_reaches_every_board_and_the_joint_coupons():
    """--set fit.joint_clearance_mm=0.3: every board's dovetails, the kit frame's and the coupons' middle socket
    at 0.3; a board's own value, given beside it, overrides it for that board alone."""
    assert set(_board_clearances({}).values()) == {0.2}
    assert set(_board_clearances({"fit.joint_clearance_mm": "0.3"}).values()) == {0.3}
    assert _board_clearances({"fit.joint_clearance_mm": "0.3", "terrain.board.joint_clearance_mm": "0.25"}) == {
        "stratstone/board": 0.3, "sage-stones/board": 0.3, "terrain/kit-frame": 0.25, "fit-test/joint": 0.3}


def test_a_clearance_at_the_end_of_its_range_keeps_three_clearances_within_it():
    ps = load_params(sets={"sage-stones.board.joint_clearance_mm": "0.05"})
    fit = fit_test_set(get_parts(None))
    jobs = {j.id: j for j in fit.plan(ps.params_of(FIT_TEST), get_printer(None), load_profiles(), ps.mesh)}
    assert jobs["fit-test/joint"].args["clearances"] == pytest.approx((0.05, 0.15, 0.25))


@pytest.mark.parametrize("name", ["sage-stones.board.clearance_mm", "fit.joint_clearance_mm"])
def test_a_clearance_out_of_range_is_one_line_and_exit_2(tmp_path, name):
    """The shared joint clearance is named as given, not as a board's field that follows it."""
    r = subprocess.run([sys.executable, "-m", "stratstone_cad", "build", FIT_TEST, "--no-slice", "--out",
                        str(tmp_path / "o"), "--set", f"{name}=7"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert f"{name} = 7: expected a number from" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "o").exists()
