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

import functools
import json
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stratstone_cad.assets.jobs import Job
from stratstone_cad.base.printers import NO_PRINTER, get_printer, load_profiles
from stratstone_cad.errors import ModelError, ParameterError, UnknownGameError, UnknownGameModelError, UserError
from stratstone_cad.occ.assembly import job_solids, set_assembly
from stratstone_cad.registry import get_game, get_parts, load_params

if TYPE_CHECKING:  # the public CadQuery facade: its functions return CadQuery objects (docs/architecture.md)
    import cadquery as cq

__all__ = ["ModelError", "UnknownGameModelError", "assembly", "names", "part"]  # the errors: defined in stratstone_cad.errors


def _translated(error: UserError, message: str) -> ModelError:
    """``error`` as the API raises it, with ``message``: a :class:`ModelError`, still an
    UnknownGameError when it was one."""
    return (UnknownGameModelError if isinstance(error, UnknownGameError) else ModelError)(message)


def _api(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` raising every user error as a :class:`ModelError` with its message."""
    @functools.wraps(func)
    def api(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except ModelError:
            raise
        except UserError as e:
            raise _translated(e, str(e)) from None
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
        raise _translated(e, f"part {name!r}: {e}") from None
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


@_api
def part(name: str, printer: str | None = None, **overrides: Any) -> cq.Workplane:
    """The part ``name`` (``"stratstone/stone-red-03"``) as a CadQuery Workplane holding
    its one solid, in millimetres, standing on z = 0 as it is printed. See the module's
    docstring for the names and the overrides; raises :class:`ModelError`.

    Raises:
        ModelError: the game has no such part.
    """
    import cadquery as cq  # the facade's one use of CadQuery: the solid handed over in a Workplane

    game, stem = _game_of(name)
    _params, jobs = _plan(game, overrides, _section_of(game, stem), printer)
    for job in jobs:
        for i, out in enumerate(job.outputs):
            file_stem = Path(out.file).stem
            if file_stem == stem or (stem == "board" and out.part == "board"):
                return cq.Workplane("XY").add(job_solids(job)[i])
    known = [Path(o.file).stem for j in jobs for o in j.outputs]
    raise ModelError(f"part {name!r}: {game.name} has no such part; expected one of {', '.join(known)}")


@_api
def assembly(game: str, **overrides: Any) -> cq.Assembly:
    """The whole set of ``game`` as a coloured CadQuery Assembly laid out as at the start
    of a game (see the module's docstring); overrides as for :func:`part`.

    Raises:
        ModelError: the name is not a game's.
    """
    if not isinstance(game, str):
        raise ModelError(f"game {game!r:.60}: expected a game's name, one of "
                         f"{', '.join(g.name for g in get_parts(None))}")
    (g,) = get_parts([game])
    params, jobs = _plan(g, overrides, None, None)
    solids = {o.file: s for j in jobs for o, s in zip(j.outputs, job_solids(j), strict=True)}
    return set_assembly(g, get_game(g.name), params, jobs, solids)
