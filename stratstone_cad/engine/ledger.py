"""Which physical piece is where: the set's pieces named and followed through a game's events."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from stratstone_cad.engine.events import Event
from stratstone_cad.errors import GameError

__all__ = ["Named", "Piece", "PieceLedger", "numbered"]


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
        (the events contradict the ledger: a bug, never a user's fault).

        Raises:
            GameError: no piece stands on the square.
        """
        ids = self.squares.pop(square, None)
        if not ids:
            raise GameError(f"piece ledger: no piece on {square}")
        return ids

    def put(self, square: str, piece: str) -> None:
        """``piece`` on top of ``square``."""
        self.squares.setdefault(square, []).append(piece)

    def from_reserve(self, colour: str) -> str:
        """The next piece of ``colour`` to come into play.

        Raises:
            GameError: no piece of that kind is left in reserve.
        """
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
