"""The review of a game (``check-log --review``): wins in one found by trying every move,
forced plies, the played move's value measured, the classes' thresholds, the text and the
JSON, and bad budgets or logs in one line. Tiny budgets (search:20) and hand-built
positions: what is tested is what the review says of positions whose answer is known."""

from __future__ import annotations

import json
import math
import random

import pytest

from stratstone_cad.analysis import review
from stratstone_cad.analysis.review import CLASSES, FORCED, PlyReview, classify, parse_budget, review_position
from stratstone_cad.cli import main
from stratstone_cad.errors import ReviewError
from stratstone_cad.log import logfile as _log
from stratstone_cad.log.commands import play_records
from stratstone_cad.registry import get_game
from tests import LOGS
from tests.analysis.test_players import ONE_WIN, winning_moves


def one_win_state(name):
    engine = get_game(name)
    setup, win = ONE_WIN[name]
    ids, full = engine.new_setup(2, setup, random.Random(0))
    state = engine.initial_state(ids, full)
    assert winning_moves(state) == [win]
    return engine, state, win


@pytest.mark.parametrize("name", sorted(ONE_WIN))
def test_a_missed_win_in_one_is_at_best_an_inaccuracy_and_its_best_move_wins(name):
    engine, state, win = one_win_state(name)
    for move in list(state.legal_moves())[:3]:
        if str(move) == win:
            continue
        r = review_position(engine, state, move, 20, seed=1)
        assert CLASSES.index(r.cls) >= CLASSES.index("inaccuracy"), r
        assert r.best == win and r.expected_before == 1.0  # the move played may win later: still not best


@pytest.mark.parametrize("name", sorted(ONE_WIN))
def test_a_played_win_in_one_is_best(name):
    engine, state, win = one_win_state(name)
    r = review_position(engine, state, state.parse_move(win), 20, seed=1)
    assert (r.cls, r.best, r.move, r.expected_before, r.expected_after) == ("best", win, win, 1.0, 1.0)


def sage_plies():
    """Every ply of a two-player Sage Stones game (positions after the dice, the move played)."""
    records = play_records("sage-stones", 3, ["greedy", "random"], {"variant": "two-player"}, max_plies=40)
    engine = get_game("sage-stones")
    with _log.LogWalk(iter(enumerate(records, 1))) as r:
        for step in r:
            yield engine, step.before.apply_chance(step.chance)[0], step.move


def test_forced_is_one_legal_move_and_only_that():
    """Sage Stones judges the placement given the roll: a roll that leaves one placement
    (a lost turn) is forced, every other ply is judged."""
    seen = set()
    for engine, state, move in sage_plies():
        r = review_position(engine, state, state.parse_move(move), 8, seed=state.ply)
        n = len(list(state.legal_moves()))
        assert (r.cls == FORCED) == (n == 1) and r.legal == n, (r, n)
        assert r.player == state.to_move() and r.move == move
        seen.add(r.cls == FORCED)
    assert seen == {True, False}


def test_the_played_move_gets_its_share_of_the_search():
    """The move played is searched a quarter of the simulations at least, whatever the
    search thinks of it, so its expected score is measured, not guessed from one playout."""
    engine = get_game("stratstone")
    ids, setup = engine.new_setup(2, None, random.Random(0))
    state = engine.initial_state(ids, setup)
    moves = list(state.legal_moves())
    for played in (0, len(moves) // 2, len(moves) - 1):
        root, action, _ = review._search(engine, state, played, 80, seed=2)
        child = next(c for c in root.children if c.action == action)
        assert child.explore_count * review.PLAYED_SHARE >= root.explore_count - review.PLAYED_SHARE, child.explore_count


def test_the_review_searches_as_the_player_does_by_puct_where_the_game_gives_a_prior(monkeypatch):
    """The terrain game gives a prior: the review's search picks children by PUCT (the
    player's selection), its played move still given its share; Stratstone keeps UCT."""
    from open_spiel.python.algorithms import mcts

    calls = {"puct": 0, "uct": 0}
    for kind in calls:
        real = getattr(mcts.SearchNode, f"{kind}_value")

        def counted(child, parent_count, uct_c, real=real, kind=kind):
            calls[kind] += 1
            return real(child, parent_count, uct_c)

        monkeypatch.setattr(mcts.SearchNode, f"{kind}_value", counted)
    for name, used, unused in (("terrain", "puct", "uct"), ("stratstone", "uct", "puct")):
        calls.update(puct=0, uct=0)
        engine = get_game(name)
        ids, setup = engine.new_setup(2, engine.play_setup(None, 0), random.Random(0))
        state = engine.initial_state(ids, setup)
        root, action, _ = review._search(engine, state, 0, 40, seed=2)
        assert calls[used] > 0 and calls[unused] == 0, (name, calls)
        child = next(c for c in root.children if c.action == action)
        assert child.explore_count * review.PLAYED_SHARE >= root.explore_count - review.PLAYED_SHARE


@pytest.mark.parametrize(("loss", "cls"), [
    (-0.1, "best"), (0.0, "best"), (0.0001, "excellent"), (0.02, "excellent"), (0.0201, "good"), (0.05, "good"),
    (0.0501, "inaccuracy"), (0.10, "inaccuracy"), (0.1001, "mistake"), (0.20, "mistake"), (0.2001, "blunder"),
    (1.0, "blunder"),
])
def test_chess_com_thresholds(loss, cls):
    assert classify(loss) == cls


def test_accuracy_is_lichess_formula():
    assert review.accuracy(0.0) == pytest.approx(100.0, abs=1e-3)
    assert review.accuracy(1.0) == 0.0
    assert review.accuracy(0.10) == pytest.approx(103.1668 * math.exp(-0.4354) - 3.1669)


def test_the_same_review_twice():
    engine, state, win = one_win_state("terrain")
    move = next(m for m in state.legal_moves() if str(m) != win)
    assert review_position(engine, state, move, 20, seed=5) == review_position(engine, state, move, 20, seed=5)


def test_review_on_the_command_line(tmp_path, capsys):
    log = tmp_path / "game.jsonl"
    _log.write_log(log, play_records("stratstone", 3, ["greedy", "random"]))
    plies = sum(1 for line in log.read_text().splitlines() if '"ply"' in line)
    assert main(["check-log", "--review", str(log), "--budget", "20"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(" ")[0] for line in lines[:plies]] == [str(i) for i in range(1, plies + 1)]
    assert [line.split(":")[0] for line in lines[plies:-1]] == ["yellow", "red"]
    assert all("accuracy" in line and all(c in line for c in CLASSES) for line in lines[plies:-1])
    assert lines[-1] == "reviewed at 20 simulations a ply"
    assert main(["check-log", "--review", str(log), "--budget", "20", "--json"]) == 0
    objs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [o["ply"] for o in objs] == list(range(1, plies + 1))
    assert all({"ply", "player", "move", "best", "class", "expected_before", "expected_after"} <= set(o) for o in objs)
    assert objs[-1]["class"] == "best" and objs[-1]["expected_after"] == 1.0  # the winning ply
    assert PlyReview.from_json(objs[0]).to_json() == objs[0]


@pytest.mark.parametrize(("args", "message"), [
    (["--budget", "0"], "--budget 0: out of range, expected a number of simulations a ply from 2 to 1000000"),
    (["--budget", "-3"], "--budget '-3': expected a number of simulations"),
    (["--budget", "nan"], "--budget 'nan': expected"),
    (["--budget", "10000000000000"], "--budget 10000000000000: out of range"),
    (["--budget", "１２"], "--budget '１２': expected"),
])
def test_bad_budgets_are_one_line_errors(args, message, capsys):
    assert main(["check-log", "--review", str(LOGS / "stratstone_win.jsonl"), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_log_of_another_rules_version_is_refused(capsys):
    assert main(["check-log", "--review", str(LOGS / "bad_rules_version.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "rules 'stratstone/2' is not supported" in err and err.count("\n") == 1


def test_budget_alone_is_refused(capsys):
    assert main(["check-log", str(LOGS / "bad_rules_version.jsonl"), "--json"]) == 2
    assert "--json without --review" in capsys.readouterr().err
    with pytest.raises(ReviewError):
        parse_budget("1")


@pytest.mark.parametrize(("value", "n", "expected"), [
    (1.0, 2, 1.0), (-1.0, 2, 0.0), (0.0, 2, 0.5), (1.0, 4, 1.0), (-1 / 3, 4, 0.0), (0.0, 4, 0.25), (1 / 3, 4, 0.5),
])
def test_expected_score_is_the_chance_of_winning(value, n, expected):
    """A value in [-1/(n-1), 1] (OpenSpiel's returns of n players) as an expected score:
    a draw (0) is 1/n, the loss shared out by n - 1 players is 0."""
    assert review._expected(value, n) == pytest.approx(expected)


def test_a_move_that_lets_the_next_player_win_at_once_is_lost():
    """Red to move where yellow wins at once with d3 SS: a red move that leaves that win is
    worth 0 to red, found by trying yellow's replies, not left to the search's visits."""
    engine = get_game("stratstone")
    setup = dict(ONE_WIN["stratstone"][0], first="red")
    ids, full = engine.new_setup(2, setup, random.Random(0))
    state = engine.initial_state(ids, full)
    moves = list(state.legal_moves())
    losing = [m for m in moves if review.lets_a_win(state.apply(m)[0], "red")]
    assert 0 < len(losing) < len(moves)
    for move in losing[:3]:
        r = review_position(engine, state, move, 8, seed=3)
        assert r.expected_after == 0.0 and r.best != r.move and r.cls in ("mistake", "blunder"), r


def test_the_review_of_a_log_without_plies_says_so(tmp_path, capsys):
    """A log of its header alone: check-log's line and that there is nothing to review, not silence."""
    log = tmp_path / "empty.jsonl"
    _log.write_log(log, play_records("stratstone", 3, ["greedy", "random"])[:1])
    assert main(["check-log", "--review", str(log), "--budget", "8"]) == 0
    assert capsys.readouterr().out == "ok: stratstone, unfinished after 0 plies: nothing to review\n"


def test_the_review_searches_with_the_games_own_budget_and_says_it(tmp_path, capsys):
    """Without --budget a game is reviewed at its own search budget (Game.search_simulations:
    Sage Stones 2,000, as its search player; the others 300): the same review as --budget 2000,
    and the text says so."""
    assert get_game("sage-stones").search_simulations == 2000 and get_game("stratstone").search_simulations == 300
    log = tmp_path / "sage.jsonl"
    log.write_text("".join((LOGS / "sage_stones_two_player.jsonl").read_text().splitlines(keepends=True)[:4]))
    assert review.budget_of(log) == 2000 and review.budget_of(log, 20) == 20
    own = [r.to_json() for r in review.review_log(log)]
    assert own == [r.to_json() for r in review.review_log(log, 2000)]
    assert own != [r.to_json() for r in review.review_log(log, 300)]
    assert main(["check-log", "--review", str(log)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "reviewed at 2,000 simulations a ply"


def test_the_review_says_the_same_searched_in_one_process_or_several(tmp_path):
    """Each ply's search is its own (seeded by its ply), so the plies searched by a pool of
    processes (check-log --review's default: one a CPU) give the review of one process,
    ply for ply and in order."""
    log = tmp_path / "game.jsonl"
    _log.write_log(log, play_records("stratstone", 3, ["greedy", "random"]))
    alone = list(review.review_log(log, 20, jobs=1))
    assert len(alone) > 4 and review.review_jobs() >= 1
    assert list(review.review_log(log, 20, jobs=3)) == alone
