"""The player kinds ``play`` takes: the built-in ``random`` and ``greedy``, and ``search``.

``search`` is OpenSpiel's MCTS (``open_spiel.python.algorithms.mcts.MCTSBot`` with the
:class:`~stratstone_cad.analysis.evaluators.GreedyRolloutEvaluator`: one greedy playout to
the end per simulation, dice drawn with their probabilities; UCT, and MCTS-Solver's proven wins) on the game wrapped by
:mod:`stratstone_cad.analysis.spiel`. Its budget follows a colon:

- ``search:N``: ``N`` simulations a move (:data:`MIN_SIMULATIONS` to :data:`MAX_SIMULATIONS`); reproducible, as
  every player is: its randomness is drawn from the ``random.Random`` that ``play`` gives
  the player (seeded from the game's seed), so one seed plays one game;
- ``search:2s`` (or ``search:0.5s``): as many simulations as fit in that many seconds of
  thinking (0.01 to :data:`MAX_SECONDS`), at least two; depends on the machine's speed;
- ``search``: the game's ``search_simulations`` (:data:`DEFAULT_SIMULATIONS`, 300, unless the
  game says more: about a second a move).

A bad kind or budget raises :class:`~stratstone_cad.errors.PlayerKindError` (a
one-line :class:`~stratstone_cad.errors.UserError`: the CLI prints it and exits 2).
OpenSpiel is imported when a search player is made, never for ``random`` or ``greedy``.
"""

from __future__ import annotations

import random
import re
import time
from typing import Any

from stratstone_cad.engine.players import BUILT_IN_PLAYERS, Player, get_player
from stratstone_cad.engine.protocol import Game, Move, State
from stratstone_cad.errors import PlayerKindError, short_repr

__all__ = ["DEFAULT_SIMULATIONS", "MAX_SECONDS", "MAX_SIMULATIONS", "MIN_SIMULATIONS", "PLAYER_KINDS", "UCT_C", "SearchPlayer",
           "evaluator", "make_player", "parse_search", "selection"]

SEARCH = "search"
PLAYER_KINDS = (*sorted(BUILT_IN_PLAYERS), SEARCH)
"""Every player kind's name (``search`` takes a budget after a colon)."""
DEFAULT_SIMULATIONS = Game.search_simulations
"""The simulations of ``search`` without a budget for a game that says no other
(``Game.search_simulations``): 300, about 1 s a Stratstone move on the shared 2-core
benchmark machine at a load of 2 (2.3 s at a load of 3.5); Sage Stones says 2,000
(docs/benchmarks.md)."""
MIN_SIMULATIONS = 2
"""OpenSpiel's first simulation evaluates the root, the second expands it: a search of one
simulation has no move to choose (``MCTSBot`` fails on it)."""
MAX_SIMULATIONS = 1_000_000
MAX_SECONDS = 3600.0
MIN_SECONDS = 0.01
UCT_C = 2.0
"""UCT's exploration constant (OpenSpiel's examples use 2 for games won or lost, returns in [-1, 1])."""

_BUDGET = re.compile(r"(\d{1,20}|\d{1,20}\.\d{1,20}(?=s)|\.\d{1,20}(?=s))(s?)", re.ASCII)
_EXPECTED = (f"a number of simulations from {MIN_SIMULATIONS} to {MAX_SIMULATIONS} (search:300) or seconds from {MIN_SECONDS:g} "
             f"to {MAX_SECONDS:g} (search:2s)")


def parse_search(kind: str) -> tuple[int | None, float | None]:
    """The budget of a ``search`` kind: ``(simulations, None)`` or ``(None, seconds)``;
    raises :class:`PlayerKindError` naming the kind and what was expected.

    Raises:
        PlayerKindError: the budget is not a count of simulations or seconds, or is out of range.
    """
    if kind == SEARCH:
        return DEFAULT_SIMULATIONS, None
    budget = kind.removeprefix(SEARCH + ":")
    match = _BUDGET.fullmatch(budget)
    if match is None:
        raise PlayerKindError(f"player kind {short_repr(kind)}: budget {short_repr(budget)} is not {_EXPECTED}")
    number, seconds = match.group(1), bool(match.group(2))
    value = float(number) if seconds else int(number)
    if seconds:
        if not MIN_SECONDS <= value <= MAX_SECONDS:
            raise PlayerKindError(f"player kind {short_repr(kind)}: {value:g} seconds is out of range: expected {_EXPECTED}")
        return None, float(value)
    if not MIN_SIMULATIONS <= value <= MAX_SIMULATIONS:
        raise PlayerKindError(f"player kind {short_repr(kind)}: {value} simulations is out of range: expected {_EXPECTED}")
    return int(value), None


def make_player(kind: str, game: Game) -> Player:
    """The player of ``kind`` for ``game``: ``random``, ``greedy``, or ``search[:budget]``;
    raises :class:`PlayerKindError` for an unknown kind or a bad budget.

    Raises:
        PlayerKindError: the kind is not a player kind.
    """
    if isinstance(kind, str) and (kind == SEARCH or kind.startswith(SEARCH + ":")):
        simulations, seconds = parse_search(kind)
        if kind == SEARCH:  # the game's own default: about a second a move
            simulations = game.search_simulations
        return SearchPlayer(game, simulations=simulations, seconds=seconds)
    if isinstance(kind, str) and kind in BUILT_IN_PLAYERS:
        return get_player(kind)
    raise PlayerKindError(f"unknown player kind {short_repr(kind)}: expected one of {', '.join(PLAYER_KINDS)} "
                          "(search with a budget: search:300, search:2s)")


class SearchPlayer:
    """OpenSpiel's MCTS as a player ``(state, rng) -> move`` of one game.

    Each move searches from ``state`` anew, with a numpy ``RandomState`` seeded from one
    draw of ``rng``: the same state and ``rng`` give the same move (with a simulation budget).
    """

    def __init__(self, game: Game, simulations: int | None = DEFAULT_SIMULATIONS, seconds: float | None = None) -> None:
        self.game = game
        self.simulations = simulations
        self.seconds = seconds
        self._spiel: dict[int, Any] = {}  # the wrapped game, by player count

    def __call__(self, state: State, rng: random.Random) -> Move:
        # start-up speed: OpenSpiel and numpy only once a search player moves
        import numpy as np

        from stratstone_cad.analysis import spiel

        n = len(state.player_ids())
        if n not in self._spiel:
            self._spiel[n] = spiel.game_class(self.game.name)({"players": n})
        wrapped = self._spiel[n].state_of(state)
        legal = wrapped.legal_actions()
        if len(legal) == 1:  # nothing to think about (a lost turn, a forced pass)
            return wrapped.move_of(legal[0])
        seed = rng.randrange(2**32)
        bot = _bot(self._spiel[n], self.simulations, self.seconds, np.random.RandomState(seed), selection(self.game))
        return wrapped.move_of(bot.step(wrapped))


def evaluator(random_state: Any) -> Any:
    """The OpenSpiel ``Evaluator`` of the search's leaves (the player's and the review's):
    one greedy playout (:class:`~stratstone_cad.analysis.evaluators.GreedyRolloutEvaluator`)."""
    from stratstone_cad.analysis.evaluators import GreedyRolloutEvaluator

    return GreedyRolloutEvaluator(random_state)


def selection(game: Game) -> Any:
    """OpenSpiel's child-selection function for ``game``'s search: ``SearchNode.puct_value``
    (PUCT: the prior steers the simulations) when the game gives a prior
    (:attr:`~stratstone_cad.engine.protocol.Game.search_prior`), else ``SearchNode.uct_value``
    (UCT, OpenSpiel's default)."""
    from open_spiel.python.algorithms import mcts

    return mcts.SearchNode.puct_value if game.search_prior else mcts.SearchNode.uct_value


def _bot(spiel_game: Any, simulations: int | None, seconds: float | None, random_state: Any, select: Any) -> Any:
    """An ``MCTSBot`` on ``spiel_game`` (the engine as an OpenSpiel game) with a budget of
    simulations, or of seconds, picking children by ``select``."""
    from open_spiel.python.algorithms import mcts

    leaves = evaluator(random_state)
    if seconds is None:
        return mcts.MCTSBot(spiel_game, UCT_C, simulations, leaves, solve=True, random_state=random_state,
                            child_selection_fn=select)

    class _OutOfTime(Exception):
        """The deadline passed: ends OpenSpiel's loop (caught below, never seen outside)."""

    class TimedBot(mcts.MCTSBot):
        """OpenSpiel's MCTS, stopped before the first simulation that starts after the
        deadline once the root has children (the search itself is OpenSpiel's: this only
        ends its loop early)."""

        def mcts_search(self, state: Any) -> Any:
            self._deadline = time.monotonic() + seconds
            self._root = None
            try:
                return super().mcts_search(state)
            except _OutOfTime:
                return self._root

        def _apply_tree_policy(self, root: Any, state: Any) -> Any:
            if self._root is not None and self._root.children and time.monotonic() >= self._deadline:
                raise _OutOfTime
            self._root = root
            return super()._apply_tree_policy(root, state)

    return TimedBot(spiel_game, UCT_C, MAX_SIMULATIONS, leaves, solve=True, random_state=random_state, child_selection_fn=select)
