"""A request's settings: the ``set=NAME=VALUE`` pairs of its query, checked as ``build --set``
checks them, and the plan they give (:class:`Planned`); and the form of a game's parameters
as JSON, made from their declarations (:func:`form`)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from stratstone_cad.assets.game_assets import GameAssets
from stratstone_cad.assets.jobs import Job
from stratstone_cad.base.colours import load_colours
from stratstone_cad.base.overrides import parse_set
from stratstone_cad.base.params import Profile, field_expected, field_kind
from stratstone_cad.base.printers import Printer, get_printer, load_printers, load_profiles
from stratstone_cad.errors import ParameterError
from stratstone_cad.pipeline.keys import job_key
from stratstone_cad.registry import FACTS, SHARED_SECTIONS, ParamSet, get_parts, load_params

#: A unit shown beside a field, from the end of its name.
UNITS = {"_mm": "mm", "_deg": "°", "_scale": "×", "_fraction": "", "_layers": "layers"}


@dataclass(frozen=True)
class Planned:
    """One game's checked parameters for some settings, and its plan: the jobs with their
    cache keys (:func:`~stratstone_cad.pipeline.keys.job_key`, the build's own)."""

    assets: GameAssets
    sets: dict[str, str]
    printer: Printer
    params: ParamSet
    profiles: dict[str, Profile]
    jobs: list[tuple[Job, str]]

    def job_of(self, file: str) -> tuple[Job, str] | None:
        """The job that writes ``file`` (``game/name.stl``), with its key; None when no job does."""
        return next(((j, k) for j, k in self.jobs if any(o.file == file for o in j.outputs)), None)

    @property
    def files(self) -> list[str]:
        return [o.file for j, _ in self.jobs for o in j.outputs]


def sets_of(pairs: Iterable[str]) -> dict[str, str]:
    """``["a.b=1", ...]`` from a query's ``set`` values, as ``--set`` takes them; a text
    parameter that names a file (the terrain's heightmap) is refused: the studio reads no
    file the request names.

    Raises:
        ParameterError: a request names a file (the studio reads none).
    """
    sets = parse_set(list(pairs))
    for name, value in sets.items():
        if name.endswith(".heightmap") and value.strip('"') != "":
            raise ParameterError(f"{name} = {value[:40]!r}: the studio reads no file named by a request; expected \"\"")
    return sets


def plan(game_name: str, sets: dict[str, str], printer_name: str | None) -> Planned:
    """The plan of ``game_name`` for ``sets`` and the printer; raises ParameterError
    with the build's own one-line message for a refused value."""
    assets = get_parts([game_name])[0]
    ps = load_params(None, sets, games=[assets.name])
    printer = get_printer(printer_name)
    profiles = load_profiles()
    jobs = assets.plan(ps.params_of(assets.name), printer, profiles, ps.mesh)
    return Planned(assets, sets, printer, ps, profiles, [(j, job_key(j, ps, profiles)) for j in jobs])


def _unit(name: str) -> str:
    m = re.search(r"_[a-z]+$", name)
    return UNITS.get(m[0], "") if m else ""


def _field(prefix: str, f: dataclasses.Field, value: Any, colours: list[str], map_seed: str | None) -> dict[str, Any]:
    """One control's declaration: its dotted name, kind, unit, range or choices, help sentence,
    the preset's value, and whether it is the seed of the game's map (``map_seed``: the
    parameter the game's facts name in ``MAP_PARAMETERS``; the page offers a new terrain)."""

    m = f.metadata
    kind = field_kind(f)
    name = f"{prefix}.{f.name}"
    choices = list(m["choices"]) if m.get("choices") else (colours if kind == "list" and f.name == "colours" else None)
    return {"name": name, "kind": kind, "unit": _unit(f.name), "lo": m.get("lo"), "hi": m.get("hi"),
            "choices": choices, "length": m.get("length"), "help": m["doc"], "expected": field_expected(f),
            "value": value, "map_seed": name == map_seed}


def form(game_name: str) -> dict[str, Any]:
    """The form of a game: its sections (its own, then the mesh's, the plates' and the fits'), each
    with its fields as :func:`_field` describes them, the printers and the default one, and
    the plan's files at the preset."""
    from stratstone_cad.base.printers import default_printer

    p = plan(game_name, {}, None)
    colours = sorted(load_colours())
    map_seed = getattr(FACTS[p.assets.name], "MAP_PARAMETERS", {}).get("seed")  # a game played on a map
    sections = []
    for prefix in [*p.assets.sections, *SHARED_SECTIONS]:
        values = p.params.section(prefix)
        cls = type(getattr(p.params, prefix)) if prefix in SHARED_SECTIONS else p.assets.sections[prefix]
        fields = [_field(prefix, f, values[f.name], colours, map_seed) for f in dataclasses.fields(cls)]
        sections.append({"name": prefix, "fields": fields})
    printers = [{"name": n, "title": pr.title} for n, pr in load_printers().items()]
    return {"game": p.assets.name, "title": p.assets.title, "sections": sections, "printers": printers,
            "printer": default_printer(), "files": p.files}
