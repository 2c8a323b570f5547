"""Puzzles to depth 3 (``puzzles --depth 3``: a win in two moves, proven by OpenSpiel's
alpha-beta search) and the puzzle sets shipped in the package."""

from __future__ import annotations

import json
import random

import pytest
from open_spiel.python.algorithms import minimax

from stratstone_cad.analysis import spiel
from stratstone_cad.analysis.puzzles import (
    DEPTHS,
    deep_search,
    read_puzzle,
    shipped_puzzles,
    solution,
    win_in_two,
)
from stratstone_cad.cli import analysis as cli_analysis
from stratstone_cad.cli import main
from stratstone_cad.errors import PuzzleError
from stratstone_cad.registry import game_names, get_game
from tests.analysis.test_players import ONE_WIN

FLAT = [[0] * 10 for _ in range(10)]
# Red's Guardian on e7 reaches rank 8, 9 or 10 in one move and exits the next: seven moves win in two
MANY = {"heightmap": FLAT, "first": "red",
        "pieces": {"e7": "red guardian", "h1": "red runner", "i10": "blue guardian", "j10": "blue lancer"}}
# Found in self-play (search:30 vs search:30 seed 1, ply 12), set up by hand: only a2 SEE wins in two
UNIQUE = ("stratstone", {"first": "red", "stacks": {
    "c4": ["tan"], "a3": ["tan", "yellow", "yellow"], "c3": ["tan", "yellow"], "d3": ["tan"], "a2": ["red", "tan"],
    "c2": ["yellow", "red"], "d2": ["tan"], "b1": ["tan", "tan", "yellow"], "c1": ["red", "yellow", "red", "red"]}}, "a2 SEE")
LEAST, LEAST_DEEP = 30, 5  # the minimums: puzzles a game, wins in two (games searched that deep)


def state_of(name, setup):
    engine = get_game(name)
    ids, full = engine.new_setup(2, setup, random.Random(0))
    return engine.initial_state(ids, full)


def wins_in_two(name, state, move):
    """Whether ``move`` wins in two, asked of OpenSpiel's alpha-beta search directly."""
    game = spiel.load(name, players=2)
    after = state.apply(state.parse_move(move))[0]
    seat = state.player_ids().index(state.to_move())
    value, _ = minimax.alpha_beta_search(game, game.state_of(after), value_function=lambda s: 0.0, maximum_depth=2,
                                         maximizing_player_id=seat)
    return value == 1.0


def test_a_unique_win_in_two_is_found():
    name, setup, move = UNIQUE
    state = state_of(name, setup)
    assert solution(state) is None
    assert str(win_in_two(get_game(name), state)) == move and wins_in_two(name, state, move)


def test_two_wins_in_two_or_a_win_in_one_make_no_depth_3_puzzle():
    state = state_of("terrain", MANY)
    assert wins_in_two("terrain", state, "e7-e10") and wins_in_two("terrain", state, "e7-e9")
    assert win_in_two(get_game("terrain"), state) is None
    setup, win = ONE_WIN["terrain"]
    won = state_of("terrain", setup)
    assert win_in_two(get_game("terrain"), won) is None and solution(won) == ("win", won.parse_move(win))


def shipped(name):
    path = shipped_puzzles(name)
    return path, [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("name", game_names())
def test_the_shipped_puzzles_replay_and_meet_the_minimums(name, tmp_path):
    path, puzzles = shipped(name)
    deep = sum(p["depth"] == 3 for p in puzzles)
    assert len(puzzles) >= LEAST and {p["game"] for p in puzzles} == {name}
    assert deep >= LEAST_DEEP if deep_search(get_game(name), 2) else deep == 0
    for n, p in enumerate(puzzles, 1):
        puzzle = read_puzzle(path, n, tmp_path)  # replays the position; the solution is a legal move there
        assert (puzzle.depth, puzzle.solution) == (p["depth"], p["solution"])
        assert p["source"].startswith("self-play search:") and f"seed {p['position']['log'][0]['seed']}" in p["source"]


@pytest.mark.parametrize("name", game_names())
def test_a_sample_of_the_shipped_puzzles_is_proved_again(name, tmp_path):
    path, puzzles = shipped(name)
    engine = get_game(name)
    for depth in DEPTHS:
        numbers = [n for n, p in enumerate(puzzles, 1) if p["depth"] == depth][:2]
        for n in numbers:
            puzzle = read_puzzle(path, n, tmp_path)
            found = solution(puzzle.state) if depth == 1 else ("win", win_in_two(engine, puzzle.state))
            assert (found[0], str(found[1])) == (puzzle.kind, puzzle.solution)


def test_a_line_without_depth_reads_as_depth_1(tmp_path):
    _, puzzles = shipped("sage-stones")
    line = dict(puzzles[0])
    del line["depth"]
    old = tmp_path / "old.jsonl"
    old.write_text(json.dumps(line) + "\n")
    puzzle = read_puzzle(old, 1, tmp_path)
    assert puzzle.depth == 1 and "in one" in puzzle.task


def test_a_win_in_two_says_so(tmp_path):
    path, puzzles = shipped("terrain")
    n = next(n for n, p in enumerate(puzzles, 1) if p["depth"] == 3)
    puzzle = read_puzzle(path, n, tmp_path)
    assert puzzle.heading == f"puzzle {n}: {puzzles[n - 1]['player']} to move, win in two moves"


def test_a_depth_other_than_1_or_3_is_refused_in_one_line(tmp_path, capsys):
    log = tmp_path / "g.jsonl"
    log.write_text("")
    with pytest.raises(SystemExit) as e:  # argparse's refusal
        main(["puzzles", str(log), "--depth", "2", "--out", str(tmp_path / "p.jsonl")])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--depth" in err and "2" in err and not (tmp_path / "p.jsonl").exists()
    assert cli_analysis.DEPTHS == DEPTHS


def test_no_shipped_puzzles_for_an_unknown_game():
    with pytest.raises(PuzzleError, match="game 'chess': no shipped puzzles"):
        shipped_puzzles("chess")
