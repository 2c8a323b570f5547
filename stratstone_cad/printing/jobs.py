"""How a game describes its printable assets to the build: pure Python, no CadQuery.

A game registers one :class:`GameAssets` (``ASSETS`` in its ``games/<game>/parts.py``,
found through :data:`stratstone_cad.registry.FOLDERS`): its parameter sections and preset,
how the checked sections combine into the game's parameters, and its plan, the list of
:class:`Job`.

A job makes one or more parts with a CAD function of the game's ``cad.py``, named through
the game's :class:`CadFunctions` (``CAD.make_board``: a name the game declares, checked
against its CAD module's source when the game is registered, so a rename fails at once,
not when a build runs) and called in the worker as ``maker(**args)``. ``args`` is
everything the function is given and so everything its parts can depend on: the cache
key is made from it (with the mesh settings and the code the function runs), never from
a list kept beside it. Planning, naming the files and checking the cache never load
CadQuery.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stratstone_cad.base.memo import remembered
from stratstone_cad.base.params import NAME_RE, MeshParams, Params, Profile
from stratstone_cad.base.printers import Printer
from stratstone_cad.errors import ParameterError
from stratstone_cad.geometry.tiling import TilePlan, check_keep_out, plan_tiles, socket_fits


@dataclass(frozen=True)
class Output:
    """One file a job writes (path relative to the output folder) and its manifest facts."""

    file: str
    game: str
    part: str
    profile: str
    colour: str | None = None
    index: int | None = None  # 1-based number of the stone or tile
    of: int | None = None  # how many tiles there are
    printer: str | None = None  # the printer whose bed a tile was cut for
    count: int = 1  # how many copies of this file the game needs (2 Runners, 10 gems of a colour)
    info: Mapping[str, Any] | None = None  # more facts for the manifest (where a terrain's heightmap came from)
    plate: str = ""  # the print job it goes on (build --plates): "stones-red" -> game/stones-red.3mf
    adaptive: bool = False  # printed at variable layer heights on its plate (stones and gems)


@dataclass(frozen=True)
class Job:
    """A unit of parallel work: a CAD function, what it is given, and the files it yields."""

    id: str
    maker: str
    args: dict[str, Any]  # the maker's keyword arguments: plain values and frozen dataclasses
    outputs: tuple[Output, ...]
    label: str  # the part and its key parameters, for error messages
    cost: float = 1.0  # relative run time, biggest first when scheduling
    in_worker: bool = False
    """Made in a worker process even in a build of one job, and abandoned (its worker
    killed, nothing of it listed) by a stop that it would hold up for longer than
    ``scheduler.STOP_WAIT_S``: ``build --step``'s STEP files, half a minute in OpenCascade,
    whose calls no signal interrupts. Not part of the cache key (``pipeline/keys.py``)."""


TILES = r"(?:-tile-[1-9][0-9]*-of-[1-9][0-9]*)?"  # a board cut to fit the bed: -tile-2-of-4
BOARD_FILES = rf"board{TILES}"
COLOUR = NAME_RE.pattern  # a colour in a file name


Point = tuple[float, float, float]


@dataclass(frozen=True)
class Table:
    """A game's pieces on its board, in the board model's millimetres (pure Python: the
    numbers the board's CAD function is made from), for the viewer.

    ``board``: the board's part (``"board"``, ``"board-seed-1"``); ``seats``: each square's
    point where a piece resting there has its bottom centre (a recess's or a well's floor, a
    terrain cell's top); ``pitch_mm``: the cells' size; ``assets``: each piece's part
    (``"stone-yellow-03"``, ``"gem-red"``); ``reserve``: where a piece not on the board
    waits (a player's hand beside the board), for those that are shown there; ``tops``: the
    height of a square's surface where it is not its seat's (a recess or well is lower);
    ``levels``: each square's level on a board of levels (the terrain's heightmap), empty on
    a flat board: the viewer colours the cells by it.
    """

    board: str
    seats: Mapping[str, Point]
    pitch_mm: float
    assets: Mapping[str, str]
    reserve: Mapping[str, Point] = field(default_factory=dict)
    tops: Mapping[str, float] = field(default_factory=dict)
    levels: Mapping[str, int] = field(default_factory=dict)


def seats_on(grid: Any, game: Any, z: Callable[[int, int], float], what: str) -> dict[str, Point]:
    """Every square of ``game`` (an engine: its squares, parsed by its own parser) at its cell
    of ``grid``, at height ``z(col, row)``; a board of another size than the game's is a
    ParameterError naming ``what`` (``"stratstone.board.cells = 3"``)."""
    cells = {sq: game.parse_square(sq) for sq in game.squares}
    cols, rows = max(c for c, _ in cells.values()) + 1, max(r for _, r in cells.values()) + 1
    if (grid.cols, grid.rows) != (cols, rows):
        raise ParameterError(f"{what}: the board has {grid.cols} x {grid.rows} cells, the game is played on "
                             f"{cols} x {rows}; expected a board of the game's size to replay it on")
    return {sq: (*grid.cell_centre(col, row), z(col, row)) for sq, (col, row) in cells.items()}


@dataclass(frozen=True)
class CadFunctions:
    """A game's CAD functions, named without importing them (planning and keying a build
    never load the CAD module, which loads shapely, manifold3d or CadQuery).

    ``CadFunctions("stratstone_cad.games.stratstone.cad", ("make_board", "make_stone"))``;
    ``CAD.make_board`` is the job's ``maker`` text (``"module:function"``); a name the game did
    not declare is an AttributeError when the plan is made, and :meth:`check` (run by the
    registry) finds each declared function defined in the module's source.
    """

    module: str
    names: tuple[str, ...]

    def __getattr__(self, name: str) -> str:
        if name in self.names:
            return f"{self.module}:{name}"
        raise AttributeError(f"{self.module} declares no CAD function {name!r} (it declares {', '.join(self.names)})")

    def check(self) -> None:
        """Each declared function, and the B-rep twin of each (``make_board`` ->
        ``solid_board``, see :func:`solid_maker`), is defined at the top level of the
        module's source (read, not imported); raises LookupError naming the first one that
        is not."""
        spec = importlib.util.find_spec(self.module)
        source = spec.loader.get_source(self.module) if spec and spec.loader else None  # type: ignore[attr-defined]
        if source is None:
            raise LookupError(f"CAD module {self.module}: not found")
        for name in self.names:
            for fn in (name, solid_maker(name)):
                if not re.search(rf"^def {re.escape(fn)}\(", source, re.MULTILINE):
                    raise LookupError(f"CAD module {self.module}: no function {fn}() at its top level")


def solid_maker(maker: str) -> str:
    """The B-rep twin of a CAD function: ``"module:make_board"`` -> ``"module:solid_board"``.

    Every ``make_*`` function of a game's ``cad.py`` (its parts as meshes, or as CadQuery
    solids tessellated by the build) has a ``solid_*`` function given the same arguments,
    which returns the same parts as B-rep solids, one per output (STEP files, the model
    API); the tests prove each pair makes one solid."""
    head, sep, name = maker.rpartition(":")
    if not name.startswith("make_"):
        raise ValueError(f"{maker}: a CAD function's name begins with make_")
    return f"{head}{sep}solid_{name[len('make_'):]}"


@dataclass(frozen=True)
class GameAssets:
    """A game's printable parts, as its ``parts.py`` registers them (``ASSETS``).

    ``sections`` maps a dotted prefix (``"sage-stones.board"``) to its Params class;
    ``preset`` is the game's TOML file of their defaults (package data beside its
    ``parts.py``). ``combine(sections, profiles)`` checks what the sections say together
    (a gem fits a well, heights after snapping to the layers) and returns the game's
    parameters: an object with one attribute per section, named by the prefix's last part
    (``params.board``, ``params.gem``: ``list`` and the manifest read the sections back so);
    ``plan(params, printer, profiles, mesh)`` lists the jobs; ``cad`` names the CAD
    functions they call.
    """

    name: str
    title: str
    preset: Path
    sections: Mapping[str, type[Params]]
    combine: Callable[[Mapping[str, Any], Mapping[str, Profile]], Any]
    plan: Callable[[Any, Printer, Mapping[str, Profile], MeshParams], list[Job]]
    cad: CadFunctions
    #: The names (without ``.stl``) of the files the game writes, as a regular expression;
    #: a stale file is removed only when its name matches (a user's own STL in the folder stays).
    files: str = BOARD_FILES
    #: ``table(params, profiles, pieces, game)``: where the game's pieces stand on its board
    #: (the viewer's replay; ``game`` is its rules engine); ``None`` for a game without one.
    table: Callable[[Any, Mapping[str, Profile], Mapping[str, Any], Any], Table] | None = None
    #: ``for_setup(params, setup)``: the parameters of the board a logged game was played on
    #: (the terrain game's heightmap from the log's setup); by default the parameters as given.
    for_setup: Callable[[Any, Mapping[str, Any]], Any] | None = None
    #: ``start_setup(params)``: the setup of a game played on these parameters' board (the
    #: terrain game's heightmap), for the set laid out at the start (stratstone_cad.models);
    #: by default none (the engine's own).
    start_setup: Callable[[Any], Mapping[str, Any]] | None = None

    def owns(self, file: str) -> bool:
        """Whether ``file`` (``game/name.stl``, its STEP file ``game/name.step``, the set's
        ``game/set.step`` and ``game/set.glb``) is a name this game's build writes."""
        return re.fullmatch(rf"{re.escape(self.name)}/(?:(?:{self.files})\.(?:stl|step)|set\.(?:step|glb))",
                            file) is not None


def kernel_free(maker: Callable[..., Any]) -> Callable[..., Any]:
    """Marks a CAD function that builds its parts as meshes from 2D regions, without
    CadQuery (boards, terrain pieces): the build runs it while CadQuery is still loading
    for the others."""
    maker.kernel_free = True  # type: ignore[attr-defined]
    return maker


def board_job(*, game: str, stem: str, maker: str, args: dict[str, Any], board: Any, printer: Printer,
              keep_out: functools.partial[Sequence[tuple[str, Any]]], what: str, facts: str, cut_fix: str,
              joint_lines: tuple[list[float], list[float]] | None = None, info: Mapping[str, Any] | None = None,
              cost: float = 3.0, fixes: Mapping[str, str] | None = None) -> Job:
    """The job of a board: one file ``game/stem.stl`` when it fits ``printer``'s bed, else
    tiles ``game/stem-tile-i-of-n.stl`` cut on the cell boundaries with dovetails.

    ``board`` is the game's :class:`~stratstone_cad.geometry.boards.BoardParams`; the tile plan
    joins ``args`` as ``plan``. ``what`` names the board in messages ("Sage Stones board"),
    ``facts`` its key parameters. Dovetails go on ``joint_lines`` (default: the
    board's :meth:`~stratstone_cad.geometry.boards.BoardParams.joint_lines`) where their
    sockets keep clear of ``keep_out``. A tiled board's cuts and sockets must keep two extrusions
    from everything in ``keep_out`` (see :func:`~stratstone_cad.geometry.tiling.check_keep_out`);
    ``fixes`` names what moves a keep-out away, by its name.

    ``keep_out`` is the game's function of its parameters that gives the keep-out regions
    (a list of (name, shapely geometry)), given as ``functools.partial(function, params)``:
    the plan is remembered (:mod:`stratstone_cad.base.memo`) under that function's name and
    arguments, so an unchanged rebuild neither draws the regions nor loads shapely.
    """
    if not isinstance(keep_out, functools.partial) or keep_out.keywords:
        raise TypeError("board_job's keep_out: expected functools.partial(function, *args)")
    lines = board.joint_lines() if joint_lines is None else joint_lines
    tiles = remembered(
        "board tiles", (__name__, keep_out.func.__module__),
        {"board": board, "printer": printer, "joint_lines": lines,
         "keep_out": {"function": f"{keep_out.func.__module__}:{keep_out.func.__qualname__}",
                      "args": list(keep_out.args)}},
        lambda: _board_tiles(board, printer, keep_out(), lines, what, cut_fix, fixes), decode=TilePlan.from_plain)
    if tiles.count == 1:
        outs: tuple[Output, ...] = (Output(f"{game}/{stem}.stl", game, "board", "board", info=info, plate=stem),)
    else:
        outs = tuple(Output(f"{game}/{stem}-tile-{i}-of-{tiles.count}.stl", game, "board-tile", "board", index=i,
                            of=tiles.count, printer=printer.name, info=info, plate=stem)
                     for i in range(1, tiles.count + 1))
    w, h = board.grid().size_mm
    return Job(f"{game}/{stem}", maker, {**args, "plan": tiles}, outs,
               f"{what} ({facts}, {w:g} x {h:g} mm, {tiles.count} tile(s) for {printer.name})", cost)


def _board_tiles(board: Any, printer: Printer, keep_out: Sequence[tuple[str, Any]],
                 joint_lines: tuple[list[float], list[float]], what: str, cut_fix: str,
                 fixes: Mapping[str, str] | None) -> Any:
    """The tile plan of a board, its cuts and sockets checked against ``keep_out``."""
    grid = board.grid()
    fits = socket_fits(list(keep_out), board.joint_length_mm, board.joint_width_mm, board.joint_clearance_mm)
    tiles = plan_tiles(grid.size_mm, printer, board.joint_length_mm, board.joint_width_mm, grid.wall_lines(), what,
                       joint_lines, fits)
    if tiles.count > 1:
        check_keep_out(tiles, list(keep_out), board.joint_length_mm, board.joint_width_mm, board.joint_clearance_mm,
                       board.PREFIX, printer, cut_fix, joint_fix(board), fixes)
    return tiles


def joint_fix(board: Any) -> str:
    """What to change when no dovetail fits: only what can still change (a joint at its
    smallest cannot shrink)."""
    fields = board.__dataclass_fields__
    ways = [f"a smaller {n}" for n in ("joint_width_mm", "joint_length_mm")
            if getattr(board, n) > fields[n].metadata["lo"]]
    if board.cell_pitch_mm < fields["cell_pitch_mm"].metadata["hi"]:
        ways.append("a larger cell_pitch_mm")
    ways.append("or a printer with a larger bed")
    return ", ".join(ways[:-1]) + (" " if len(ways) > 1 else "") + ways[-1] if len(ways) > 1 else ways[0]


def subset(obj: Any, cls: type) -> Any:
    """The fields of ``cls`` taken from ``obj``: what a CAD function is given of a
    larger parameter object (so its cache key holds those fields and no others)."""
    return cls(**{f.name: getattr(obj, f.name) for f in dataclasses.fields(cls)})
