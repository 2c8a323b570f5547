"""Every printed part as a CadQuery solid, and each game's set as a coloured assembly.

>>> from stratstone_cad import models
>>> board = models.part("stratstone/board")                      # a cadquery.Workplane
>>> stone = models.part("stratstone/stone-red-03", height_mm=8)  # the stone section's field
>>> other = models.part("terrain/board", seed=7)                 # the board of another map
>>> tile = models.part("sage-stones/board-tile-1-of-4", printer="prusa-mini")  # for that bed
>>> gems = models.assembly("sage-stones")                        # a cadquery.Assembly

A part's name is the build's file name without ``.stl`` (``"sage-stones/gem-blue"``,
``"terrain/guardian-red"``, ``"terrain/board-seed-1"``; ``"terrain/board"`` is the terrain
board whatever its map). Overrides are named as ``--set`` names them: a dotted name
(``**{"stratstone.stone.height_mm": 8}``) or a field of the part's own section
(``height_mm=8`` for a stone), or of the game's one section that has it. They are checked
as ``--set`` is: a bad name or value raises :class:`ModelError` (a ``ValueError``) with the
one-line message the command line prints.

The solids are the parts the build prints, made by each game's ``solid_*`` CAD functions
from the same regions and numbers as the print meshes (the tests prove both are one solid).
Boards come whole here; ``printer="prusa-mini"`` gives the tiles a build for that
printer's bed makes (``"sage-stones/board-tile-1-of-4"``; :func:`names` lists them).

The assembly lays the set out as at the start of a game, in the print colours: the pieces
the game starts with on their squares (the terrain game's on their start squares,
Stratstone's tan stacks in the corners), the pieces in hand where the replay shows them
(Stratstone's stones beside the board), and the rest of the set (Sage Stones' gems) in
rows beside the board. Its children are named after the parts (``"board"``,
``"stone-red-03"``, ``"gem-blue-07"`` for the seventh copy of a part printed ten times).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import json
import math
import random
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stratstone_cad.assets.jobs import Job, Output
from stratstone_cad.assets.makers import solid_maker
from stratstone_cad.base.params import NO_PRINTER, get_printer, load_colours, load_profiles, rgb
from stratstone_cad.errors import GameError, ParameterError, UserError
from stratstone_cad.registry import get_game, get_parts, load_params

if TYPE_CHECKING:
    import cadquery as cq

__all__ = ["ModelError", "assembly", "names", "part", "set_layout"]

#: The sets' glTF files are meshed this finely (mm, radians): for the eye, not the printer.
GLB_TOLERANCE_MM = 0.1
GLB_ANGULAR_TOLERANCE_RAD = 0.2


class ModelError(ParameterError):
    """A part name, override or value the model API cannot use (a ``ValueError`` too).

    The API's one error: whatever a user can get wrong below it (a parameter, a printer, a
    heightmap file, a set the rules cannot start) is raised by :func:`part`, :func:`names`
    and :func:`assembly` as a ModelError with the one-line message the command line
    prints. It is translated at this boundary rather than made the base of every user
    error: the layers below keep their own types (the command line and the build tell a
    ``LogError`` from an ``OutputError``), and a caller of this API needs to catch one."""


def _api(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` raising every user error as a :class:`ModelError` with its message."""
    @functools.wraps(func)
    def api(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except ModelError:
            raise
        except UserError as e:
            raise ModelError(str(e)) from None
    return api


def _name_or_none(value: Any, what: str, expected: str) -> None:
    """Refuse a ``game`` or ``printer`` argument that is neither a name nor None."""
    if value is not None and not isinstance(value, str):
        raise ModelError(f"{what} {value!r:.60}: expected {expected}")


def _sets(game: Any, section_of_part: str | None, overrides: Mapping[str, Any], tmp: Path) -> dict[str, str]:
    """``--set`` text of the overrides: dotted names as given, a bare field name resolved to
    the part's own section, else to the game's one section that has it."""
    out = {}
    for name, value in overrides.items():
        if "." in name:
            full = name
        else:
            owners = [prefix for prefix, cls in game.sections.items() if name in cls.__dataclass_fields__]
            if section_of_part in owners:
                full = f"{section_of_part}.{name}"
            elif len(owners) == 1:
                full = f"{owners[0]}.{name}"
            elif owners:
                raise ModelError(f"parameter {name!r}: in {' and '.join(owners)}; expected one of those dotted names")
            else:
                fields = sorted(f for cls in game.sections.values() for f in cls.__dataclass_fields__)
                raise ModelError(f"parameter {name!r}: unknown for {game.name}; expected a dotted name "
                                 f"(stratstone.stone.height_mm) or one of {', '.join(fields)}")
        out[full] = _text(full, value, tmp)
    return out


def _text(name: str, value: Any, tmp: Path) -> str:
    """An override's value as ``--set`` reads it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return str(value)
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, list | tuple) and name.endswith(".heightmap"):  # a heightmap given as its levels
        path = tmp / "heightmap.json"
        path.write_text(json.dumps([list(row) for row in value]))
        return str(path)
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):  # colours=["a", "b", "c"]
        return json.dumps(list(value))  # an array, as --set reads it
    raise ModelError(f"parameter {name}: {type(value).__name__} {value!r:.60}; expected a number, a text, a bool or "
                     "a list of texts")


def _game_of(name: str) -> tuple[Any, str]:
    if not isinstance(name, str) or "/" not in name:
        games = ", ".join(g.name for g in get_parts(None))
        raise ModelError(f"part {name!r}: expected GAME/PART, e.g. stratstone/board (games: {games})")
    game_name, stem = name.split("/", 1)
    try:
        (game,) = get_parts([game_name])
    except UserError as e:
        raise ModelError(f"part {name!r}: {e}") from None
    return game, stem


def _printer(printer: str | None) -> Any:
    _name_or_none(printer, "printer", "a printer's name such as prusa-mini (stratstone-cad list names them), or None "
                                      "for the parts whole")
    if printer is None:
        return NO_PRINTER
    try:
        return get_printer(printer)
    except ParameterError as e:
        raise ModelError(str(e)) from None


def _plan(game: Any, overrides: Mapping[str, Any], section: str | None, printer: str | None) -> tuple[Any, list[Job]]:
    with tempfile.TemporaryDirectory(prefix="stratstone-models-") as tmp:
        sets = _sets(game, section, overrides, Path(tmp))
        try:
            ps = load_params(sets=sets, games=[game.name])
        except UserError as e:  # a heightmap given as levels is named so, not by its temporary file
            raise ModelError(str(e).replace(str(Path(tmp) / "heightmap.json"), "the heightmap given")) from None
        params = ps.params_of(game.name)
        return params, game.plan(params, _printer(printer), load_profiles(), ps.mesh)


def _section_of(game: Any, stem: str) -> str | None:
    """The section a part's fields are in: ``stratstone.board`` for the board, the pieces'
    section (the one that is not the board's) for any other part."""
    boards = [p for p in game.sections if p.endswith(".board")]
    others = [p for p in game.sections if not p.endswith(".board")]
    if stem == "board" or stem.startswith("board-"):
        return boards[0] if boards else None
    return others[0] if len(others) == 1 else None


@_api
def names(game: str | None = None, printer: str | None = None) -> list[str]:
    """The names of the parts the build makes (of ``game``, or of every game), for :func:`part`."""
    _name_or_none(game, "game", f"one game's name ({', '.join(g.name for g in get_parts(None))}), or None for "
                                "every game")
    _printer(printer)
    out = []
    for g in get_parts(None if game is None else [game]):
        _params, jobs = _plan(g, {}, None, printer)
        out += [o.file.removesuffix(".stl") for j in jobs for o in j.outputs]
    return out


def _solids(job: Job) -> list[cq.Shape]:
    module, func = solid_maker(job.maker).split(":")
    try:
        return getattr(importlib.import_module(module), func)(**job.args)
    except UserError as e:
        raise type(e)(f"{job.label}: {e}") from None


@_api
def part(name: str, printer: str | None = None, **overrides: Any) -> cq.Workplane:
    """The part ``name`` (``"stratstone/stone-red-03"``) as a CadQuery Workplane holding
    its one solid, in millimetres, standing on z = 0 as it is printed. See the module's
    docstring for the names and the overrides; raises :class:`ModelError`."""
    import cadquery as cq

    game, stem = _game_of(name)
    _params, jobs = _plan(game, overrides, _section_of(game, stem), printer)
    for job in jobs:
        for i, out in enumerate(job.outputs):
            file_stem = Path(out.file).stem
            if file_stem == stem or (stem == "board" and out.part == "board"):
                return cq.Workplane("XY").add(_solids(job)[i])
    known = [Path(o.file).stem for j in jobs for o in j.outputs]
    raise ModelError(f"part {name!r}: {game.name} has no such part; expected one of {', '.join(known)}")


# --------------------------------------------------------------------------- the set


@dataclasses.dataclass(frozen=True)
class SetPiece:
    """One copy of a part in a set: its name in the assembly, its part's output, where
    its solid's bottom centre goes (mm) and its colour (sRGB ``#RRGGBB``)."""

    name: str
    output: Output
    at: tuple[float, float, float]
    colour: str


def set_layout(game: Any, params: Any, jobs: list[Job], bounds: Mapping[str, tuple[tuple[float, ...], tuple[float, ...]]],
               colours: Mapping[str, Any]) -> list[SetPiece]:
    """Where each printed copy of ``game``'s parts stands when a game starts: the board at
    the origin, the pieces of the engine's start position on their squares (stacked), those
    in hand where the game's table puts them, every other copy in rows beside the board (all
    of them when the set is too small for a game: two stones a colour).
    ``bounds``: each part's solid (lo, hi) corners, by output file."""
    from stratstone_cad.base.params import display_colour

    engine = get_game(game.name)
    setup = game.start_setup(params) if game.start_setup is not None else None
    try:
        players, full = engine.new_setup(engine.default_players(setup), setup, random.Random(0))
        ledger = engine.ledger(engine.initial_state(players, full))
    except GameError as e:
        raise ModelError(f"{game.name}: the start of a game cannot be set up with these parameters ({e})") from None
    outputs = {Path(o.file).stem: o for j in jobs for o in j.outputs}
    try:
        table = game.table(params, load_profiles(), ledger.pieces, engine)
    except ParameterError:  # a set smaller than a game needs (2 stones a colour): all of it beside the board
        table, ledger = None, None
    board = next(o for o in outputs.values() if o.part == "board")

    def anchor(o: Output) -> tuple[float, float, float]:
        lo, hi = bounds[o.file]
        return ((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, lo[2])

    spots: list[tuple[Output, int, tuple[float, float, float]]] = []  # named once every copy is counted
    out = [SetPiece("board", board, (0.0, 0.0, 0.0), display_colour(dict(colours), None))]
    used: Counter[str] = Counter()
    height = {o.file: bounds[o.file][1][2] - bounds[o.file][0][2] for o in outputs.values()}
    for sq, ids in sorted(ledger.squares.items()) if ledger is not None else ():
        x, y, z = table.seats[sq]
        for pid in ids:
            o = outputs[table.assets[pid]]
            used[o.file] += 1
            spots.append((o, used[o.file], (x, y, z)))
            z += height[o.file]
    for ids in ledger.reserve.values() if ledger is not None else ():
        for pid in ids:
            if pid in table.reserve:
                o = outputs[table.assets[pid]]
                used[o.file] += 1
                spots.append((o, used[o.file], table.reserve[pid]))
    # the rest of the set (copies the start position leaves in the box) in rows beside the board
    blo, bhi = bounds[board.file]
    x0, y = bhi[0] + 0.05 * (bhi[0] - blo[0]), bhi[1]
    for o in sorted((o for o in outputs.values() if o.part != "board"), key=lambda o: o.file):
        left = o.count - used[o.file]
        if left <= 0:
            continue
        lo, hi = bounds[o.file]
        w, d = hi[0] - lo[0], hi[1] - lo[1]
        gap = max(0.15 * w, 1.0)
        per_row = max(1, math.floor((bhi[0] - blo[0] + gap) / (w + gap)))
        y -= d / 2
        for k in range(left):
            if k and k % per_row == 0:
                y -= d + gap
            used[o.file] += 1
            spots.append((o, used[o.file], (x0 + w / 2 + (k % per_row) * (w + gap), y, 0.0)))
        y -= d / 2 + gap
    for o, number, at in spots:
        # numbered when more than one copy stands in the set: a game's start can place more copies
        # than the set prints (terrain.piece.per_kind=1 against two runners a side), and an
        # assembly's names must be unique
        a = anchor(o)
        name = Path(o.file).stem if max(o.count, used[o.file]) == 1 else f"{Path(o.file).stem}-{number:02d}"
        out.append(SetPiece(name, o, (at[0] - a[0], at[1] - a[1], at[2] - a[2]), display_colour(dict(colours), o.colour)))
    return out


@_api
def assembly(game: str, **overrides: Any) -> cq.Assembly:
    """The whole set of ``game`` as a coloured CadQuery Assembly laid out as at the start
    of a game (see the module's docstring); overrides as for :func:`part`."""
    if not isinstance(game, str):
        raise ModelError(f"game {game!r:.60}: expected a game's name, one of "
                         f"{', '.join(g.name for g in get_parts(None))}")
    (g,) = get_parts([game])
    params, jobs = _plan(g, overrides, None, None)
    solids = {o.file: s for j in jobs for o, s in zip(j.outputs, _solids(j), strict=True)}
    return build_assembly(g, params, jobs, solids)


def build_assembly(g: Any, params: Any, jobs: list[Job], solids: Mapping[str, cq.Shape]) -> cq.Assembly:
    """The set's assembly from its parts' solids (by output file)."""
    import cadquery as cq

    bounds = {}
    for f, s in solids.items():
        bb = s.BoundingBox()
        bounds[f] = ((bb.xmin, bb.ymin, bb.zmin), (bb.xmax, bb.ymax, bb.zmax))
    assy = cq.Assembly(name=g.name)
    # One Color object a colour: CadQuery shares a part's shape among its copies in the
    # STEP file when the (colour, shape) pair is the same objects (a colour made afresh
    # for each copy wrote the terrain set's six pieces twice: 54 MB, not 36).
    colour: dict[str, cq.Color] = {}
    for p in set_layout(g, params, jobs, bounds, load_colours()):
        if p.colour not in colour:
            colour[p.colour] = cq.Color(*(c / 255 for c in rgb(p.colour)))
        assy.add(solids[p.output.file], name=p.name, loc=cq.Location(cq.Vector(*p.at)), color=colour[p.colour])
    return assy


# --------------------------------------------------------------------------- build --step


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
    from stratstone_cad.occ.step import assembly_glb, assembly_step, part_step

    (g,) = get_parts([game])
    jobs = g.plan(params, printer, profiles, mesh)
    out, made = [], {}
    for job in jobs:
        made[job.id] = _solids(job)
        out += [part_step(s, o.file.removesuffix(".stl")) for o, s in zip(job.outputs, made[job.id], strict=True)]
    whole = g.plan(params, _printer(None), profiles, mesh)
    again = set_jobs_not_printed(jobs, whole)
    solids = {}
    for job in whole:
        solids.update(zip((o.file for o in job.outputs), _solids(job) if job in again else made[job.id], strict=True))
    assy = build_assembly(g, params, whole, solids)
    # the glTF is for looking at (a viewer, a page): meshed at the preview's 0.1 mm, not the
    # print's 0.05 mm and 2.5 degrees, which made the Stratstone set's 10 MB and 14 s
    out += [assembly_step(assy), assembly_glb(assy, GLB_TOLERANCE_MM, GLB_ANGULAR_TOLERANCE_RAD)]
    return out
