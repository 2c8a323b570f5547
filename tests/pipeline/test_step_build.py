"""``build --step``: a STEP file beside each STL and each game's set as STEP and glTF, listed
in the manifest with their sha256, the same bytes build after build, cached when nothing
changed, read back by OpenCascade as the solids the STL files are, and removed by a build
without ``--step``."""

from __future__ import annotations

import hashlib
import json
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from OCP.BRepCheck import BRepCheck_Analyzer

from stratstone_cad.occ.shapes import volume
from stratstone_cad.occ.step import read_step, step_content
from stratstone_cad.pipeline import build as B
from stratstone_cad.printing.stl import read_stl_mesh
from tests import ROOT

SMALL = {"stratstone.stone.per_colour": "2"}


def _build(out: Path, step: bool = True, **kw) -> B.BuildReport:
    return B.build(["stratstone"], out_dir=out, jobs=2, sets=SMALL, progress=None, step=step, **kw)


@pytest.fixture(scope="module")
def stepped(tmp_path_factory):
    out = tmp_path_factory.mktemp("step")
    report = _build(out)
    return out, report


def _manifest(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())


def test_a_step_file_beside_every_stl_and_the_set_listed_with_its_sha256(stepped):
    out, report = stepped
    m = _manifest(out)
    stls = {a["file"] for a in m["assets"]}
    cad = {e["file"]: e for e in m["cad"]}
    assert {f.removesuffix(".stl") + ".step" for f in stls} | {"stratstone/set.step", "stratstone/set.glb"} == set(cad)
    for f, e in cad.items():
        assert hashlib.sha256((out / f).read_bytes()).hexdigest() == e["sha256"], f
    assert "7 assets" in report.summary() and "9 STEP and glTF files: 9 written" in report.summary()


def test_each_step_file_is_the_stl_beside_it_read_back_as_one_valid_solid(stepped):
    out, _ = stepped
    for stl in sorted((out / "stratstone").glob("*.stl")):
        data = (stl.with_suffix(".step")).read_bytes()
        name = f"stratstone/{stl.stem}"
        assert f"'{name}'".encode() in data  # the part's name is the product's
        assert b"SI_UNIT(.MILLI.,.METRE.)" in data
        solid = read_step(data)
        assert len(solid.Solids()) == 1 and BRepCheck_Analyzer(solid.wrapped).IsValid(), name
        mesh = read_stl_mesh(stl.read_bytes())
        assert volume(solid) == pytest.approx(mesh.volume_mm3(), rel=2e-3), name
        bb = solid.BoundingBox()
        lo, hi = mesh.bounds()
        assert np.allclose([bb.xmin, bb.ymin, bb.zmin, bb.xmax, bb.ymax, bb.zmax], [*lo, *hi], atol=0.05), name


def test_the_set_holds_every_part_in_its_colour_and_the_glb_is_in_metres(stepped):
    out, _ = stepped
    parts = step_content((out / "stratstone/set.step").read_bytes())
    names = sorted(p.name for p in parts)
    assert names == sorted(["board", *(f"stone-{c}-{i:02d}" for c in ("yellow", "red", "tan") for i in (1, 2))])
    data = (out / "stratstone/set.glb").read_bytes()
    magic, _version, _length = struct.unpack_from("<4sII", data)
    assert magic == b"glTF"
    size, kind = struct.unpack_from("<I4s", data, 12)
    assert kind == b"JSON"
    gltf = json.loads(data[20:20 + size])
    assert {n.get("name") for n in gltf["nodes"]} >= {"board", "stone-red-01"}
    # the board is 4 cells of 40 mm and two rims wide: about 0.2 m in glTF, not 200 m
    extent = max(max(a["max"][i] - a["min"][i] for i in range(3)) for a in gltf["accessors"] if "max" in a and
                 len(a["max"]) == 3)
    assert 0.1 < extent < 0.5, extent


def test_step_files_are_byte_identical_from_another_process_and_cached_when_unchanged(stepped, tmp_path):
    out, _ = stepped
    again = tmp_path / "again"
    subprocess.run([sys.executable, "-m", "stratstone_cad", "build", "stratstone", "--step", "--out", str(again),
                    "--jobs", "2", "--quiet", "--set", "stratstone.stone.per_colour=2"], check=True, cwd=ROOT)
    for f in sorted(p.relative_to(out) for p in out.rglob("*") if p.suffix in (".step", ".glb")):
        assert (out / f).read_bytes() == (again / f).read_bytes(), f
    report = _build(again)
    assert report.built == [] and len(report.cached) == 16


def test_a_changed_parameter_remakes_the_step_files_and_a_build_without_step_removes_them(stepped, tmp_path):
    out = tmp_path / "o"
    shutil.copytree(stepped[0], out)
    before = read_step((out / "stratstone/stone-red-01.step").read_bytes()).BoundingBox().zmax
    report = B.build(["stratstone"], out_dir=out, jobs=2, sets={**SMALL, "stratstone.stone.height_mm": "8"},
                     progress=None, step=True)
    assert "stratstone/stone-red-01.step" in report.built
    after = read_step((out / "stratstone/stone-red-01.step").read_bytes()).BoundingBox().zmax
    assert after != pytest.approx(before)
    assert after == pytest.approx(read_stl_mesh((out / "stratstone/stone-red-01.stl").read_bytes()).bounds()[1][2],
                                  abs=0.05)
    report = B.build(["stratstone"], out_dir=out, jobs=2, sets={**SMALL, "stratstone.stone.height_mm": "8"},
                     progress=None)
    assert not list(out.rglob("*.step")) and not list(out.rglob("*.glb"))
    assert "cad" not in _manifest(out)
    assert "stratstone/board.step" in report.removed and "stratstone/set.glb" in report.removed


@pytest.mark.parametrize("printer, remade", [("prusa-mk4", ["sage-stones/board"]), ("prusa-xl", []),
                                             ("prusa-mini", ["sage-stones/board"])])
def test_the_set_is_laid_out_whole_and_unturned_whatever_the_printer(printer, remade):
    """The Sage Stones board goes on a Prusa MK4's bed turned a quarter and on a MINI's in
    tiles: the set's assembly makes it again whole and as on the table; on an XL's bed the
    printed board is the set's."""
    from stratstone_cad.base.printers import NO_PRINTER, get_printer, load_profiles
    from stratstone_cad.pipeline.cad_files import set_jobs_not_printed
    from stratstone_cad.registry import get_parts, load_params

    (g,) = get_parts(["sage-stones"])
    ps = load_params()
    params, profiles = ps.params_of(g.name), load_profiles()
    printed = g.plan(params, get_printer(printer), profiles, ps.mesh)
    whole = g.plan(params, NO_PRINTER, profiles, ps.mesh)
    assert [j.id for j in set_jobs_not_printed(printed, whole)] == remade
    board = next(j for j in whole if j.id == "sage-stones/board")
    assert board.args["plan"].count == 1 and not board.args["plan"].rotated


def test_a_terrain_set_of_one_piece_a_kind_builds_from_the_command_line(tmp_path):
    """``build terrain --step --set terrain.piece.per_kind=1`` (in range) writes the set: the
    start's two copies of a kind are numbered in the assembly, not refused by CadQuery as
    "Unique name is required"."""
    r = subprocess.run([sys.executable, "-m", "stratstone_cad", "build", "terrain", "--step", "--out", str(tmp_path),
                        "--jobs", "2", "--quiet", "--set", "terrain.piece.per_kind=1"], capture_output=True, text=True,
                       cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    assert len(step_content((tmp_path / "terrain/set.step").read_bytes())) == 13  # the board and 12 pieces
    data = (tmp_path / "terrain/set.glb").read_bytes()
    size, _kind = struct.unpack_from("<I4s", data, 12)
    names = {n.get("name") for n in json.loads(data[20:20 + size])["nodes"]}
    assert {"board", "runner-red-01", "runner-red-02", "guardian-blue-02"} <= names
