"""Sage Stones: roll 3d3, place in that column, trap runs of other stones.

The board has 7 columns numbered 3-9 (the totals of three three-sided dice) and 9 rows;
a square is ``column-row``, e.g. ``5-7``. Each colour has 10 stones. A turn rolls 3d3 and
places a stone on any empty square of the column equal to the total: a triple gives an
extra turn, 1-2-3 loses the turn, a full column makes the roll count as 6, and a full
column when column 6 is full too wipes the board and restarts the game. A placed stone
removes every unbroken run of other stones between it and another stone of its colour,
in the 8 directions, wrapping from column 9 to column 3 (never across rows 1 and 9).
A colour with all 10 stones on the board wins for its player. Two players can play the
variant with two colours each. Interpretations are in docs/rules.md.

Move text: the square placed (``5-7``), or ``-`` when the ply places no stone.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from stratstone_cad.engine.events import (
    BoardReset,
    Captured,
    DiceRolled,
    Event,
    ExtraTurn,
    GameOver,
    Placed,
    Result,
    Trapped,
    TurnLost,
    event_words,
)
from stratstone_cad.engine.ledger import PieceLedger, numbered
from stratstone_cad.engine.protocol import Game, State, square_cell
from stratstone_cad.errors import MoveTextError, RuleViolation, SetupError, short_repr
from stratstone_cad.games.sage_stones.facts import COLOURS, COLUMNS, FIRST_COLUMN, MOVE_TEXT, NAME, ROWS, STONES

__all__ = [
    "COLOURS",
    "GAME",
    "RULES",
    "SQUARES",
    "SageLedger",
    "SagePass",
    "SagePlace",
    "SageStones",
    "SageStonesState",
    "capture_squares",
    "parse_square",
    "trap_runs",
]

RULES = "sage-stones/1"
SIX = 6 - FIRST_COLUMN  # column index of column 6
"""Colour names in the default seating order; a standard game of n players uses the first n."""
LETTERS = {"yellow": "Y", "red": "R", "blue": "B", "green": "G", "white": "W", "black": "K"}
"""One letter per colour for a text board (black is K, as blue has B)."""
_COLOUR_SET = frozenset(COLOURS)
VARIANT_STANDARD = "standard"
VARIANT_TWO_PLAYER = "two-player"
TWO_PLAYER_IDS = ("p1", "p2")

REASON_ALL_ON_BOARD = "all 10 stones on the board"
REASON_TRIPLE = "rolled a triple"
REASON_123 = "rolled 1-2-3"
REASON_RESET = "column {col} and column 6 are full"


SQUARES = tuple(f"{ci + FIRST_COLUMN}-{ri + 1}" for ci in range(COLUMNS) for ri in range(ROWS))
"""Square names by index (``3-1`` = 0, ``3-2`` = 1, ..., ``9-9`` = 62)."""
_SQUARE_INDEX = {name: i for i, name in enumerate(SQUARES)}
_COLUMN_OF = tuple(i // ROWS for i in range(COLUMNS * ROWS))
_ROW_MAJOR = {name: (i % ROWS) * COLUMNS + i // ROWS for i, name in enumerate(SQUARES)}
_COLUMN_SLICES = tuple((ci * ROWS, ci * ROWS + ROWS) for ci in range(COLUMNS))


def parse_square(text: str) -> tuple[int, int]:
    """``"5-7"`` -> (2, 6): column and row, 0-based (column 3 is 0); raises SquareError."""
    return square_cell(text, _ROW_MAJOR, COLUMNS, "column-row, column 3-9 and row 1-9, such as 5-7")


def _build_rays() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """``RAYS[sq]``: for each of the 8 directions, the squares met walking away from ``sq``.

    Columns wrap (9 is next to 3); rows do not. A ray stops before coming back to ``sq``.
    """
    rays = []
    for sq in range(COLUMNS * ROWS):
        ci, ri = divmod(sq, ROWS)
        per = []
        for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)):
            ray = []
            c, r = ci, ri
            while True:
                c, r = (c + dc) % COLUMNS, r + dr
                if not 0 <= r < ROWS:
                    break
                q = c * ROWS + r
                if q == sq:
                    break
                ray.append(q)
            if ray:
                per.append(tuple(ray))
        rays.append(tuple(per))
    return tuple(rays)


RAYS = _build_rays()

_DICE = tuple((a, b, c) for a in (1, 2, 3) for b in (1, 2, 3) for c in (1, 2, 3))
_DICE_SET = frozenset(_DICE)
_ROLLS = tuple((d, Fraction(1, len(_DICE))) for d in _DICE)  # the 27 rolls in order, as they are drawn

# What the pending roll asks for: place in a column (0..6), lose the turn, or reset.
_LOST = -1
_RESET = -2


@dataclass(frozen=True, slots=True)
class SagePlace:
    """Place a stone on square index ``square``; ``str()`` is e.g. ``5-7``."""

    square: int

    def __str__(self) -> str:
        return SQUARES[self.square]


@dataclass(frozen=True, slots=True)
class SagePass:
    """A ply that places no stone (1-2-3, or the board reset); ``str()`` is ``-``."""

    def __str__(self) -> str:
        return "-"


PASS = SagePass()
_PLACES = tuple(SagePlace(i) for i in range(COLUMNS * ROWS))

SageMove = SagePlace | SagePass


_PARSE: dict[str, SageMove] = {name: _PLACES[i] for i, name in enumerate(SQUARES)}
_PARSE["-"] = PASS


def parse_move(text: str, ply: int = 0) -> SageMove:
    """Parse ``5-7`` or ``-``; raises :class:`MoveTextError` naming ``ply``.

    Raises:
        MoveTextError: the text is not a move such as ``5-7`` or ``-``.
    """
    try:
        return _PARSE[text]
    except (KeyError, TypeError):
        raise MoveTextError(text if isinstance(text, str) else repr(text), ply, MOVE_TEXT) from None


def trap_runs(board: Sequence[int], sq: int, colour: int) -> list[tuple[int, tuple[int, ...]]]:
    """The runs a stone of ``colour`` placed on ``sq`` traps, each with the stone of its
    colour at the far end: ``(far end, squares of the run from sq's side)``, in the order
    of the directions. ``apply`` removes them and names them in its ``Trapped`` events.

    ``board`` holds colour codes (0 empty, seat + 1 otherwise); ``board[sq]`` is ignored.
    A run counts when it is at least one stone long, has no empty square and ends on
    another stone of ``colour``; every such run in the 8 directions is trapped.
    """
    runs: list[tuple[int, tuple[int, ...]]] = []
    for ray in RAYS[sq]:
        k = 0
        for q in ray:
            v = board[q]
            if v == colour:
                if k:
                    runs.append((q, ray[:k]))
                break
            if not v:
                break
            k += 1
    return runs


def capture_squares(board: Sequence[int], sq: int, colour: int) -> list[int]:
    """Squares whose stones a stone of ``colour`` placed on ``sq`` would remove: the
    squares of its :func:`trap_runs`, in order. A square on two runs (possible from rows 1
    and 9, across the wrap) is listed once."""
    removed = [q for _, run in trap_runs(board, sq, colour) for q in run]
    return list(dict.fromkeys(removed)) if len(removed) > 1 else removed


def _empty_squares(board: Sequence[int], column: int) -> list[int]:
    """The empty squares of column index ``column``, row 1 first."""
    lo, hi = _COLUMN_SLICES[column]
    return [i for i in range(lo, hi) if not board[i]]


def _greedy_square(board: Sequence[int], empty: Sequence[int], seat: int, on_board: Sequence[int],
                   owners: Sequence[str], rng: random.Random) -> int:
    """The greedy move's square among ``empty`` (the roll's column): the one alone, any
    when the stone placed wins, else the one that traps the most stones of other owners
    (minus the mover's own), ties drawn with ``rng``. Shared by
    :meth:`SageStonesState.greedy_move` and :meth:`SageStonesState.playout`."""
    if len(empty) == 1:
        return empty[0]
    if on_board[seat] == STONES - 1:  # any placement wins
        return empty[rng.randrange(len(empty))]
    me = owners[seat]
    best: list[int] = []
    best_score = -1_000
    for sq in empty:
        score = 0
        for q in capture_squares(board, sq, seat + 1):
            score += 1 if owners[board[q] - 1] != me else -1
        if score > best_score:
            best_score, best = score, [sq]
        elif score == best_score:
            best.append(sq)
    return best[rng.randrange(len(best))]


@dataclass(slots=True, unsafe_hash=True, repr=False)
class SageStonesState(State):
    """A Sage Stones position (immutable).

    ``board[i]`` is 0 for an empty square or ``seat + 1`` for a stone of the colour in
    that seat; ``on_board[seat]`` counts them. ``seat`` is whose turn it is. ``dice`` is
    the pending roll (``None`` while the next step is the roll) and ``target`` what it
    asks for: a column index 0-6, ``-1`` (turn lost) or ``-2`` (board reset).
    """

    board: tuple[int, ...]
    on_board: tuple[int, ...]
    seat: int
    ply: int
    dice: tuple[int, int, int] | None
    target: int
    colours: tuple[str, ...]
    owners: tuple[str, ...]
    first: int
    _result: Result | None

    # -- construction ------------------------------------------------------------------

    @classmethod
    def start(cls, players: Sequence[str] = COLOURS[:4], setup: Mapping[str, Any] | None = None) -> SageStonesState:
        """A new game; by default the standard 4-colour game on an empty board."""
        return cls.from_setup(players, setup or {})

    @classmethod
    def from_setup(cls, players: Sequence[str], setup: Mapping[str, Any]) -> SageStonesState:
        """Build the state from the header's player ids and setup.

        Standard variant: ``players`` are 2-6 distinct colour names in seating (turn) order.
        ``two-player``: ``players`` are 2 ids; ``setup["colours"]`` lists 4 colours in turn
        order (default yellow, red, blue, green), seat ``i`` owned by ``players[i % 2]``.
        Optional ``board`` (square -> colour) and ``first`` (colour playing ply 1).

        Raises:
            SetupError: the setup is not an object of known fields, or the players, colours, variant or first player
                do not fit.
        """
        if not isinstance(setup, Mapping):
            raise SetupError("setup: expected an object")
        unknown = set(setup) - {"variant", "colours", "board", "first"}
        if unknown:
            raise SetupError(f"setup: unknown field {short_repr(sorted(unknown)[0])} (expected variant, colours, board, first)")
        players = list(players)
        variant = setup.get("variant", VARIANT_STANDARD)
        if variant == VARIANT_STANDARD:
            if "colours" in setup:
                raise SetupError("setup.colours: only for the two-player variant (players are the colours)")
            if not 2 <= len(players) <= 6:
                raise SetupError(f"players: sage-stones needs 2 to 6 players, got {len(players)}")
            for p in players:
                if p not in COLOURS:
                    raise SetupError(f"players: {short_repr(p)} is not a colour (expected {', '.join(COLOURS)})")
            colours = tuple(players)
            owners = tuple(players)
        elif variant == VARIANT_TWO_PLAYER:
            if len(players) != 2:
                raise SetupError(f"players: the two-player variant needs 2 players, got {len(players)}")
            raw_colours = setup.get("colours", COLOURS[:4])
            colours = tuple(raw_colours) if isinstance(raw_colours, (list, tuple)) else ()
            if len(colours) != 4 or any(c not in COLOURS for c in colours):
                raise SetupError(f"setup.colours: expected 4 colours of {', '.join(COLOURS)}")
            owners = (players[0], players[1], players[0], players[1])
        else:
            raise SetupError(f"setup.variant: {short_repr(variant)} is not a variant (expected standard or two-player)")
        if len(set(players)) != len(players):
            raise SetupError(f"players: {short_repr(players)} has a repeated id")
        if len(set(colours)) != len(colours):
            raise SetupError(f"setup.colours: {short_repr(list(colours))} has a repeated colour")
        first_name = setup.get("first", colours[0])
        if first_name not in colours:
            raise SetupError(f"setup.first: {short_repr(first_name)} is not one of {', '.join(colours)}")
        first = colours.index(first_name)
        board, on_board = _setup_board(setup.get("board", {}), colours)
        return cls(board=board, on_board=on_board, seat=first, ply=0, dice=None, target=0, colours=colours,
                   owners=owners, first=first, _result=None)

    def to_setup(self) -> dict[str, Any]:
        """The explicit setup of this position (``first`` is the colour to roll next)."""
        two = self.owners != self.colours
        setup: dict[str, Any] = {"variant": VARIANT_TWO_PLAYER if two else VARIANT_STANDARD}
        if two:
            setup["colours"] = list(self.colours)
        setup["board"] = {SQUARES[i]: self.colours[v - 1] for i, v in enumerate(self.board) if v}
        setup["first"] = self.colours[self.seat]
        return setup

    # -- queries -----------------------------------------------------------------------

    def to_move(self) -> str | None:
        """Player id rolling or placing next (a colour, or ``p1``/``p2`` in the variant)."""
        return None if self._result is not None else self.owners[self.seat]

    def colour_to_move(self) -> str | None:
        """The colour whose stone is placed next; ``None`` once the game is over."""
        return None if self._result is not None else self.colours[self.seat]

    def in_hand(self) -> dict[str, int]:
        """Stones each colour still holds."""
        return {c: STONES - n for c, n in zip(self.colours, self.on_board, strict=True)}

    def stones_on_board(self) -> dict[str, int]:
        """Stones of each colour on the board."""
        return dict(zip(self.colours, self.on_board, strict=True))

    def pieces_on(self, square: str) -> tuple[str, ...]:
        """The gem on ``square`` (e.g. ``"5-7"``) as its colour, ``()`` when it is empty."""
        v = self.board[_SQUARE_INDEX[square]]
        return (self.colours[v - 1],) if v else ()

    def is_chance(self) -> bool:
        """True when the next step is the roll of 3d3."""
        return self.dice is None and self._result is None

    def roll(self, rng: random.Random) -> tuple[int, int, int]:
        """Three dice drawn with ``rng`` (one ``randrange(27)`` call); not applied."""
        return _DICE[rng.randrange(27)]

    def chance_outcomes(self) -> list[tuple[tuple[int, ...], Fraction]]:
        """The 27 rolls of three dice in the order rolled, 1/27 each, before a roll; else none."""
        return list(_ROLLS) if self.is_chance() else []

    def player_ids(self) -> tuple[str, ...]:
        """The header's player ids: the colours in seating order, or ``("p1", "p2")`` in the variant."""
        return tuple(dict.fromkeys(self.owners))

    def apply_chance(self, outcome: Sequence[int]) -> tuple[SageStonesState, list[Event]]:
        """Apply a roll of three dice (values 1-3, in the order rolled).

        Emits ``DiceRolled``; the new state's legal moves are the empty squares of the
        column the roll selects, or just ``-`` after 1-2-3 or when the board must reset.

        Raises:
            RuleViolation: the game is over, the dice are already rolled, or the outcome is not three dice.
        """
        ply = self.ply + 1
        if self._result is not None:
            raise RuleViolation(_dice_label(outcome), ply, f"come after the end of the game: {self._result.text()}")
        if self.dice is not None:
            raise RuleViolation(_dice_label(outcome), ply, "come before the previous roll was played")
        dice = tuple(outcome) if isinstance(outcome, (list, tuple)) else ()
        try:
            known = dice in _DICE_SET
        except TypeError:  # unhashable junk
            known = False
        if not known or type(dice[0]) is not int or type(dice[1]) is not int or type(dice[2]) is not int:
            raise RuleViolation(_dice_label(outcome), ply, "are not three dice of 1-3")
        total = dice[0] + dice[1] + dice[2]
        if total == 6 and dice[0] != dice[1]:  # 1-2-3 in any order: every other 6 is 2-2-2
            target = _LOST
        else:
            ci = total - FIRST_COLUMN
            lo, hi = _COLUMN_SLICES[ci]
            if 0 not in self.board[lo:hi]:
                lo, hi = _COLUMN_SLICES[SIX]
                target = SIX if 0 in self.board[lo:hi] else _RESET
            else:
                target = ci
        # Built positionally in the two steps of every ply (this roll and the placement): a
        # keyword call of the ten fields costs 0.25 us more, 6 % of a ply (issue 10's bench).
        state = SageStonesState(self.board, self.on_board, self.seat, self.ply, dice, target, self.colours, self.owners,
                                self.first, None)
        return state, [DiceRolled(self.owners[self.seat], dice, target + FIRST_COLUMN if target >= 0 else None)]

    def describe_roll(self) -> str:
        """What the pending roll asks for, in words: ``place in column 8``, ``place in
        column 6 (column 8 is full)``, ``the turn is lost``, ``the board is reset``."""
        if self.dice is None:
            return "no roll yet"
        if self.target == _LOST:
            return "the turn is lost (1-2-3)"
        if self.target == _RESET:
            return "the board is reset (column 6 is full too)"
        total = sum(self.dice)
        full = f" (column {total} is full)" if total - FIRST_COLUMN != self.target else ""
        return f"place in column {self.target + FIRST_COLUMN}{full}"

    def legal_moves(self) -> Iterator[SageMove]:
        """Empty squares of the selected column (rows 1-9), or ``-``; empty before the roll."""
        if self.dice is None or self._result is not None:
            return iter(())
        if self.target < 0:
            return iter((PASS,))
        lo, hi = _COLUMN_SLICES[self.target]
        board = self.board
        return iter([_PLACES[i] for i in range(lo, hi) if not board[i]])

    def random_move(self, rng: random.Random) -> SageMove:
        """A legal move drawn uniformly with ``rng``.

        Raises:
            RuleViolation: it is asked for before the roll or after the end.
        """
        if self.dice is None or self._result is not None:
            raise RuleViolation("random move", self.ply + 1, "is asked for before the roll or after the end")
        if self.target < 0:
            return PASS
        empty = _empty_squares(self.board, self.target)
        return _PLACES[empty[rng.randrange(len(empty))]]

    def greedy_move(self, rng: random.Random) -> SageMove:
        """The placement that traps the most stones of other owners (minus its own), a
        winning one when any placement wins; ties drawn with ``rng``."""
        moves = list(self.legal_moves())
        if not isinstance(moves[0], SagePlace):  # the pass
            return moves[0]
        return _PLACES[_greedy_square(self.board, [m.square for m in moves], self.seat, self.on_board, self.owners, rng)]

    def playout(self, rng: random.Random, explore: float, steps: int) -> SageStonesState:
        """:meth:`State.playout <stratstone_cad.engine.protocol.State.playout>` on one
        list of the board, with no state or event made on the way: the same rolls, moves and
        draws of ``rng``, in the same order, as :meth:`roll`, :meth:`apply_chance`,
        :meth:`random_move`, :meth:`greedy_move` (its square: :func:`_greedy_square`, shared) and
        :meth:`apply` (tests/games/test_properties.py plays both from many positions and
        compares the states and ``rng``'s)."""
        b, on = list(self.board), list(self.on_board)
        seat, ply, dice, target, result = self.seat, self.ply, self.dice, self.target, self._result
        owners, n_seats = self.owners, len(self.colours)
        randrange, random_ = rng.randrange, rng.random
        for _ in range(steps):
            if result is not None:
                break
            if dice is None:  # the roll (roll, then apply_chance)
                dice = _DICE[randrange(27)]
                total = dice[0] + dice[1] + dice[2]
                if total == 6 and dice[0] != dice[1]:
                    target = _LOST
                else:
                    ci = total - FIRST_COLUMN
                    lo, hi = _COLUMN_SLICES[ci]
                    if 0 not in b[lo:hi]:
                        lo, hi = _COLUMN_SLICES[SIX]
                        target = SIX if 0 in b[lo:hi] else _RESET
                    else:
                        target = ci
                continue
            ply += 1
            if target < 0:  # _forced_pass
                random_()  # the draw that picks the random or the greedy move: both pass, with no draw of their own
                if target == _LOST:
                    seat = (seat + 1) % n_seats
                else:
                    b, on, seat = [0] * (COLUMNS * ROWS), [0] * n_seats, self.first
                dice = None
                continue
            empty = _empty_squares(b, target)
            colour = seat + 1
            if random_() < explore:
                sq = empty[randrange(len(empty))]
            else:
                sq = _greedy_square(b, empty, seat, on, owners, rng)
            for _end, run in trap_runs(b, sq, colour):  # apply: the runs of the board before the stone
                for r in run:
                    v = b[r]
                    if v:
                        b[r] = 0
                        on[v - 1] -= 1
            b[sq] = colour
            on[seat] += 1
            if on[seat] == STONES:
                result = Result(owners[seat], REASON_ALL_ON_BOARD)
            elif not dice[0] == dice[1] == dice[2]:
                seat = (seat + 1) % n_seats
            dice = None
        return SageStonesState(tuple(b), tuple(on), seat, ply, dice, target if dice is not None else 0, self.colours,
                               owners, self.first, result)

    def parse_move(self, text: str) -> SageMove:
        """Parse move text (``5-7`` or ``-``) for the next ply."""
        return parse_move(text, self.ply + 1)

    # -- playing -----------------------------------------------------------------------

    def apply(self, move: SageMove | str) -> tuple[SageStonesState, list[Event]]:
        """Play the placement (or ``-``) for the pending roll; returns the new state and its events:
        ``TurnLost`` (1-2-3), ``BoardReset``, or ``Placed`` followed by one ``Captured`` per removed
        stone; then ``GameOver`` or ``ExtraTurn`` when they apply.

        Raises:
            RuleViolation: the game is over, the dice are not rolled, or the move is not legal in this position.
        """
        if isinstance(move, str):
            move = self.parse_move(move)
        ply = self.ply + 1
        if not (move is PASS or (type(move) is SagePlace and type(move.square) is int and 0 <= move.square < 63)):
            if not isinstance(move, SagePass):
                raise RuleViolation(short_repr(move), ply, "is not a Sage Stones move")
        if self._result is not None:
            raise RuleViolation(str(move), ply, f"comes after the end of the game: {self._result.text()}")
        dice = self.dice
        if dice is None:
            raise RuleViolation(str(move), ply, "comes before the dice are rolled")
        seat = self.seat
        player = self.owners[seat]
        target = self.target
        n_seats = len(self.colours)
        if target < 0:
            return self._forced_pass(move, ply, dice)
        if isinstance(move, SagePass):
            raise _pass_with_room(ply, dice, target)
        sq = move.square
        if _COLUMN_OF[sq] != target:
            raise _wrong_column(move, ply, dice, target)
        board = self.board
        if board[sq]:
            raise RuleViolation(str(move), ply, "is not empty")
        colour = seat + 1
        b = list(board)
        b[sq] = colour
        on = list(self.on_board)
        on[seat] += 1
        colours = self.colours
        stone = colours[seat]
        events: list[Event] = [Placed(player, SQUARES[sq], stone)]
        # Runs are found on the board as it was when the stone was placed (``board``; ``sq``
        # is on no ray of its own), then removed: removing one run first could cut another
        # run that shares a square with it (from rows 1 and 9 the N, NE and NW rays meet 7
        # steps away across the wrap). A shared square is removed once.
        runs = trap_runs(board, sq, colour)
        if runs:
            self._trap(b, on, sq, runs, player, events)
        result = None
        next_seat = seat
        if on[seat] == STONES:
            result = Result(player, REASON_ALL_ON_BOARD)
            events.append(GameOver(player, REASON_ALL_ON_BOARD))
        elif dice[0] == dice[1] == dice[2]:
            events.append(ExtraTurn(player, REASON_TRIPLE))
        else:
            next_seat = (seat + 1) % n_seats
        state = SageStonesState(tuple(b), tuple(on), next_seat, ply, None, 0, colours, self.owners, self.first,
                                result)  # positional: see roll
        return state, events

    def _trap(self, b: list[int], on: list[int], sq: int, runs: list[tuple[int, tuple[int, ...]]], player: str,
              events: list[Event]) -> None:
        """Take the trapped stones off ``b`` (each square once), back to their owners: each
        run named (``Trapped``), then its stones not taken already (``Captured``)."""
        colours, owners = self.colours, self.owners
        for end, run in runs:
            events.append(Trapped(player, (SQUARES[sq], SQUARES[end]), tuple(SQUARES[r] for r in run)))
            for r in run:
                v2 = b[r]
                if v2:
                    b[r] = 0
                    on[v2 - 1] -= 1
                    events.append(Captured(SQUARES[r], colours[v2 - 1], owners[v2 - 1], player))

    def _forced_pass(self, move: SageMove, ply: int, dice: tuple[int, int, int]) -> tuple[SageStonesState, list[Event]]:
        """The roll allows no placement: 1-2-3 loses the turn; a full column and a full
        column 6 reset the board (every stone back, the first player to roll)."""
        if move is not PASS and not isinstance(move, SagePass):
            why = "1-2-3 loses the turn" if self.target == _LOST else "the board must be reset"
            raise RuleViolation(str(move), ply, f"places a stone but {why} (dice {_dice_text(dice)})")
        n_seats = len(self.colours)
        event: Event
        if self.target == _LOST:
            board, on_board, seat = self.board, self.on_board, (self.seat + 1) % n_seats
            event = TurnLost(self.owners[self.seat], REASON_123)
        else:
            col = dice[0] + dice[1] + dice[2]
            board, on_board, seat = (0,) * (COLUMNS * ROWS), (0,) * n_seats, self.first
            event = BoardReset("column 6 is full" if col == 6 else REASON_RESET.format(col=col))
        state = SageStonesState(board=board, on_board=on_board, seat=seat, ply=ply, dice=None, target=0,
                                colours=self.colours, owners=self.owners, first=self.first, _result=None)
        return state, [event]

    # -- misc --------------------------------------------------------------------------

    def __repr__(self) -> str:
        return (
            f"<SageStonesState ply={self.ply} to_move={self.colour_to_move()} dice={self.dice} on_board={self.stones_on_board()}>"
        )

    def board_text(self) -> str:
        """The position on several lines, for a terminal: rows 9 down to 1, columns 3-9,
        one letter per colour (black is ``K``: ``B`` is blue), ``.`` for an empty well."""
        letter = [LETTERS[c] for c in self.colours]
        lines = ["    " + " ".join(str(c + FIRST_COLUMN) for c in range(COLUMNS))]
        for ri in range(ROWS - 1, -1, -1):
            row = (letter[v - 1] if (v := self.board[ci * ROWS + ri]) else "." for ci in range(COLUMNS))
            lines.append(f"{ri + 1}   " + " ".join(row))
        lines.append("on the board: " + ", ".join(f"{c} ({letter[i]}) {n}"
                                                  for i, (c, n) in enumerate(zip(self.colours, self.on_board, strict=True))))
        return "\n".join(lines)

    def diagram(self) -> str:
        """Rows 9 down to 1, columns 3-9: first letter of the colour, ``.`` for empty."""
        rows = []
        for ri in range(ROWS - 1, -1, -1):
            rows.append(
                "".join(
                    self.colours[self.board[ci * ROWS + ri] - 1][0] if self.board[ci * ROWS + ri] else "."
                    for ci in range(COLUMNS)
                )
            )
        return "/".join(rows)


def _setup_board(raw: object, colours: tuple[str, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The stones of ``setup.board`` (square -> colour) and the count of each colour's;
    a colour with all its stones down would have won already."""
    board = [0] * (COLUMNS * ROWS)
    on_board = [0] * len(colours)
    if not isinstance(raw, Mapping):
        raise SetupError("setup.board: expected an object of square -> colour")
    for name, colour in raw.items():
        if name not in _SQUARE_INDEX:
            raise SetupError(f"setup.board: {short_repr(name)} is not a square (column 3-9, row 1-9)")
        if colour not in colours:
            raise SetupError(f"setup.board.{name}: {short_repr(colour)} is not one of {', '.join(colours)}")
        seat = colours.index(colour)
        board[_SQUARE_INDEX[name]] = seat + 1
        on_board[seat] += 1
    for seat, n in enumerate(on_board):
        if n >= STONES:
            raise SetupError(f"setup.board: {colours[seat]} has {n} stones on the board; at {STONES} the game is already over")
    return tuple(board), tuple(on_board)


def _pass_with_room(ply: int, dice: tuple[int, int, int], target: int) -> RuleViolation:
    """A pass (``-``) when the column the dice ask for has room for a stone."""
    return RuleViolation("-", ply, f"places no stone but column {target + FIRST_COLUMN} has room (dice {_dice_text(dice)})")


def _wrong_column(move: SageMove, ply: int, dice: tuple[int, int, int], target: int) -> RuleViolation:
    """A placement outside the column the dice ask for, with why that column."""
    total = dice[0] + dice[1] + dice[2]
    why = f"dice {_dice_text(dice)}"
    if total - FIRST_COLUMN != target:
        why += f", column {total} is full so the roll counts as 6"
    return RuleViolation(str(move), ply, f"is not in column {target + FIRST_COLUMN} ({why})")


def _dice_label(outcome: object) -> str:
    if isinstance(outcome, (list, tuple)):
        return f"dice {list(outcome)!r}"[:60]
    return f"dice {outcome!r}"[:60]


def _dice_text(dice: Sequence[int]) -> str:
    return "-".join(str(d) for d in dice)


class SageStones(Game):
    """The Sage Stones engine (registered as ``"sage-stones"``)."""

    name = NAME
    rules = RULES
    move_text = MOVE_TEXT
    chance_field: str | None = "dice"
    max_chance_outcomes = len(_DICE)
    max_legal_moves = ROWS  # the empty squares of one column; '-' is a move alone
    # a move's search at 2,000 simulations takes about a second (its playouts are short and
    # cheap: SageStonesState.playout); against greedy over 200 games of the two-player
    # variant 300 scored 60 % and 2,000 80 %, and no budget or judge of a leaf tried since
    # (up to 20,000 simulations) moved it far from 80 %: the dice decide the rest
    # (docs/benchmarks.md)
    search_simulations = 2000

    def new_setup(self, n_players: int, setup: Mapping[str, Any] | None, rng: random.Random) -> tuple[list[str], dict[str, Any]]:
        """Standard: ``n_players`` colours (yellow, red, blue, ...); ``{"variant": "two-player"}``: p1, p2.

        Raises:
            SetupError: the number of players does not fit the variant.
        """
        full: dict[str, Any] = dict(setup or {})
        variant = full.setdefault("variant", VARIANT_STANDARD)
        if variant == VARIANT_TWO_PLAYER:
            if n_players != 2:
                raise SetupError(f"sage-stones two-player variant needs 2 players, got {n_players}")
            full.setdefault("colours", list(COLOURS[:4]))
            players = list(TWO_PLAYER_IDS)
        else:
            if not 2 <= n_players <= 6:
                raise SetupError(f"sage-stones needs 2 to 6 players, got {n_players}")
            players = list(COLOURS[:n_players])
        SageStonesState.from_setup(players, full)  # validate
        return players, full

    def initial_state(self, players: Sequence[str], setup: Mapping[str, Any]) -> SageStonesState:
        """The state before ply 1 from the header's player ids and setup."""
        return SageStonesState.from_setup(players, setup)

    def derived(self, before: Any, after: Any, events: Sequence[Event]) -> dict[str, Any]:
        """``captured`` (squares emptied by traps, sorted) and ``on_board`` (stones per colour)."""
        captured = sorted(e.square for e in events if isinstance(e, Captured))
        return {"captured": captured, "on_board": after.stones_on_board()}

    def explain(self, before: Any, after: Any, events: Sequence[Event]) -> str:
        """``dice 2-3-3 = 8, column 8 is full: column 6; traps red 5-7, blue 6-7 between 4-7
        and 7-7``: the column the dice allow and why, each trap with its two ends and the
        stones between (their colours), a triple's extra turn, the end."""
        parts = []
        taken = {e.square: e.stone for e in events if isinstance(e, Captured)}
        for e in events:
            if isinstance(e, DiceRolled):
                total = sum(e.dice)
                text = f"dice {_dice_text(e.dice)}"
                if e.column == total:
                    text += f" = {total}: column {total}"
                elif e.column is not None:
                    text += f" = {total}, column {total} is full: column {e.column}"
                parts.append(text)
            elif isinstance(e, Trapped):
                stones = ", ".join(f"{taken.get(q, '?')} {q}" for q in e.squares)
                parts.append(f"traps {stones} between {e.ends[0]} and {e.ends[1]}")
            elif isinstance(e, TurnLost):  # after the dice that lost it
                parts[-1] += f": the turn is lost ({e.reason})"
            elif isinstance(e, BoardReset):
                parts[-1] += f": the board is reset ({e.reason})"
            elif isinstance(e, ExtraTurn | GameOver):
                parts.append(event_words(e))
        return "; ".join(parts)

    def default_players(self, setup: Mapping[str, Any] | None) -> int:
        """Four colours; two players in the two-player variant."""
        return 2 if setup and setup.get("variant") == VARIANT_TWO_PLAYER else 4

    def fast_ply(self, line: dict[str, Any], ids: frozenset[str]) -> bool:
        """``{"ply": n >= 1, "player": an id of the header, "dice": [1-3, 1-3, 1-3], "move": 1-64 characters}``."""
        if len(line) != 4:
            return False
        try:
            p = line["ply"]
            m = line["move"]
            d = line["dice"]
            pl = line["player"]
        except KeyError:
            return False
        return (
            type(p) is int
            and p >= 1
            and type(m) is str
            and 0 < len(m) <= 64
            and type(pl) is str
            and pl in ids
            and type(d) is list
            and len(d) == 3
            and type(d[0]) is int
            and type(d[1]) is int
            and type(d[2]) is int
            and 1 <= d[0] <= 3
            and 1 <= d[1] <= 3
            and 1 <= d[2] <= 3
        )

    def fast_header(self, players: list[str], setup: dict[str, Any]) -> bool:
        """A variant, ``first`` a colour, ``colours`` four distinct colours; no start position."""
        if not set(setup) <= {"variant", "colours", "first"}:
            return False
        if setup.get("variant", VARIANT_STANDARD) not in (VARIANT_STANDARD, VARIANT_TWO_PLAYER):
            return False
        if "first" in setup and (type(setup["first"]) is not str or setup["first"] not in _COLOUR_SET):
            return False
        if "colours" in setup:
            c = setup["colours"]
            return type(c) is list and len(c) == 4 and all(type(x) is str and x in _COLOUR_SET for x in c) and len(set(c)) == 4
        return True

    squares = SQUARES

    def parse_square(self, text: str) -> tuple[int, int]:
        return parse_square(text)

    def ledger(self, state: Any) -> SageLedger:
        """Ten gems of each colour in play, ``red-01`` .. ``red-10``."""
        return SageLedger(state)


class SageLedger(PieceLedger):
    """Sage Stones' gems through a game: a placement takes the colour's lowest-numbered
    gem in hand; a trapped gem goes back to its owner's hand; a reset takes every gem back.
    A colour's gems are alike (the set prints one part ten times): the numbers only keep a
    gem the same gem while it stays on the board."""

    def __init__(self, state: SageStonesState) -> None:
        pieces = [p for c in state.colours for p in numbered(c, "gem", STONES)]
        seen = dict.fromkeys(state.colours, 0)
        squares: dict[str, list[str]] = {}
        for i, v in enumerate(state.board):
            if v:
                c = state.colours[v - 1]
                seen[c] += 1
                squares[SQUARES[i]] = [f"{c}-{seen[c]:02d}"]
        super().__init__(pieces, squares)

    def on_event(self, event: Event) -> tuple[str, ...]:
        if isinstance(event, Placed):
            gem = self.from_reserve(event.stone)
            self.put(event.square, gem)
            return (gem,)
        if isinstance(event, Captured):
            (gem,) = self.take(event.square)
            self.to_reserve(gem)
            return (gem,)
        if isinstance(event, BoardReset):
            gems = tuple(g for sq in list(self.squares) for g in self.take(sq))
            for g in gems:
                self.to_reserve(g)
            return gems
        return ()


GAME = SageStones()
