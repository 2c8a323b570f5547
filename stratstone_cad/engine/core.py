"""The shared protocol of the rules engines.

Every game (Stratstone, Sage Stones, the terrain game) has the same shape,
borrowed from python-chess, OpenSpiel and pgx:

- a :class:`Game` object, registered by name (:mod:`stratstone_cad.registry`),
  that makes the initial :class:`State` from the player ids and an explicit setup;
- an immutable :class:`State` with ``legal_moves()``, ``apply(move)`` returning the
  new state and a list of :class:`Event`, ``is_terminal()`` and ``result()``;
- moves that are small value objects whose ``str()`` is the canonical text and that
  parse back from it (``state.parse_move(text)``);
- chance (dice) as an explicit step: when ``state.is_chance()`` the caller rolls with
  its own seeded ``random.Random`` (``state.roll(rng)``) or replays logged dice, and
  applies them with ``state.apply_chance(outcome)``.

Errors are the typed, one-line errors of :mod:`stratstone_cad.errors`; the ones defined
here add the context the log checker needs (the ply, the move text, the rule).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Protocol, runtime_checkable

from stratstone_cad.errors import GameError, IllegalMoveError, MoveParseError, short_repr

__all__ = [
    "DRAW_AGREED",
    "RESIGNATION",
    "Attacked",
    "BoardReset",
    "Captured",
    "DiceRolled",
    "Event",
    "Exited",
    "ExtraTurn",
    "Game",
    "GameBase",
    "GameOver",
    "Move",
    "MoveTextError",
    "Moved",
    "Named",
    "NoChance",
    "Piece",
    "PieceLedger",
    "Placed",
    "Result",
    "RuleViolation",
    "SetupError",
    "Sown",
    "SquareError",
    "State",
    "StateBase",
    "Term",
    "Trapped",
    "TurnLost",
    "UnknownGameError",
    "event_words",
    "fast_two_sides_ply",
    "numbered",
    "softmax",
    "square_cell",
    "sum_text",
]


# --------------------------------------------------------------------------- errors


class MoveTextError(MoveParseError):
    """Move text that does not parse; names the ply and the text.

    ``str()`` reads e.g. ``ply 6: 'b9 NN' does not parse: expected ...``.
    """

    def __init__(self, text: str, ply: int, expected: str) -> None:
        self.text = text
        self.ply = ply
        self.expected = expected
        super().__init__(f"ply {ply}: {short_repr(text)} does not parse: expected {expected}")


class RuleViolation(IllegalMoveError):
    """A well-formed move (or chance outcome) that the rules forbid.

    ``str()`` is ``ply <n>: <move text> <rule>``, e.g. ``ply 6: b2 NNS steps straight back``.
    """

    def __init__(self, move: str, ply: int, rule: str) -> None:
        self.move = move
        self.ply = ply
        self.rule = rule
        super().__init__(f"ply {ply}: {move} {rule}")


class SetupError(GameError):
    """An explicit setup (or player list) that the game cannot start from."""


class UnknownGameError(GameError):
    """A game name that has no registered engine."""


class SquareError(GameError):
    """Text that is not a square of the game's board."""


def square_cell(text: str, index: Mapping[str, int], cols: int, expected: str) -> tuple[int, int]:
    """What a game's public square parser returns: square text -> (column, row), both
    0-based from the board's lower-left corner as its log shows it (``index``: square name
    -> index, ``cols`` squares a row, row-major; ``expected`` words the notation)."""
    i = index.get(text) if isinstance(text, str) else None
    if i is None:
        raise SquareError(f"{short_repr(text)} is not a square (expected {expected})")
    return i % cols, i // cols


# --------------------------------------------------------------------------- results


RESIGNATION = "resignation"
"""The reason of a result line for a game resigned at the table (two players only)."""
DRAW_AGREED = "draw agreed"
"""The reason of a result line for a draw the players agreed at the table."""


@dataclass(frozen=True, slots=True)
class Result:
    """How a game ended: ``winner`` is a player id, or ``None`` for a draw."""

    winner: str | None
    reason: str

    def text(self) -> str:
        """``winner red (line of four)`` or ``draw (all stones placed)``."""
        head = "draw" if self.winner is None else f"winner {self.winner}"
        return f"{head} ({self.reason})"

    def to_json(self) -> dict[str, Any]:
        """The ``result`` object of the log's last line."""
        return {"winner": self.winner, "reason": self.reason}


# --------------------------------------------------------------------------- events
# Events are what the viewer animates. Squares are in each game's text form
# ("b2", "5-7"), stones and players are ids ("yellow", "tan", "p1").


@dataclass(frozen=True, slots=True)
class Placed:
    """``player`` put a ``stone`` (its colour) on ``square``."""

    kind: ClassVar[str] = "placed"
    player: str
    square: str
    stone: str

    def words(self) -> str:
        return f"places a {self.stone} stone on {self.square}"


@dataclass(frozen=True, slots=True)
class Sown:
    """One stone of a picked-up stack dropped on ``square`` at ``step`` (1-based) of the path from ``origin``."""

    kind: ClassVar[str] = "sown"
    stone: str
    origin: str
    square: str
    step: int

    def words(self) -> str:
        return f"sows a {self.stone} stone on {self.square}"


@dataclass(frozen=True, slots=True)
class Captured:
    """The ``stone`` on ``square`` (owned by ``owner``) was removed by ``by``'s move and went back to its owner."""

    kind: ClassVar[str] = "captured"
    square: str
    stone: str
    owner: str
    by: str

    def words(self) -> str:
        if self.owner != self.stone:
            return f"captures the {self.owner} {self.stone} on {self.square}"
        return f"captures the {self.stone} on {self.square}"


@dataclass(frozen=True, slots=True)
class Trapped:
    """``player``'s stone just placed on ``ends[0]`` and its stone on ``ends[1]`` trap the
    stones on ``squares`` (the run between them, from ``ends[0]`` on), which the
    ``Captured`` events after it take off. Used by Sage Stones."""

    kind: ClassVar[str] = "trapped"
    player: str
    ends: tuple[str, str]
    squares: tuple[str, ...]

    def words(self) -> str:
        return f"traps {', '.join(self.squares)} between {self.ends[0]} and {self.ends[1]}"


@dataclass(frozen=True, slots=True)
class Moved:
    """A piece of ``player`` moved along ``path`` (squares, start first). Used by the terrain game.

    What the move cost, as the rules counted it: ``costs`` holds each step's cost (the
    terrain game: ``|height difference| + 1``), ``points`` the movement points the piece
    had for its whole turn; a step that ignores height (a Runner's diagonal step or jump)
    has no cost and says which it is in ``special`` (``"diagonal step"``, ``"jump"``).
    """

    kind: ClassVar[str] = "moved"
    player: str
    path: tuple[str, ...]
    costs: tuple[int, ...] = ()
    points: int = 0
    special: str = ""

    def words(self) -> str:
        return f"moves {'-'.join(self.path)}"


@dataclass(frozen=True, slots=True)
class Term:
    """One term of an attack's or a defence's strength, as the rules add it up: ``what``
    (``"Lancer"``, ``"higher ground"``, ``"charge"``, ``"Guardian on d5"``), its ``value``
    (negative from lower ground) and the ``square`` of the piece it comes from (a helping
    neighbour's; ``""`` for the others)."""

    what: str
    value: int
    square: str = ""


@dataclass(frozen=True, slots=True)
class Attacked:
    """A piece of ``player`` on ``square`` attacked ``target``. Used by the terrain game.

    ``attack`` and ``defence`` are the two strengths term by term (their sums are what the
    rules compared: an attack needs at least the defence)."""

    kind: ClassVar[str] = "attacked"
    player: str
    square: str
    target: str
    attack: tuple[Term, ...] = ()
    defence: tuple[Term, ...] = ()

    def words(self) -> str:
        return f"attacks {self.target} from {self.square}"


@dataclass(frozen=True, slots=True)
class Exited:
    """A piece of ``player`` left the board from ``square``. Used by the terrain game."""

    kind: ClassVar[str] = "exited"
    player: str
    square: str

    def words(self) -> str:
        return f"exits from {self.square}"


@dataclass(frozen=True, slots=True)
class DiceRolled:
    """``player`` rolled ``dice`` (each die as rolled)."""

    kind: ClassVar[str] = "dice rolled"
    player: str
    dice: tuple[int, ...]
    column: int | None = None
    """The column the roll lets ``player`` place in (Sage Stones: the total, or 6 when that
    column is full), ``None`` when it allows no placement (the turn is lost, the board resets)."""

    def words(self) -> str:
        return "dice " + "-".join(str(d) for d in self.dice)


@dataclass(frozen=True, slots=True)
class TurnLost:
    """``player`` lost the turn, for ``reason`` (e.g. ``rolled 1-2-3``)."""

    kind: ClassVar[str] = "turn lost"
    player: str
    reason: str

    def words(self) -> str:
        return f"loses the turn ({self.reason})"


@dataclass(frozen=True, slots=True)
class ExtraTurn:
    """``player`` plays again, for ``reason`` (e.g. ``rolled a triple``)."""

    kind: ClassVar[str] = "extra turn"
    player: str
    reason: str

    def words(self) -> str:
        return f"plays again ({self.reason})"


@dataclass(frozen=True, slots=True)
class BoardReset:
    """Every stone went back to its owner and the game restarted, for ``reason``."""

    kind: ClassVar[str] = "board reset"
    reason: str

    def words(self) -> str:
        return f"the board is reset ({self.reason})"


@dataclass(frozen=True, slots=True)
class GameOver:
    """The game ended: ``winner`` (player id or ``None`` for a draw) and ``reason``."""

    kind: ClassVar[str] = "game over"
    winner: str | None
    reason: str
    lines: tuple[tuple[str, ...], ...] = ()
    """The squares of every line that decided it (Stratstone's lines of four), else ``()``."""

    def words(self) -> str:
        return Result(self.winner, self.reason).text()


Event = (Placed | Sown | Captured | Trapped | Moved | Attacked | Exited | DiceRolled | TurnLost | ExtraTurn | BoardReset
         | GameOver)


# --------------------------------------------------------------------------- pieces


@dataclass(frozen=True, slots=True)
class Piece:
    """One physical piece of a game's set: ``id`` (``"yellow-03"``, a Sage gem ``"red-07"``,
    ``"blue-runner-2"``), the engine's ``colour`` (a colour or side id), its ``kind``
    (``"stone"``, ``"gem"``, ``"runner"``) and its ``number`` (1-based within its colour and kind)."""

    id: str
    colour: str
    kind: str
    number: int


@dataclass(frozen=True, slots=True)
class Named:
    """An event with the pieces it is about, in the event's terms: the stone placed or
    sown, the gem placed or captured, every gem a reset clears, the piece moved or exited,
    the attacker then the target of an attack."""

    event: Event
    pieces: tuple[str, ...]


class PieceLedger:
    """Which physical piece is where, followed through a game's events.

    The rules treat the stones of one colour alike, so the states hold colours, not pieces
    (an engine that carried identities through ``apply`` would pay for them on every ply
    of every playout, and no rule reads them). The ledger names them for whoever needs
    them (the viewer keeps each of Stratstone's 24 distinct pebbles through a replay): it
    starts from a state (:meth:`Game.ledger`), and :meth:`follow` takes a ply's events in
    order and returns each with the pieces it moves, updating where they are.

    ``squares`` maps a square to its pieces, bottom first; ``reserve`` maps a colour to
    its pieces not on the board, in the order they come into play; ``pieces`` is the
    whole set by id. A piece captured or exited goes back to ``reserve`` when the rules
    give it back (Sage Stones) and to ``off`` when it leaves the game (the terrain game).
    """

    def __init__(self, pieces: Sequence[Piece], squares: Mapping[str, Sequence[str]]) -> None:
        self.pieces: dict[str, Piece] = {p.id: p for p in pieces}
        self.squares: dict[str, list[str]] = {sq: list(ids) for sq, ids in squares.items() if ids}
        placed = {i for ids in self.squares.values() for i in ids}
        self.reserve: dict[str, list[str]] = {}
        for p in pieces:
            if p.id not in placed:
                self.reserve.setdefault(p.colour, []).append(p.id)
        self.off: list[str] = []

    def copy(self) -> PieceLedger:
        """A ledger with the same pieces in the same places, followed independently."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.squares = {sq: list(ids) for sq, ids in self.squares.items()}
        other.reserve = {c: list(ids) for c, ids in self.reserve.items()}
        other.off = list(self.off)
        return other

    def follow(self, events: Sequence[Event]) -> list[Named]:
        """The events of one ply, in order, each with the pieces it is about."""
        return [Named(e, self.on_event(e)) for e in events]

    def on_event(self, event: Event) -> tuple[str, ...]:
        """Update the places for one event; returns the pieces it is about. The default
        names none (events that move nothing: dice, lost turns, the end)."""
        return ()

    # -- helpers for the games' ledgers ------------------------------------------------

    def take(self, square: str) -> list[str]:
        """Every piece on ``square``, taken off it; a :class:`GameError` when it is empty
        (the events contradict the ledger: a bug, never a user's fault)."""
        ids = self.squares.pop(square, None)
        if not ids:
            raise GameError(f"piece ledger: no piece on {square}")
        return ids

    def put(self, square: str, piece: str) -> None:
        """``piece`` on top of ``square``."""
        self.squares.setdefault(square, []).append(piece)

    def from_reserve(self, colour: str) -> str:
        """The next piece of ``colour`` to come into play."""
        left = self.reserve.get(colour)
        if not left:
            raise GameError(f"piece ledger: no {colour} piece left in reserve")
        return left.pop(0)

    def to_reserve(self, piece: str) -> None:
        """``piece`` back in reserve, in its number's place (the lowest number comes out first)."""
        p = self.pieces[piece]
        left = self.reserve.setdefault(p.colour, [])
        left.append(piece)
        left.sort(key=lambda i: self.pieces[i].number)


def numbered(colour: str, kind: str, count: int) -> list[Piece]:
    """Pieces 1 .. ``count`` of one colour and kind: ``red-01``, ``red-02``, ..."""
    return [Piece(f"{colour}-{n:02d}", colour, kind, n) for n in range(1, count + 1)]


# --------------------------------------------------------------------------- protocol


@runtime_checkable
class Move(Protocol):
    """A move: an immutable value whose ``str()`` is its canonical text."""

    def __str__(self) -> str: ...


@runtime_checkable
class State(Protocol):
    """An immutable game position. ``apply`` and ``apply_chance`` return new states.

    The engines' states are slotted dataclasses (``__init__``, ``__eq__`` and ``__hash__``
    generated). The terrain game's is ``frozen=True``; Stratstone's and Sage Stones' are
    immutable by contract (no method assigns a field once it is built) but not frozen: a
    frozen dataclass sets every field through ``object.__setattr__``, 0.64 us against
    0.16 us for a plain ``__init__`` of 8 fields on the benchmark machine, and those two
    engines build a state every 3-7 us (Sage Stones two a ply), so freezing them would cost
    them 5-25 % of their speed. ``tests/games/test_properties.py`` checks that ``apply``
    never changes the state it is called on. States are built by keyword, except Sage
    Stones' two per ply: a keyword call of its ten fields costs 0.25 us more than a
    positional one (0.38 against 0.13 us), 12-17 % of its plies per second.
    """

    ply: int
    """Plies played so far (the next ply is ``ply + 1``)."""

    def to_move(self) -> str | None:
        """Id of the player who plays (or rolls for) the next ply; ``None`` when the game is over."""
        ...

    def is_chance(self) -> bool:
        """True when the next step is a chance outcome (dice) rather than a move."""
        ...

    def roll(self, rng: random.Random) -> tuple[int, ...]:
        """Draw the chance outcome with the caller's seeded RNG (does not apply it)."""
        ...

    def chance_outcomes(self) -> list[tuple[tuple[int, ...], Fraction]]:
        """Every outcome of the chance step with its exact probability, in a fixed order
        (the probabilities sum to 1; :meth:`roll` draws from this distribution); empty when
        the next step is not a chance step. OpenSpiel's ``chance_outcomes``."""
        ...

    def player_ids(self) -> tuple[str, ...]:
        """The ids of every player of the game, in seating order (the log header's ``players``)."""
        ...

    def apply_chance(self, outcome: Sequence[int]) -> tuple[State, list[Event]]:
        """Apply a chance outcome (rolled or replayed from a log)."""
        ...

    def legal_moves(self) -> Iterator[Move]:
        """Every legal move, lazily, in a fixed order; empty at a chance step or at the end."""
        ...

    def parse_move(self, text: str) -> Move:
        """Parse canonical move text; raises :class:`MoveTextError`."""
        ...

    def apply(self, move: Move | str) -> tuple[State, list[Event]]:
        """Play ``move`` (or its text); returns the new state and the events, in order.

        Raises :class:`RuleViolation` naming the ply, the move and the rule it breaks.
        """
        ...

    def random_move(self, rng: random.Random) -> Move:
        """A legal move drawn uniformly from ``legal_moves()`` with ``rng``."""
        ...

    def greedy_move(self, rng: random.Random) -> Move:
        """The ``greedy`` player's move: a win now if there is one, else the game's best
        capture or advance, ties broken with ``rng`` (deterministic for its state)."""
        ...

    def move_prior(self) -> list[float] | None:
        """The search's prior over ``legal_moves()`` (a probability each, in that order), or
        ``None`` for no preference (uniform). A game whose states give one says so with
        :attr:`Game.search_prior`; the search then picks moves by PUCT
        (:mod:`stratstone_cad.analysis.players`)."""
        ...

    def board_text(self) -> str:
        """The position on several lines for a terminal, with the coordinates the move text uses."""
        ...

    def is_terminal(self) -> bool:
        """True when the game is over."""
        ...

    def result(self) -> Result | None:
        """The result once the game is over, else ``None``."""
        ...


class Game(Protocol):
    """A game engine, registered by name. Stateless: every method is a pure function.

    Everything a caller needs to know about a game comes from here (OpenSpiel's GameInfo
    is the model): the log, ``play``, ``record`` and the players hold no branch on a
    game's name or class, so a new game touches only its own module and its registration.
    :class:`GameBase` gives the defaults.
    """

    name: str
    """The log's ``game`` value, e.g. ``"stratstone"``."""
    rules: str
    """The rules version, bumped whenever the rules change, e.g. ``"stratstone/1"``."""
    chance_field: str | None
    """Name of the per-ply chance field in the log (``"dice"``), or ``None``."""
    move_text: str
    """How a move is written in the log and typed at ``record``'s prompt, with an example
    (``"a square a1-d4, a space and 1-24 steps of N/E/S/W, e.g. 'b2 NNE'"``)."""
    max_chance_outcomes: int
    """The most outcomes one chance step can have (``0``: no chance), as OpenSpiel's GameInfo says it."""
    max_legal_moves: int
    """The most legal moves any position of the game can have, setups included: the size of the
    action space when an action numbers a position's moves in ``legal_moves()`` order
    (OpenSpiel's ``num_distinct_actions``, :mod:`stratstone_cad.analysis.spiel`)."""
    search_simulations: int
    """The simulations of the ``search`` player without a budget (``search``): about a second
    a move on the 2-core benchmark machine (docs/benchmarks.md); a game whose playouts are
    cheap gets more of them."""
    search_prior: bool
    """Whether the game's states give the search a prior over their moves
    (:meth:`State.move_prior`): the search then picks the move to explore by PUCT (the
    prior steers it to the likely moves first) instead of UCT (every move tried once
    before any twice), which wastes a small budget on a wide position."""

    def new_setup(self, n_players: int, setup: Mapping[str, Any] | None, rng: random.Random) -> tuple[list[str], dict[str, Any]]:
        """Complete a partial setup for ``n_players`` into the explicit one a log records.

        Returns the player ids (in the order of the player list given to ``play``) and the
        setup dict. Raises :class:`SetupError` (a :class:`~stratstone_cad.errors.UserError`)
        with a one-line message on a wrong player count or setup.
        """
        ...

    def initial_state(self, players: Sequence[str], setup: Mapping[str, Any]) -> State:
        """The state before ply 1, from the header's player ids and setup; raises SetupError."""
        ...

    def derived(self, before: State, after: State, events: Sequence[Event]) -> dict[str, Any]:
        """Optional derived facts of a ply, as the log may carry them (e.g. ``captured``)."""
        ...

    def explain(self, before: State, after: State, events: Sequence[Event]) -> str:
        """A ply in words, for a player following the game (``check-log --explain``,
        ``record``): what the rules counted to allow it, read from its ``events`` (the chance
        events first), which carry it. ``before`` is the state before the ply (before its
        roll), ``after`` the state after it. E.g. ``Lancer, 1 + 3 = 4 of 4 (charge)``."""
        ...

    map_fields: tuple[str, ...]
    """The setup fields that give the board's map, for a game played on a map (the terrain
    game: ``("heightmap", "terrain_seed")``), else ``()``. ``play`` puts a map file into the
    first; a recorded game must give one of them (the board at the table)."""

    def load_map(self, path: Any) -> Any:
        """The checked map in the file ``path`` (a game with ``map_fields`` only); raises a
        one-line :class:`~stratstone_cad.errors.UserError` naming the file or the fault."""
        ...

    def default_players(self, setup: Mapping[str, Any] | None) -> int:
        """How many players a game from ``setup`` has when nobody says."""
        ...

    def play_setup(self, setup: Mapping[str, Any] | None, seed: int) -> Mapping[str, Any] | None:
        """The setup ``play`` starts from with ``seed`` (the terrain game draws its map from it)."""
        ...

    def setup_warnings(self, setup: Mapping[str, Any]) -> list[str]:
        """Words about a valid but doubtful setup (an unfair map), one line each."""
        ...

    def fast_ply(self, line: dict[str, Any], ids: frozenset[str]) -> bool:
        """True when a ply line has the usual shape of this game's plies: a check strictly
        narrower than the log schema, so the schema is skipped (``ids``: the header's
        player ids, already checked against the id pattern). False sends the line to the
        schema, which words the error."""
        ...

    def fast_header(self, players: list[str], setup: dict[str, Any]) -> bool:
        """True when the header's ``players`` (checked ids) and ``setup`` (an object) are
        the usual ones ``play`` writes: strictly narrower than the schema, as for plies."""
        ...

    def ledger(self, state: State) -> PieceLedger:
        """Every physical piece of the set and where each is in ``state`` (a state the game
        starts from: the ledger then follows its events); see :class:`PieceLedger`."""
        ...

    squares: tuple[str, ...]
    """Every square's text, as the log writes it (``"a1"``, ``"5-7"``)."""

    def parse_square(self, text: str) -> tuple[int, int]:
        """(column, row) of a square, 0-based from the board's lower-left corner (``"b3"`` is
        (1, 2) in Stratstone, ``"5-7"`` (2, 6) in Sage Stones); raises :class:`SquareError`."""
        ...


def softmax(logits: Sequence[float]) -> list[float]:
    """``exp(l)`` of each logit over their sum: a move prior (:meth:`State.move_prior`) from
    scores where one more point is e (2.7) times as likely."""
    top = max(logits)
    weights = [math.exp(x - top) for x in logits]
    total = sum(weights)
    return [w / total for w in weights]


class StateBase:
    """What every engine's state shares: the game is over once it has a result."""

    __slots__ = ()
    _result: Result | None

    def is_terminal(self) -> bool:
        """True once the game is over."""
        return self._result is not None

    def result(self) -> Result | None:
        """The result once the game is over, else ``None``."""
        return self._result

    def reach(self, square: str) -> list[tuple[str, str]] | None:
        """The legal moves of the piece on ``square`` with what each costs, for a game whose
        moves have a cost (the terrain game's movement points); ``None`` when they have none."""
        return None

    def move_prior(self) -> list[float] | None:
        """No preference among the moves: the search's prior is uniform."""
        return None

    def playout(self, rng: random.Random, explore: float, steps: int) -> Any:
        """The state at the end of a playout from this one (the search's judge of a leaf,
        :mod:`stratstone_cad.analysis.evaluators`): the dice rolled, then a random move one
        time in ``explore`` (``rng.random() < explore``) and the greedy move otherwise, for
        at most ``steps`` steps (a roll or a move each), until the game is over.

        An engine may do the same faster on its own board (Sage Stones does: the playouts
        are most of its search's time), with the same draws of ``rng`` in the same order,
        so it ends in the same state as this loop."""
        state: Any = self
        for _ in range(steps):
            if state.is_terminal():
                break
            if state.is_chance():
                state = state.apply_chance(state.roll(rng))[0]
                continue
            move = state.random_move(rng) if rng.random() < explore else state.greedy_move(rng)
            state = state.apply(move)[0]
        return state


class NoChance(StateBase):
    """The chance step of a game without dice: never due; rolling or applying dice is a
    :class:`RuleViolation` naming the game (``GAME_TITLE``, e.g. ``"Stratstone"``)."""

    __slots__ = ()
    GAME_TITLE: ClassVar[str] = "this game"
    ply: int

    def is_chance(self) -> bool:
        """No dice in this game: always False."""
        return False

    def roll(self, rng: random.Random) -> tuple[int, ...]:
        """No dice in this game; raises :class:`RuleViolation`."""
        raise RuleViolation("roll", self.ply + 1, f"is not part of {self.GAME_TITLE} (no dice)")

    def chance_outcomes(self) -> list[tuple[tuple[int, ...], Fraction]]:
        """No dice in this game: never any outcome."""
        return []

    def apply_chance(self, outcome: Sequence[int]) -> tuple[Any, list[Event]]:
        """No dice in this game; raises :class:`RuleViolation`."""
        raise RuleViolation(f"dice {short_repr(list(outcome) if isinstance(outcome, list | tuple) else outcome, 55)}",
                            self.ply + 1, f"are not part of {self.GAME_TITLE}")


class GameBase:
    """The defaults of :class:`Game` for an engine: no dice, two players, ``play`` starts
    from the setup given, no warnings, and no fast checks (every line goes through the schema)."""

    chance_field: str | None = None
    max_chance_outcomes = 0
    search_simulations = 300
    search_prior = False
    map_fields: tuple[str, ...] = ()
    move_text: str = "the move as the game's log writes it"

    def load_map(self, path: Any) -> Any:
        raise TypeError(f"{self.name} is not played on a map")  # type: ignore[attr-defined]

    def default_players(self, setup: Mapping[str, Any] | None) -> int:
        return 2

    def play_setup(self, setup: Mapping[str, Any] | None, seed: int) -> Mapping[str, Any] | None:
        return setup

    def setup_warnings(self, setup: Mapping[str, Any]) -> list[str]:
        return []

    def fast_ply(self, line: dict[str, Any], ids: frozenset[str]) -> bool:
        return False

    def explain(self, before: Any, after: Any, events: Sequence[Event]) -> str:
        return "; ".join(w for w in map(event_words, events) if w)

    def fast_header(self, players: list[str], setup: dict[str, Any]) -> bool:
        return False

    def ledger(self, state: Any) -> PieceLedger:
        return PieceLedger((), {})  # a game without pieces to tell apart

    squares: tuple[str, ...] = ()

    def parse_square(self, text: str) -> tuple[int, int]:
        raise SquareError(f"{short_repr(text)} is not a square ({self.name} has no board)")  # type: ignore[attr-defined]


def event_words(event: Any) -> str:
    """One event in a few words (``captures the red stone on 5-7``, ``winner red (line of
    four)``): its own :meth:`words`, the way :meth:`Game.explain` says what a game does not
    word its own way. An event of a game's own (not of :data:`Event`) brings its words too;
    one without them is said by its kind."""
    words = getattr(event, "words", None)
    return words() if callable(words) else str(getattr(event, "kind", ""))


def sum_text(terms: Sequence[Term]) -> str:
    """``Lancer 2 + charge 1 + Guardian on d5 3 = 6``: a strength's terms and their sum
    (a negative term subtracts: ``Runner 1 - lower ground 1 = 0``)."""
    out = f"{terms[0].what} {terms[0].value}"
    for t in terms[1:]:
        out += f" {'-' if t.value < 0 else '+'} {t.what} {abs(t.value)}"
    return f"{out} = {sum(t.value for t in terms)}"


def fast_two_sides_ply(sides: tuple[str, ...]) -> Callable[[dict[str, Any], frozenset[str]], bool]:
    """The fast ply check of a game of fixed player ids and no chance field, as a plain
    function (``fast_ply = staticmethod(fast_two_sides_ply(PLAYERS))``: one call a line):
    ``{"ply": n >= 1, "player": one of sides, "move": 1-64 characters}`` and nothing else."""

    def fast_ply(line: dict[str, Any], ids: frozenset[str]) -> bool:
        if len(line) != 3:
            return False
        p = line.get("ply")
        m = line.get("move")
        return type(p) is int and p >= 1 and line.get("player") in sides and type(m) is str and 0 < len(m) <= 64

    return fast_ply
