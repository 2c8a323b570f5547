"""A real slicer opens and slices every file we write (PrusaSlicer's command line).

Skipped when prusa-slicer is not installed, unless STRATSTONE_REQUIRE_SLICER=1 (as in
CI), which turns the skip into a failure.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import numpy as np
import pytest
import trimesh

from stratstone_cad.base.params import get_printer
from stratstone_cad.build.pipeline import build

pytestmark = pytest.mark.slicer

SLICER = shutil.which("prusa-slicer")


@pytest.fixture(scope="module", autouse=True)
def _need_slicer():
    if SLICER is None:
        if os.environ.get("STRATSTONE_REQUIRE_SLICER") == "1":
            pytest.fail("prusa-slicer is not installed but STRATSTONE_REQUIRE_SLICER=1 (apt-get install prusa-slicer)")
        pytest.skip("prusa-slicer is not installed (apt-get install prusa-slicer)")


@pytest.fixture(scope="module")
def tiled(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiled")
    build(["stratstone"], "prusa-mini", out, jobs=2, progress=None, sets={"stratstone.board.cell_pitch_mm": "44"})
    return out


def _assets(built_all, tiled):
    """Every file of a default build of every game, and a Stratstone board cut into tiles."""
    import json

    m = json.loads((built_all / "manifest.json").read_text())
    items = [(built_all / a["file"], a) for a in m["assets"]]
    m = json.loads((tiled / "manifest.json").read_text())
    items += [(tiled / a["file"], a) for a in m["assets"] if a["part"] == "board-tile"]
    assert len(items) == 42 + 4
    assert {a["game"] for _, a in items} == {"stratstone", "sage-stones", "terrain"}
    return items


def _slicer(*args: str) -> str:
    env = {**os.environ, "HOME": os.environ.get("HOME", "/tmp")}
    r = subprocess.run([SLICER, *args], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return r.stdout


def test_prusaslicer_reads_every_file_as_manifold(built_all, tiled):
    for path, a in _assets(built_all, tiled):
        info = _slicer("--info", str(path))
        assert "manifold = yes" in info, path.name
        size = [float(re.search(rf"size_{c} = ([0-9.]+)", info).group(1)) for c in "xyz"]
        assert size == pytest.approx(a["bbox_mm"]["size"], abs=0.01), path.name
        vol = float(re.search(r"volume = ([0-9.]+)", info).group(1))
        assert vol == pytest.approx(a["volume_mm3"], rel=1e-3), path.name


def test_prusaslicer_slices_every_file_with_its_profile_and_layers_hit_every_face(built_all, tiled, tmp_path):
    for path, a in _assets(built_all, tiled):
        prof = a["profile"]
        gcode = tmp_path / (path.stem + ".gcode")
        printer = get_printer(a["printer"])  # a tile's printer, else the default the build fitted the part to
        bed = f"0x0,{printer.bed_x_mm:g}x0,{printer.bed_x_mm:g}x{printer.bed_y_mm:g},0x{printer.bed_y_mm:g}"
        _slicer("--export-gcode", "--layer-height", str(prof["layer_height_mm"]), "--bed-shape", bed,
                "--first-layer-height", str(prof["first_layer_height_mm"]), "--output", str(gcode), str(path))
        text = gcode.read_text()
        layers = [float(z) for z in re.findall(r"^;LAYER_CHANGE\n;Z:([0-9.]+)", text, re.M)]
        assert layers, path.name
        # the slicer stacks full layers of the profile right up to the part's top ...
        assert layers[0] == pytest.approx(prof["first_layer_height_mm"])
        assert np.diff(layers) == pytest.approx(prof["layer_height_mm"], abs=1e-6)
        assert layers[-1] == pytest.approx(a["bbox_mm"]["size"][2], abs=1e-6)
        # ... so every horizontal face (recess floor, engraving floor, plateau) is a layer top
        tm = trimesh.load_mesh(path)
        flat = np.abs(tm.face_normals[:, 2]) > 1 - 1e-9
        heights = np.unique(np.round(tm.triangles_center[flat, 2], 4))
        for z in heights[heights > 0]:
            assert min(abs(z - layer) for layer in layers) < 1e-4, (path.name, z)
        assert ";TYPE:External perimeter" in text


# --------------------------------------------------------------------------- print plates


def _gcode_layers(text: str) -> list[float]:
    return sorted({float(z) for z in re.findall(r"^;LAYER_CHANGE\n;Z:([0-9.]+)", text, re.M)})


def _extent(text: str) -> tuple[float, float, float, float]:
    """The smallest and largest X and Y the print head extrudes at."""
    xs, ys = [], []
    for m in re.finditer(r"^G1 X([-0-9.]+) Y([-0-9.]+) E[0-9.]", text, re.M):
        xs.append(float(m[1]))
        ys.append(float(m[2]))
    return min(xs), min(ys), max(xs), max(ys)


def test_prusaslicer_slices_every_plate_with_the_settings_it_carries(plated, tmp_path):
    """No layer height, first layer or ironing option on the command line: the plate says
    them. The printer's bed is the user's printer profile; the parts stay where the plate
    puts them (--dont-arrange), inside the bed."""
    import json

    from stratstone_cad.printing.adaptive import adaptive_layers, flat_heights
    from stratstone_cad.printing.threemf import read_stl_mesh
    from stratstone_cad.registry import load_params

    bounds = load_params().plates
    manifest = json.loads((plated / "manifest.json").read_text())
    assets = {a["file"]: a for a in manifest["assets"]}
    assert len(manifest["plates"]) == 17
    for plate in manifest["plates"]:
        prof = plate["profile"]
        printer = get_printer(plate["printer"])
        bed = f"0x0,{printer.bed_x_mm:g}x0,{printer.bed_x_mm:g}x{printer.bed_y_mm:g},0x{printer.bed_y_mm:g}"
        gcode = tmp_path / (plate["file"].replace("/", "-") + ".gcode")
        log = _slicer("--export-gcode", "--dont-arrange", "--bed-shape", bed, "--output", str(gcode),
                      str(plated / plate["file"]))
        assert not re.search(r"warning|error|repair|manifold", log, re.I), (plate["file"], log[-500:])
        text = gcode.read_text()
        layers = _gcode_layers(text)
        assert layers[0] == pytest.approx(prof["first_layer_height_mm"]), plate["file"]
        expected: set[float] = set()
        for o in plate["objects"]:
            a = assets[o["file"]]
            mesh = read_stl_mesh((plated / o["file"]).read_bytes())
            if o["adaptive_layers"]:
                lo, hi = bounds.adaptive_min_layer_mm, bounds.adaptive_max_layer_mm
                tops = adaptive_layers(mesh, prof["first_layer_height_mm"], cusp_mm=bounds.adaptive_step_mm,
                                       min_mm=lo, max_mm=hi)
                assert len(tops) == o["adaptive_layers"]
                heights = np.diff([0.0, *tops])
                assert heights[1:].min() >= lo - 1e-6 and heights[1:].max() <= hi + 1e-6
            else:
                n = round((a["bbox_mm"]["size"][2] - prof["first_layer_height_mm"]) / prof["layer_height_mm"])
                tops = [prof["first_layer_height_mm"] + i * prof["layer_height_mm"] for i in range(n + 1)]
            assert tops[-1] == pytest.approx(a["bbox_mm"]["size"][2], abs=1e-4)
            # every plateau, mark floor and recess floor of the part lands on one of its layers
            for z in flat_heights(mesh)[1:]:
                assert min(abs(z - t) for t in tops) < 1e-4, (o["file"], z)
            expected |= {round(t, 4) for t in tops}
        # the slicer made exactly the layers the plate asks for: no more, no fewer
        want = np.array(sorted(expected))
        got = np.array(layers)
        # (two objects' tops a fraction of a micrometre apart may share one layer change)
        missing = [z for z in want if np.abs(got - z).min() > 2e-4]
        extra = [z for z in got if np.abs(want - z).min() > 2e-4]
        assert not missing and not extra, (plate["file"], missing[:5], extra[:5])
        assert (";TYPE:Ironing" in text) == (plate["ironing"] != "none"), plate["file"]
        x0, y0, x1, y1 = _extent(text)
        assert 0 <= x0 and 0 <= y0 and x1 <= printer.bed_x_mm and y1 <= printer.bed_y_mm, (plate["file"], x0, y0, x1, y1)


def test_the_print_report_has_prusaslicers_figures_for_every_plate_and_keeps_them(tmp_path):
    """One stone of each colour keeps it quick: 4 plates, each sliced as it is, the piece
    plates again without ironing and at flat layers."""
    import json

    out = tmp_path / "o"
    r = build(["stratstone"], None, out, jobs=2, progress=None, plates=True,
              sets={"stratstone.stone.per_colour": "1"})
    assert sorted(r.sliced) == ["stratstone/board.3mf", "stratstone/stones-red.3mf", "stratstone/stones-tan.3mf",
                                "stratstone/stones-yellow.3mf"]
    m = json.loads((out / "manifest.json").read_text())
    assets = {a["file"]: a for a in m["assets"]}
    for plate in m["plates"]:
        p = plate["print"]
        assert p["slicer"].startswith("PrusaSlicer-") and p["plate_sha256"] == plate["sha256"]
        solid_g = sum(assets[o["file"]]["mass_pla_g"] * o["copies"] for o in plate["objects"])
        # hollowed by the default infill, but more than its shells
        assert 0.2 * solid_g < p["filament_g"] < solid_g, plate["file"]
        assert p["filament_m"] == pytest.approx(p["filament_g"] / 1.24 / (np.pi * 0.875**2), rel=0.01)
        assert p["time_s"] > 60 and p["ironed"] == (plate["ironing"] != "none")
        if plate["profile"]["name"] == "piece":
            assert p["ironing_time_s"] > 0 and "flat_time_s" in p and p["flat_layers"] > 0
        else:
            assert "ironing_time_s" not in p and "flat_time_s" not in p
    text = (out / "print-report.md").read_text()
    assert "PrusaSlicer-" in text and "## stratstone" in text
    for plate in m["plates"]:
        row = next(line for line in text.splitlines() if line.startswith(f"| {plate['file']} |"))
        assert re.search(r"\| (\d+ h \d\d min|\d+ min) \| [0-9.]+ g, [0-9.]+ m \|", row), row
    assert "**stratstone, all plates**" in text
    again = build(["stratstone"], None, out, jobs=2, progress=None, plates=True,
                  sets={"stratstone.stone.per_colour": "1"})
    assert not again.sliced and not again.plates_built  # the figures stay with the unchanged plates
    assert (out / "print-report.md").read_text() == text


def test_a_slicer_that_fails_stops_the_report_with_one_line_naming_the_plate(tmp_path, monkeypatch):
    from stratstone_cad.errors import BuildError

    fake = tmp_path / "prusa-slicer"
    fake.write_text("#!/bin/sh\nif [ \"$1\" = --help ]; then echo PrusaSlicer-9.9.9; exit 0; fi\n"
                    "echo 'Objects could not fit on the bed' >&2\nexit 3\n")
    fake.chmod(0o755)
    monkeypatch.setenv("STRATSTONE_PRUSA_SLICER", str(fake))
    with pytest.raises(BuildError, match=r"^plate terrain/\S+\.3mf: PrusaSlicer \(.*\) failed with exit code 3: "
                                         r"Objects could not fit on the bed$"):
        build(["terrain"], None, tmp_path / "o", jobs=1, progress=None, plates=True)


def test_parse_time_reads_every_unit():
    from stratstone_cad.printing.slicing import parse_time

    assert parse_time("1d 2h 3m 4s") == 86400 + 7200 + 180 + 4
    assert parse_time("37m 29s") == 37 * 60 + 29
    assert parse_time("59s") == 59
