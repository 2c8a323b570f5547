"""Every part is one solid twice: the print mesh (STL, 3MF) and the B-rep (STEP, the model
API), made from the same regions and numbers by each game's ``make_*`` and ``solid_*``.
For every part of every game, at the default parameters, tiled for a small bed, and for
a sweep of random valid parameter sets: the volumes within 0.2 %, the bounding boxes
within 0.05 mm, every horizontal B-rep face at a height the mesh has (so on a layer
top), and one closed valid solid when the STEP file is read back."""

from __future__ import annotations

import importlib
import math
import random

import numpy as np
import pytest
from OCP.BRepCheck import BRepCheck_Analyzer

from stratstone_cad.assets.fit_test import fit_test_set
from stratstone_cad.assets.makers import solid_maker
from stratstone_cad.base.printers import get_printer, load_profiles
from stratstone_cad.occ.shapes import horizontal_face_heights, volume
from stratstone_cad.printing.checks import Mesh
from stratstone_cad.registry import get_parts, load_params
from tests.meshtools import horizontal_heights


@pytest.fixture(scope="module")
def boards() -> dict:
    """The boards' meshes and B-reps by (printer, job id), made once for this module: the test
    of every part and the boards' test both check the Prusa MK4's boards (seconds each)."""
    return {}


def _board(boards: dict, job, mesh_params, printer: str):
    """``_mesh_and_solids`` of a board's job (at the default parameters), made once a module."""
    key = (printer, job.id)
    if key not in boards:
        boards[key] = _mesh_and_solids(job, mesh_params)
    return boards[key]


def _mesh_and_solids(job, mesh_params):
    """The job's parts as the build makes them (meshes) and as B-reps, in output order."""
    from stratstone_cad.occ.tessellate import tessellate

    module, func = job.maker.split(":")
    made = getattr(importlib.import_module(module), func)(**job.args)
    meshes = [m if isinstance(m, Mesh) else tessellate(m, mesh_params.tolerance_mm,
                                                       math.radians(mesh_params.angular_tolerance_deg)) for m in made]
    module, func = solid_maker(job.maker).split(":")
    solids = getattr(importlib.import_module(module), func)(**job.args)
    assert len(solids) == len(meshes) == len(job.outputs), job.id
    return meshes, solids


def assert_same_solid(mesh: Mesh, solid, what: str, valid: bool = True, rel: float = 2e-3) -> None:
    v_mesh, v_solid = mesh.volume_mm3(), volume(solid)
    # a mesh stays within the tolerance of every curved face (a well's, a stone's): the volumes
    # differ by at most that times their area (a shell board is light beside its wells' walls)
    curved = sum(f.Area() for f in solid.Faces() if f.geomType() != "PLANE")
    slack = max(rel * v_mesh, load_params().mesh.tolerance_mm * curved)
    assert abs(v_solid - v_mesh) <= slack, (what, v_solid, v_mesh, slack)
    lo, hi = mesh.bounds()
    bb = solid.BoundingBox()
    assert np.allclose([bb.xmin, bb.ymin, bb.zmin], lo, atol=0.05), (what, lo, bb.xmin, bb.ymin, bb.zmin)
    assert np.allclose([bb.xmax, bb.ymax, bb.zmax], hi, atol=0.05), (what, hi, bb.xmax, bb.ymax, bb.zmax)
    have = horizontal_heights(mesh)
    for z in horizontal_face_heights(solid):
        assert any(abs(z - h) < 1e-4 for h in have), (what, z, "a horizontal B-rep face at a height the mesh has not")
    assert len(solid.Solids()) == 1, what
    if valid:
        assert BRepCheck_Analyzer(solid.wrapped).IsValid(), what


def _plan(ps, printer="prusa-mk4"):
    profiles = load_profiles()
    return [(g, j) for g in get_parts(None) for j in g.plan(ps.params_of(g.name), get_printer(printer), profiles, ps.mesh)]


def _one_per_kind(plan):
    """A job of each kind (maker and part): a board, a stone, a gem, a Runner, ..."""
    seen, out = set(), []
    for g, j in plan:
        kind = (j.maker, j.outputs[0].part, getattr(j.args.get("body"), "kind", None))
        if kind not in seen:
            seen.add(kind)
            out.append((g, j))
    return out


def test_every_part_of_every_game_is_one_solid_as_mesh_and_brep(boards):
    """Every part but the stones after the first of each colour: a stone's print mesh is
    tessellated from the very solid ``solid_stone`` returns (its one CAD function), so the
    24 differ only in their seeds, which the random sweep below varies."""
    ps = load_params()
    plan = _plan(ps)
    assert {j.outputs[0].part for _, j in plan} >= {"board", "stone", "gem", "runner", "lancer", "guardian"}
    for _g, job in plan:
        if job.outputs[0].part == "stone" and job.outputs[0].index != 1:
            continue
        board = "board" in job.outputs[0].part
        meshes, solids = _board(boards, job, ps.mesh, "prusa-mk4") if board else _mesh_and_solids(job, ps.mesh)
        for mesh, solid, out in zip(meshes, solids, job.outputs, strict=True):
            # BRepCheck takes seconds on a board of thousands of faces: the boards are
            # checked once each (below and in the STEP tests), every other part here
            assert_same_solid(mesh, solid, out.file, valid=out.part != "board")


def test_the_fit_tests_coupons_are_one_solid_as_mesh_and_brep():
    """The fit test's coupons (build fit-test): each game's fit makers have B-rep twins too."""
    ps = load_params()
    fit = fit_test_set(get_parts(None))
    for job in fit.plan(ps.params_of("fit-test"), get_printer("prusa-mk4"), load_profiles(), ps.mesh):
        meshes, solids = _mesh_and_solids(job, ps.mesh)
        for mesh, solid, out in zip(meshes, solids, job.outputs, strict=True):
            # a pocket is its true circle in the B-rep, its polygon touching it from outside in
            # the mesh (within the mesh tolerance): 0.7 % of a recess coupon's thin ring
            assert_same_solid(mesh, solid, out.file, rel=1e-2)


@pytest.mark.slow
def test_boards_are_valid_closed_solids_and_tiles_too(boards):
    """Every board, whole and cut into tiles for a small bed, is a valid closed B-rep."""
    ps = load_params()
    for printer in ("prusa-mk4", "prusa-mini"):
        for _g, job in _plan(ps, printer):
            if "board" not in job.outputs[0].part:
                continue
            meshes, solids = _board(boards, job, ps.mesh, printer)
            for mesh, solid, out in zip(meshes, solids, job.outputs, strict=True):
                assert_same_solid(mesh, solid, f"{out.file} ({printer})")


def _random_sets(rng: random.Random) -> dict[str, str]:
    """A random valid parameter set: each game's piece and board sizes drawn within their ranges
    (those the checks then refuse are drawn again)."""
    return {
        "stratstone.stone.seed": str(rng.randrange(10**6)),
        "stratstone.stone.footprint_mm": f"{rng.uniform(22, 30):.2f}",
        "stratstone.stone.height_mm": f"{rng.uniform(6, 10):.2f}",
        "stratstone.board.cell_pitch_mm": f"{rng.uniform(34, 42):.2f}",
        "sage-stones.gem.diameter_mm": f"{rng.uniform(15, 18):.2f}",
        "terrain.piece.runner_diameter_mm": f"{rng.uniform(17, 22):.2f}",
        "terrain.piece.guardian_height_mm": f"{rng.uniform(22, 30):.2f}",
        "terrain.board.seed": str(rng.randrange(10**6)),
    }


@pytest.mark.parametrize("seed", [1, 2])
def test_random_parameter_sets_give_one_solid_as_mesh_and_brep(seed):
    from stratstone_cad.errors import ParameterError

    rng = random.Random(seed)
    for _ in range(20):
        try:
            ps = load_params(sets=_random_sets(rng))
            break
        except ParameterError:
            continue
    else:
        pytest.fail("no valid random parameter set in 20 draws")
    for _g, job in _one_per_kind(_plan(ps)):
        meshes, solids = _mesh_and_solids(job, ps.mesh)
        for mesh, solid, out in zip(meshes, solids, job.outputs, strict=True):
            assert_same_solid(mesh, solid, f"{out.file} (seed {seed})", valid=out.part != "board")
