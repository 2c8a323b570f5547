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
    printer: str | None = None  # the printer whose bed a tile was cut for


@dataclass(frozen=True)
class Job:
    """A unit of parallel work: a CAD function and the files it yields."""

    id: str
    maker: str
    args: dict[str, Any]  # passed to the maker; part of the cache key
    outputs: tuple[Output, ...]
    depends: dict[str, Any]  # every parameter the result depends on (the cache key), nothing more
    describe: str  # the part and its key parameters, for error messages
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
    b, s = p.board, p.stone
    tiles = plan_tiles((b.size_mm, b.size_mm), printer, b.joint_length_mm, b.joint_width_mm,
                       (b.wall_lines_mm(), b.wall_lines_mm()), what="Stratstone board")
    if tiles.count == 1:
        outs = (Output("stratstone/board.stl", "stratstone", "board", "board"),)
    else:
        check_tiled_walls(p, tiles, printer)
        outs = tuple(Output(f"stratstone/board-tile-{i}-of-{tiles.count}.stl", "stratstone", "board-tile", "board",
                            index=i, of=tiles.count, printer=printer.name) for i in range(1, tiles.count + 1))
    jobs = [Job("stratstone/board", "stratstone_cad.cad.stratstone:make_board", {"plan": tiles}, outs,
                {"board": b.as_dict(), "stone.footprint_mm": s.footprint_mm},
                f"Stratstone board ({b.cells} x {b.cells} cells, pitch {b.cell_pitch_mm:g} mm, "
                f"{tiles.count} tile(s) for {printer.name})", cost=3.0)]
    # A stone depends on the shape parameters, its own colour's mark, not on the others.
    shape = {k: v for k, v in s.as_dict().items() if k not in ("per_colour", "colours", "marks")}
    for c, colour in enumerate(s.colours):
        for i in range(s.per_colour):
            name = f"stone-{colour}-{i + 1:02d}"
            jobs.append(Job(f"stratstone/{name}", "stratstone_cad.cad.stratstone:make_stone",
                            {"colour": c, "index": i},
                            (Output(f"stratstone/{name}.stl", "stratstone", "stone", "piece", colour, i + 1),),
                            {"stone": shape, "mark": s.marks[c]},
                            f"{name} (stratstone.stone seed {s.seed}, footprint {s.footprint_mm:g} mm, "
                            f"height {s.height_mm:g} mm, mark {s.marks[c] if s.mark else 'off'})"))
    return jobs


def check_tiled_walls(p: Any, tiles: Any, printer: Printer) -> None:
    """A tiled board's cuts run along the walls between cells: each tile keeps half a
    wall, and a socket must keep a wall to every recess; both at least two extrusions."""
    from .cad.tiling import dovetail_outline
    from .params import MIN_WALL_MM, fmt_up

    b = p.board
    half_wall = (b.cell_pitch_mm - p.recess_diameter_mm) / 2
    if half_wall < MIN_WALL_MM - 1e-9:
        raise ParameterError(
            f"stratstone.board.cell_pitch_mm = {b.cell_pitch_mm:g}: expected at least "
            f"{fmt_up(p.recess_diameter_mm + 2 * MIN_WALL_MM)} when the board is cut into tiles for printer "
            f"{printer.name!r} (each tile keeps half the wall between two recesses, at least {MIN_WALL_MM:g} mm)")
    import shapely
    from shapely.geometry import Point, Polygon

    recesses = shapely.union_all([Point(b.cell_centre(f, r)).buffer(p.recess_diameter_mm / 2, quad_segs=32)
                                  for f in range(b.cells) for r in range(b.cells)])
    for j in tiles.joints:
        socket = Polygon(dovetail_outline(j, b.joint_length_mm, b.joint_width_mm, b.joint_clearance_mm))
        gap = socket.distance(recesses)
        if gap < MIN_WALL_MM - 1e-9:
            x, y = (j.at, j.along) if j.axis == "x" else (j.along, j.at)
            raise ParameterError(
                f"stratstone.board.joint_width_mm = {b.joint_width_mm:g}: the dovetail at ({x:g}, {y:g}) mm comes "
                f"within {gap:.2f} mm of a recess, expected at least {MIN_WALL_MM:g} mm (a smaller joint_width_mm "
                f"or joint_length_mm, or a larger cell_pitch_mm)")


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
