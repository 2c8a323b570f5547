"""The loaded game: an engine log checked and replayed once, and its plies rebuilt on demand.

The log is checked and replayed through its engine once, when it loads (an invalid log is
refused with check-log's one-line message), streaming, as check-log does. What is kept is a
seek point every N plies (a :class:`~stratstone_cad.log.logfile.SeekPoint`: the byte after the
ply's line and the engine's state, an immutable value, with a copy of the game's
:class:`~stratstone_cad.engine.ledger.PieceLedger`), N doubling so that there are at most
:data:`SEEK_POINTS` of them: a ply (its events named with the pieces they move, the places of
every piece after it, its keyframes) is rebuilt when it is asked for, from the nearest
seek point before it, and the last few hundred built are kept. A still or a range of plies
costs memory for what it shows, not for the length of the log; stepping on from a ply (an
export, the window's play) goes on from where the last one ended.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from stratstone_cad.base.colours import load_colours
from stratstone_cad.base.printers import load_profiles
from stratstone_cad.engine.events import Exited, Moved, Placed, Sown
from stratstone_cad.errors import LogError, UserError, counted
from stratstone_cad.log.logfile import walk_log
from stratstone_cad.registry import ASSETS, load_params
from stratstone_cad.viewer.meshes import asset_mesh, game_assets
from stratstone_cad.viewer.replay.timeline import Point, Timeline, _sample

SEEK_POINTS = 1024
"""The most seek points kept for a log (their spacing doubles to keep to it)."""
FIRST_EVERY = 64  # the spacing of the seek points to start with, in plies
KEEP = 512  # plies built and kept (the most recently asked for)
BACK = 64  # plies built before the one asked for when it is rebuilt from a seek point (a step back is then instant)


# --------------------------------------------------------------------------- the loaded game


@dataclass
class Ply:
    """One replayed ply: the log's facts, its events named with their pieces, the overlay
    lines, the squares to highlight, and where every piece rests after it; ``explain``: the
    engine's words for it (``check-log --explain``'s), ``before``: the state before it (the
    overlays ask it for the moves the piece to move had)."""

    number: int
    player: str
    move: str
    dice: tuple[int, ...] | None
    named: list[Any]
    rest: dict[str, Point | None]
    squares: tuple[str, ...]
    facts: dict[str, Any]
    keys: dict[str, list[tuple[float, Point | None]]] = field(default_factory=dict)
    explain: str = ""
    before: Any = None


@dataclass
class GameOnTable:
    """A loaded log: the game, the table, the piece meshes' sizes, the start and every ply
    (``plies`` is a sequence that builds a ply when it is asked for, see :class:`Plies`)."""

    game: str
    title: str
    players: list[str]
    table: Any
    assets: dict[str, Any]  # part name -> viewer Asset
    pieces: dict[str, Any]  # piece id -> Piece
    anchors: dict[str, np.ndarray]  # piece id -> its mesh's (centre x, centre y, bottom z)
    heights: dict[str, float]  # piece id -> height of its mesh
    initial: dict[str, Point | None]
    plies: Sequence[Ply]
    result: str | None  # "winner red (second exit)", on the last ply's overlay
    board_bounds: tuple[np.ndarray, np.ndarray]
    review: Sequence[Any] | None = None  # replay --review: a PlyReview a ply (viewer/review_strip.py)
    to_move: str | None = None  # the player to move (or roll) first, said at the start
    puzzle: tuple[str, ...] = ()  # replay --puzzle: the caption of the position (the task; the solution on request)
    answer: tuple[Any, str] | None = None  # replay --puzzle --solution: the position's state and its answer, drawn

    @property
    def count(self) -> int:
        return len(self.plies)

    def rest(self, ply: int) -> dict[str, Point | None]:
        """Where every piece rests after ``ply`` (0: the start)."""
        return self.initial if ply == 0 else self.plies[ply - 1].rest

    def at(self, ply: int, u: float) -> dict[str, Point | None]:
        """Every piece's place ``u`` (0-1) of the way through ``ply`` (1-based)."""
        start = self.rest(ply - 1)
        out = dict(start)
        for pid, keys in self.plies[ply - 1].keys.items():
            out[pid] = _sample(keys, u, start.get(pid))
        return out


def start_lines(rep: GameOnTable) -> list[str]:
    """The caption before the first ply: the game and its length (or a puzzle's task), the
    players, and who moves first (the window, the stills and the page say the same)."""
    if rep.puzzle:
        return list(rep.puzzle)
    lines = [f"{rep.title}: start, {counted(rep.count, 'ply', 'plies')}", ", ".join(rep.players)]
    if rep.to_move:
        lines.append(f"{rep.to_move} to move")
    return lines


def load(path: Path, sets: dict[str, str] | None = None, params_file: Path | None = None) -> GameOnTable:
    """Check and replay the log at ``path`` and lay its game out on the board, its parts
    made with the parameters of ``params_file`` (``--params``) and ``sets`` (``--set``).

    Raises :class:`LogError` (check-log's message) for an invalid log and
    :class:`ParameterError` for a bad ``--params`` file or ``--set``.

    Raises:
        UserError: the viewer has no board for the log's game.
    """
    with walk_log(path) as r:  # the whole log checked, streaming; a seek point kept every `every` plies
        header, game, initial = r.header, r.game, r.initial
        ledger = game.ledger(initial)
        every = FIRST_EVERY
        points = [(r.seek_point(), ledger.copy())]
        for st in r:
            ledger.follow(st.events)
            if st.ply % every == 0:
                points.append((r.seek_point(), ledger.copy()))
                if len(points) > SEEK_POINTS:
                    points, every = points[::2], 2 * every  # those at multiples of 2 * every
        final = r.state.result() or r.logged_result
        count = r.state.ply
    ga = ASSETS.get(game.name)
    if ga is None or ga.table is None:
        raise UserError(f"{path}: the viewer has no board for the game {game.name!r}")
    ps = load_params(params_file, sets, games=[game.name])
    params = ps.params_of(game.name)
    if ga.for_setup is not None:
        params = ga.for_setup(params, header.setup)
    profiles = load_profiles()
    assets = {name.split("/", 1)[1]: a for name, a in game_assets(ga, params, profiles, load_colours()).items()}
    ledger = game.ledger(initial)
    table = ga.table(params, profiles, ledger.pieces, game)
    anchors, heights = {}, {}
    for pid in ledger.pieces:
        lo, hi = asset_mesh(assets[table.assets[pid]]).bounds()
        anchors[pid] = np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, lo[2]])
        heights[pid] = float(hi[2] - lo[2])
    board_bounds = asset_mesh(assets[table.board]).bounds()
    plies = Plies(Path(path), count, points, every)
    rep = GameOnTable(game.name, ga.title.split(":")[0], list(header.players), table, assets, dict(ledger.pieces), anchors,
                 heights, _rest(ledger, table, heights), plies, final.text() if final else None, board_bounds,
                 to_move=initial.to_move())
    plies.rep = rep
    return rep


class Plies(Sequence[Ply]):
    """The plies of a loaded log, built when asked for: from where the last one asked for
    ended when that is nearer than the seek point before the ply, else from that seek
    point (the log replayed and checked again from its byte on, the ledger from its copy).
    The last :data:`KEEP` plies built are kept."""

    def __init__(self, path: Path, count: int, points: list[tuple[Any, Any]], every: int) -> None:
        self.path, self.count, self.points, self.every = path, count, points, every
        self.rep: GameOnTable | None = None
        self.kept: dict[int, Ply] = {}  # ply number -> ply, the last asked for last
        self.walk: Any = None  # the walk of the log the last ply was built with, left after it
        self.steps: Iterator[Any] | None = None
        self.ledger: Any = None
        self.at = -1  # the ply that replay and its ledger are after

    def __len__(self) -> int:
        return self.count

    def __repr__(self) -> str:
        return f"<Plies of {self.path}: {self.count}, {len(self.kept)} built>"

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self.count))]
        k = i.__index__()
        if k < 0:
            k += self.count
        if not 0 <= k < self.count:
            raise IndexError("ply out of range")
        number = k + 1
        ply = self.kept.pop(number, None)
        if ply is None:
            ply = self._build(number)
        self.kept[number] = ply  # the most recent last
        return ply

    def _build(self, number: int) -> Ply:
        """Replay to ``number``, building it (and, from a seek point, up to :data:`BACK` plies before it)."""
        rep = self.rep
        assert rep is not None
        seek = (number - 1) // self.every  # the seek point at or before the ply before
        first = number - 1
        if not self.at >= seek * self.every or self.at >= number or self.steps is None:
            self.close()
            point, ledger = self.points[seek]
            self.walk = walk_log(self.path, start=point)
            self.steps = iter(self.walk)
            self.ledger, self.at = ledger.copy(), point.state.ply
            first = number - BACK
        game, ledger, table, heights = self.walk.game, self.ledger, rep.table, rep.heights
        built = None
        for st in self.steps:
            self.at = st.ply
            if st.ply < first:
                ledger.follow(st.events)
            else:
                timeline = Timeline(rep, _rest(ledger, table, heights), ledger.squares)  # the places before the ply
                named = ledger.follow(st.events)
                rest = _rest(ledger, table, heights)
                built = Ply(st.ply, st.player, st.move, st.chance, named, rest, _squares(named),
                            game.derived(st.before, st.after, st.events),
                            explain=game.explain(st.before, st.after, st.events), before=st.before)
                built.keys = timeline.play(named, rest)
                if st.ply < number:
                    self.kept.pop(st.ply, None)
                    self.kept[st.ply] = built
            if st.ply == number:
                break
        if built is None or built.number != number:  # pragma: no cover - the log was checked to this ply

            raise LogError(f"{self.path}: ended at ply {self.at}, before ply {number}; replay it again")
        while len(self.kept) >= KEEP:
            del self.kept[next(iter(self.kept))]
        return built

    def close(self) -> None:
        """Close the log if a replay holds it open."""
        if self.walk is not None:
            self.walk.close()
        self.walk = self.steps = None
        self.at = -1


def _rest(ledger: Any, table: Any, heights: Mapping[str, float]) -> dict[str, Point | None]:
    """Where every piece rests: stacked on its square's seat, in its reserve spot, or hidden."""
    out: dict[str, Point | None] = {}
    for sq, ids in ledger.squares.items():
        x, y, z = table.seats[sq]
        for pid in ids:
            out[pid] = (x, y, z)
            z += heights[pid]
    for ids in ledger.reserve.values():
        for pid in ids:
            out[pid] = table.reserve.get(pid)
    for pid in ledger.off:
        out[pid] = None
    return out


def _squares(named: Sequence[Any]) -> tuple[str, ...]:
    """The move's from and to squares: where it starts and where it ends."""
    sqs: list[str] = []
    for n in named:
        e = n.event
        if isinstance(e, Placed | Sown | Exited):
            sqs.append(e.square)
        elif isinstance(e, Moved):
            sqs += [e.path[0], e.path[-1]]
    if not sqs:
        return ()
    return (sqs[0], sqs[-1]) if sqs[0] != sqs[-1] else (sqs[0],)
