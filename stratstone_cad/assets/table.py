"""Where a game's pieces stand on its board, in the board model's millimetres (the
viewer's replay; the set laid out at the start, :mod:`stratstone_cad.assets.layout`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from stratstone_cad.errors import ParameterError

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
    a flat board: the viewer colours the cells by it. A game that rolls dice: ``dice``, where
    each die stands on the table (its bottom centre), ``die`` its part, ``die_faces`` the
    face each number is on, by its outward axis in the part's mesh (``{1: "+x", ...}``).
    """

    board: str
    seats: Mapping[str, Point]
    pitch_mm: float
    assets: Mapping[str, str]
    reserve: Mapping[str, Point] = field(default_factory=dict)
    tops: Mapping[str, float] = field(default_factory=dict)
    levels: Mapping[str, int] = field(default_factory=dict)
    dice: tuple[Point, ...] = ()
    die: str = ""
    die_faces: Mapping[int, str] = field(default_factory=dict)


def seats_on(grid: Any, game: Any, z: Callable[[int, int], float], what: str) -> dict[str, Point]:
    """Every square of ``game`` (an engine: its squares, parsed by its own parser) at its cell
    of ``grid``, at height ``z(col, row)``; a board of another size than the game's is a
    ParameterError naming ``what`` (``"stratstone.board.cells = 3"``).

    Raises:
        ParameterError: the board's cells are not the game's, so it cannot replay the game.
    """
    cells = {sq: game.parse_square(sq) for sq in game.squares}
    cols, rows = max(c for c, _ in cells.values()) + 1, max(r for _, r in cells.values()) + 1
    if (grid.cols, grid.rows) != (cols, rows):
        raise ParameterError(f"{what}: the board has {grid.cols} x {grid.rows} cells, the game is played on "
                             f"{cols} x {rows}; expected a board of the game's size to replay it on")
    return {sq: (*grid.cell_centre(col, row), z(col, row)) for sq, (col, row) in cells.items()}
