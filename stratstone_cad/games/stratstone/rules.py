"""Stratstone: stack, pick up and sow on a 4 x 4 board.

Squares ``a1``-``d4``: files ``a``-``d`` left to right, ranks ``1``-``4`` bottom to top.
Two tan (neutral) stones start stacked on each corner; yellow and red have 8 stones each.
A turn puts one of your stones on top of any stack, picks the whole stack up and sows it
along an orthogonal path of exactly one step per stone, bottom stone first (so the stone
just added is dropped last), never stepping straight back. A line of four tops of your
colour (row, column or diagonal) wins; when both players have placed all their stones
without a line the game is drawn. Interpretations are in docs/rules.md.

Move text: the square and the path, e.g. ``b2 NNE`` (N towards rank 4, E towards file d).
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from stratstone_cad.engine.events import Event, GameOver, Placed, Result, Sown, event_words
from stratstone_cad.engine.ledger import Piece, PieceLedger, numbered
from stratstone_cad.engine.protocol import Game, NoChance, fast_two_sides_ply, square_cell
from stratstone_cad.errors import MoveTextError, RuleViolation, SetupError, short_repr
from stratstone_cad.games.stratstone.facts import (
    FILES,
    MOVE_TEXT,
    NAME,
    NEUTRAL,
    PLAYERS,
    SIZE,
    SQUARE,
    STONES_PER_PLAYER,
    TAN_STONES,
)

__all__ = [
    "COLOURS",
    "GAME",
    "LINES",
    "RULES",
    "SQUARES",
    "Stratstone",
    "StratstoneLedger",
    "StratstoneMove",
    "StratstoneState",
    "parse_square",
    "winning_moves",
]

RULES = "stratstone/1"
MAX_STONES = TAN_STONES + 2 * STONES_PER_PLAYER  # 24: the tallest possible stack / longest path

TAN, YELLOW, RED = 0, 1, 2
COLOURS = (NEUTRAL, *PLAYERS)  # the colour codes' order: tan 0, yellow 1, red 2
_COLOUR_CODE = {name: i for i, name in enumerate(COLOURS)}

SQUARES = tuple(f"{FILES[i % SIZE]}{i // SIZE + 1}" for i in range(SIZE * SIZE))
"""Square names by index; index = file + 4 * (rank - 1), so a1 = 0, d1 = 3, a2 = 4, d4 = 15."""
_SQUARE_INDEX = {name: i for i, name in enumerate(SQUARES)}
CORNERS = (0, 3, 12, 15)

DIRS = "NESW"
_DIR_INDEX = {d: i for i, d in enumerate(DIRS)}
_DELTA = ((0, 1), (1, 0), (0, -1), (-1, 0))  # (file, rank) step of N, E, S, W
_NONE = 4  # "no previous direction" at the start of a path
_OPPOSITE = (2, 3, 0, 1, -1)


def _build_steps() -> tuple[tuple[int, ...], ...]:
    steps = []
    for sq in range(SIZE * SIZE):
        f, r = sq % SIZE, sq // SIZE
        row = []
        for df, dr in _DELTA:
            nf, nr = f + df, r + dr
            row.append(nf + SIZE * nr if 0 <= nf < SIZE and 0 <= nr < SIZE else -1)
        steps.append(tuple(row))
    return tuple(steps)


STEP = _build_steps()
"""``STEP[square][direction]``: the neighbouring square index, or -1 off the board."""

_NEIGHBOURS = tuple(tuple((d, q) for d, q in enumerate(STEP[sq]) if q >= 0) for sq in range(16))


def _build_walk_counts() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """``WALKS[sq][last][n]``: paths of ``n`` steps from ``sq`` after arriving by ``last``."""
    table = [[[0] * (MAX_STONES + 1) for _ in range(5)] for _ in range(16)]
    for sq in range(16):
        for last in range(5):
            table[sq][last][0] = 1
    for n in range(1, MAX_STONES + 1):
        for sq in range(16):
            for last in range(5):
                table[sq][last][n] = sum(table[q][d][n - 1] for d, q in _NEIGHBOURS[sq] if d != _OPPOSITE[last])
    return tuple(tuple(tuple(row) for row in per_sq) for per_sq in table)


WALKS = _build_walk_counts()


def _most_legal_moves() -> int:
    """The most legal moves a position can have: the stacks' path counts (a stack of ``h``
    has ``WALKS[sq][_NONE][h + 1]`` paths) summed, maximised over every way of putting up
    to 23 stones on the board (the player to move holds at least one), by a knapsack over
    the squares. A setup reaches it (23 stones on one square: 146,335,670 paths)."""
    best = [0] + [-1] * (MAX_STONES - 1)  # best[t]: the most paths with t stones on the board
    for sq in range(SIZE * SIZE):
        nxt = best[:]
        for t, v in enumerate(best):
            if v >= 0:
                for h in range(1, MAX_STONES - t):
                    nxt[t + h] = max(nxt[t + h], v + WALKS[sq][_NONE][h + 1])
        best = nxt
    return max(best)


def _build_lines() -> tuple[tuple[int, int, int, int], ...]:
    rows = [tuple(r * 4 + f for f in range(4)) for r in range(4)]
    cols = [tuple(r * 4 + f for r in range(4)) for f in range(4)]
    diags = [(0, 5, 10, 15), (3, 6, 9, 12)]
    return tuple(rows + cols + diags)  # type: ignore[arg-type]


LINES = _build_lines()
"""The ten lines of four (4 ranks, 4 files, 2 diagonals) as square indices."""

_MOVE_RE = re.compile(rf"({SQUARE}) ([NESW]{{1,{MAX_STONES}}})")

REASON_LINE = "line of four"
REASON_ALL_PLACED = "all stones placed"


@dataclass(frozen=True, slots=True)
class StratstoneMove:
    """Put a stone on ``square`` (index 0-15), pick the stack up and sow it along ``dirs``.

    ``dirs`` holds direction indices (0 N, 1 E, 2 S, 3 W); ``str()`` is e.g. ``b2 NNE``.
    """

    square: int
    dirs: tuple[int, ...]

    def __str__(self) -> str:
        return f"{SQUARES[self.square]} {''.join(DIRS[d] for d in self.dirs)}"

    @classmethod
    def parse(cls, text: str, ply: int = 0) -> StratstoneMove:
        """Parse ``b2 NNE``; raises :class:`MoveTextError` naming ``ply``.

        Raises:
            MoveTextError: the text is not a move such as ``b2 NNE``.
        """
        move = _parse_cached(text) if isinstance(text, str) else None
        if move is None:
            raise MoveTextError(text if isinstance(text, str) else repr(text), ply, MOVE_TEXT)
        return move


@lru_cache(maxsize=8192)
def _parse_cached(text: str) -> StratstoneMove | None:
    m = _MOVE_RE.fullmatch(text)
    if m is None:
        return None
    return StratstoneMove(_SQUARE_INDEX[m.group(1)], tuple(_DIR_INDEX[c] for c in m.group(2)))


_DIR_SET = frozenset(range(4))


def _well_formed(move: StratstoneMove) -> bool:
    """True when ``move`` holds a square 0-15 and 1-24 directions 0-3 (moves built by hand)."""
    sq, dirs = move.square, move.dirs
    try:
        return type(sq) is int and 0 <= sq < 16 and type(dirs) is tuple and 0 < len(dirs) <= MAX_STONES and set(dirs) <= _DIR_SET
    except TypeError:  # unhashable junk in dirs
        return False


def parse_square(text: str) -> tuple[int, int]:
    """``"b3"`` -> (1, 2): file and rank, 0-based; raises SquareError."""
    return square_cell(text, _SQUARE_INDEX, SIZE, "a1-d4: file a-d, rank 1-4")


def _tops(stacks: Sequence[tuple[int, ...]]) -> list[int]:
    """Colour seen from above on each square; empty squares read as tan (nobody's)."""
    return [s[-1] if s else TAN for s in stacks]


def _line_owners(stacks: Sequence[tuple[int, ...]]) -> set[int]:
    tops = _tops(stacks)
    owners = set()
    for a, b, c, d in LINES:
        t = tops[a]
        if t and t == tops[b] == tops[c] == tops[d]:
            owners.add(t)
    return owners


@dataclass(slots=True, unsafe_hash=True, repr=False, kw_only=True)
class StratstoneState(NoChance):
    """A Stratstone position (immutable).

    ``stacks[i]`` is the stack on square ``i``, bottom stone first, as colour codes
    (0 tan, 1 yellow, 2 red); ``hand[c]`` the stones colour ``c`` still has to place.
    """

    GAME_TITLE = "Stratstone"

    stacks: tuple[tuple[int, ...], ...]
    turn: int
    hand: tuple[int, int, int]
    ply: int = 0
    first: int = field(default=YELLOW, compare=False)  # only to_setup reads it
    _result: Result | None = None

    # -- construction ------------------------------------------------------------------

    @classmethod
    def start(cls, first: str = "yellow") -> StratstoneState:
        """The standard start: two tan stones on each corner, 8 stones in each hand."""
        return cls.from_setup({"first": first})

    @classmethod
    def from_setup(cls, setup: Mapping[str, Any]) -> StratstoneState:
        """Build the state from a log setup ``{"first": ..., "stacks": {...}}``.

        ``stacks`` (optional, default the standard start) maps squares to stacks listed
        bottom first; the stones in hand are 8 minus those of that colour on the board.

        Raises:
            SetupError: the setup is not an object of known fields, or its first player or stacks are not a position
                of the game.
        """
        if not isinstance(setup, Mapping):
            raise SetupError("setup: expected an object")
        unknown = set(setup) - {"first", "stacks"}
        if unknown:
            raise SetupError(f"setup: unknown field {short_repr(sorted(unknown)[0])} (expected first, stacks)")
        first_name = setup.get("first", "yellow")
        if first_name not in PLAYERS:
            raise SetupError(f"setup.first: {short_repr(first_name)} is not a player (expected yellow or red)")
        first = _COLOUR_CODE[first_name]
        raw = setup.get("stacks")
        stacks: list[tuple[int, ...]] = [()] * 16
        if raw is None:
            for sq in CORNERS:
                stacks[sq] = (TAN, TAN)
        else:
            if not isinstance(raw, Mapping):
                raise SetupError("setup.stacks: expected an object of square -> list of stones")
            for name, stones in raw.items():
                if name not in _SQUARE_INDEX:
                    raise SetupError(f"setup.stacks: {short_repr(name)} is not a square a1-d4")
                if not isinstance(stones, list) or not all(type(s) is str and s in _COLOUR_CODE for s in stones):
                    raise SetupError(f"setup.stacks.{name}: expected a list of tan/yellow/red, bottom first")
                stacks[_SQUARE_INDEX[name]] = tuple(_COLOUR_CODE[s] for s in stones)
        counts = [0, 0, 0]
        for st in stacks:
            for s in st:
                counts[s] += 1
        if counts[TAN] > TAN_STONES:
            raise SetupError(f"setup.stacks: {counts[TAN]} tan stones, at most {TAN_STONES}")
        for c in (YELLOW, RED):
            if counts[c] > STONES_PER_PLAYER:
                raise SetupError(f"setup.stacks: {counts[c]} {COLOURS[c]} stones, at most {STONES_PER_PLAYER}")
        if not any(stacks):
            raise SetupError("setup.stacks: the board is empty, a move needs a stack")
        hand = (0, STONES_PER_PLAYER - counts[YELLOW], STONES_PER_PLAYER - counts[RED])
        other = 3 - first
        if not (hand[first] == hand[other] or hand[first] == hand[other] + 1):
            raise SetupError(
                f"setup: {COLOURS[first]} moves first with {hand[first]} stones in hand, "
                f"{COLOURS[other]} has {hand[other]}; expected equal or one more for the first player"
            )
        if hand[first] == 0:
            raise SetupError("setup: no stones left in hand, the game would already be over")
        if _line_owners(stacks):
            raise SetupError("setup: the board already shows a line of four")
        return cls(stacks=tuple(stacks), turn=first, hand=hand, ply=0, first=first)

    def to_setup(self) -> dict[str, Any]:
        """The explicit setup of this position (``first`` is the player to move)."""
        return {
            "first": COLOURS[self.turn],
            "stacks": {SQUARES[i]: [COLOURS[s] for s in st] for i, st in enumerate(self.stacks) if st},
        }

    # -- queries -----------------------------------------------------------------------

    def to_move(self) -> str | None:
        """``"yellow"`` or ``"red"``; ``None`` once the game is over."""
        return None if self._result is not None else COLOURS[self.turn]

    def player_ids(self) -> tuple[str, ...]:
        """``("yellow", "red")``, whoever moves first."""
        return PLAYERS

    def pieces_on(self, square: str) -> tuple[str, ...]:
        """The stack on ``square`` (e.g. ``"b2"``), bottom stone first: each stone's colour."""
        return tuple(COLOURS[s] for s in self.stacks[_SQUARE_INDEX[square]])

    def count_legal_moves(self) -> int:
        """Number of legal moves, from the path-count table (no enumeration)."""
        if self._result is not None:
            return 0
        return sum(WALKS[sq][_NONE][len(st) + 1] for sq, st in enumerate(self.stacks) if st)

    def legal_moves(self) -> Iterator[StratstoneMove]:
        """Every legal move, lazily: squares a1..d4, paths in N, E, S, W order.

        The count grows about 2.1x per stone in the stack (a stack of 10 has ~4,000
        paths); use :meth:`count_legal_moves` and :meth:`random_move` for tall stacks.
        """
        if self._result is not None:
            return
        for sq, st in enumerate(self.stacks):
            if st:
                yield from _paths(sq, len(st) + 1)

    def random_move(self, rng: random.Random) -> StratstoneMove:
        """A legal move drawn uniformly among all legal moves, with one ``rng`` call.

        Raises:
            RuleViolation: it is asked for after the game ended.
        """
        if self._result is not None:
            raise RuleViolation("random move", self.ply + 1, "is asked for after the game ended")
        stacks = self.stacks
        total = 0
        for sq in range(16):
            h = len(stacks[sq])
            if h:
                total += WALKS[sq][_NONE][h + 1]
        r = rng.randrange(total)
        origin = 0
        for sq in range(16):
            h = len(stacks[sq])
            if h:
                w = WALKS[sq][_NONE][h + 1]
                if r < w:
                    origin = sq
                    break
                r -= w
        n = len(stacks[origin]) + 1
        dirs = []
        pos, last = origin, _NONE
        for rem in range(n - 1, -1, -1):
            back = _OPPOSITE[last]
            for d, q in _NEIGHBOURS[pos]:
                if d == back:
                    continue
                w = WALKS[q][d][rem]
                if r < w:
                    dirs.append(d)
                    pos, last = q, d
                    break
                r -= w
        return StratstoneMove(origin, tuple(dirs))

    def greedy_move(self, rng: random.Random) -> StratstoneMove:
        """A move that wins at once when there is one (drawn with ``rng``), else a random one."""
        wins = winning_moves(self)
        if wins:
            return wins[rng.randrange(len(wins))]
        return self.random_move(rng)

    def parse_move(self, text: str) -> StratstoneMove:
        """Parse move text (``b2 NNE``) for the next ply."""
        return StratstoneMove.parse(text, self.ply + 1)

    def read_move(self, text: str) -> StratstoneMove:
        """Parse move text as typed, in any case: ``B2 nne`` is ``b2 NNE`` (the square's
        file lower-case, the steps upper-case: no letter is both)."""
        square, space, steps = text.partition(" ") if isinstance(text, str) else ("", "", "")
        try:
            return StratstoneMove.parse(f"{square.lower()}{space}{steps.upper()}", self.ply + 1)
        except MoveTextError:
            return StratstoneMove.parse(text, self.ply + 1)  # refused as typed

    # -- playing -----------------------------------------------------------------------

    def apply(self, move: StratstoneMove | str) -> tuple[StratstoneState, list[Event]]:
        """Play ``move``; returns the new state and its events.

        Events: ``Placed`` (the stone added on the origin), one ``Sown`` per stone in path
        order, and ``GameOver`` when the move ends the game.

        Raises:
            RuleViolation: the move is not well formed, the game is over, or the move is not legal in this position.
        """
        if isinstance(move, str):
            move = self.parse_move(move)
        ply = self.ply + 1
        if type(move) is not StratstoneMove or not _well_formed(move):
            raise RuleViolation(short_repr(move), ply, "is not a Stratstone move")
        if self._result is not None:
            raise RuleViolation(str(move), ply, f"comes after the end of the game: {self._result.text()}")
        c = self.turn
        origin = move.square
        old = self.stacks[origin]
        if not old:
            raise RuleViolation(str(move), ply, "starts on an empty square")
        if self.hand[c] <= 0:  # unreachable from a valid setup; kept as a guard
            raise RuleViolation(str(move), ply, f"but {COLOURS[c]} has no stones left")
        stack = (*old, c)
        n = len(stack)
        dirs = move.dirs
        if len(dirs) != n:
            raise RuleViolation(
                str(move),
                ply,
                f"has {len(dirs)} steps; the stack of {n - 1} plus the new stone needs {n}",
            )
        stacks = list(self.stacks)
        stacks[origin] = ()
        o_name = SQUARES[origin]
        player = COLOURS[c]
        events: list[Event] = [Placed(player, o_name, player)]
        pos, back = origin, -1
        for k in range(n):
            d = dirs[k]
            if d == back:
                raise RuleViolation(str(move), ply, "steps straight back")
            nxt = STEP[pos][d]
            if nxt < 0:
                raise RuleViolation(str(move), ply, f"leaves the board at step {k + 1}")
            stone = stack[k]
            stacks[nxt] = stacks[nxt] + (stone,)
            events.append(Sown(COLOURS[stone], o_name, SQUARES[nxt], k + 1))
            pos, back = nxt, _OPPOSITE[d]
        hand = (0, self.hand[1] - (c == YELLOW), self.hand[2] - (c == RED))
        new_stacks = tuple(stacks)
        result = _judge(new_stacks, c, hand)
        if result is not None:
            events.append(GameOver(result.winner, result.reason, _lines_of(new_stacks, result)))
        return StratstoneState(stacks=new_stacks, turn=3 - c, hand=hand, ply=ply, first=self.first, _result=result), events

    # -- misc --------------------------------------------------------------------------

    def __repr__(self) -> str:
        return f"<StratstoneState ply={self.ply} to_move={self.to_move()} {self.diagram()!r}>"

    def board_text(self) -> str:
        """The position on several lines, for a terminal: every stack, top stone first."""
        return _board_text(self)

    def diagram(self) -> str:
        """Tops from rank 4 down to rank 1: ``y`` yellow, ``r`` red, ``t`` tan, ``.`` empty."""
        tops = _tops(self.stacks)
        rows = []
        for r in range(3, -1, -1):
            rows.append("".join(("t", "y", "r")[tops[r * 4 + f]] if self.stacks[r * 4 + f] else "." for f in range(4)))
        return "/".join(rows)


def _board_text(state: StratstoneState) -> str:
    """The position for a terminal: rank 4 at the top, each stack top stone first."""
    cells = ["".join("tyr"[c] for c in reversed(st)) or "." for st in state.stacks]
    width = max(2, *(len(c) for c in cells))
    lines = ["   " + " ".join(f.ljust(width) for f in FILES).rstrip()]
    for r in range(SIZE - 1, -1, -1):
        lines.append(f"{r + 1}  " + " ".join(cells[r * SIZE + f].ljust(width) for f in range(SIZE)).rstrip())
    lines.append(f"in hand: yellow {state.hand[YELLOW]}, red {state.hand[RED]} "
                 "(stacks top stone first: y yellow, r red, t tan)")
    return "\n".join(lines)


def _judge(stacks: tuple[tuple[int, ...], ...], mover: int, hand: tuple[int, int, int]) -> Result | None:
    """Result after ``mover``'s move, or ``None`` when the game goes on.

    A move that shows lines for both players wins for the mover (see docs/rules.md).
    """
    tops = [s[-1] if s else 0 for s in stacks]
    owners = 0
    for a, b, c, d in LINES:
        t = tops[a]
        if t and t == tops[b] == tops[c] == tops[d]:
            owners |= t
    if owners:
        winner = mover if owners & mover else 3 - mover
        return Result(COLOURS[winner], REASON_LINE)
    if hand[1] == 0 and hand[2] == 0:
        return Result(None, REASON_ALL_PLACED)
    return None


def _lines_of(stacks: tuple[tuple[int, ...], ...], result: Result) -> tuple[tuple[str, ...], ...]:
    """The squares of the lines of four that gave ``result`` its winner (``_judge`` found
    them; walked again only for the game's last ply, to name them); ``()`` for a draw."""
    if result.winner is None:
        return ()
    tops = _tops(stacks)
    won = _COLOUR_CODE[result.winner]
    return tuple(tuple(SQUARES[q] for q in line) for line in LINES if all(stacks[q] and tops[q] == won for q in line))


def _paths(origin: int, n: int) -> Iterator[StratstoneMove]:
    """Every path of ``n`` steps from ``origin`` (depth first, N E S W order)."""
    dirs: list[int] = []

    def walk(pos: int, back: int, rem: int) -> Iterator[StratstoneMove]:
        if rem == 0:
            yield StratstoneMove(origin, tuple(dirs))
            return
        for d, q in _NEIGHBOURS[pos]:
            if d != back:
                dirs.append(d)
                yield from walk(q, _OPPOSITE[d], rem - 1)
                dirs.pop()

    yield from walk(origin, -1, n)


# ------------------------------------------------------------------- win search (greedy)

_DIST = tuple(tuple(abs(a % 4 - b % 4) + abs(a // 4 - b // 4) for b in range(16)) for a in range(16))


def winning_moves(state: StratstoneState) -> list[StratstoneMove]:
    """Moves that win at once for the player to move, at most one per (origin, line).

    Exact without enumerating paths: for each origin and line a dynamic programme runs
    over the path backwards (the last stone dropped on a square is its top), with the
    state (square, previous square, which squares of the line are already decided).
    An empty list means no move wins now. The programme's answer depends only on the
    origin, which stones of the picked-up stack are the mover's, the line and which of the
    line's other squares the mover already tops, so it is memoised on those
    (:func:`_win_along`): a search's playouts ask the same questions over and over.
    """
    if state.is_terminal():
        return []
    c = state.turn
    tops = _tops(state.stacks)
    found: list[StratstoneMove] = []
    for origin, st in enumerate(state.stacks):
        if not st:
            continue
        mine = (*(s == c for s in st), True)  # the stack picked up with the mover's stone on top
        for k, line in enumerate(LINES):
            ok_unfixed = 0
            for i, q in enumerate(line):
                if q != origin and tops[q] == c:
                    ok_unfixed |= 1 << i
            move = _win_along(origin, mine, k, ok_unfixed)
            if move is not None:
                found.append(move)
    return found


@lru_cache(maxsize=1 << 16)
def _win_along(origin: int, mine: tuple[bool, ...], k: int, ok_unfixed: int) -> StratstoneMove | None:
    """A move from ``origin`` that tops every square of line ``k`` with the mover's stone:
    ``mine`` says which stones of the stack sown (bottom first, the mover's own on top) are
    the mover's, ``ok_unfixed`` which of the line's squares (a bit each, in the line's
    order) the mover tops already and no stone need change; None when there is none."""
    line = LINES[k]
    n = len(mine)
    bit = {q: 1 << i for i, q in enumerate(line)}
    full = 15
    need = full & ~ok_unfixed
    if bin(need).count("1") > n:
        return None
    for q in line:
        if need & bit[q] and _DIST[origin][q] > n:
            return None
    # Level j holds the squares r_j of the reversed path; r_j receives stack[n - 1 - j].
    # State: (square, previous square in reversed order, mask of decided line squares).
    level: dict[tuple[int, int, int], tuple[int, int, int] | None] = {}
    for q in range(16):
        if (_DIST[origin][q] - n) % 2 or _DIST[origin][q] > n:
            continue  # cannot get back to the origin in exactly n steps
        level[(q, -1, bit.get(q, 0))] = None  # the last stone (the mover's) lands on q
    history = [level]
    for j in range(1, n):
        level = _step_back(level, mine[n - 1 - j], n - j, _DIST[origin], bit)
        history.append(level)
        if not level:
            return None
    for key in level:
        pos, prev, mask = key
        if origin == prev or _DIST[origin][pos] != 1:
            continue
        if (mask | ok_unfixed) != full:
            continue
        return _path_back(origin, key, history)
    return None


_Key = tuple[int, int, int]
"""A state of the win search: (square, previous square of the reversed path, mask of the
line squares already decided)."""


def _step_back(level: dict[_Key, _Key | None], mine: bool, rem: int, dist: tuple[int, ...],
               bit: dict[int, int]) -> dict[_Key, _Key | None]:
    """One stone further back along the reversed path: every state reachable from
    ``level`` with ``rem`` steps left to the origin; a line square not yet decided may
    only take the stone when it is the mover's (``mine``). Each state keeps its parent."""
    nxt: dict[_Key, _Key | None] = {}
    for key in level:
        pos, prev, mask = key
        for _, q in _NEIGHBOURS[pos]:
            if q == prev:
                continue
            dq = dist[q]
            if dq > rem or (dq - rem) % 2:
                continue
            b = bit.get(q, 0)
            if b and not mask & b:
                if not mine:
                    continue
                m = mask | b
            else:
                m = mask
            k2 = (q, pos, m)
            if k2 not in nxt:
                nxt[k2] = key
    return nxt


def _path_back(origin: int, key: _Key, history: list[dict[_Key, _Key | None]]) -> StratstoneMove:
    """The move whose reversed path ends in ``key``: its squares r_{n-1} .. r_0 read from
    the parents, then forwards from the origin."""
    rev = []
    k: _Key | None = key
    for j in range(len(history) - 1, -1, -1):
        assert k is not None
        rev.append(k[0])
        k = history[j][k]
    squares = [origin, *rev]  # p_0 = origin, p_1 = r_{n-1}, ..., p_n = r_0
    return StratstoneMove(origin, tuple(STEP[a].index(b) for a, b in itertools.pairwise(squares)))


# --------------------------------------------------------------------------- the game


class Stratstone(Game):
    """The Stratstone engine (registered as ``"stratstone"``)."""

    name = NAME
    rules = RULES
    move_text = MOVE_TEXT
    players = PLAYERS
    max_legal_moves = _most_legal_moves()

    def new_setup(self, n_players: int, setup: Mapping[str, Any] | None, rng: random.Random) -> tuple[list[str], dict[str, Any]]:
        """Players are always ``["yellow", "red"]``; the setup defaults to ``{"first": "yellow"}``.

        Raises:
            SetupError: the players are not two.
        """
        if n_players != 2:
            raise SetupError(f"stratstone needs 2 players, got {n_players}")
        full = {"first": "yellow"}
        if setup:
            full.update(setup)
        StratstoneState.from_setup(full)  # validate
        return list(PLAYERS), full

    def initial_state(self, players: Sequence[str], setup: Mapping[str, Any]) -> StratstoneState:
        """The state before ply 1; ``players`` must be ``["yellow", "red"]``.

        Raises:
            SetupError: the players are not ``["yellow", "red"]``.
        """
        if list(players) != list(PLAYERS):
            raise SetupError(f"players: expected ['yellow', 'red'], got {short_repr(list(players))}")
        return StratstoneState.from_setup(setup)

    def derived(self, before: Any, after: Any, events: Sequence[Event]) -> dict[str, Any]:
        """``in_hand``: stones each player still holds after the ply."""
        return {"in_hand": {"yellow": after.hand[YELLOW], "red": after.hand[RED]}}

    def explain(self, before: Any, after: Any, events: Sequence[Event]) -> str:
        """``adds yellow to the 2 stones on b2, picks up all 3 (tan, tan, yellow), sows b3
        tan, b4 tan, c4 yellow; line a4 b4 c4 d4: winner yellow (line of four)``: the stone
        added from the hand, the stack lifted (bottom first, the stone just added last) and
        where each stone fell, then the winning line(s)."""
        sown = [e for e in events if isinstance(e, Sown)]
        lifted = ", ".join(e.stone for e in sown)
        added = next((e for e in events if isinstance(e, Placed)), None)
        under = len(sown) - 1  # the stones the added one went on
        if added is None:
            head = f"picks up {len(sown)} ({lifted})"
        elif under == 0:
            head = f"places {added.stone} on {added.square} and picks it up"
        else:
            head = (f"adds {added.stone} to the {'stone' if under == 1 else f'{under} stones'} on {added.square}, "
                    f"picks up {'both' if under == 1 else f'all {len(sown)}'} ({lifted})")
        parts = [f"{head}, sows " + ", ".join(f"{e.square} {e.stone}" for e in sown)]
        for e in events:
            if isinstance(e, GameOver):
                lines = " and ".join(" ".join(line) for line in e.lines)
                parts.append(f"{'line' if len(e.lines) == 1 else 'lines'} {lines}: " * bool(e.lines)
                             + event_words(e))
        return "; ".join(parts)

    fast_ply = staticmethod(fast_two_sides_ply(PLAYERS))
    squares = SQUARES

    def parse_square(self, text: str) -> tuple[int, int]:
        return parse_square(text)

    def fast_header(self, players: list[str], setup: dict[str, Any]) -> bool:
        return players == list(PLAYERS) and set(setup) <= {"first"} and setup.get("first", "red") in PLAYERS

    def ledger(self, state: Any) -> StratstoneLedger:
        """The 24 stones: ``tan-01`` .. ``tan-08``, ``yellow-01`` .., ``red-01`` ..; those on
        the board numbered from a1 to d4, bottom first, the rest in hand in number order."""
        return StratstoneLedger(state)


class StratstoneLedger(PieceLedger):
    """Stratstone's stones through a game: a turn puts the player's next stone from hand
    on the origin (``Placed``), picks the stack up and drops its stones bottom first, one
    per step (``Sown``, step k drops the k-th stone of the picked-up stack)."""

    def __init__(self, state: StratstoneState) -> None:
        totals = (TAN_STONES, STONES_PER_PLAYER, STONES_PER_PLAYER)
        seen = [0, 0, 0]
        squares: dict[str, list[str]] = {}
        for i, st in enumerate(state.stacks):
            ids = []
            for s in st:
                seen[s] += 1
                ids.append(f"{COLOURS[s]}-{seen[s]:02d}")
            squares[SQUARES[i]] = ids
        pieces: list[Piece] = [p for c in (TAN, YELLOW, RED) for p in numbered(COLOURS[c], "stone", totals[c])]
        super().__init__(pieces, squares)
        self.lifted: list[str] = []  # the stack picked up this turn (replaced each turn, never changed in place)

    def on_event(self, event: Event) -> tuple[str, ...]:
        if isinstance(event, Placed):
            stone = self.from_reserve(event.stone)
            self.lifted = [*self.take(event.square), stone]
            return (stone,)
        if isinstance(event, Sown):
            stone = self.lifted[event.step - 1]
            self.put(event.square, stone)
            return (stone,)
        return ()


GAME = Stratstone()
