"""The engines explain their moves: what the rules counted, carried by the events and put
in words by ``check-log --explain`` and ``record``.

The numbers are checked against hand counts on hand-built positions, against the
legal-move generator's own sums over random playouts (the two must never disagree: the
events carry the numbers ``apply`` decided by), and against the heights of the squares
walked; every ply of the golden logs is pinned in words (read when written; rewrite with
STRATSTONE_REWRITE_EXPLAIN=1 and review the diff).
"""

from __future__ import annotations

import functools
import os
import random
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import pytest

from stratstone_cad.engine.events import Attacked, Captured, GameOver, Moved, Term, Trapped, sum_text
from stratstone_cad.games.sage_stones.rules import SQUARES as SAGE_SQUARES
from stratstone_cad.games.sage_stones.rules import SageStonesState
from stratstone_cad.games.terrain import rules as terrain
from stratstone_cad.games.terrain.rules import TerrainState, attack_strengths, attack_terms
from stratstone_cad.log.commands import explain_log, play_records
from stratstone_cad.log.logfile import write_log
from stratstone_cad.registry import get_game

DATA = Path(__file__).resolve().parent.parent / "data"
LOGS = DATA / "logs"
GOLDEN = sorted(p for p in LOGS.glob("*.jsonl") if not p.name.startswith("bad_"))
FLAT = [[0] * 10 for _ in range(10)]


def terrain_position(pieces: dict[str, str], heights: dict[str, int] | None = None) -> TerrainState:
    rows = [list(r) for r in FLAT]
    for sq, level in (heights or {}).items():
        f, r = terrain.parse_square(sq)
        rows[r][f] = level
    return TerrainState.from_setup({"heightmap": rows, "pieces": pieces})


def words(state, move: str) -> str:
    after, events = state.apply(move)
    return get_game(type(state).__module__.split(".")[-2].replace("_", "-")).explain(state, after, events)


# ------------------------------------------------------------------------- the golden logs


@pytest.mark.parametrize("log", GOLDEN, ids=lambda p: p.stem)
def test_every_ply_of_the_golden_logs_in_words(log):
    seen = "\n".join(explain_log(log)) + "\n"
    path = DATA / "explain" / f"{log.stem}.txt"
    if os.environ.get("STRATSTONE_REWRITE_EXPLAIN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(seen)
    assert seen == path.read_text()


def test_check_log_explain_prints_a_line_a_ply_then_the_summary_and_stops_at_a_fault(tmp_path):
    run = [sys.executable, "-m", "stratstone_cad", "check-log", "--explain"]
    ok = subprocess.run([*run, str(LOGS / "terrain_greedy.jsonl")], capture_output=True, text=True, check=False)
    assert ok.returncode == 0, ok.stderr
    lines = ok.stdout.splitlines()
    assert [int(x.split()[0]) for x in lines[:-1]] == list(range(1, 25))
    assert lines[3] == ("4 blue g10xf9: Lancer, 3 + 1 = 4 of 4 (charge); attack Lancer 2 + charge 1 + Runner on f10 1 = 4 "
                        "against Runner 1 = 1; takes the red Runner on f9")
    assert lines[-1] == "ok: terrain, 24 plies, winner blue (second exit)"
    bad = subprocess.run([*run, str(LOGS / "bad_terrain_cost.jsonl")], capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip() == "stratstone-cad: error: line 13, ply 12: c3-c7 costs 6, the Lancer has 4"
    assert bad.stdout.splitlines()[-1] == "11 blue j5-j4: Guardian, 1 of 3"  # the plies before the fault


# ------------------------------------------------------------------------- the terrain game, by hand


def test_a_walk_names_each_step_cost_against_the_pieces_points():
    # c3 (0) -> c4 (1) -> c5 (1): 2 + 1 of the Lancer's 4
    s = terrain_position({"c3": "red lancer", "j10": "blue runner"}, {"c4": 1, "c5": 1})
    assert words(s, "c3-c5") == "Lancer, 2 + 1 = 3 of 4"
    s = terrain_position({"e5": "red runner", "j10": "blue runner"}, {"e6": 4, "e7": 2, "e5": 2, "d6": 2, "f6": 2})
    assert words(s, "e5-e7") == "Runner, jump over e6 (height ignored)"
    s = terrain_position({"e5": "red runner", "j10": "blue runner"}, {"f6": 4, "f5": 2, "e6": 2, "g6": 2, "f7": 2})
    assert words(s, "e5-f6") == "Runner, diagonal step (height ignored)"


def test_an_attack_from_above_adds_one():
    s = terrain_position({"c4": "red runner", "c5": "blue lancer", "a1": "red guardian", "j10": "blue runner"}, {"c4": 1})
    _, events = s.apply("c4xc5")
    (att,) = [e for e in events if isinstance(e, Attacked)]
    assert att.attack == (Term("Runner", 1), Term("higher ground", 1)) and att.defence == (Term("Lancer", 2),)
    assert words(s, "c4xc5") == ("Runner, 2 of 5; attack Runner 1 + higher ground 1 = 2 against Lancer 2 = 2; "
                                 "takes the blue Lancer on c5")


def test_an_attack_from_below_takes_one_and_helpers_count_on_both_sides():
    # Guardian 3 - 1 (c4 at 0 under c5 at 1) + the Runner on d5 (1) = 3; Guardian 3 + 1 for the Runner on b5 = 4: too weak
    # with the Lancer on c6 too (2): 5 against 4
    pieces = {"c4": "red guardian", "c5": "blue guardian", "d5": "red runner", "b5": "blue runner", "c6": "red lancer",
              "j10": "blue runner"}
    s = terrain_position(pieces, {"c5": 1})
    _, events = s.apply("c4xc5")
    (att,) = [e for e in events if isinstance(e, Attacked)]
    assert att.attack == (Term("Guardian", 3), Term("lower ground", -1), Term("Lancer on c6", 2, "c6"),
                          Term("Runner on d5", 1, "d5"))  # the target's neighbours N, E, S, W
    assert att.defence == (Term("Guardian", 3), Term("Runner on b5", 1, "b5"))
    assert sum_text(att.attack) == "Guardian 3 - lower ground 1 + Lancer on c6 2 + Runner on d5 1 = 5"
    assert words(s, "c4xc5").endswith("; attack Guardian 3 - lower ground 1 + Lancer on c6 2 + Runner on d5 1 = 5 "
                                      "against Guardian 3 + Runner on b5 1 = 4; takes the blue Guardian on c5")


def test_the_charge_is_named_on_the_path_and_in_the_sum():
    s = terrain_position({"c1": "red lancer", "c5": "blue guardian", "a1": "red runner", "j10": "blue runner"})
    assert words(s, "c1xc5") == ("Lancer, 1 + 1 + 1 + 1 = 4 of 4 (charge); attack Lancer 2 + charge 1 = 3 against "
                                 "Guardian 3 = 3; takes the blue Guardian on c5")


def test_an_exit_says_the_points_left_and_the_score():
    s = terrain_position({"c7": "red runner", "a1": "red lancer", "j1": "blue runner"})
    assert words(s, "c7-exit") == "Runner, 1 + 1 + 1 = 3 of 5; exits from c10 with 2 points left: scores 1 (red 1, blue 0)"


def test_the_events_numbers_are_the_rules_numbers_over_random_playouts():
    """Every attack's sums equal the move generator's (which decided the attack was legal)
    and every step's cost is |height difference| + 1 of the squares it joins."""
    attacks = sum(_check_playout(seed) for seed in range(8))
    assert attacks > 20


def _check_playout(seed: int) -> int:
    records = play_records("terrain", seed, ["greedy", "greedy"])
    game = get_game("terrain")
    state = game.initial_state(records[0]["players"], records[0]["setup"])
    levels = state.terrain
    attacks = 0
    for rec in records[1:]:
        if "move" not in rec:
            break
        after, events = state.apply(rec["move"])
        for e in events:
            if isinstance(e, Moved) and not e.special:
                assert e.costs == tuple(abs(levels.level(a) - levels.level(b)) + 1 for a, b in pairwise(e.path))
                assert sum(e.costs) <= e.points
            if isinstance(e, Attacked):
                attacks += 1
                move = state.parse_move(rec["move"])
                cost, sign = _generator_hit(state, move.frm, move.to)
                assert attack_strengths(state.board, move.frm, move.to, sign, cost) == (
                    sum(x.value for x in e.attack), sum(x.value for x in e.defence))
                assert attack_terms(state.board, move.frm, move.to, sign, cost) == (e.attack, e.defence)
        state = after
    return attacks


def _generator_hit(state, s, t):
    """``[cheapest cost, best height sign]`` of the piece on ``s`` onto ``t`` as legal-move
    generation finds them (``TerrainState._moves``: the walk, then a Runner's alternatives)."""
    side, board, levels = state.turn, state.board, state.terrain.levels
    kind = terrain._KIND[board[s]]
    _, hits, _ = terrain._reach(state.terrain.adj, board, s, terrain.MOVE_POINTS[kind], side,
                                terrain._LAST_RANK[side] * 10)
    if kind == terrain.RUNNER:
        for mid, d in terrain.RUNNER_STEPS[s]:
            if (mid < 0 or not board[mid]) and d == t:
                terrain._hit(hits, d, (levels[s] > levels[d]) - (levels[s] < levels[d]))
    return hits[t]


# ------------------------------------------------------------------------- Sage Stones and Stratstone


def test_sage_stones_names_the_column_and_each_trap():
    s = SageStonesState.from_setup(["yellow", "red", "blue"], {"board": {"5-5": "red", "6-5": "blue", "7-5": "yellow",
                                                                       "4-6": "red", "4-7": "yellow"}})
    rolled, dice_events = s.apply_chance((1, 1, 2))
    after, events = rolled.apply("4-5")
    traps = [e for e in events if isinstance(e, Trapped)]
    assert traps == [Trapped("yellow", ("4-5", "7-5"), ("5-5", "6-5")), Trapped("yellow", ("4-5", "4-7"), ("4-6",))]
    assert [e.square for e in events if isinstance(e, Captured)] == ["5-5", "6-5", "4-6"]
    assert get_game("sage-stones").explain(s, after, dice_events + events) == (
        "dice 1-1-2 = 4: column 4; traps red 5-5, blue 6-5 between 4-5 and 7-5; traps red 4-6 between 4-5 and 4-7")
    full = SageStonesState.from_setup(["yellow", "red"], {"board": {f"4-{r}": "red" for r in range(1, 10)}})
    rolled, dice_events = full.apply_chance((2, 1, 1))
    after, events = rolled.apply("6-1")
    assert get_game("sage-stones").explain(full, after, dice_events + events) == "dice 2-1-1 = 4, column 4 is full: column 6"


def test_sage_stones_says_why_the_board_is_reset_or_the_turn_lost_after_the_dice():
    colours = ["yellow", "red", "blue", "green"]
    full = [f"{c}-{r}" for c in (6, 8) for r in range(1, 10)]  # columns 6 and 8 full
    s = SageStonesState.from_setup(colours, {"board": {q: colours[i % 4] for i, q in enumerate(full)}})
    game = get_game("sage-stones")
    rolled, dice = s.apply_chance((2, 3, 3))
    after, events = rolled.apply("-")
    assert not any(after.board)
    assert game.explain(s, after, dice + events) == "dice 2-3-3: the board is reset (column 8 and column 6 are full)"
    rolled, dice = s.apply_chance((1, 2, 3))
    after, events = rolled.apply("-")
    assert game.explain(s, after, dice + events) == "dice 1-2-3: the turn is lost (rolled 1-2-3)"


@pytest.mark.parametrize("seed", range(4))
def test_sage_traps_name_runs_of_other_stones_closed_by_the_placers(seed):
    """Over random playouts: each trap's far end holds the placer's colour, its squares
    hold other colours, and the stones taken off are the traps' squares, each once."""
    rng = random.Random(seed)
    state = SageStonesState.from_setup(["yellow", "red", "blue", "green"], {"board": {}})
    index = {name: i for i, name in enumerate(SAGE_SQUARES)}
    traps = 0
    for _ in range(400):
        if state.is_terminal():
            break
        if state.is_chance():
            state, _ = state.apply_chance(state.roll(rng))
            continue
        board, mine = state.board, state.seat + 1
        after, events = state.apply(state.greedy_move(rng))
        runs = [e for e in events if isinstance(e, Trapped)]
        traps += len(runs)
        for run in runs:
            assert board[index[run.ends[1]]] == mine and run.squares
            assert all(board[index[q]] not in (0, mine) for q in run.squares)
        taken = [e.square for e in events if isinstance(e, Captured)]
        assert taken == list(dict.fromkeys(q for run in runs for q in run.squares))
        state = after
    assert traps


def test_a_game_that_words_nothing_itself_gets_the_events_in_words():
    from stratstone_cad.engine.events import BoardReset, DiceRolled, Placed, TurnLost
    from stratstone_cad.engine.protocol import Game

    events = [DiceRolled("red", (1, 2, 3), None), TurnLost("red", "rolled 1-2-3"), Placed("blue", "5-5", "blue"),
              Trapped("blue", ("5-5", "7-5"), ("6-5",)), Captured("6-5", "red", "red", "blue"),
              Moved("red", ("a1", "a2", "a3")), Attacked("red", "a3", "a4"), BoardReset("column 6 is full"),
              GameOver(None, "all stones placed")]
    explain = functools.partial(Game.explain, None)  # the default, unbound: Game itself is abstract
    assert explain(None, None, events) == (
        "dice 1-2-3; loses the turn (rolled 1-2-3); places a blue stone on 5-5; traps 6-5 between 5-5 and 7-5; "
        "captures the red on 6-5; moves a1-a2-a3; attacks a4 from a3; the board is reset (column 6 is full); "
        "draw (all stones placed)")
    from stratstone_cad.engine.events import Exited, ExtraTurn, Sown

    events = [Trapped("red", ("3-3", "3-6"), ("3-4", "3-5")), Captured("d4", "red", "blue", "yellow"),
              Sown("tan", "c2", "c4", 2), Exited("red", "j5"), ExtraTurn("red", "rolled a double"),
              GameOver("red", "line of four")]
    assert explain(None, None, events) == (
        "traps 3-4, 3-5 between 3-3 and 3-6; captures the blue red on d4; sows a tan stone on c4; exits from j5; "
        "plays again (rolled a double); winner red (line of four)")


def test_a_sum_adds_a_term_worth_nothing_and_subtracts_a_negative_one():
    assert sum_text([Term("Runner", 1)]) == "Runner 1 = 1"
    assert sum_text([Term("Lancer", 2), Term("charge", 0), Term("lower ground", -1), Term("Guardian on d5", 3,
                                                                                          "d5")]) == \
        "Lancer 2 + charge 0 - lower ground 1 + Guardian on d5 3 = 4"


def test_stratstone_names_the_sowing_and_the_winning_line(tmp_path):
    from stratstone_cad.games.stratstone.rules import StratstoneState

    names = {"y": ["yellow"], "r": ["red"], "t": ["tan"]}
    stacks = {"a1": "y", "b1": "y", "c1": "y", "d3": "t", "a4": "r", "b4": "r", "c3": "r"}
    s = StratstoneState.from_setup({"first": "yellow", "stacks": {sq: names[c] for sq, c in stacks.items()}})
    after, events = s.apply("d3 SS")
    assert events[-1] == GameOver("yellow", "line of four", (("a1", "b1", "c1", "d1"),))
    assert get_game("stratstone").explain(s, after, events) == (
        "adds yellow to the stone on d3, picks up both (tan, yellow), sows d2 tan, d1 yellow; line a1 b1 c1 d1: "
        "winner yellow (line of four)")
    from stratstone_cad.engine.events import Placed, Sown

    # the stone added first, said so: on an empty square, on a stack of three
    one = [Placed("yellow", "b2", "yellow"), Sown("yellow", "b2", "b3", 1)]
    assert get_game("stratstone").explain(None, None, one) == "places yellow on b2 and picks it up, sows b3 yellow"
    four = [Placed("red", "a1", "red"), *(Sown(c, "a1", sq, i) for i, (c, sq) in
                                           enumerate(zip(["tan", "tan", "yellow", "red"], ["a2", "a3", "a4", "b4"], strict=True), 1))]
    assert get_game("stratstone").explain(None, None, four) == (
        "adds red to the 3 stones on a1, picks up all 4 (tan, tan, yellow, red), sows a2 tan, a3 tan, a4 yellow, b4 red")

    two = [Sown("yellow", "d4", "d3", 1), GameOver("yellow", "line of four", (("a3", "b3", "c3", "d3"),
                                                                              ("d1", "d2", "d3", "d4")))]
    assert get_game("stratstone").explain(None, None, two) == (
        "picks up 1 (yellow), sows d3 yellow; lines a3 b3 c3 d3 and d1 d2 d3 d4: winner yellow (line of four)")
    records = play_records("stratstone", 7, ["greedy", "greedy"])
    write_log(tmp_path / "g.jsonl", records)
    said = list(explain_log(tmp_path / "g.jsonl"))
    assert len(said) == len(records) - ("result" in records[-1])  # a line a ply, then the summary
