"""A job of the build: a CAD function, what it is given and the files it writes; the job
of a board, tiled to fit the printer's bed.

A job makes one or more parts with a CAD function of the game's ``cad.py``, named through
the game's :class:`~stratstone_cad.assets.makers.CadFunctions` and called in the worker as
``maker(**args)``. ``args`` is everything the function is given and so everything its
parts can depend on: the cache key is made from it (with the mesh settings and the code
the function runs), never from a list kept beside it.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from stratstone_cad.base.memo import remembered
from stratstone_cad.base.params import NAME_RE
from stratstone_cad.base.printers import Printer
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
