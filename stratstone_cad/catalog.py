"""Which assets each game has: pure Python, no CadQuery.

The build asks a game's planner for its jobs. A job makes one or more parts with a
CAD function named by ``maker`` ("module:function", imported in the worker), so
planning the build, naming the files and checking the cache never load CadQuery.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .errors import ParameterError
from .params import ParamSet, Printer


@dataclass(frozen=True)
class Output:
    """One file a job writes (path relative to the output folder)."""

    file: str
    game: str
    part: str
    profile: str
    colour: str | None = None
    index: int | None = None  # 1-based number of the stone or tile
    of: int | None = None  # how many tiles there are


@dataclass(frozen=True)
class Job:
    """A unit of parallel work: a CAD function and the files it yields."""

    id: str
    maker: str
    args: dict[str, Any]
    outputs: tuple[Output, ...]
    sections: tuple[str, ...]  # parameter sections the result depends on
    describe: str  # the part and its key parameters, for error messages
    uses_printer: bool = False
    cost: float = 1.0  # relative run time, biggest first when scheduling


@dataclass(frozen=True)
class Game:
    name: str
    title: str
    plan: Callable[[ParamSet, Printer], list[Job]]
    sections: tuple[str, ...] = field(default=())


def _stratstone_plan(ps: ParamSet, printer: Printer) -> list[Job]:
    from .cad.tiling import plan_tiles  # pure planning, no CadQuery

    p = ps.stratstone
    jobs = []
    b = p.board
    tiles = plan_tiles((b.size_mm, b.size_mm), printer, b.joint_length_mm, b.joint_width_mm,
                       (b.wall_lines_mm(), b.wall_lines_mm()), what="Stratstone board")
    if tiles.count == 1:
        outs = (Output("stratstone/board.stl", "stratstone", "board", "board"),)
    else:
        outs = tuple(Output(f"stratstone/board-tile-{i}-of-{tiles.count}.stl", "stratstone", "board-tile", "board",
                            index=i, of=tiles.count) for i in range(1, tiles.count + 1))
    jobs.append(Job("stratstone/board", "stratstone_cad.cad.stratstone:make_board", {}, outs,
                    ("stratstone.board", "stratstone.stone"),
                    f"Stratstone board ({b.cells} x {b.cells} cells, pitch {b.cell_pitch_mm:g} mm, "
                    f"{tiles.count} tile(s) for {printer.name})", uses_printer=True, cost=3.0))
    s = p.stone
    for c, colour in enumerate(s.colours):
        for i in range(s.per_colour):
            name = f"stone-{colour}-{i + 1:02d}"
            jobs.append(Job(f"stratstone/{name}", "stratstone_cad.cad.stratstone:make_stone",
                            {"colour": c, "index": i},
                            (Output(f"stratstone/{name}.stl", "stratstone", "stone", "piece", colour, i + 1),),
                            ("stratstone.stone",),
                            f"{name} (stratstone.stone seed {s.seed}, footprint {s.footprint_mm:g} mm, "
                            f"height {s.height_mm:g} mm)"))
    return jobs


GAMES: dict[str, Game] = {
    "stratstone": Game("stratstone", "Stratstone: 4 x 4 board and 24 pebble stones", _stratstone_plan,
                       ("stratstone.board", "stratstone.stone")),
}


def get_games(names: list[str] | None) -> list[Game]:
    """The games named (all when none), checked; unknown names raise ParameterError."""
    if not names:
        return list(GAMES.values())
    out = []
    for n in names:
        if n not in GAMES:
            close = difflib.get_close_matches(n, list(GAMES), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ParameterError(f"game {n!r}: unknown, expected one of {', '.join(GAMES)}{hint}")
        if GAMES[n] not in out:
            out.append(GAMES[n])
    return out
