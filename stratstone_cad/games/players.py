"""Built-in players: ``random`` and ``greedy``.

A player is a function ``(state, rng) -> move`` called when ``state`` waits for a move
(never at a chance step). Randomness comes only from the ``random.Random`` passed in, so
a game is reproducible from its seed.

- ``random``: a legal move drawn uniformly (``state.random_move(rng)``).
- ``greedy``: a move that wins at once when there is one; else the move that removes the
  most stones of other players (Sage Stones; the terrain game: an exit, then the best
  capture, then the move that advances most, see ``TerrainState.greedy_move``);
  ties, and positions with nothing to take, are broken uniformly at random.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from stratstone_cad.errors import GameError
from stratstone_cad.games import sage_stones, stratstone
from stratstone_cad.games.core import Move, short_repr

__all__ = ["PLAYER_KINDS", "Player", "PlayerKindError", "get_player", "greedy", "random_player"]

Player = Callable[[Any, random.Random], Move]


class PlayerKindError(GameError):
    """An unknown player kind."""


def random_player(state: Any, rng: random.Random) -> Move:
    """A legal move drawn uniformly among all legal moves."""
    return state.random_move(rng)


def greedy(state: Any, rng: random.Random) -> Move:
    """Win now if possible, else capture the most, else a uniformly random legal move."""
    if isinstance(state, stratstone.StratstoneState):
        wins = stratstone.winning_moves(state)
        if wins:
            return wins[rng.randrange(len(wins))]
        return state.random_move(rng)
    if isinstance(state, sage_stones.SageStonesState):
        return _greedy_sage(state, rng)
    hook = getattr(state, "greedy_move", None)  # other engines (terrain) provide their own
    if hook is not None:
        return hook(rng)
    return state.random_move(rng)


def _greedy_sage(state: sage_stones.SageStonesState, rng: random.Random) -> Move:
    moves = list(state.legal_moves())
    if len(moves) == 1 or not isinstance(moves[0], sage_stones.SagePlace):
        return moves[0]
    seat = state.seat
    if state.on_board[seat] == sage_stones.STONES - 1:  # any placement wins
        return moves[rng.randrange(len(moves))]
    me = state.owners[seat]
    board = state.board
    best: list[Move] = []
    best_score = -1_000
    for m in moves:
        score = 0
        for q in sage_stones.capture_squares(board, m.square, seat + 1):
            score += 1 if state.owners[board[q] - 1] != me else -1
        if score > best_score:
            best_score, best = score, [m]
        elif score == best_score:
            best.append(m)
    return best[rng.randrange(len(best))]


PLAYER_KINDS: dict[str, Player] = {"random": random_player, "greedy": greedy}


def get_player(kind: str) -> Player:
    """The built-in player called ``kind``; raises :class:`PlayerKindError`."""
    try:
        return PLAYER_KINDS[kind]
    except (KeyError, TypeError):
        kinds = ", ".join(sorted(PLAYER_KINDS))
        raise PlayerKindError(f"unknown player kind {short_repr(kind)}: expected one of {kinds}") from None
