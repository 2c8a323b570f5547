"""What a game's rules say happened: the result of a game and the events of a ply.

Events are what the viewer animates and what ``check-log --explain`` words; each engine's
``apply`` returns them in order (:mod:`stratstone_cad.engine.protocol`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

__all__ = [
    "DRAW_AGREED",
    "RESIGNATION",
    "TIME_OUT",
    "Attacked",
    "BoardReset",
    "Captured",
    "DiceRolled",
    "Event",
    "Exited",
    "ExtraTurn",
    "GameOver",
    "Moved",
    "Placed",
    "Result",
    "Sown",
    "Term",
    "Trapped",
    "TurnLost",
    "event_words",
    "sum_text",
]


# --------------------------------------------------------------------------- results


RESIGNATION = "resignation"
"""The reason of a result line for a game resigned at the table (two players only)."""
DRAW_AGREED = "draw agreed"
"""The reason of a result line for a draw the players agreed at the table."""
TIME_OUT = "out of time"
"""The reason of a result line for a game lost on the clock (two players only: the winner
is the player whose time did not run out), as the studio's Play room writes it."""


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
