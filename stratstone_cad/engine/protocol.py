"""The shared protocol of the rules engines, as abstract base classes (:class:`Game`,
:class:`State`): what an engine must define is abstract, the rest has a default.

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

Errors are the typed, one-line errors of :mod:`stratstone_cad.errors`; the engines' own
(:class:`~stratstone_cad.errors.MoveTextError`, :class:`~stratstone_cad.errors.RuleViolation`)
add the context the log checker needs (the ply, the move text, the rule). The events a
ply makes are in :mod:`stratstone_cad.engine.events`, the pieces of a set in
:mod:`stratstone_cad.engine.ledger`.
"""

from __future__ import annotations

import math
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any, ClassVar, Protocol

from stratstone_cad.engine.events import Event, Result, event_words
from stratstone_cad.engine.ledger import PieceLedger
from stratstone_cad.errors import RuleViolation, SquareError, short_repr

__all__ = [
    "Game",
    "Move",
    "NoChance",
    "State",
    "fast_two_sides_ply",
    "softmax",
    "square_cell",
]


def square_cell(text: str, index: Mapping[str, int], cols: int, expected: str) -> tuple[int, int]:
    """What a game's public square parser returns: square text -> (column, row), both
    0-based from the board's lower-left corner as its log shows it (``index``: square name
    -> index, ``cols`` squares a row, row-major; ``expected`` words the notation).

    Raises:
        SquareError: the text is not a square of the board.
    """
    i = index.get(text) if isinstance(text, str) else None
    if i is None:
        raise SquareError(f"{short_repr(text)} is not a square (expected {expected})")
    return i % cols, i // cols


# --------------------------------------------------------------------------- the game-neutral API


class Move(Protocol):
    """A move: an immutable value whose ``str()`` is its canonical text. Each game's moves
    are value objects of its own (no base class); this names their shape."""

    def __str__(self) -> str: ...


class State(ABC):
    """An immutable game position. ``apply`` and ``apply_chance`` return new states.

    What an engine's state must provide is abstract here: a state class missing one of them
    cannot be instantiated (Python's TypeError names it). The rest has a default: the game
    is over once the state has a ``_result``; :class:`NoChance` adds the chance step of a
    game without dice.

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

    __slots__ = ()
    ply: int
    """Plies played so far (the next ply is ``ply + 1``)."""
    _result: Result | None

    @abstractmethod
    def to_move(self) -> str | None:
        """Id of the player who plays (or rolls for) the next ply; ``None`` when the game is over."""

    @abstractmethod
    def is_chance(self) -> bool:
        """True when the next step is a chance outcome (dice) rather than a move."""

    @abstractmethod
    def roll(self, rng: random.Random) -> tuple[int, ...]:
        """Draw the chance outcome with the caller's seeded RNG (does not apply it)."""

    @abstractmethod
    def chance_outcomes(self) -> list[tuple[tuple[int, ...], Fraction]]:
        """Every outcome of the chance step with its exact probability, in a fixed order
        (the probabilities sum to 1; :meth:`roll` draws from this distribution); empty when
        the next step is not a chance step. OpenSpiel's ``chance_outcomes``."""

    @abstractmethod
    def player_ids(self) -> tuple[str, ...]:
        """The ids of every player of the game, in seating order (the log header's ``players``)."""

    @abstractmethod
    def apply_chance(self, outcome: Sequence[int]) -> tuple[State, list[Event]]:
        """Apply a chance outcome (rolled or replayed from a log)."""

    @abstractmethod
    def legal_moves(self) -> Iterator[Move]:
        """Every legal move, lazily, in a fixed order; empty at a chance step or at the end."""

    @abstractmethod
    def parse_move(self, text: str) -> Move:
        """Parse canonical move text; raises :class:`~stratstone_cad.errors.MoveTextError`."""

    def read_move(self, text: str) -> Move:
        """Parse move text as a person types it (``record``'s prompt): the canonical text in
        any case where the notation stays unambiguous; ``str()`` of the result is the log's
        canonical text. A log is read by :meth:`parse_move` (canonical text only). Raises
        :class:`~stratstone_cad.errors.MoveTextError` naming ``text`` as typed."""
        return self.parse_move(text)

    @abstractmethod
    def apply(self, move: Move | str) -> tuple[State, list[Event]]:
        """Play ``move`` (or its text); returns the new state and the events, in order.

        Raises :class:`~stratstone_cad.errors.RuleViolation` naming the ply, the move and
        the rule it breaks.
        """

    @abstractmethod
    def random_move(self, rng: random.Random) -> Move:
        """A legal move drawn uniformly from ``legal_moves()`` with ``rng``."""

    @abstractmethod
    def greedy_move(self, rng: random.Random) -> Move:
        """The ``greedy`` player's move: a win now if there is one, else the game's best
        capture or advance, ties broken with ``rng`` (deterministic for its state)."""

    @abstractmethod
    def board_text(self) -> str:
        """The position on several lines for a terminal, with the coordinates the move text uses."""

    @abstractmethod
    def pieces_on(self, square: str) -> tuple[str, ...]:
        """What stands on ``square`` (its text, as the log writes it), bottom first, each
        piece as the rules know it: its colour (Stratstone's stack of stones, Sage Stones'
        gem) or its colour and kind (the terrain game's ``"red runner"``); ``()`` when the
        square is empty."""

    def move_prior(self) -> list[float] | None:
        """The search's prior over ``legal_moves()`` (a probability each, in that order), or
        ``None`` for no preference (uniform): the default. A game whose states give one says
        so with :attr:`Game.search_prior`; the search then picks moves by PUCT
        (:mod:`stratstone_cad.analysis.players`)."""
        return None

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


class NoChance(State):
    """The chance step of a game without dice: never due; rolling or applying dice is a
    :class:`RuleViolation` naming the game (``GAME_TITLE``, e.g. ``"Stratstone"``)."""

    __slots__ = ()
    GAME_TITLE: ClassVar[str] = "this game"
    ply: int

    def is_chance(self) -> bool:
        """No dice in this game: always False."""
        return False

    def roll(self, rng: random.Random) -> tuple[int, ...]:
        """No dice in this game; raises :class:`RuleViolation`.

        Raises:
            RuleViolation: always: the game has no dice.
        """
        raise RuleViolation("roll", self.ply + 1, f"is not part of {self.GAME_TITLE} (no dice)")

    def chance_outcomes(self) -> list[tuple[tuple[int, ...], Fraction]]:
        """No dice in this game: never any outcome."""
        return []

    def apply_chance(self, outcome: Sequence[int]) -> tuple[Any, list[Event]]:
        """No dice in this game; raises :class:`RuleViolation`.

        Raises:
            RuleViolation: always: the game has no dice.
        """
        raise RuleViolation(f"dice {short_repr(list(outcome) if isinstance(outcome, list | tuple) else outcome, 55)}",
                            self.ply + 1, f"are not part of {self.GAME_TITLE}")


class Game(ABC):
    """A game engine, registered by name. Stateless: every method is a pure function.

    Everything a caller needs to know about a game comes from here (OpenSpiel's GameInfo
    is the model): the log, ``play``, ``record`` and the players hold no branch on a
    game's name or class, so a new game touches only its own module and its registration.
    What an engine must define itself is abstract (a game missing one cannot be
    instantiated: Python's TypeError names it); the rest has a default: no dice, two
    players, ``play`` starts from the setup given, no warnings, no map, no board, and no
    fast checks (every line goes through the schema).
    """

    @property
    @abstractmethod
    def name(self) -> str:
        """The log's ``game`` value, e.g. ``"stratstone"``."""

    @property
    @abstractmethod
    def rules(self) -> str:
        """The rules version, bumped whenever the rules change, e.g. ``"stratstone/1"``."""

    @property
    @abstractmethod
    def max_legal_moves(self) -> int:
        """The most legal moves any position of the game can have, setups included: the size of the
        action space when an action numbers a position's moves in ``legal_moves()`` order
        (OpenSpiel's ``num_distinct_actions``, :mod:`stratstone_cad.analysis.spiel`)."""

    chance_field: str | None = None
    """Name of the per-ply chance field in the log (``"dice"``), or ``None``."""
    move_text: str = "the move as the game's log writes it"
    """How a move is written in the log and typed at ``record``'s prompt, with an example
    (``"a square a1-d4, a space and 1-24 steps of N/E/S/W, e.g. 'b2 NNE'"``)."""
    max_chance_outcomes = 0
    """The most outcomes one chance step can have (``0``: no chance), as OpenSpiel's GameInfo says it."""
    search_simulations = 300
    """The simulations of the ``search`` player without a budget (``search``): about a second
    a move on the 2-core benchmark machine (docs/benchmarks.md); a game whose playouts are
    cheap gets more of them."""
    search_prior = False
    """Whether the game's states give the search a prior over their moves
    (:meth:`State.move_prior`): the search then picks the move to explore by PUCT (the
    prior steers it to the likely moves first) instead of UCT (every move tried once
    before any twice), which wastes a small budget on a wide position."""
    map_fields: tuple[str, ...] = ()
    """The setup fields that give the board's map, for a game played on a map (the terrain
    game: ``("heightmap", "terrain_seed")``), else ``()``. ``play`` puts a map file into the
    first; a recorded game must give one of them (the board at the table)."""
    squares: tuple[str, ...] = ()
    """Every square's text, as the log writes it (``"a1"``, ``"5-7"``)."""

    @abstractmethod
    def new_setup(self, n_players: int, setup: Mapping[str, Any] | None, rng: random.Random) -> tuple[list[str], dict[str, Any]]:
        """Complete a partial setup for ``n_players`` into the explicit one a log records.

        Returns the player ids (in the order of the player list given to ``play``) and the
        setup dict. Raises :class:`~stratstone_cad.errors.SetupError` (a
        :class:`~stratstone_cad.errors.UserError`) with a one-line message on a wrong
        player count or setup.
        """

    @abstractmethod
    def initial_state(self, players: Sequence[str], setup: Mapping[str, Any]) -> State:
        """The state before ply 1, from the header's player ids and setup; raises SetupError."""

    @abstractmethod
    def derived(self, before: State, after: State, events: Sequence[Event]) -> dict[str, Any]:
        """The derived facts of a ply, as the log may carry them (e.g. ``captured``; ``{}``: none)."""

    def explain(self, before: Any, after: Any, events: Sequence[Event]) -> str:
        """A ply in words, for a player following the game (``check-log --explain``,
        ``record``): what the rules counted to allow it, read from its ``events`` (the chance
        events first), which carry it. ``before`` is the state before the ply (before its
        roll), ``after`` the state after it. E.g. ``Lancer, 1 + 3 = 4 of 4 (charge)``.
        The default: each event's own words (:func:`~stratstone_cad.engine.events.event_words`)."""
        return "; ".join(w for w in map(event_words, events) if w)

    def load_map(self, path: Any) -> Any:
        """The checked map in the file ``path`` (a game with ``map_fields`` only); raises a
        one-line :class:`~stratstone_cad.errors.UserError` naming the file or the fault."""
        raise TypeError(f"{self.name} is not played on a map")

    def default_players(self, setup: Mapping[str, Any] | None) -> int:
        """How many players a game from ``setup`` has when nobody says: two by default."""
        return 2

    def play_setup(self, setup: Mapping[str, Any] | None, seed: int) -> Mapping[str, Any] | None:
        """The setup ``play`` starts from with ``seed`` (the terrain game draws its map from
        it); the setup given by default."""
        return setup

    def setup_warnings(self, setup: Mapping[str, Any]) -> list[str]:
        """Words about a valid but doubtful setup (an unfair map), one line each."""
        return []

    def fast_ply(self, line: dict[str, Any], ids: frozenset[str]) -> bool:
        """True when a ply line has the usual shape of this game's plies: a check strictly
        narrower than the log schema, so the schema is skipped (``ids``: the header's
        player ids, already checked against the id pattern). False sends the line to the
        schema, which words the error."""
        return False

    def fast_header(self, players: list[str], setup: dict[str, Any]) -> bool:
        """True when the header's ``players`` (checked ids) and ``setup`` (an object) are
        the usual ones ``play`` writes: strictly narrower than the schema, as for plies."""
        return False

    def ledger(self, state: Any) -> PieceLedger:
        """Every physical piece of the set and where each is in ``state`` (a state the game
        starts from: the ledger then follows its events); see :class:`PieceLedger`."""
        return PieceLedger((), {})  # a game without pieces to tell apart

    def parse_square(self, text: str) -> tuple[int, int]:
        """(column, row) of a square, 0-based from the board's lower-left corner (``"b3"`` is
        (1, 2) in Stratstone, ``"5-7"`` (2, 6) in Sage Stones); raises
        :class:`~stratstone_cad.errors.SquareError`.

        Raises:
            SquareError: the game has no board, or the text is not one of its squares.
        """
        raise SquareError(f"{short_repr(text)} is not a square ({self.name} has no board)")


def softmax(logits: Sequence[float]) -> list[float]:
    """``exp(l)`` of each logit over their sum: a move prior (:meth:`State.move_prior`) from
    scores where one more point is e (2.7) times as likely."""
    top = max(logits)
    weights = [math.exp(x - top) for x in logits]
    total = sum(weights)
    return [w / total for w in weights]


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
