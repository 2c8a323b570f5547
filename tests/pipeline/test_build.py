"""The build: files, manifest, determinism, cache, atomic writes, mesh checks."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys

import numpy as np
import pytest
import trimesh
from stl import mesh as npstl

from stratstone_cad.base import fileio
from stratstone_cad.errors import GeometryError, OutputError
from stratstone_cad.pipeline import build as B
from stratstone_cad.pipeline import scheduler
from stratstone_cad.pipeline.lock import LOCK
from stratstone_cad.printing.checks import Mesh, check_mesh, merge_vertices

EXPECTED = {"stratstone/board.stl"} | {f"stratstone/stone-{c}-{i:02d}.stl" for c in ("yellow", "red", "tan")
                                        for i in range(1, 9)}


def test_build_writes_every_part_with_a_descriptive_name(built, manifest):
    files = {p.relative_to(built).as_posix() for p in (built / "stratstone").iterdir()}
    assert files == EXPECTED
    assert {a["file"] for a in manifest["assets"]} == EXPECTED
    assert not list(built.rglob("*.tmp"))


def test_manifest_facts_agree_with_the_files(built, manifest):
    for a in manifest["assets"]:
        data = (built / a["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == a["sha256"]
        m = npstl.Mesh.from_file(str(built / a["file"]))  # an independent STL reader
        assert len(m.vectors) == a["triangles"]
        pts = m.vectors.reshape(-1, 3)
        assert pts.min(axis=0) == pytest.approx(a["bbox_mm"]["min"], abs=2e-3)
        assert pts.max(axis=0) == pytest.approx(a["bbox_mm"]["max"], abs=2e-3)
        vol, _, _ = m.get_mass_properties()
        assert vol == pytest.approx(a["volume_mm3"], rel=1e-4)
        assert a["mass_pla_g"] == pytest.approx(a["volume_mm3"] * 1.24e-3, abs=0.01)
        assert a["game"] == "stratstone"
        if a["part"] == "stone":
            assert a["profile"] == {"name": "piece", "layer_height_mm": 0.15, "first_layer_height_mm": 0.2}
            assert a["colour"] in ("yellow", "red", "tan") and 1 <= a["index"] <= 8
        else:
            assert a["profile"]["layer_height_mm"] == 0.3 and a["part"] == "board"


def test_written_meshes_are_watertight_and_within_tolerance(built, manifest, params, profiles):
    """The STL (float32) is still closed; a stone's volume is within tolerance x area of the CAD
    volume, and the board's is the exact volume of its stack of slabs."""
    from stratstone_cad.assets.jobs import subset
    from stratstone_cad.games.stratstone import cad as S
    from stratstone_cad.games.stratstone.parts import PebbleParams
    from stratstone_cad.geometry.boards import stack_volume
    from stratstone_cad.geometry.marks import mark_spec
    from stratstone_cad.occ.shapes import volume

    for a in manifest["assets"]:
        tm = trimesh.load_mesh(built / a["file"])
        assert tm.is_watertight and tm.is_winding_consistent and tm.volume > 0, a["file"]

    def curved_area(solid):  # only curved faces deviate: the volume can differ by tolerance x their area
        return sum(f.Area() for f in solid.Faces() if f.geomType() != "PLANE")

    p = params.params_of("stratstone")
    stack = S.board_stack(p.board, p.recess_diameter_mm, profiles["board"], params.mesh.tolerance_mm)
    if p.board.shell:  # printed as a shell: the same stack hollowed as the build hollows it (one plate, untiled)
        from stratstone_cad.geometry.shells import Shell, shelled

        prof = profiles["board"]
        shell = Shell.of(p.board.shell_top_layers, p.board.shell_wall_extrusions, prof)
        stack = shelled(stack, p.board.grid(), shell, prof.first_layer_height_mm + prof.layer_height_mm)
    tm = trimesh.load_mesh(built / "stratstone/board.stl")
    assert tm.volume == pytest.approx(stack_volume(stack), rel=1e-6)  # float32 coordinates in the file
    s = p.stone
    stone = S.stone(subset(s, PebbleParams), 1, 2, mark_spec(s, s.marks[1]), profiles["piece"])
    tm = trimesh.load_mesh(built / "stratstone/stone-red-03.stl")
    assert abs(tm.volume - volume(stone)) <= params.mesh.tolerance_mm * curved_area(stone)
    # a finer tolerance comes closer
    from stratstone_cad.occ.tessellate import tessellate

    fine = tessellate(stone, 0.005, 0.02).volume_mm3()
    assert abs(fine - volume(stone)) < abs(tm.volume - volume(stone))


def test_two_builds_are_byte_identical(built, tmp_path):
    B.build(["stratstone"], None, tmp_path, jobs=1, progress=None)
    for f in sorted(EXPECTED) + ["manifest.json"]:
        assert (tmp_path / f).read_bytes() == (built / f).read_bytes(), f


def test_rebuild_uses_the_cache_and_rebuilds_what_changed(built, tmp_path):
    out = tmp_path / "o"
    shutil.copytree(built, out)  # the session's cold build, copied (one cold build of 25 parts less)
    again = B.build(["stratstone"], None, out, jobs=2, progress=None)
    assert again.built == [] and len(again.cached) == 25
    # a damaged file is noticed and rebuilt
    (out / "stratstone/stone-tan-05.stl").write_bytes(b"broken")
    again = B.build(["stratstone"], None, out, jobs=1, progress=None)
    assert again.built == ["stratstone/stone-tan-05.stl"]
    # a board parameter rebuilds the board only
    again = B.build(["stratstone"], None, out, jobs=1, progress=None, sets={"stratstone.board.corner_radius_mm": "6"})
    assert again.built == ["stratstone/board.stl"]


def test_tiled_build_replaces_the_board_and_names_the_tiles(tmp_path):
    # a 200 mm board; one stone a colour (the stones are not what is tested: 24 took most of the time)
    sets = {"stratstone.board.cell_pitch_mm": "44", "stratstone.stone.per_colour": "1"}
    B.build(["stratstone"], "prusa-mk4", tmp_path, jobs=1, progress=None, sets=sets)
    assert (tmp_path / "stratstone/board.stl").exists()
    r = B.build(["stratstone"], "prusa-mini", tmp_path, jobs=1, progress=None, sets=sets)
    tiles = sorted(p.name for p in (tmp_path / "stratstone").glob("board*"))
    assert tiles == [f"board-tile-{i}-of-4.stl" for i in range(1, 5)]
    assert r.removed == ["stratstone/board.stl"]
    entries = {a["file"]: a for a in B.assets_for(tmp_path)}
    for t in tiles:
        a = entries[f"stratstone/{t}"]
        assert a["part"] == "board-tile" and a["of"] == 4 and a["printer"] == "prusa-mini"
        x, y, _ = a["bbox_mm"]["size"]
        assert max(x, y) <= 170


def test_atomic_write_leaves_nothing_when_interrupted(tmp_path, monkeypatch):
    target = tmp_path / "part.stl"

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fileio.atomic_write(target, b"x" * 1000)
    assert list(tmp_path.iterdir()) == []


def test_atomic_write_keeps_the_old_file_when_the_write_fails(tmp_path, monkeypatch):
    target = tmp_path / "part.stl"
    target.write_bytes(b"old")

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OutputError, match="part.stl: cannot write"):
        fileio.atomic_write(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["part.stl"]


def test_atomic_write_all_writes_every_file(tmp_path):
    files = [(tmp_path / f"tile-{i}.stl", bytes([i]) * 100) for i in range(3)]
    fileio.atomic_write_all(files)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tile-0.stl", "tile-1.stl", "tile-2.stl"]
    assert all(p.read_bytes() == data for p, data in files)


def test_atomic_write_all_renames_none_before_every_file_is_staged(tmp_path, monkeypatch):
    """Every file is written to its temporary file before the first is renamed into place,
    so a SIGKILL while they are written leaves none of them (seen here as the folder is
    at the last one's staging); a file that cannot be written means none is written."""
    real, seen = fileio.tempfile.mkstemp, []

    def mkstemp(*args, prefix="", **kwargs):
        if prefix.startswith(".tile-2.stl"):
            seen.extend(p.name for p in tmp_path.iterdir() if not p.name.endswith(".tmp"))
        return real(*args, prefix=prefix, **kwargs)

    monkeypatch.setattr(fileio.tempfile, "mkstemp", mkstemp)
    fileio.atomic_write_all([(tmp_path / f"tile-{i}.stl", b"x") for i in range(3)])
    assert seen == [] and len(list(tmp_path.iterdir())) == 3
    (tmp_path / "new-2.stl").mkdir()
    with pytest.raises(OutputError, match="new-2.stl: is a folder"):
        fileio.atomic_write_all([(tmp_path / f"new-{i}.stl", b"x") for i in range(3)])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new-2.stl", "tile-0.stl", "tile-1.stl", "tile-2.stl"]


@pytest.mark.parametrize("fault", [KeyboardInterrupt, OSError(28, "No space left on device")])
def test_atomic_write_all_takes_back_the_renamed_files_when_stopped_during_the_renames(tmp_path, monkeypatch, fault):
    real, calls = os.replace, []

    def replace(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise fault
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(KeyboardInterrupt if fault is KeyboardInterrupt else OutputError):
        fileio.atomic_write_all([(tmp_path / f"tile-{i}.stl", b"x") for i in range(3)])
    assert len(calls) == 2 and list(tmp_path.iterdir()) == []


def test_interrupted_build_leaves_only_whole_files(tmp_path, monkeypatch):
    """Ctrl-C in the middle of a build: finished parts are whole and listed, nothing else is there."""
    real = B.run_job
    calls = []

    def stop_on_third(*a, **k):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(B, "run_job", stop_on_third)
    with pytest.raises(KeyboardInterrupt):
        B.build(["stratstone"], None, tmp_path, jobs=1, progress=None)
    files = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file() and p.name != LOCK)
    listed = {a["file"] for a in B.assets_for(tmp_path)}
    assert len(listed) == 2 and files == sorted([*listed, "manifest.json"])


def _box() -> Mesh:
    v = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]], float)
    f = np.array([[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7], [0, 1, 5], [0, 5, 4],
                  [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7]])
    return Mesh(v, f)


def test_mesh_checks_accept_a_closed_box():
    box = _box()
    check_mesh(box, "box")
    assert box.volume_mm3() == pytest.approx(1.0)


@pytest.mark.parametrize(("mesh", "message"), [
    (Mesh(_box().vertices, _box().triangles[:-1]), "not watertight"),
    (Mesh(_box().vertices, np.vstack([_box().triangles[:-1], _box().triangles[-1:, ::-1]])), "not consistently wound"),
    (Mesh(_box().vertices, _box().triangles[:, ::-1]), "volume is -1.000 mm3"),
    (Mesh(_box().vertices, _box().triangles[:0]), "no triangles"),
])
def test_mesh_checks_name_the_part_and_the_fault(mesh, message):
    with pytest.raises(GeometryError, match=f"stone-red-03 \\(seed 7\\): .*{message}"):
        check_mesh(mesh, "stone-red-03 (seed 7)")


def test_merge_vertices_closes_a_face_split_mesh():
    box = _box()
    split = box.vertices[box.triangles].reshape(-1, 3)  # every triangle its own vertices
    merged = merge_vertices(split, np.arange(len(split)).reshape(-1, 3))
    assert len(merged.vertices) == 8
    check_mesh(merged, "box")


def test_a_failing_part_is_an_error_naming_it_and_no_file(tmp_path, monkeypatch):
    from stratstone_cad.printing import checks

    def reject(mesh, what):
        if "stone-red-03" in what:
            raise GeometryError(f"{what}: the mesh is not watertight")

    monkeypatch.setattr(checks, "check_mesh", reject)
    with pytest.raises(GeometryError, match=r"^stone-red-03 \(stratstone.stone seed 2024, .*\): the mesh is not watertight$"):
        # three stones a colour: stone-red-03 the sixth stone made, not the eleventh
        B.build(["stratstone"], None, tmp_path, jobs=1, progress=None, sets={"stratstone.stone.per_colour": "3"})
    assert not (tmp_path / "stratstone/stone-red-03.stl").exists()
    assert "stratstone/stone-red-03.stl" not in {a["file"] for a in B.assets_for(tmp_path)}


def test_a_tile_failing_its_check_leaves_none_of_the_boards_tiles(tmp_path, monkeypatch):
    """Every tile of a board is checked before any is written (run_job runs in a worker
    too, where no stopped build takes files back): a bad third tile, no tile on disk."""
    from stratstone_cad.printing import checks

    def reject(mesh, what):
        if what.startswith("board-seed-1-tile-3-of-4"):
            raise GeometryError(f"{what}: the mesh is not watertight")

    monkeypatch.setattr(checks, "check_mesh", reject)
    ps, profiles = B.load_params(games=["terrain"]), B.load_profiles()
    [terrain] = B.get_parts(["terrain"])
    job = next(j for j in terrain.plan(ps.params_of("terrain"), B.get_printer(None), profiles, ps.mesh)
               if len(j.outputs) == 4)
    (tmp_path / "terrain").mkdir()
    with pytest.raises(GeometryError, match="^board-seed-1-tile-3-of-4 .*not watertight$"):
        B.run_job(job, ps.mesh, profiles, str(tmp_path), "key")
    assert not list(tmp_path.rglob("*.stl")) and not list(tmp_path.rglob("*.tmp"))


def test_a_folder_where_a_part_goes_is_refused_before_anything_is_written(tmp_path):
    (tmp_path / "stratstone" / "stone-tan-02.stl").mkdir(parents=True)
    with pytest.raises(OutputError, match=r"stone-tan-02.stl: is a folder, expected a regular file \(or none\)$"):
        B.build(["stratstone"], None, tmp_path, jobs=2, progress=None)
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == []


def test_a_failing_part_in_a_parallel_build_stops_it_and_keeps_the_manifest_true(tmp_path):
    """With two jobs, a part that cannot be written (a folder appears in its place while the
    build runs) stops the build with a one-line error; every file written is whole and listed."""
    import subprocess
    import sys

    # four stones a colour: 13 parts, the last stone (tan-04) the twelfth the two workers make
    p = subprocess.Popen([sys.executable, "-m", "stratstone_cad", "build", "stratstone", "--out", str(tmp_path),
                          "--jobs", "2", "--set", "stratstone.stone.per_colour=4"],
                         stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert p.stderr is not None
    first = p.stderr.readline()  # the first part is done: the last stones are not
    assert first.startswith("[1/13]"), first
    (tmp_path / "stratstone" / "stone-tan-04.stl").mkdir()
    _, err = p.communicate(timeout=120)
    assert p.returncode == 2 and err.endswith("stone-tan-04.stl: is a folder, expected a regular file (or none)\n"), err
    assert err.count("stratstone-cad: error:") == 1 and "Traceback" not in err
    files = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file() and p.name != LOCK)
    listed = sorted(a["file"] for a in B.assets_for(tmp_path))
    assert files == sorted([*listed, "manifest.json"])
    assert listed and "stratstone/stone-tan-04.stl" not in listed
    assert not list(tmp_path.rglob("*.tmp"))


def test_a_damaged_manifest_cannot_make_the_build_delete_other_files(built, tmp_path):
    import shutil

    out = tmp_path / "out"
    shutil.copytree(built, out)  # the default set, built
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    data = json.loads((out / "manifest.json").read_text())
    data["assets"] += [{"file": str(victim), "game": "stratstone"},
                       {"file": "stratstone/../../victim.txt", "game": "stratstone"}]
    (out / "manifest.json").write_text(json.dumps(data))
    r = B.build(["stratstone"], None, out, jobs=1, progress=None)
    assert victim.read_text() == "keep me" and r.removed == [] and len(r.cached) == 25


def test_only_files_named_as_the_game_names_them_are_removed_as_stale(tmp_path):
    """A user's own STL in a game's folder (or one a damaged manifest lists as the
    game's) stays; a file named as the game names its parts but not planned goes."""
    out = tmp_path / "out"
    B.build(["terrain"], None, out, jobs=1, progress=None)
    folder = out / "terrain"
    mine = [folder / n for n in ("notes.stl", "board.stl", "runner-red (1).stl", "board-seed-1-tile-0-of-2.stl")]
    for f in mine:
        f.write_text("the user's")
    (folder / "lancer-green.stl").write_text("an old colour's piece")
    data = json.loads((out / "manifest.json").read_text())
    data["assets"].append({"file": "terrain/notes.stl", "game": "terrain"})
    (out / "manifest.json").write_text(json.dumps(data))
    r = B.build(["terrain"], None, out, jobs=1, progress=None)
    assert r.removed == ["terrain/lancer-green.stl"] and r.built == []
    assert all(f.read_text() == "the user's" for f in mine)
    # every file a game plans is one it owns (else it could never be removed when stale)
    from stratstone_cad.base.printers import get_printer, load_profiles
    from stratstone_cad.registry import ASSETS, load_params

    ps, profiles = load_params(), load_profiles()
    for printer in ("prusa-mini", "prusa-mk4"):
        for g in ASSETS.values():
            for job in g.plan(ps.params_of(g.name), get_printer(printer), profiles, ps.mesh):
                assert all(g.owns(o.file) for o in job.outputs), job.id


def test_a_game_folder_that_is_a_link_is_refused(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "runner-red.stl").write_text("not ours")
    out = tmp_path / "out"
    out.mkdir()
    (out / "terrain").symlink_to(elsewhere)
    with pytest.raises(OutputError, match=r"/terrain: is a symbolic link, expected a folder of this build$"):
        B.build(["terrain"], None, out, jobs=1, progress=None)
    assert [p.name for p in elsewhere.iterdir()] == ["runner-red.stl"] and sorted(os.listdir(out)) == ["terrain"]


def test_stale_tiles_go_even_without_a_manifest_and_stay_listed_after_a_failure(tmp_path, monkeypatch):
    sets = {"stratstone.board.cell_pitch_mm": "44", "stratstone.stone.per_colour": "1"}  # one stone a colour: quicker
    B.build(["stratstone"], "prusa-mini", tmp_path, jobs=1, progress=None, sets=sets)
    tiles = sorted(p.name for p in (tmp_path / "stratstone").glob("board-tile-*"))
    assert len(tiles) == 4
    # a failed build on another printer deletes nothing and keeps the tiles listed
    real = B.run_job

    def fail_board(job, *a, **k):
        if job.id == "stratstone/board":
            raise GeometryError("Stratstone board: the mesh is not watertight")
        return real(job, *a, **k)

    monkeypatch.setattr(B, "run_job", fail_board)
    with pytest.raises(GeometryError):
        B.build(["stratstone"], "prusa-mk4", tmp_path, jobs=1, progress=None, sets=sets)
    assert sorted(p.name for p in (tmp_path / "stratstone").glob("board-tile-*")) == tiles
    assert {f"stratstone/{t}" for t in tiles} <= {a["file"] for a in B.assets_for(tmp_path)}
    monkeypatch.undo()
    # the manifest lost: the next good build still clears the old tiles
    (tmp_path / "manifest.json").unlink()
    r = B.build(["stratstone"], "prusa-mk4", tmp_path, jobs=1, progress=None, sets=sets)
    assert sorted(r.removed) == [f"stratstone/{t}" for t in tiles]
    assert sorted(p.name for p in (tmp_path / "stratstone").glob("board*")) == ["board.stl"]


def test_the_cache_key_holds_what_a_part_depends_on_and_nothing_else(built, tmp_path):
    import shutil

    out = tmp_path / "o"
    shutil.copytree(built, out)
    r = B.build(["stratstone"], None, out, jobs=1, progress=None, sets={"stratstone.stone.per_colour": "9"})
    assert sorted(r.built) == ["stratstone/stone-red-09.stl", "stratstone/stone-tan-09.stl", "stratstone/stone-yellow-09.stl"]
    # another printer on which the board still fits: nothing to do
    r = B.build(["stratstone"], "bambu-x1c", out, jobs=1, progress=None, sets={"stratstone.stone.per_colour": "9"})
    assert r.built == []
    # a stone's own mark rebuilds its set only; the stone footprint rebuilds the board too
    r = B.build(["stratstone"], None, out, jobs=1, progress=None, sets={"stratstone.stone.marks": "ring,dot,bars"})
    assert sorted(r.built) == [f"stratstone/stone-red-{i:02d}.stl" for i in range(1, 9)]
    assert r.removed == [f"stratstone/stone-{c}-09.stl" for c in ("red", "tan", "yellow")]


def test_one_build_at_a_time_in_a_folder(tmp_path):
    import fcntl

    tmp_path.mkdir(exist_ok=True)
    fd = os.open(tmp_path / LOCK, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(OutputError, match="another stratstone-cad build is writing to it"):
            B.build(["stratstone"], None, tmp_path, jobs=1, progress=None)
    finally:
        os.close(fd)
    assert not (tmp_path / "manifest.json").exists()


def test_an_unexpected_cad_failure_is_a_geometry_error_naming_the_part(tmp_path, monkeypatch):
    from stratstone_cad.games.stratstone import cad as S

    def broken(*a, **k):
        raise ValueError("gp_Circ() - radius should be positive number")

    monkeypatch.setattr(S, "stone", broken)
    with pytest.raises(GeometryError, match=r"^stone-yellow-01 \(stratstone.stone seed 2024, .*\): the CAD kernel "
                                            r"cannot make this part \(ValueError: gp_Circ\(\) - radius"):
        B.build(["stratstone"], None, tmp_path, jobs=1, progress=None)


def test_jobs_are_capped_at_the_usable_cores():
    assert 1 <= B.usable_cores() <= (os.cpu_count() or 1)


@pytest.mark.parametrize("named", ["parent", "gone"])
def test_the_fork_server_serves_its_build_and_exits_when_the_build_has_gone(named):
    """What the fork server does as it starts (its first preloaded module): for the build
    that named itself, the server loads CadQuery (its workers are forked from it); when
    that build ended before the server got there (a build that refused its input), the
    server exits at once, instead of loading CadQuery for nobody with the build's
    standard streams held open."""
    import subprocess
    import sys

    from stratstone_cad.pipeline.workers import PARENT_ENV

    env = {**os.environ, PARENT_ENV: str(os.getpid()) if named == "parent" else "999999999"}
    script = ("import sys, os; import stratstone_cad.pipeline.forkserver_start; "
              f"print('cadquery' in sys.modules, {PARENT_ENV!r} in os.environ)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.split() == (["True", "False"] if named == "parent" else [])


def test_the_workers_make_parts_with_cadquery_loaded_without_vtk_or_ezdxf():
    """The workers' fork server imports CadQuery with VTK and ezdxf stood in for (a second
    of every parallel build's start); ``test_two_builds_are_byte_identical`` compares their
    parts (``built``: two jobs) with ones made here, where both are real."""
    scheduler.start_fork_server()
    with scheduler.worker_pool(1) as pool:
        seen = pool.submit(eval, "[type(__import__('sys').modules.get(m)).__name__ "
                                 "for m in ('vtk', 'vtkmodules.vtkCommonDataModel', 'ezdxf', 'cadquery')]").result()
    assert seen == ["_Absent", "_Absent", "_Absent", "module"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own nice value is Linux's")
def test_workers_run_at_the_nice_value_of_the_thread_that_made_their_pool():
    """The studio's background builds run their workers at a lower priority than the parts
    previewed: a worker forked by the fork server gets it from the pool's maker, and the
    thread that lowered its own priority leaves the others' as they were."""
    import threading

    from stratstone_cad.base.processes import lower_thread_priority, thread_nice

    scheduler.start_fork_server()
    seen: list[int] = []

    def background() -> None:
        lower_thread_priority(thread_nice() + 7)
        with scheduler.worker_pool(1) as pool:
            seen.append(pool.submit(eval, "__import__('os').getpriority(__import__('os').PRIO_PROCESS, 0)").result())

    here = thread_nice()
    t = threading.Thread(target=background)
    t.start()
    t.join()
    assert seen == [here + 7] and thread_nice() == here
    with scheduler.worker_pool(1) as pool:
        assert pool.submit(eval, "__import__('os').getpriority(__import__('os').PRIO_PROCESS, 0)").result() == here


def test_a_stand_in_says_what_is_missing_when_used():
    from stratstone_cad.pipeline.workers import _Absent

    stand_in = _Absent("vtkmodules.vtkCommonDataModel").vtkPolyData
    assert stand_in.__module__ == "vtkmodules.vtkCommonDataModel" and stand_in.__name__ == "vtkPolyData"
    with pytest.raises(RuntimeError, match=r"^vtkmodules.vtkCommonDataModel.vtkPolyData: vtkmodules is not loaded in "
                                           r"the build's worker processes \(stratstone_cad.pipeline.workers.WITHOUT\)$"):
        stand_in()
    # an attribute of a stand-in (cadquery's DXF exporter takes ezdxf.units.MM as a default)
    mm = _Absent("ezdxf").units.MM
    assert (mm.__module__, mm.__qualname__, mm.__name__) == ("ezdxf", "units.MM", "MM")
    with pytest.raises(RuntimeError, match=r"^ezdxf.units.MM: ezdxf is not loaded in the build's worker processes"):
        mm(1)
    with pytest.raises(AttributeError):
        _Absent("vtk").__wrapped__  # noqa: B018  (dunder look-ups stay real: pickle, inspect, copy ask for them)
    with pytest.raises(AttributeError):
        mm.__wrapped__  # noqa: B018


@pytest.mark.parametrize(("without", "lean"), [(("vtk", "vtkmodules", "ezdxf"), True),
                                               (("vtk", "vtkmodules", "ezdxf", "pyparsing"), False)])
def test_cadquery_is_imported_without_vtk_or_else_the_ordinary_way(without, lean):
    """In a fresh process: the lighter import stands in for VTK and ezdxf and CadQuery
    works; when it fails (standing in for pyparsing breaks CadQuery's import: its selector
    grammar is built at import), it leaves nothing of the stand-ins behind and CadQuery is
    imported with the real VTK."""
    import subprocess
    import sys

    script = f"""
import sys
from stratstone_cad.pipeline import workers as w
w.WITHOUT = {without!r}
print(w.import_cadquery_without_vtk())
import cadquery as cq
print(round(cq.Workplane().box(2, 3, 4).val().Volume(), 6))
print(type(sys.modules["vtk"]).__name__)
print(any(type(f).__name__ == "_AbsentFinder" for f in sys.meta_path))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split()
    assert out == (["True", "24.0", "_Absent", "True"] if lean else ["False", "24.0", "module", "False"])


def test_the_build_caps_its_jobs_at_the_usable_cores(tmp_path, monkeypatch):
    """--jobs 8 on a process allowed one core builds in that one process: no worker pool."""
    monkeypatch.setattr(B, "usable_cores", lambda: 1)

    def no_pool(workers: int):
        raise AssertionError(f"a pool of {workers} workers was started on one core")

    monkeypatch.setattr(scheduler, "worker_pool", no_pool)
    r = B.build(["sage-stones", "stratstone"], None, tmp_path, jobs=8, progress=None,
                sets={"stratstone.stone.per_colour": "1"})
    assert len(r.built) == 8 + 4
