"""The ``search`` player (OpenSpiel's MCTS on the wrapped games): it takes a win at once,
one seed plays one game, its budgets, and ``play --players search,...`` on the command line.

Sage Stones has no position where exactly one move wins at once: its only win is a
colour's tenth stone on the board, and every square the roll allows places it (or none
does), so the test of a single winning move runs for Stratstone and the terrain game.
"""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from stratstone_cad.analysis.players import DEFAULT_SIMULATIONS, SearchPlayer, make_player, parse_search
from stratstone_cad.errors import PlayerKindError
from stratstone_cad.log.commands import play_records
from stratstone_cad.registry import game_names, get_game

FLAT = [[0] * 10 for _ in range(10)]
# one position of each game where exactly one move wins at once (checked below)
ONE_WIN = {
    "stratstone": ({"first": "yellow", "stacks": {"a1": ["yellow"], "b1": ["yellow"], "c1": ["yellow"], "d3": ["tan"],
                                                  "a4": ["red"], "b4": ["red"], "c3": ["red"]}}, "d3 SS"),
    "terrain": ({"heightmap": FLAT, "pieces": {"c10": "red guardian", "a1": "red runner", "j1": "blue runner",
                                               "j3": "blue lancer"}}, "c10-exit"),
}


def winning_moves(state):
    me = state.to_move()
    return [str(m) for m in state.legal_moves() if (r := state.apply(m)[0].result()) is not None and r.winner == me]


@pytest.mark.parametrize("name", sorted(ONE_WIN))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_search_takes_the_only_win_at_once(name, seed):
    engine = get_game(name)
    setup, win = ONE_WIN[name]
    ids, full = engine.new_setup(2, setup, random.Random(0))
    state = engine.initial_state(ids, full)
    assert winning_moves(state) == [win]  # exactly one move wins
    n = len(list(state.legal_moves()))
    move = make_player(f"search:{n + 20}", engine)(state, random.Random(seed))
    assert str(move) == win


@pytest.mark.parametrize("name", game_names())
def test_one_seed_plays_one_game(name):
    """The same seed gives the same moves (the search's randomness comes from the game's
    seed); every move is legal (the log's records are replayed by play_records itself)."""
    kinds = ["search:8", "greedy"]
    a = play_records(name, 11, kinds, max_plies=4, make_player=make_player)
    b = play_records(name, 11, kinds, max_plies=4, make_player=make_player)
    assert a == b and len(a) >= 5


def test_a_time_budget_stops_at_the_first_simulation_after_it(monkeypatch):
    """On a clock that moves 0.1 s a reading, ``search:0.3s`` reads it for its deadline, then
    before each simulation once the root has children, and stops at the first reading at or
    past the deadline (0.1, 0.2, 0.3): a legal move after three simulations. (How long
    such a move takes on a real clock: scripts/bench_players.py --budget.)"""
    import types

    from stratstone_cad.analysis import players

    readings = []

    def monotonic() -> float:
        readings.append(len(readings) / 10)
        return readings[-1]

    monkeypatch.setattr(players, "time", types.SimpleNamespace(monotonic=monotonic))
    engine = get_game("stratstone")
    ids, setup = engine.new_setup(2, None, random.Random(0))
    state = engine.initial_state(ids, setup)
    move = make_player("search:0.3s", engine)(state, random.Random(0))
    assert move in list(state.legal_moves())
    assert readings == [0.0, 0.1, 0.2, 0.3]


@pytest.mark.parametrize(("kind", "budget"), [
    ("search", (DEFAULT_SIMULATIONS, None)), ("search:2", (2, None)), ("search:1000000", (1_000_000, None)),
    ("search:2s", (None, 2.0)), ("search:0.25s", (None, 0.25)), ("search:.5s", (None, 0.5)),
])
def test_budgets(kind, budget):
    assert parse_search(kind) == budget
    player = make_player(kind, get_game("stratstone"))
    assert isinstance(player, SearchPlayer) and (player.simulations, player.seconds) == budget


@pytest.mark.parametrize(("kind", "message"), [
    ("search:0", "player kind 'search:0': 0 simulations is out of range: expected a number of simulations from 2 to 1000000"),
    ("search:1", "player kind 'search:1': 1 simulations is out of range: expected a number of simulations from 2 to"),
    ("search:-5", "player kind 'search:-5': budget '-5' is not a number of simulations from 2 to 1000000 (search:300) "
                  "or seconds from 0.01 to 3600 (search:2s)"),
    ("search:nan", "budget 'nan' is not a number of simulations"),
    ("search:nans", "budget 'nans' is not a number of simulations"),
    ("search:infs", "budget 'infs' is not"),
    ("search:1000000000000", "1000000000000 simulations is out of range"),
    ("search:1e12", "budget '1e12' is not"),
    ("search:0s", "player kind 'search:0s': 0 seconds is out of range: expected"),
    ("search:1000000s", "1e+06 seconds is out of range"),
    ("search:", "budget '' is not"),
    ("search:2.5", "budget '2.5' is not"),
    ("search: 5", "budget ' 5' is not"),
    ("searchy", "unknown player kind 'searchy': expected one of greedy, random, search"),
    ("Search", "unknown player kind 'Search'"),
])
def test_bad_budgets_are_one_line_errors(kind, message):
    with pytest.raises(PlayerKindError) as e:
        make_player(kind, get_game("stratstone"))
    assert message in str(e.value) and "\n" not in str(e.value)


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stratstone_cad", *args], capture_output=True, text=True, timeout=300)


def test_play_with_search_on_the_command_line(tmp_path):
    log = tmp_path / "game.jsonl"
    r = run("play", "stratstone", "--seed", "4", "--players", "search:30,greedy", "--out", str(log))
    assert r.returncode == 0 and r.stdout.startswith(f"wrote {log}: stratstone, "), r.stderr
    assert run("check-log", str(log)).returncode == 0
    again = run("play", "stratstone", "--seed", "4", "--players", "search:30,greedy")
    assert again.stdout == log.read_text()


@pytest.mark.parametrize(("players", "message"), [
    ("search:0,greedy", "stratstone-cad: error: player kind 'search:0': 0 simulations is out of range: expected"),
    ("random,search:nan", "stratstone-cad: error: player kind 'search:nan': budget 'nan' is not a number of"),
    ("search:1000000000000,greedy", "1000000000000 simulations is out of range"),
    ("search:-1s,greedy", "budget '-1s' is not"),
    ("deep,greedy", "unknown player kind 'deep': expected one of greedy, random, search"),
])
def test_bad_search_budgets_on_the_command_line_exit_2(players, message):
    r = run("play", "stratstone", "--seed", "1", "--players", players)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
    assert r.stdout == "" and "Traceback" not in r.stderr


@pytest.mark.parametrize(("kinds", "setup"), [
    (["search:10", "greedy", "random", "random"], None),  # Sage Stones of four colours: max^n, the loss shared out
    (["greedy", "search:10"], {"variant": "two-player"}),  # two players of two colours each, ids p1 and p2
])
def test_search_plays_sage_stones_with_any_seating(kinds, setup):
    records = play_records("sage-stones", 2, kinds, setup, max_plies=12, make_player=make_player)
    assert len(records) >= 13 and records == play_records("sage-stones", 2, kinds, setup, max_plies=12,
                                                          make_player=make_player)


def test_random_and_greedy_never_load_openspiel():
    """OpenSpiel (and numpy) load only once a search player moves: play and the CLI's
    player maker stay as quick to start as before for the built-in kinds."""
    code = ("import sys; from stratstone_cad.analysis.players import make_player; "
            "from stratstone_cad.log.commands import play_records; "
            "play_records('sage-stones', 1, ['random', 'greedy'], make_player=make_player); "
            "print(sorted(m for m in ('pyspiel', 'numpy', 'open_spiel') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr


@pytest.mark.parametrize("name", game_names())
@pytest.mark.parametrize("kind", ["search:2", "search:0.01s"])
def test_the_smallest_budgets_still_choose_a_move(name, kind):
    """Even when the time is up before the first simulation ends (a terrain playout takes
    longer than 0.01 s), the search goes on until the root has its moves."""
    engine = get_game(name)
    ids, setup = engine.new_setup(2, engine.play_setup(None, 1), random.Random(0))
    state = engine.initial_state(ids, setup)
    if state.is_chance():
        state, _ = state.apply_chance(state.roll(random.Random(0)))
    assert make_player(kind, engine)(state, random.Random(1)) in list(state.legal_moves())
