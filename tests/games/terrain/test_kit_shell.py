"""The terrain kit's tiles printed as shells (terrain.board.shell, as the boards): measured on
the meshes the build writes, shell against solid (terrain.board.shell=false), with the
measures tests/geometry/test_shells.py applies to the boards: the same top surface at every
square's centre and on a 3 mm grid, tops and walls at least the shell's thickness, no
ceiling wider than a cell, watertight; and the engraving under the tile (design letter and
turn arrow) cut into solid material as on the solid tile."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import shapely
import trimesh

from stratstone_cad.base.printers import get_printer, load_profiles
from stratstone_cad.geometry.shells import Shell
from stratstone_cad.registry import ASSETS, load_params
from tests.geometry.test_shells import _flat, _ground, _heights_at, _tops, bridge_span, longest_span


def _kit(shell: bool):
    ps = load_params(sets={"terrain.kit.print": "true", "terrain.board.shell": str(shell).lower()}, games=["terrain"])
    jobs = ASSETS["terrain"].plan(ps.games["terrain"], get_printer("prusa-mk4"), load_profiles(), ps.mesh)
    cad = importlib.import_module("stratstone_cad.games.terrain.cad")
    return [(j, cad.make_kit_tile(**j.args)[0]) for j in jobs if "kit-tile" in j.id]


@pytest.fixture(scope="module")
def tiles():
    """(job, shell tile, solid tile) of each design."""
    shells, solids = _kit(True), _kit(False)
    assert [j.id for j, _ in shells] == [j.id for j, _ in solids] == [f"terrain/kit-tile-{m}" for m in "abcd"]
    return [(j, m, s) for (j, m), (_, s) in zip(shells, solids, strict=True)]


def _shell(job) -> Shell:
    b = job.args["board"]
    return Shell.of(b.shell_top_layers, b.shell_wall_extrusions, job.args["profile"])


def _centres(job) -> np.ndarray:
    pitch, n = job.args["board"].cell_pitch_mm, len(job.args["design"])
    return np.array([((c + 0.5) * pitch, (r + 0.5) * pitch) for r in range(n) for c in range(n)])


def _engraving(job):
    """The mark's strokes as the tile's underside has them (the solid tile's stack)."""
    from stratstone_cad.games.terrain.cad import _kit_tile_solid

    stack, pad = _kit_tile_solid(**job.args)
    return stack[0].region, pad


def test_a_shell_kit_tile_has_the_solid_tiles_top_everywhere(tiles):
    for job, shell, solid in tiles:
        lo, hi = solid.bounds()
        grid = np.array([(x, y) for x in np.arange(lo[0] + 0.37, hi[0], 3.0) for y in np.arange(lo[1] + 0.41, hi[1], 3.0)])
        for points in (_centres(job), grid):
            got, want = _tops([shell], points), _tops([solid], points)
            bad = [(tuple(p), g, w) for p, g, w in zip(points, got, want, strict=True)
                   if g is None or w is None or abs(g - w) > 0.01]
            assert not bad, (job.id, bad[:5])
        assert shell.volume_mm3() < 0.3 * solid.volume_mm3(), job.id


def test_a_shell_kit_tiles_tops_are_thick_over_its_cavities(tiles):
    for job, shell, _ in tiles:
        top_mm = _shell(job).top_mm
        _, pad = _engraving(job)
        centres = _centres(job)
        ups, downs = _heights_at(*_flat(shell, True), centres), _heights_at(*_flat(shell, False), centres)
        hollow = 0
        for point, up, down in zip(centres, ups, downs, strict=True):
            ceilings = [z for z in down if 1e-6 < z < up[-1]]
            if ceilings:
                hollow += 1
                assert up[-1] - max(ceilings) >= top_mm - 1e-6, (job.id, point)
                assert min(z for z in up if z > max(ceilings)) - max(ceilings) >= top_mm - 1e-6, (job.id, point)
            else:
                assert pad.contains(shapely.Point(point)), (job.id, point)  # only the mark's pad is solid
        assert hollow >= len(centres) - 2, job.id


def test_a_shell_kit_tiles_walls_are_thick_and_its_spans_short(tiles):
    for job, shell, _ in tiles:
        wall, pitch = _shell(job).wall_mm, job.args["board"].cell_pitch_mm
        assert trimesh.Trimesh(shell.vertices, shell.triangles, process=False).is_watertight, job.id
        ground = _ground(shell)
        r = wall / 2 - 0.02  # every part of the first layer holds a disc as wide as the wall
        assert ground.buffer(-r, join_style="mitre").buffer(r, join_style="mitre").area >= ground.area * 0.995, job.id
        assert longest_span(shell) <= pitch - wall + 1e-6, job.id  # at most a cell between the walls under its edges
        assert bridge_span(shell) <= pitch - wall + 0.3, job.id  # and so is every bridge line along x or y


def test_a_shell_kit_tiles_engraving_is_cut_into_solid_material(tiles):
    """The letter and arrow under the tile: the same first layer as the solid tile's over the
    mark's rectangles, and at least a wall of material round every stroke (no cavity beside it)."""
    for job, shell, solid in tiles:
        wall = _shell(job).wall_mm
        first, pad = _engraving(job)
        strokes = pad.difference(first)
        assert strokes.area > 50, job.id
        ground, solid_ground = _ground(shell), _ground(solid)
        assert ground.intersection(pad).symmetric_difference(solid_ground.intersection(pad)).area < 1e-3, job.id
        around = strokes.buffer(wall - 0.01, join_style="mitre").difference(strokes)
        assert around.difference(ground).area < 1e-3, job.id
