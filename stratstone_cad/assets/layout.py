"""A game's set laid out as a game starts: where each printed copy of its parts stands.

Pure Python on the parts' bounding boxes (the solids' corners, given by the caller): the
coloured assembly of the set (:func:`stratstone_cad.occ.assembly.set_assembly`, which
``stratstone_cad.models.assembly`` and ``build --step`` make) places its children here.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from stratstone_cad.assets.jobs import Job, Output
from stratstone_cad.base.colours import display_colour
from stratstone_cad.base.printers import load_profiles
from stratstone_cad.errors import GameError, ModelError, ParameterError

Point = tuple[float, float, float]
Bounds = Mapping[str, tuple[tuple[float, ...], tuple[float, ...]]]  # a part's (lo, hi) corners, by output file
Spot = tuple[Output, int, Point]  # a copy of a part, its number among the copies, where its bottom centre goes


@dataclasses.dataclass(frozen=True)
class SetPiece:
    """One copy of a part in a set: its name in the assembly, its part's output, where
    its solid's bottom centre goes (mm) and its colour (sRGB ``#RRGGBB``)."""

    name: str
    output: Output
    at: tuple[float, float, float]
    colour: str


def set_layout(game: Any, engine: Any, params: Any, jobs: list[Job], bounds: Bounds,
               colours: Mapping[str, Any]) -> list[SetPiece]:
    """Where each printed copy of ``game``'s parts (its GameAssets; ``engine``: its rules)
    stands when a game starts: the board at the origin, the pieces of the engine's start
    position on their squares (stacked), those in hand where the game's table puts them,
    every other copy in rows beside the board (all of them when the set is too small for a
    game: two stones a colour). ``bounds``: each part's solid (lo, hi) corners, by output
    file.

    Raises:
        ModelError: the rules cannot start a game with these parameters.
    """
    outputs = {Path(o.file).stem: o for j in jobs for o in j.outputs}
    board = next(o for o in outputs.values() if o.part == "board")
    ledger, table = _start(game, engine, params)
    used: Counter[str] = Counter()  # copies placed, by output file
    spots = _on_the_table(ledger, table, outputs, bounds, used) if ledger is not None else []
    spots += _beside_the_board(outputs, board, bounds, used)
    # named once every copy is counted
    return [SetPiece("board", board, (0.0, 0.0, 0.0), display_colour(dict(colours), None)),
            *(_piece(spot, bounds, used, colours) for spot in spots)]


def _start(game: Any, engine: Any, params: Any) -> tuple[Any, Any]:
    """The ledger of the start position and the game's table, or (None, None) for a set
    smaller than a game needs (2 stones a colour): all of it beside the board."""
    setup = game.start_setup(params) if game.start_setup is not None else None
    try:
        players, full = engine.new_setup(engine.default_players(setup), setup, random.Random(0))
        ledger = engine.ledger(engine.initial_state(players, full))
    except GameError as e:
        raise ModelError(f"{game.name}: the start of a game cannot be set up with these parameters ({e})") from None
    try:
        return ledger, game.table(params, load_profiles(), ledger.pieces, engine)
    except ParameterError:
        return None, None


def _on_the_table(ledger: Any, table: Any, outputs: Mapping[str, Output], bounds: Bounds,
                  used: Counter[str]) -> list[Spot]:
    """The start position's pieces: stacked on their squares' seats, then those in hand
    that the table shows."""
    height = {o.file: bounds[o.file][1][2] - bounds[o.file][0][2] for o in outputs.values()}
    spots: list[Spot] = []
    for sq, ids in sorted(ledger.squares.items()):
        x, y, z = table.seats[sq]
        for pid in ids:
            o = outputs[table.assets[pid]]
            used[o.file] += 1
            spots.append((o, used[o.file], (x, y, z)))
            z += height[o.file]
    for ids in ledger.reserve.values():
        for pid in ids:
            if pid in table.reserve:
                o = outputs[table.assets[pid]]
                used[o.file] += 1
                spots.append((o, used[o.file], table.reserve[pid]))
    return spots


def _beside_the_board(outputs: Mapping[str, Output], board: Output, bounds: Bounds, used: Counter[str]) -> list[Spot]:
    """The rest of the set (copies the start position leaves in the box) in rows beside the board."""
    spots: list[Spot] = []
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
    return spots


def _piece(spot: Spot, bounds: Bounds, used: Counter[str], colours: Mapping[str, Any]) -> SetPiece:
    """A copy placed: its solid's bottom centre moved to its spot, its name numbered when
    more than one copy stands in the set (a game's start can place more copies than the
    set prints: terrain.piece.per_kind=1 against two runners a side; and an assembly's
    names must be unique)."""
    o, number, at = spot
    lo, hi = bounds[o.file]
    a = ((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, lo[2])
    name = Path(o.file).stem if max(o.count, used[o.file]) == 1 else f"{Path(o.file).stem}-{number:02d}"
    return SetPiece(name, o, (at[0] - a[0], at[1] - a[1], at[2] - a[2]), display_colour(dict(colours), o.colour))
