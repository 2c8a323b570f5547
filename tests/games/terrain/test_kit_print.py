"""PrusaSlicer slices the terrain kit's plates (its tiles and its frame) and the print report
lists them with time and grams.

Skipped when prusa-slicer is not installed, unless STRATSTONE_REQUIRE_SLICER=1 (as in CI),
which turns the skip into a failure.
"""

from __future__ import annotations

import json
import re

import pytest

from stratstone_cad.pipeline.build import build
from tests.printing.slicer_cli import need_slicer  # noqa: F401 (a fixture)

pytestmark = pytest.mark.slicer


def test_prusaslicer_slices_the_kit_plates_and_the_report_lists_them(tmp_path):
    """Two designs keep it quick: 4 tiles on 4 plates (two alike per design, sliced once) and the frame in 4 pieces;
    the pieces' plates (not what is tested) one piece a kind and unironed: two slices of them, not four of twice as many."""
    out = tmp_path / "o"
    build(["terrain"], None, out, jobs=2, progress=None, plates=True,
          sets={"terrain.kit.print": "true", "terrain.kit.designs": "2", "terrain.piece.per_kind": "1",
                "plates.piece_ironing": "none"})
    m = json.loads((out / "manifest.json").read_text())
    kit = [p for p in m["plates"] if "/kit-" in p["file"]]
    assert sorted(p["file"] for p in kit) == [f"terrain/kit-frame-plate-{i}-of-4.3mf" for i in range(1, 5)] + [
        f"terrain/kit-tile-{d}-plate-{i}-of-2.3mf" for d in "ab" for i in (1, 2)]
    assets = {a["file"]: a for a in m["assets"]}
    for plate in kit:
        p = plate["print"]
        solid_g = sum(assets[o["file"]]["mass_pla_g"] * o["copies"] for o in plate["objects"])
        assert p["slicer"].startswith("PrusaSlicer-") and 0.2 * solid_g < p["filament_g"] < solid_g, plate["file"]
    text = (out / "print-report.md").read_text()
    for plate in kit:
        row = next(line for line in text.splitlines() if line.startswith(f"| {plate['file']} |"))
        assert re.search(r"\| (\d+ h \d\d min|\d+ min) \| [0-9.]+ g, [0-9.]+ m \|", row), row
