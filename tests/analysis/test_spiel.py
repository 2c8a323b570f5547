"""Every registered engine as an OpenSpiel game: OpenSpiel's own conformance test, the
actions as the log's move text, the dice's exact probabilities, the returns.

The games come from the registry (never a hand-written list), so a game added later is
tested too.
"""

from __future__ import annotations

import random
from collections import Counter

import pyspiel
import pytest

from stratstone_cad.analysis import spiel
from stratstone_cad.registry import game_names, get_game

GAMES = game_names()
MASK_TEST_MOST = 100_000
"""OpenSpiel's mask test builds a vector of num_distinct_actions per state: Stratstone's
146,335,670 would take 0.6 GB and 18 s a playout, so the mask test runs up to this size."""


def playout_states(name: str, seed: int, plies: int = 400):
    """The OpenSpiel states of one random playout of ``name`` (the wrapper's default game)."""
    yield from playout_states_of(spiel.load(name, seed=seed), seed, plies)


@pytest.mark.parametrize("name", GAMES)
def test_openspiel_conformance(name):
    spiel.register_games()
    game = pyspiel.load_game(spiel.spiel_name(name))
    assert isinstance(game, spiel.EngineGame) and game.num_players() == 2
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False,
                            mask_test=game.num_distinct_actions() <= MASK_TEST_MOST)


@pytest.mark.parametrize("name", GAMES)
def test_the_game_facts_come_from_the_engine(name):
    engine = get_game(name)
    game = spiel.load(name)
    assert game.num_distinct_actions() == engine.max_legal_moves
    assert game.max_chance_outcomes() == engine.max_chance_outcomes
    chance = game.get_type().chance_mode
    assert (chance == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC) == (engine.chance_field is not None)
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)


@pytest.mark.parametrize("name", GAMES)
def test_an_action_is_a_move_of_the_log_and_back(name):
    """Every legal action of every position of a playout: its text is the move's text in
    the log, it parses back to the same action, and applying it is applying that move."""
    seen = 0
    for state in playout_states(name, seed=5, plies=60):
        if state.is_terminal():
            break
        player = state.current_player()
        engine = state.engine_state()
        if state.is_chance_node():
            outcomes = engine.chance_outcomes()
            for a, _ in state.chance_outcomes():
                text = state.action_to_string(player, a)
                assert text == "-".join(map(str, outcomes[a][0]))
                assert spiel.action_of(state, text) == a
            continue
        legal = state.legal_actions()
        moves = list(engine.legal_moves())
        assert legal == list(range(len(moves))) and len(moves) <= state.get_game().num_distinct_actions()
        for a in legal[:40]:
            text = state.action_to_string(player, a)
            assert text == str(moves[a])
            assert spiel.action_of(state, text) == a
            assert state.string_to_action(text) == a  # OpenSpiel's own search of the texts agrees
            child = state.child(a)
            assert child.engine_state() == engine.apply(text)[0]
            seen += 1
    assert seen > 20


@pytest.mark.parametrize("name", [n for n in GAMES if get_game(n).max_chance_outcomes])
def test_chance_nodes_have_the_dice_exact_probabilities(name):
    """The outcomes are the engine's, they sum to exactly 1, and the engine's own roll
    draws them with those probabilities (27,000 rolls, each count within 5 sigma)."""
    state = next(s for s in playout_states(name, seed=1) if s.is_chance_node())
    engine = state.engine_state()
    outcomes = engine.chance_outcomes()
    assert sum(p for _, p in outcomes) == 1 and all(p > 0 for _, p in outcomes) and len(outcomes) <= get_game(name).max_chance_outcomes
    assert len({o for o, _ in outcomes}) == len(outcomes)
    assert state.chance_outcomes() == [(i, float(p)) for i, (_, p) in enumerate(outcomes)]
    rng = random.Random(0)
    n = 27_000
    counts = Counter(tuple(engine.roll(rng)) for _ in range(n))
    assert set(counts) <= {o for o, _ in outcomes}
    for o, p in outcomes:
        expected = n * p
        sigma = (n * p * (1 - p)) ** 0.5
        assert abs(counts[o] - expected) < 5 * sigma, (o, counts[o], float(expected))


@pytest.mark.parametrize("name", GAMES)
def test_returns_follow_the_engine_result(name):
    """Random playouts to the end: the winner +1 and the other -1, a draw 0 and 0."""
    results = Counter()
    for seed in range(40):
        if results[(1.0, -1.0)] + results[(-1.0, 1.0)] and seed >= 3:
            break
        *_, last = playout_states(name, seed=seed, plies=10_000)
        assert last.is_terminal()
        result = last.engine_state().result()
        ids = last.engine_state().player_ids()
        expected = [0.0, 0.0] if result is None or result.winner is None else \
            [1.0 if pid == result.winner else -1.0 for pid in ids]
        assert last.returns() == expected
        results[tuple(expected)] += 1
    assert results[(1.0, -1.0)] + results[(-1.0, 1.0)] >= 1


def test_a_game_of_more_players_shares_out_the_loss():
    engine = get_game("sage-stones")
    game = spiel.load("sage-stones", players=4)
    assert game.num_players() == 4 and game.get_type().max_num_players == 6
    *_, last = playout_states_of(game, seed=3)
    winner = last.engine_state().result().winner
    assert last.returns() == [1.0 if pid == winner else -1 / 3 for pid in last.engine_state().player_ids()]
    assert engine.name == "sage-stones"


def playout_states_of(game, seed, plies: int | None = None):
    """The states of one random playout of the OpenSpiel ``game``, ``plies`` at most (None: to its end)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    while not state.is_terminal() and plies != 0:
        yield state
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        plies = None if plies is None else plies - 1
    yield state


def test_the_ply_limit_ends_a_game_as_a_draw():
    game = spiel.load("stratstone", max_plies=3)
    state = game.new_initial_state()
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    assert state.is_terminal() and state.returns() == [0.0, 0.0] and game.max_game_length() == 3


def test_stratstone_reaches_its_most_legal_moves():
    """The action space is Stratstone's true maximum: 23 stones on one square."""
    engine = get_game("stratstone")
    state = engine.initial_state(["yellow", "red"], {
        "first": "red", "stacks": {"b2": ["tan"] * 8 + ["yellow"] * 8 + ["red"] * 7}})
    assert state.count_legal_moves() == engine.max_legal_moves == 146_335_670


@pytest.mark.parametrize(("params", "message"), [
    ({"players": 0}, "players 0 is not an integer of at least 1"),
    ({"setup": "{oops"}, "setup '{oops' is not JSON text"),
    ({"colour": "red"}, "unknown parameter 'colour'"),
])
def test_bad_parameters_are_one_line_errors(params, message):
    with pytest.raises(ValueError, match=message):
        spiel.load("stratstone", **params)
