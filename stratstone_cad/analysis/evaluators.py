"""The search's leaf evaluation: a greedy playout, as an OpenSpiel ``Evaluator``.

OpenSpiel's ``RandomRolloutEvaluator`` plays uniformly random moves to the end; in these
games a random side almost never takes a win it is offered, so a random playout says
little about a position (``search`` at 300 simulations won 4 and lost 6 of 10 against ``greedy`` at
Stratstone with it; docs/benchmarks.md). :class:`GreedyRolloutEvaluator` plays each
engine's own ``greedy_move`` instead (a win when there is one, else the best capture or
advance), with a random move one time in ten (:data:`EXPLORE`) so that playouts from one
position differ, and the dice drawn with their probabilities: the engine's own
:meth:`~stratstone_cad.engine.protocol.State.playout`. It implements OpenSpiel's
``Evaluator`` interface (``evaluate``, ``prior``: the engine's move prior where it gives
one, uniform as OpenSpiel's own otherwise) and is
handed to OpenSpiel's ``MCTSBot``: the search itself is OpenSpiel's.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from open_spiel.python.algorithms import mcts

__all__ = ["EXPLORE", "MAX_PLAYOUT", "GreedyRolloutEvaluator"]

EXPLORE = 0.1
"""The share of a playout's moves drawn at random instead of greedily."""
MAX_PLAYOUT = 200
"""A playout still going after this many plies counts as a draw."""


class GreedyRolloutEvaluator(mcts.Evaluator):  # type: ignore[misc]
    """One greedy playout to the end (see the module); returns every player's return."""

    def __init__(self, random_state: np.random.RandomState, explore: float = EXPLORE,
                 max_playout: int = MAX_PLAYOUT) -> None:
        self._rng = random.Random(int(random_state.randint(2**31)))
        self.explore = explore
        self.max_playout = max_playout

    def evaluate(self, state: Any) -> np.ndarray:
        """The returns at the end of one playout from ``state`` (an :class:`~.spiel.EngineState`)."""
        engine = state.engine_state().playout(self._rng, self.explore, self.max_playout)
        return np.array(state.returns_of(engine))

    def prior(self, state: Any) -> list[tuple[int, float]]:
        """The engine's move prior (:meth:`~stratstone_cad.engine.protocol.State.move_prior`;
        uniform over the legal actions when it gives none); the dice's own probabilities at
        a chance node."""
        if state.is_chance_node():
            return state.chance_outcomes()
        actions = state.legal_actions()
        prior = state.engine_state().move_prior()
        if prior is None:
            return [(a, 1.0 / len(actions)) for a in actions]
        return list(zip(actions, prior, strict=True))
