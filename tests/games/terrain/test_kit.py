"""The terrain kit: every map it lays is legal, fair and distinct; an arrangement laid by
hand gives the heightmap the tiles make; the log carries the arrangement and refuses one
that does not lay its map; the command line's kit commands and flags; the tiles and the
frame as solids and meshes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from stratstone_cad.errors import SetupError
from stratstone_cad.games.terrain import kit
from stratstone_cad.games.terrain.terrain_map import TerrainError, check_heightmap, is_fair, load_heightmap_file
from stratstone_cad.log.commands import play_records

KIT = {"seed": 1, "band": "2-4", "designs": 4}


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stratstone_cad", *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def default_kit() -> kit.Kit:
    return kit.make_kit(1, 4, "2-4")


def test_every_map_of_the_kit_is_legal_fair_symmetric_and_distinct(default_kit):
    maps = kit.maps(default_kit)
    assert len(maps) == 16 * 4 * 3 == 192  # every arrangement a map of its own: at least the 100 asked
    assert len({json.dumps(m) for m, _ in maps}) == len(maps)
    lo, hi = default_kit.band
    for levels, placed in maps:
        check_heightmap(levels)
        assert is_fair(levels)
        assert all(levels[r][f] == levels[9 - r][9 - f] for r in range(10) for f in range(10))
        assert placed["sw"][0] != placed["se"][0]
    for d in default_kit.designs:  # the 16 border squares in the band
        border = [d[r][c] for r in range(5) for c in range(5) if min(r, c, 4 - r, 4 - c) == 0]
        assert len(border) == 16 and all(lo <= v <= hi for v in border)
    for seed in range(2, 12):  # other seeds and bands lay as many maps
        assert len(kit.maps(kit.make_kit(seed, 4, ("2-4", "1-3", "3-3")[seed % 3]))) == 192


def test_a_hand_laid_arrangement_gives_the_heightmap_of_its_tiles():
    # two hand-made designs whose every square is told apart: 10 x row + column, and 100 more for B
    a = tuple(tuple(10 * r + c for c in range(5)) for r in range(5))
    b = tuple(tuple(100 + 10 * r + c for c in range(5)) for r in range(5))
    hand = kit.Kit(0, (0, 6), (a, b))
    placed = kit.arrangement(("A", 1), ("B", 0))
    assert placed == {"sw": ("A", 1), "se": ("B", 0), "ne": ("A", 3), "nw": ("B", 2)}
    levels = kit.heightmap(hand, placed)
    # A turned a quarter counterclockwise: its own north-west corner (row 4, column 0) comes to a1,
    # its north-east to a5, its south-west to e1, its south-east to e5; b1 is its own row 3, column 0
    assert (levels[0][0], levels[4][0], levels[0][4], levels[4][4], levels[0][1]) == (40, 44, 0, 4, 30)
    assert [levels[0][f] for f in range(5, 10)] == [100, 101, 102, 103, 104]  # B unturned: its own south row on rank 1
    assert levels[4][9] == 144
    # the second copies turned by 180 degrees: j10 is a1's partner, a10 is j1's
    assert levels[9][9] == 40 and levels[9][0] == 104 and levels[5][5] == 4
    assert kit.TURN_WORDS[1] == "west"


@pytest.mark.parametrize(("designs", "band", "says"), [
    (0, "2-4", "terrain.kit.designs = 0"), (1, "2-4", "terrain.kit.designs = 1"),
    (4, "1-4", "at most 2 levels"), (4, "4-2", "LOW <= HIGH"), (4, "2", "two levels"), (4, "5-7", "from 0 to 6")])
def test_a_kit_that_cannot_lay_a_map_is_refused_in_one_line(designs, band, says):
    with pytest.raises(kit.KitError, match=says) as e:
        kit.make_kit(1, designs, band)
    assert "\n" not in str(e.value)


def test_the_log_carries_the_arrangement_and_refuses_one_that_does_not_lay_its_map(tmp_path):
    records = play_records("terrain", 3, ["greedy", "greedy"], {"kit": KIT}, max_plies=6)
    setup = records[0]["setup"]
    assert setup["terrain_seed"] is None and set(setup["kit"]) == {"seed", "band", "designs", "tiles"}
    k, placed = kit.placements(setup["kit"])
    assert kit.heightmap(k, placed) == setup["heightmap"]
    assert play_records("terrain", 3, ["greedy", "greedy"], {"kit": KIT}, max_plies=6) == records  # the seed picks it
    log = tmp_path / "kit.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert run("check-log", str(log)).returncode == 0
    tiles = setup["kit"]["tiles"]
    tiles["sw"]["turn"] = (tiles["sw"]["turn"] + 1) % 4  # the tile turned a quarter: another map
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    r = run("check-log", str(log))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "the arrangement does not lay this map" in r.stderr, r.stderr
    # read as a map (play --terrain, build --heightmap: load_heightmap_file), refused in the same words
    r = run("play", "terrain", "--terrain", str(log), "--out", str(tmp_path / "p.jsonl"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "the arrangement does not lay this map" in r.stderr, r.stderr
    assert not (tmp_path / "p.jsonl").exists()
    with pytest.raises(TerrainError, match=r"kit.jsonl: line 1: setup.kit: the tiles give .* does not lay this map"):
        load_heightmap_file(log)
    from stratstone_cad.games.terrain.rules import GAME

    with pytest.raises(SetupError, match="design A in 4 quadrants"):
        GAME.initial_state(["red", "blue"], {**setup, "kit": {**setup["kit"], "tiles": {
            q: {"design": "A", "turn": 0} for q in kit.QUADRANTS}}})


def test_kit_commands_count_list_and_draw_and_play_picks_a_kit_map(tmp_path):
    r = run("kit", "maps")
    assert r.returncode == 0 and r.stdout == "192\n"
    lines = run("kit", "maps", "--json").stdout.splitlines()
    assert len(lines) == 192
    first = json.loads(lines[0])
    assert check_heightmap(first["heightmap"]) and first["kit"]["tiles"]["sw"] == {"design": "A", "turn": 0}
    log = tmp_path / "g.jsonl"
    r = run("play", "terrain", "--kit", "--seed", "3", "--players", "greedy,greedy", "--out", str(log))
    assert r.returncode == 0, r.stderr
    header = json.loads(log.read_text().splitlines()[0])
    assert json.dumps(header["setup"]["heightmap"]) in {json.dumps(json.loads(line)["heightmap"]) for line in lines}
    png, again = tmp_path / "setup.png", tmp_path / "again.png"
    r = run("kit", "setup", str(log), "--out", str(png))
    assert r.returncode == 0 and r.stdout.startswith(f"wrote {png}: sw "), r.stderr
    assert run("kit", "setup", "3", "--out", str(again)).returncode == 0
    assert png.read_bytes() == again.read_bytes() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from PIL import Image

    assert Image.open(png).size[0] == 900
    for args, says in ((["kit", "maps", "--set", "terrain.kit.designs=0"], "terrain.kit.designs = 0"),
                       (["kit", "maps", "--set", "terrain.kit.band=1-4"], "terrain.kit.band = '1-4'"),
                       (["kit", "maps", "--set", "terrain.kit.clearance_mm=2"], "terrain.kit.clearance_mm = 2"),
                       (["kit", "setup", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "x.png")], "none.jsonl"),
                       (["play", "terrain", "--kit", "--terrain", str(log)], "--kit with --terrain")):
        r = run(*args)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and says in r.stderr, (args, r.stderr)
    assert not (tmp_path / "x.png").exists()


def test_the_kit_tiles_and_frame_are_one_solid_as_mesh_and_brep_and_the_tiles_weigh_their_levels():
    import dataclasses
    import importlib

    import trimesh

    from stratstone_cad.base.printers import get_printer, load_profiles
    from stratstone_cad.games.terrain.parts import heights
    from stratstone_cad.occ.step import part_step, read_step
    from stratstone_cad.printing.checks import check_mesh
    from stratstone_cad.registry import ASSETS, load_params
    from tests.games.test_solids import _mesh_and_solids, assert_same_solid

    ps = load_params(sets={"terrain.kit.print": "true"}, games=["terrain"])
    p, profiles = ps.games["terrain"], load_profiles()
    jobs = ASSETS["terrain"].plan(p, get_printer("prusa-mk4"), profiles, ps.mesh)
    kit_jobs = [j for j in jobs if "kit" in j.id]
    assert [j.id for j in kit_jobs] == [f"terrain/kit-tile-{m}" for m in "abcd"] + ["terrain/kit-frame"]
    assert not any("board-" in j.id for j in jobs)  # the kit in place of the one board
    assert [o.file for o in kit_jobs[-1].outputs] == [f"terrain/kit-frame-tile-{i}-of-4.stl" for i in range(1, 5)]
    base, step = heights(p.board, profiles["board"])
    side, pitch = 150 - p.kit.clearance_mm, p.board.cell_pitch_mm
    cad = importlib.import_module("stratstone_cad.games.terrain.cad")
    for job in kit_jobs[:1] + kit_jobs[-1:]:  # a tile and the frame: B-reps are slow, the other tiles are alike
        meshes, solids = _mesh_and_solids(job, ps.mesh)
        for mesh, solid, out in zip(meshes, solids, job.outputs, strict=True):
            assert_same_solid(mesh, solid, out.file)
        if job is kit_jobs[0]:  # the shell tile's STEP file read back: one valid solid, the mesh's volume
            assert_same_solid(meshes[0], read_step(part_step(solids[0], "kit-tile-a")), "kit-tile-a.step")
    for job in kit_jobs[:-1]:  # the solid tiles (terrain.board.shell=false): the shells are test_kit_shell.py's
        mesh = cad.make_kit_tile(**{**job.args, "board": dataclasses.replace(job.args["board"], shell=False)})[0]
        check_mesh(mesh, job.id)
        assert trimesh.Trimesh(mesh.vertices, mesh.triangles).is_watertight
        design = job.args["design"]
        # each cell's column: a corner cell loses half the clearance on two sides, an edge cell on one
        area = [[(pitch - (c in (0, 4)) * p.kit.clearance_mm / 2) * (pitch - (r in (0, 4)) * p.kit.clearance_mm / 2)
                 for c in range(5)] for r in range(5)]
        solid = side * side * base + sum(area[r][c] * design[r][c] * step for r in range(5) for c in range(5))
        engraved = solid - mesh.volume_mm3()  # the letter and the arrow under the tile, 1.2 mm deep
        assert 50 < engraved < 1500, (job.id, engraved)
        lo, hi = mesh.bounds()
        assert lo == pytest.approx([p.kit.clearance_mm / 2] * 2 + [0]) and hi[2] == pytest.approx(
            base + max(map(max, design)) * step)


def test_record_kit_lays_the_map_of_its_seed_as_play_does(tmp_path):
    rec, played = tmp_path / "rec.jsonl", tmp_path / "play.jsonl"
    r = subprocess.run([sys.executable, "-m", "stratstone_cad", "record", "terrain", "--kit", "--seed", "3", "--out",
                        str(rec)], input="", capture_output=True, text=True, timeout=120)
    assert rec.exists(), r.stderr
    assert run("play", "terrain", "--kit", "--seed", "3", "--out", str(played)).returncode == 0
    first = [json.loads(p.read_text().splitlines()[0])["setup"] for p in (rec, played)]
    assert first[0]["kit"] == first[1]["kit"] and first[0]["heightmap"] == first[1]["heightmap"]
    assert run("check-log", str(rec)).returncode == 0


def test_build_kit_writes_the_tiles_and_the_frame_in_place_of_the_board(tmp_path):
    r = run("build", "terrain", "--kit", "--out", str(tmp_path), "--quiet")
    assert r.returncode == 0, r.stderr
    stls = sorted(p.name for p in (tmp_path / "terrain").glob("*.stl") if not p.name.startswith(("runner", "lancer",
                                                                                                 "guardian")))
    assert stls == [f"kit-frame-tile-{i}-of-4.stl" for i in range(1, 5)] + [f"kit-tile-{d}.stl" for d in "abcd"]
    m = json.loads((tmp_path / "manifest.json").read_text())
    tiles = [a for a in m["assets"] if a["part"] == "kit-tile"]
    assert [(a["count"], a["kit"]["design"]) for a in tiles] == [(2, d) for d in "ABCD"]
