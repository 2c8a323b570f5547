"""A job's parts as B-rep solids (each CAD function's ``solid_*`` twin), and a game's set as
a coloured CadQuery Assembly laid out as a game starts (:mod:`stratstone_cad.assets.layout`).

Used by the model API (:mod:`stratstone_cad.models`) and ``build --step``
(:mod:`stratstone_cad.pipeline.cad_files`); CadQuery loads inside the functions.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from stratstone_cad.assets.jobs import Job
from stratstone_cad.assets.layout import set_layout
from stratstone_cad.assets.makers import solid_maker
from stratstone_cad.base.colours import load_colours, rgb
from stratstone_cad.errors import UserError

if TYPE_CHECKING:
    import cadquery as cq


def job_solids(job: Job) -> list[cq.Shape]:
    """The parts of ``job`` as B-rep solids, one per output, made by its CAD function's
    ``solid_*`` twin from the same arguments.

    Raises:
        UserError: the part cannot be made with these parameters (its message names the job).
    """
    module, func = solid_maker(job.maker).split(":")
    try:
        return getattr(importlib.import_module(module), func)(**job.args)
    except UserError as e:
        raise type(e)(f"{job.label}: {e}") from None


def set_assembly(game: Any, engine: Any, params: Any, jobs: list[Job], solids: Mapping[str, cq.Shape]) -> cq.Assembly:
    """The set of ``game`` (its GameAssets; ``engine``: its rules) from its parts' solids (by
    output file), as a coloured Assembly laid out as a game starts.

    Raises:
        ModelError: the rules cannot start a game with these parameters.
    """
    import cadquery as cq

    bounds = {}
    for f, s in solids.items():
        bb = s.BoundingBox()
        bounds[f] = ((bb.xmin, bb.ymin, bb.zmin), (bb.xmax, bb.ymax, bb.zmax))
    assy = cq.Assembly(name=game.name)
    # One Color object a colour: CadQuery shares a part's shape among its copies in the
    # STEP file when the (colour, shape) pair is the same objects (a colour made afresh
    # for each copy wrote the terrain set's six pieces twice: 54 MB, not 36).
    colour: dict[str, cq.Color] = {}
    for p in set_layout(game, engine, params, jobs, bounds, load_colours()):
        if p.colour not in colour:
            colour[p.colour] = cq.Color(*(c / 255 for c in rgb(p.colour)))
        assy.add(solids[p.output.file], name=p.name, loc=cq.Location(cq.Vector(*p.at)), color=colour[p.colour])
    return assy
