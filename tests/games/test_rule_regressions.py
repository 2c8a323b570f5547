"""Second review of the rules engines: one test per bug found, on hand-built positions."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from stratstone_cad.engine.events import Captured
from stratstone_cad.engine.players import greedy
from stratstone_cad.errors import LogError, SetupError
from stratstone_cad.games.sage_stones.rules import SQUARES, SageStonesState, capture_squares
from stratstone_cad.games.stratstone.rules import StratstoneState
from stratstone_cad.log import commands

FOUR = ["yellow", "red", "blue", "green"]


def _captured(events) -> list[str]:
    return sorted(e.square for e in events if isinstance(e, Captured))


# ---------------------------------------------------------------- Sage Stones: trapping
# From row 1 (or row 9) the north rays N, NE and NW all reach the same square 7 steps
# away (the board wraps after 7 columns): 3-1 -> 3-8 by 3-2.., by 4-2 5-3 .. 9-7 and by
# 9-2 8-3 .. 4-7. Runs are found on the board as it was when the stone was placed, so
# two runs through that square are both removed (the square once), whichever direction
# the engine looks at first.

NE_RUN = ["4-2", "5-3", "6-4", "7-5", "8-6", "9-7"]  # then 3-8, then 4-9
NW_RUN = ["9-2", "8-3", "7-4", "6-5", "5-6", "4-7"]  # then 3-8, then 9-9


def _two_diagonal_runs() -> SageStonesState:
    board = {"4-9": "yellow", "9-9": "yellow", "3-8": "blue"}
    board.update({sq: "red" for sq in NE_RUN})
    board.update({sq: "green" for sq in NW_RUN})
    state = SageStonesState.from_setup(FOUR, {"board": board})
    state, _ = state.apply_chance((1, 1, 1))  # column 3
    return state


def test_two_runs_sharing_a_square_across_the_wrap_are_both_removed():
    state = _two_diagonal_runs()
    after, events = state.apply("3-1")
    assert _captured(events) == sorted([*NE_RUN, *NW_RUN, "3-8"])
    assert len([e for e in events if isinstance(e, Captured)]) == 13  # 3-8 removed once
    assert after.stones_on_board() == {"yellow": 3, "red": 0, "blue": 0, "green": 0}


def test_a_column_run_and_a_diagonal_run_sharing_a_square_are_both_removed():
    column = [f"3-{r}" for r in range(2, 9)]  # 3-2 .. 3-8, then yellow on 3-9
    board = {"3-9": "yellow", "4-9": "yellow"}
    board.update({sq: ("red", "blue")[i % 2] for i, sq in enumerate(column)})
    board.update({sq: "green" for sq in NE_RUN})
    state = SageStonesState.from_setup(FOUR, {"board": board})
    state, _ = state.apply_chance((1, 1, 1))
    after, events = state.apply("3-1")
    assert _captured(events) == sorted(column + NE_RUN)
    assert sum(after.on_board) == 3  # 3-1, 3-9, 4-9


def test_capture_squares_lists_a_shared_square_once_and_matches_apply():
    state = _two_diagonal_runs()
    squares = capture_squares(state.board, 0, 1)
    assert len(squares) == len(set(squares)) == 13
    _after, events = state.apply("3-1")
    assert sorted(SQUARES[q] for q in squares) == _captured(events)


def test_greedy_counts_a_shared_square_once():
    # Column 3 has two empty squares: 3-1 removes the 13 stones of the two diagonal runs
    # (3-8 shared); 3-5 removes 14 (E 5, N 3, S 2, NE 2, SE 2). Counting 3-8 twice would
    # make it a tie; greedy must always take 3-5.
    board = {"4-9": "yellow", "9-9": "yellow", "3-8": "blue"}
    board.update({sq: "red" for sq in NE_RUN})
    board.update({sq: "green" for sq in NW_RUN})
    board.update({sq: "yellow" for sq in ("9-5", "3-9", "3-2", "6-8", "6-2")})
    fills = ["4-5", "5-5", "8-5", "3-6", "3-7", "3-4", "3-3", "4-6", "5-7", "4-4"]
    board.update({sq: "blue" if i < 8 else "red" for i, sq in enumerate(fills)})
    state = SageStonesState.from_setup(FOUR, {"board": board})
    state, _ = state.apply_chance((1, 1, 1))
    assert [str(m) for m in state.legal_moves()] == ["3-1", "3-5"]
    assert len(_captured(state.apply("3-1")[1])) == 13
    assert len(_captured(state.apply("3-5")[1])) == 14
    for seed in range(20):
        assert str(greedy(state, random.Random(seed))) == "3-5"


# ---------------------------------------------------------------- setups: one-line errors, never a TypeError


@pytest.mark.parametrize(
    ("game", "setup"),
    [
        ("sage-stones", {"variant": "two-player", "colours": 5}),
        ("sage-stones", {"variant": "two-player", "colours": None}),
        ("sage-stones", {"first": ["red"]}),
        ("sage-stones", {"board": {"3-1": ["red"]}}),
        ("stratstone", {"stacks": {"a1": [["tan"]]}}),
        ("stratstone", {"stacks": {"a1": [{}]}}),
        ("stratstone", {"first": ["red"]}),
    ],
)
def test_a_bad_setup_is_a_setup_error_not_a_type_error(game, setup):
    with pytest.raises(SetupError):
        commands.play(game, 1, None, None, setup)


def test_stratstone_setup_stack_with_unhashable_stone_is_a_setup_error():
    with pytest.raises(SetupError, match=r"setup\.stacks\.a1: expected a list of tan/yellow/red"):
        StratstoneState.from_setup({"stacks": {"a1": ["tan", ["tan"]]}})


# ---------------------------------------------------------------- check-log: header with odd values

SAGE_HEADER = {
    "format": "stratstone-cad/log",
    "version": 1,
    "game": "sage-stones",
    "rules": "sage-stones/1",
    "players": ["yellow", "red"],
    "seed": 1,
}


@pytest.mark.parametrize("first", [["red"], {"a": 1}, 3, None, True])
def test_check_log_sage_header_first_of_the_wrong_type_is_one_line(tmp_path: Path, first):
    p = tmp_path / "log.jsonl"
    p.write_text(json.dumps({**SAGE_HEADER, "setup": {"first": first}}) + "\n")
    with pytest.raises(LogError) as info:
        commands.check_log(p)
    assert str(info.value).startswith("line 1: setup.first: ")
    assert "\n" not in str(info.value)


def test_check_log_replays_two_runs_sharing_a_square(tmp_path: Path):
    board = {"4-9": "yellow", "9-9": "yellow", "3-8": "blue"}
    board.update({sq: "red" for sq in NE_RUN})
    board.update({sq: "green" for sq in NW_RUN})
    header = {**SAGE_HEADER, "players": FOUR, "setup": {"board": board}}
    ply1 = {"ply": 1, "player": "yellow", "dice": [1, 1, 1], "move": "3-1", "captured": sorted([*NE_RUN, *NW_RUN, "3-8"])}
    # the extra turn: 1-1-2 is column 4, and 4-7 (green, on the NW run) is empty again
    ply2 = {"ply": 2, "player": "yellow", "dice": [1, 1, 2], "move": "4-7", "on_board": {c: 0 for c in FOUR} | {"yellow": 4}}
    p = tmp_path / "log.jsonl"
    p.write_text("".join(json.dumps(o) + "\n" for o in (header, ply1, ply2)))
    assert commands.check_log(p) == "ok: sage-stones, unfinished after 2 plies"
