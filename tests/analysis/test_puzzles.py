"""Puzzles from real games (``stratstone-cad puzzles``): exactly one move wins at once or
saves the game, found by trying every move and every reply; the position each puzzle
carries replays to the ply before it (what ``replay --puzzle N`` shows)."""

from __future__ import annotations

import json
import random

import pytest

from stratstone_cad.analysis.puzzles import position_log, solution
from stratstone_cad.cli import main
from stratstone_cad.errors import LogError, PuzzleError
from stratstone_cad.log import logfile as _log
from stratstone_cad.log.commands import play_records
from stratstone_cad.registry import get_game
from tests.analysis.test_players import FLAT, ONE_WIN, winning_moves


def state_of(name, setup):
    engine = get_game(name)
    ids, full = engine.new_setup(2, setup, random.Random(0))
    return engine.initial_state(ids, full)


@pytest.mark.parametrize("name", sorted(ONE_WIN))
def test_the_only_win_is_a_puzzle(name):
    setup, win = ONE_WIN[name]
    kind, move = solution(state_of(name, setup))
    assert (kind, str(move)) == ("win", win)


def test_a_win_is_a_puzzle_when_it_is_the_only_one():
    """Over whole games (Stratstone seed 1 has two wins at ply 7, seed 2 one at ply 15):
    a position is a puzzle to win exactly when one of its moves wins at once."""
    counts = set()
    for seed in (1, 2):
        records = play_records("stratstone", seed, ["greedy", "random"])
        with _log.LogWalk(iter(enumerate(records, 1))) as r:
            for step in r:
                wins = winning_moves(step.before)
                found = solution(step.before)
                assert (found is not None and found[0] == "win") == (len(wins) == 1)
                counts.add(min(len(wins), 2))
    assert counts == {0, 1, 2}


def pieces(**squares):
    return {"heightmap": FLAT, "first": "blue", "pieces": {"c10": "red guardian", "a1": "red runner", **squares}}


def test_the_only_move_that_stops_a_win_is_a_puzzle():
    """Red's Guardian on c10 exits next; only blue's Guardian on b9, taking it, stops that."""
    state = state_of("terrain", pieces(b9="blue guardian", j3="blue lancer"))
    kind, move = solution(state)
    assert (kind, str(move)) == ("save", "b9xc10")


def test_a_lost_position_is_no_puzzle():
    state = state_of("terrain", pieces(j1="blue runner", j3="blue lancer"))
    after = [state.apply(m)[0] for m in state.legal_moves()]
    assert all(winning_moves(a) for a in after) and solution(state) is None


def test_puzzles_of_played_games_and_their_positions(tmp_path, capsys):
    logs = []
    for seed in (2, 4):
        logs.append(tmp_path / f"g{seed}.jsonl")
        _log.write_log(logs[-1], play_records("stratstone", seed, ["greedy", "random"]))
    out = tmp_path / "puzzles.jsonl"
    assert main(["puzzles", *map(str, logs), "--out", str(out)]) == 0
    puzzles = [json.loads(line) for line in out.read_text().splitlines()]
    assert capsys.readouterr().out.startswith(f"wrote {out}: {len(puzzles)} puzzles (")
    assert [(p['source'], p['ply']) for p in puzzles] == sorted((p['source'], p['ply']) for p in puzzles)
    assert len(puzzles) >= 2
    for n, p in enumerate(puzzles, 1):
        log = position_log(out, n, tmp_path)
        with _log.walk_log(log) as r:
            state = r.run()
        assert state.ply == p["ply"] - 1 and str(state.to_move()) == p["player"]
        kind, move = solution(state)
        assert (kind, str(move)) == (p["kind"], p["solution"]) and p["source"] in map(str, logs)


def test_a_puzzle_number_out_of_range(tmp_path):
    out = tmp_path / "none.jsonl"
    out.write_text("")
    with pytest.raises(PuzzleError, match="--puzzle 1: .* holds 0 puzzles"):
        position_log(out, 1, tmp_path)


@pytest.fixture
def puzzle_file(tmp_path):
    """A puzzle file of one played Stratstone game, and its puzzles."""
    log = tmp_path / "g2.jsonl"
    _log.write_log(log, play_records("stratstone", 2, ["greedy", "random"]))
    out = tmp_path / "puzzles.jsonl"
    assert main(["puzzles", str(log), "--out", str(out)]) == 0
    return out, [json.loads(line) for line in out.read_text().splitlines()]


@pytest.mark.parametrize(("change", "message"), [
    (lambda p: p.update(game="terrain"), "game 'terrain': its position is a game of stratstone"),
    (lambda p: p.update(solution="zz"), "solution 'zz': "),
    (lambda p: p["position"]["log"][1].update(move="a1 SSSS"), "its position's line 2, ply 1: "),
])
def test_a_bad_puzzle_is_refused_naming_the_puzzle_files_line(puzzle_file, tmp_path, change, message):
    out, puzzles = puzzle_file
    change(puzzles[-1])
    out.write_text("".join(json.dumps(p) + "\n" for p in puzzles))
    with pytest.raises(LogError) as e:
        position_log(out, len(puzzles), tmp_path / "t")
    assert str(e.value).startswith(f"{out} line {len(puzzles)}: {message}"), str(e.value)


def test_a_bad_log_among_the_puzzles_logs_is_named(tmp_path, capsys):
    good, bad = tmp_path / "a.jsonl", tmp_path / "bad.jsonl"
    _log.write_log(good, play_records("stratstone", 2, ["greedy", "random"]))
    bad.write_text(good.read_text().replace('"ply": 1,', '"ply": 9,', 1).replace('"ply":1,', '"ply":9,', 1))
    assert main(["puzzles", str(good), str(bad), "--out", str(tmp_path / "p.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"stratstone-cad: error: {bad}: line 2") and err.count("\n") == 1, err


def test_a_log_given_twice_is_read_once_and_said(tmp_path, capsys):
    log = tmp_path / "a.jsonl"
    _log.write_log(log, play_records("stratstone", 2, ["greedy", "random"]))
    once, twice = tmp_path / "once.jsonl", tmp_path / "twice.jsonl"
    assert main(["puzzles", str(log), "--out", str(once)]) == 0
    capsys.readouterr()
    assert main(["puzzles", str(log), str(log), "--out", str(twice)]) == 0
    assert twice.read_text() == once.read_text()
    assert capsys.readouterr().out.rstrip().endswith(f"from 1 log ({log} given twice: read once)")
