"""The search's leaf evaluator: a greedy playout behind OpenSpiel's Evaluator interface."""

from __future__ import annotations

import random

import numpy as np
from open_spiel.python.algorithms import mcts

from stratstone_cad.analysis import spiel
from stratstone_cad.analysis.evaluators import GreedyRolloutEvaluator
from stratstone_cad.analysis.players import evaluator
from stratstone_cad.registry import get_game
from tests.analysis.test_players import ONE_WIN


def wrapped(name):
    engine = get_game(name)
    setup, _ = ONE_WIN[name]
    ids, full = engine.new_setup(2, setup, random.Random(0))
    return spiel.game_class(name)({"players": 2}).state_of(engine.initial_state(ids, full))


def test_the_search_evaluates_with_greedy_playouts_behind_openspiels_interface():
    leaves = evaluator(np.random.RandomState(0))
    assert isinstance(leaves, GreedyRolloutEvaluator) and isinstance(leaves, mcts.Evaluator)


def test_a_greedy_playout_takes_the_win_offered():
    """Where the mover wins at once, a playout without random moves ends in that win
    (a random playout takes it one time in the position's number of moves)."""
    for name in sorted(ONE_WIN):
        state = wrapped(name)
        mover = state.current_player()
        returns = GreedyRolloutEvaluator(np.random.RandomState(1), explore=0.0).evaluate(state)
        assert returns[mover] == 1.0 and returns.sum() == 0.0


def test_a_playout_too_long_is_a_draw_and_playouts_repeat_from_the_seed():
    state = wrapped("stratstone")
    assert list(GreedyRolloutEvaluator(np.random.RandomState(1), explore=0.0, max_playout=0).evaluate(state)) == [0.0, 0.0]
    runs = [[list(GreedyRolloutEvaluator(np.random.RandomState(7), explore=0.5).evaluate(state)) for _ in range(1)]
            for _ in range(2)]
    assert runs[0] == runs[1]
    prior = GreedyRolloutEvaluator(np.random.RandomState(1)).prior(state)
    assert [a for a, _ in prior] == state.legal_actions() and abs(sum(p for _, p in prior) - 1) < 1e-9


def test_the_search_takes_the_engines_move_prior_and_picks_by_puct_where_a_game_gives_one():
    """The terrain game gives a prior (State.move_prior): OpenSpiel's MCTS gets it from the
    evaluator, action by action, and picks children by PUCT, which reads it; a game with no
    prior keeps a uniform one and UCT."""
    from stratstone_cad.analysis.players import selection

    assert {"terrain", "stratstone"} <= set(ONE_WIN)
    for name in sorted(ONE_WIN):
        state = wrapped(name)
        given = state.engine_state().move_prior()
        prior = GreedyRolloutEvaluator(np.random.RandomState(1)).prior(state)
        assert [a for a, _ in prior] == state.legal_actions()
        game = get_game(name)
        if game.search_prior:
            assert [p for _, p in prior] == given
            assert selection(game) is mcts.SearchNode.puct_value
        else:
            assert given is None and len({p for _, p in prior}) == 1
            assert selection(game) is mcts.SearchNode.uct_value
    assert get_game("terrain").search_prior
