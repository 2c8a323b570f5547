"""Built-in players: ``random`` and ``greedy``.

A player is a function ``(state, rng) -> move`` called when ``state`` waits for a move
(never at a chance step). Randomness comes only from the ``random.Random`` passed in, so
a game is reproducible from its seed.

- ``random``: a legal move drawn uniformly (``state.random_move(rng)``).
- ``greedy``: a move that wins at once when there is one; else the move that removes the
  most stones of other players (Sage Stones; the terrain game: an exit, then the best
  capture, then the move that advances most, see ``TerrainState.greedy_move``);
  ties, and positions with nothing to take, are broken uniformly at random.

The third kind, ``search`` (OpenSpiel's MCTS), lives above the log, in
:mod:`stratstone_cad.analysis.players`, which makes every kind ``play`` takes.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from stratstone_cad.engine.protocol import Move
from stratstone_cad.errors import PlayerKindError, short_repr

__all__ = ["BUILT_IN_PLAYERS", "Player", "get_player", "greedy", "random_player"]

Player = Callable[[Any, random.Random], Move]


def random_player(state: Any, rng: random.Random) -> Move:
    """A legal move drawn uniformly among all legal moves."""
    return state.random_move(rng)


def greedy(state: Any, rng: random.Random) -> Move:
    """Win now if possible, else the game's best capture or advance (each engine's
    ``greedy_move``), else a uniformly random legal move."""
    return state.greedy_move(rng)


BUILT_IN_PLAYERS: dict[str, Player] = {"random": random_player, "greedy": greedy}


def get_player(kind: str) -> Player:
    """The built-in player called ``kind``; raises :class:`PlayerKindError`.

    Raises:
        PlayerKindError: the kind is not a player kind.
    """
    try:
        return BUILT_IN_PLAYERS[kind]
    except (KeyError, TypeError):
        kinds = ", ".join(sorted(BUILT_IN_PLAYERS))
        raise PlayerKindError(f"unknown player kind {short_repr(kind)}: expected one of {kinds}") from None
