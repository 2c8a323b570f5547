"""``build --step``: each part's STEP file beside its STL, and the set's coloured assembly
as ``GAME/set.step`` and ``GAME/set.glb``, made by one job a game."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from stratstone_cad.assets.jobs import Job, Output
from stratstone_cad.base.printers import NO_PRINTER
from stratstone_cad.registry import get_game, get_parts

#: The sets' glTF files are meshed this finely (mm, radians): for the eye, not the printer.
GLB_TOLERANCE_MM = 0.1
GLB_ANGULAR_TOLERANCE_RAD = 0.2


def cad_files_job(game: Any, params: Any, printer: Any, profiles: Mapping[str, Any], mesh: Any,
                  plan: list[Job]) -> Job:
    """The job of ``build --step`` for one game: a STEP file per part beside its STL (a
    tile per tile, as ``plan`` cuts the boards for ``printer``), then the set's coloured
    assembly as ``GAME/set.step`` and ``GAME/set.glb``. One job per game, so each solid is
    made once for its STEP file and the assembly; it is given the game's parameters whole
    (everything the files are made from: the cache key is derived from them)."""
    outputs = [dataclasses.replace(o, file=o.file.removesuffix(".stl") + ".step", plate="", adaptive=False)
               for j in plan for o in j.outputs]
    outputs += [Output(f"{game.name}/set.step", game.name, "set", "board"),
                Output(f"{game.name}/set.glb", game.name, "set", "board")]
    return Job(f"{game.name}/set", f"{__name__}:make_cad_files",
               {"game": game.name, "params": params, "printer": printer, "profiles": dict(profiles), "mesh": mesh},
               tuple(outputs), f"{game.title.split(':')[0]} STEP files and set", cost=10.0 * len(plan),
               in_worker=True)


def set_jobs_not_printed(printed: list[Job], whole: list[Job]) -> list[Job]:
    """The jobs of the set's plan (``whole``: no printer, every part whole) whose parts are
    not those the printer's plan (``printed``) makes: a board cut into tiles, or turned a
    quarter to fit the bed, stands whole and as on the table in the set, which is the same
    whatever the printer."""
    made = {job.id: job for job in printed}
    return [job for job in whole
            if job.id not in made or made[job.id].args != job.args or made[job.id].outputs != job.outputs]


def make_cad_files(game: str, params: Any, printer: Any, profiles: Mapping[str, Any], mesh: Any) -> list[bytes]:
    """The files of :func:`cad_files_job`, in its outputs' order: each part's STEP (in mm,
    the part's name as the product's), the set's STEP and its binary glTF (in metres)."""
    # CadQuery: only in the worker that makes the files
    from stratstone_cad.occ.assembly import job_solids, set_assembly
    from stratstone_cad.occ.step import assembly_glb, assembly_step, part_step

    (g,) = get_parts([game])
    jobs = g.plan(params, printer, profiles, mesh)
    out, made = [], {}
    for job in jobs:
        made[job.id] = job_solids(job)
        out += [part_step(s, o.file.removesuffix(".stl")) for o, s in zip(job.outputs, made[job.id], strict=True)]
    whole = g.plan(params, NO_PRINTER, profiles, mesh)
    again = set_jobs_not_printed(jobs, whole)
    solids = {}
    for job in whole:
        solids.update(zip((o.file for o in job.outputs), job_solids(job) if job in again else made[job.id], strict=True))
    assy = set_assembly(g, get_game(game), params, whole, solids)
    # the glTF is for looking at (a viewer, a page): meshed at the preview's 0.1 mm, not the
    # print's 0.05 mm and 2.5 degrees, which made the Stratstone set's 10 MB and 14 s
    out += [assembly_step(assy), assembly_glb(assy, GLB_TOLERANCE_MM, GLB_ANGULAR_TOLERANCE_RAD)]
    return out
