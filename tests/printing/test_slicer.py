"""A real slicer opens and slices every file we write (PrusaSlicer's command line); the
print plates: test_slicer_plates.py (a file of its own, so that the two run side by side
under pytest-xdist).

Skipped when prusa-slicer is not installed, unless STRATSTONE_REQUIRE_SLICER=1 (as in
CI), which turns the skip into a failure.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import trimesh

from stratstone_cad.base.printers import get_printer, load_profiles
from stratstone_cad.pipeline.build import build
from stratstone_cad.registry import game_names, get_parts, load_params
from tests.printing.slicer_cli import bed_shape, need_slicer, slice_each, slicer  # noqa: F401 (a fixture)

pytestmark = pytest.mark.slicer


#: On a Prusa MINI: a board cut into tiles (only its tiles are read: one stone a colour)
TILED = {"stratstone.board.cell_pitch_mm": "44", "stratstone.stone.per_colour": "1"}


@pytest.fixture(scope="module")
def tiled(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiled")
    build(["stratstone"], "prusa-mini", out, jobs=2, progress=None, sets=TILED)
    return out


def _planned(games: list[str] | None, printer: str | None, sets: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """(file, part) of every output the build's plan makes for ``games`` (all when None)."""
    ps, profiles = load_params(None, sets, games=games), load_profiles()
    return [(o.file, o.part) for g in get_parts(games) for j in g.plan(ps.params_of(g.name), get_printer(printer), profiles, ps.mesh)
            for o in j.outputs]


def _assets(built_all, tiled):
    """Every file of a default build of every game, and a Stratstone board cut into tiles."""
    import json

    m = json.loads((built_all / "manifest.json").read_text())
    items = [(built_all / a["file"], a) for a in m["assets"]]
    m = json.loads((tiled / "manifest.json").read_text())
    items += [(tiled / a["file"], a) for a in m["assets"] if a["part"] == "board-tile"]
    tiles = [f for f, part in _planned(["stratstone"], "prusa-mini", TILED) if part == "board-tile"]
    assert tiles and sorted(a["file"] for _, a in items) == sorted([f for f, _ in _planned(None, None)] + tiles)
    assert {a["game"] for _, a in items} == set(game_names())
    return items


def test_prusaslicer_reads_every_file_as_manifold(built_all, tiled):
    """One ``prusa-slicer --info`` reads all 47 files (its start-up paid once, not 47 times):
    a block a file, headed by its name, in the order given."""
    assets = _assets(built_all, tiled)
    out = slicer("--info", *(str(path) for path, _ in assets))
    blocks = re.split(r"^\[(.+)\]$", out, flags=re.M)[1:]
    assert [name for name in blocks[0::2]] == [path.name for path, _ in assets]
    for (path, a), info in zip(assets, blocks[1::2], strict=True):
        assert "manifold = yes" in info, path.name
        size = [float(re.search(rf"size_{c} = ([0-9.]+)", info).group(1)) for c in "xyz"]
        assert size == pytest.approx(a["bbox_mm"]["size"], abs=0.01), path.name
        vol = float(re.search(r"volume = ([0-9.]+)", info).group(1))
        assert vol == pytest.approx(a["volume_mm3"], rel=1e-3), path.name


def test_prusaslicer_slices_every_file_with_its_profile_and_layers_hit_every_face(built_all, tiled, tmp_path):
    """Every kind of file, a slicer run each: every part but the stones after the first of
    each colour, the tiles after a board's first and the two whole boards (18 of the 47
    files). The 24 stones are one CAD function at one profile, differing in their seeds, and
    every stone's horizontal faces are on that profile's layers (tests/games/stratstone/test_models.py);
    a board's tiles are one cut of one shell board at one profile (each tile's layers, on its
    plate, tests/printing/test_slicer_plates.py); the Stratstone and Sage Stones boards are
    sliced in their plates there, the very meshes, every flat face checked on a layer
    PrusaSlicer made, and read as manifold above: a shell board is PrusaSlicer's slowest file
    (the Sage Stones board 26 s on a quiet machine, over 300 s at a load of 25 on 2 cores)."""
    assets = [(path, a) for path, a in _assets(built_all, tiled)
              if a["part"] not in ("stone", "board-tile", "board") or a["index"] == 1]
    assert len(assets) == 47 - 21 - 6 - 2
    seam = load_params().plates.seam
    runs = []
    gcode = [tmp_path / f"{i:02d}-{path.stem}.gcode" for i, (path, _) in enumerate(assets)]  # three boards' "board"
    for (path, a), g in zip(assets, gcode, strict=True):
        prof = a["profile"]
        printer = get_printer(a["printer"])  # a tile's printer, else the default the build fitted the part to
        bed = bed_shape(printer)
        # the seam as the plates set it (an STL file carries no settings): PrusaSlicer's aligned
        # one would triple its time (it raycasts each part), the layers the same
        runs.append(("--export-gcode", "--layer-height", str(prof["layer_height_mm"]), "--bed-shape", bed,
                     "--first-layer-height", str(prof["first_layer_height_mm"]), "--seam-position", seam,
                     "--output", str(g), str(path)))
    slice_each(runs)
    for (path, a), g in zip(assets, gcode, strict=True):
        prof = a["profile"]
        text = g.read_text()
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


SMALL_SET = {"stratstone.stone.per_colour": "1", "stratstone.board.cells": "2"}


def test_the_print_report_has_prusaslicers_figures_for_every_plate_and_keeps_them(tmp_path):
    """One stone of each colour and a board of 2 x 2 cells (a shell board is PrusaSlicer's
    slowest plate) keep it quick: 4 plates, each sliced as it is, the piece plates again
    without ironing and at flat layers."""
    import json

    out = tmp_path / "o"
    r = build(["stratstone"], None, out, jobs=2, progress=None, plates=True, sets=SMALL_SET)
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
    again = build(["stratstone"], None, out, jobs=2, progress=None, plates=True, sets=SMALL_SET)
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
    # the plates are all written and listed still (the first failed as the others were to be written)
    import json

    plates = json.loads((tmp_path / "o" / "manifest.json").read_text())["plates"]
    assert len(plates) == 6 and all((tmp_path / "o" / e["file"]).is_file() and "print" not in e for e in plates)


def test_parse_time_reads_every_unit():
    from stratstone_cad.printing.slicing import parse_time

    assert parse_time("1d 2h 3m 4s") == 86400 + 7200 + 180 + 4
    assert parse_time("37m 29s") == 37 * 60 + 29
    assert parse_time("59s") == 59
