"""PrusaSlicer slices every kind of print plate we write with the settings it carries (its
command line, run two at a time): the layers the plate asks for, its ironing, its seam,
inside the bed.

Skipped when prusa-slicer is not installed, unless STRATSTONE_REQUIRE_SLICER=1 (as in
CI), which turns the skip into a failure.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from stratstone_cad.base.printers import get_printer
from tests.printing.slicer_cli import bed_shape, need_slicer, slice_each  # noqa: F401 (a fixture)

ARACHNE_NOTE = re.compile(r"^.*\[error\]\s+Reversing even wall line causes it to be printed CCW instead of CW!\s*$", re.M)
"""A line PrusaSlicer's Arachne wall generator (SkeletalTrapezoidation) logs at error level
now and then about one wall's print direction, not a fault of the file: seen once on a
terrain plate in four clean-clone runs of this test (2026-12-07), and not again in four
slices of the same file by hand. Only this line is let through; any other warning or error
still fails the test."""

pytestmark = pytest.mark.slicer


def _gcode_layers(text: str) -> list[float]:
    return sorted({float(z) for z in re.findall(r"^;LAYER_CHANGE\n;Z:([0-9.]+)", text, re.M)})


def _extent(text: str) -> tuple[float, float, float, float]:
    """The smallest and largest X and Y the print head extrudes at."""
    xs, ys = [], []
    for m in re.finditer(r"^G1 X([-0-9.]+) Y([-0-9.]+) E[0-9.]", text, re.M):
        xs.append(float(m[1]))
        ys.append(float(m[2]))
    return min(xs), min(ys), max(xs), max(ys)


def _outer_wall_loops(text: str) -> list[list[tuple[float, float]]]:
    """Each outer wall PrusaSlicer prints (``;TYPE:External perimeter``, up to the next
    move that does not extrude): the point it starts at, then the points it extrudes to."""
    loops: list[list[tuple[float, float]]] = []
    role, x, y, loop = "", 0.0, 0.0, None
    for line in text.splitlines():
        if line.startswith(";TYPE:"):
            role, loop = line[6:], None
        elif line.startswith("G1 ") and (" X" in line or " Y" in line):
            mx, my, me = (re.search(rf" {a}(-?[0-9.]+)", line) for a in "XYE")
            nx, ny = float(mx[1]) if mx else x, float(my[1]) if my else y
            if role == "External perimeter" and me and float(me[1]) > 0:
                if loop is None:
                    loop = [(x, y)]
                    loops.append(loop)
                loop.append((nx, ny))
            else:
                loop = None
            x, y = nx, ny
    return loops


def _layers_asked(plate: dict, assets: dict, plated: Path) -> set[float]:
    """The layer tops a plate asks for (each object's, its adaptive profile's or its
    profile's flat ones), checked to hold every plateau, mark floor and recess floor."""
    from stratstone_cad.printing.adaptive import adaptive_layers, flat_heights
    from stratstone_cad.printing.stl import read_stl_mesh
    from stratstone_cad.registry import load_params

    bounds = load_params().plates
    prof = plate["profile"]
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
    return expected


def _kind(plate: dict) -> tuple[str, str, int | None]:
    """A plate's game, its print job less the colour (``stones-red`` -> ``stones``) and its
    bed's number: plates of one kind are the same parts in other colours, with other marks."""
    job = plate["plate"]
    for colour in plate["colours"]:
        job = job.removesuffix(f"-{colour}")
    return plate["game"], job, plate["index"]


def test_prusaslicer_slices_every_kind_of_plate_with_the_settings_it_carries(plated, tmp_path):
    """No layer height, first layer, ironing or bed option on the command line: the plate says
    them, the bed it was arranged for included (without it PrusaSlicer slices on its own
    200 x 200 mm bed, a terrain tile past its edge); the parts stay where the plate puts
    them (--dont-arrange), inside the bed. Every plate's layers are worked out; one
    plate of each kind is sliced (a stones plate, not the three colours': the same settings
    and layer profiles on other stones; slicing all 18 took three minutes of the tests'; and
    the terrain board's first tile, not its four: one plate job, the same settings and joints,
    a shell each, each tile's layers worked out above)."""
    import json

    manifest = json.loads((plated / "manifest.json").read_text())
    assets = {a["file"]: a for a in manifest["assets"]}
    assert len(manifest["plates"]) == 18
    asked = {plate["file"]: _layers_asked(plate, assets, plated) for plate in manifest["plates"]}
    kinds = {}
    for plate in manifest["plates"]:
        kinds.setdefault(_kind(plate)[:2], plate)
    assert len(kinds) == 7, sorted(kinds)  # a board each (the terrain board's first tile), stones, gems, dice, pieces
    assert len({_kind(p) for p in manifest["plates"]}) == 10  # and three more tiles of the terrain board
    runs = []
    for plate in kinds.values():
        gcode = tmp_path / (plate["file"].replace("/", "-") + ".gcode")
        runs.append(("--export-gcode", "--dont-arrange", "--output", str(gcode), str(plated / plate["file"])))
    for plate, log in zip(kinds.values(), slice_each(runs), strict=True):
        prof = plate["profile"]
        printer = get_printer(plate["printer"])
        assert not re.search(r"warning|error|repair|manifold", ARACHNE_NOTE.sub("", log), re.I), (plate["file"], log[-500:])
        text = (tmp_path / (plate["file"].replace("/", "-") + ".gcode")).read_text()
        # sliced on the bed of the plate's printer, which the file alone told PrusaSlicer
        assert f"\n; bed_shape = {bed_shape(printer)}\n" in text, plate["file"]
        assert f"\n; max_print_height = {printer.bed_z_mm:g}\n" in text, plate["file"]
        layers = _gcode_layers(text)
        assert layers[0] == pytest.approx(prof["first_layer_height_mm"]), plate["file"]
        # the slicer made exactly the layers the plate asks for: no more, no fewer
        want = np.array(sorted(asked[plate["file"]]))
        got = np.array(layers)
        # (two objects' tops a fraction of a micrometre apart may share one layer change)
        missing = [z for z in want if np.abs(got - z).min() > 2e-4]
        extra = [z for z in got if np.abs(want - z).min() > 2e-4]
        assert not missing and not extra, (plate["file"], missing[:5], extra[:5])
        assert (";TYPE:Ironing" in text) == (plate["ironing"] != "none"), plate["file"]
        # the seam (plates.seam, "rear"): every closed outer wall starts at its back (an open
        # one, a thin wall's single line, has no seam to place)
        # (PrusaSlicer may take a point up to 1.5 mm short of the back to keep the seam's line)
        assert plate["seam"] == "rear" and "\n; seam_position = rear\n" in text, plate["file"]
        walls = [lp for lp in _outer_wall_loops(text) if np.ptp([p[1] for p in lp]) > 1]
        loops = [lp for lp in walls if math.dist(lp[0], lp[-1]) < 1]
        assert len(loops) > 50 and len(loops) > 0.6 * len(walls), (plate["file"], len(loops), len(walls))
        for lp in loops:
            ys = [p[1] for p in lp]
            # (2.5 mm on a shell board: around its cavities and wells PrusaSlicer took a point 1.9 mm
            # short of the back on the Sage Stones board)
            assert lp[0][1] >= max(ys) - max(0.02 * np.ptp(ys), 2.5), (plate["file"], lp[0], max(ys))
        x0, y0, x1, y1 = _extent(text)
        assert 0 <= x0 and 0 <= y0 and x1 <= printer.bed_x_mm and y1 <= printer.bed_y_mm, (plate["file"], x0, y0, x1, y1)


def test_a_plate_for_a_large_bed_slices_where_it_stands_given_nothing_but_the_file(tmp_path):
    """A part at the far corner of a Prusa XL's 360 x 360 mm bed, well outside PrusaSlicer's
    own 200 x 200 mm bed: the plate's bed is the XL's, and the part is printed where it stands."""
    from stratstone_cad.printing.checks import Mesh
    from stratstone_cad.printing.plating import bed_of
    from stratstone_cad.printing.slicer_settings import PlateSettings
    from stratstone_cad.printing.threemf import PlateObject, plate_3mf

    xl = get_printer("prusa-xl")
    corners = np.array([[x, y, z] for x in (0, 10) for y in (0, 10) for z in (0, 6)], float)
    faces = np.array([[0, 2, 3], [0, 3, 1], [4, 5, 7], [4, 7, 6], [0, 1, 5], [0, 5, 4], [2, 6, 7], [2, 7, 3],
                      [0, 4, 6], [0, 6, 2], [1, 3, 7], [1, 7, 5]])
    bed = bed_of(xl)
    settings = PlateSettings("a cube", 0.3, 0.3, "none", "rear", (("red", "#FF0000"),), bed[:2], bed[2])
    plate = tmp_path / "xl.3mf"
    plate.write_bytes(plate_3mf("test/xl", [PlateObject("cube", Mesh(corners, faces), "red", ((330.0, 335.0),))],
                                settings, "0"))
    gcode = tmp_path / "xl.gcode"
    slice_each([("--export-gcode", "--dont-arrange", "--output", str(gcode), str(plate))])
    text = gcode.read_text()
    assert f"\n; bed_shape = {bed_shape(xl)}\n" in text
    x0, y0, x1, y1 = _extent(text)
    # the cube at 330-340 x 335-345 mm with its skirt around it, inside the XL's bed
    assert 320 < x0 and x1 < 350 and 325 < y0 and y1 < 355 and x1 < xl.bed_x_mm and y1 < xl.bed_y_mm, (x0, y0, x1, y1)
