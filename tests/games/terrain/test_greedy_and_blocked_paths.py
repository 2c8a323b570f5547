"""The terrain engine's greedy player on the move limit and its messages for a blocked
path, on hand-built positions; the rules are in docs/rules.md (T1-T25).
"""

from __future__ import annotations

import random

import pytest

from stratstone_cad.errors import RuleViolation
from stratstone_cad.games.terrain.rules import TerrainState
from tests.games.terrain.test_rules import position  # the hand-built positions' helpers


def violation(state: TerrainState, text: str) -> str:
    with pytest.raises(RuleViolation) as info:
        state.apply(text)
    return str(info.value)


# ------------------------------------------------------------------------- greedy and the 200-move limit


def test_greedy_takes_a_plain_move_that_wins_on_the_200_move_limit():
    """Greedy plays "a move that wins at once" first, and on the last ply a plain move can
    win by the tie-breaks (T21): greedy steps the Guardian onto rank 10 (a win), never the
    Lancer 4 ranks (a1-a5) into a loss, whatever its seed."""
    # j10 at level 1: j8-j10 costs 3 (the Guardian's 3, so no exit), a1-a5 costs 4
    s = position({"j8": "red guardian", "a1": "red lancer", "e2": "blue runner"}, {"j10": 1}, moves_played=199)
    assert "j8-exit" not in {str(m) for m in s.legal_moves()}
    assert s.apply("a1-a5")[0].result().text() == "winner blue (200 moves: piece closest to the finish)"
    assert s.apply("j8-j10")[0].result().text() == "winner red (200 moves: piece closest to the finish)"
    for seed in range(10):
        move = s.greedy_move(random.Random(seed))
        assert s.apply(move)[0].result().winner == "red", (seed, str(move))


# ------------------------------------------------------------------------- messages (T25)


def test_blocked_path_messages_name_the_piece():
    """T25: an illegal move's message names the piece: 'cannot reach ...: pieces block every
    path of the Lancer', as the cost messages do ('the Lancer has 4')."""
    s = position({"a1": "red lancer", "a2": "red runner", "b1": "red guardian", "j10": "blue runner"})
    assert violation(s, "a1-a3") == "ply 1: a1-a3 cannot reach a3: pieces block every path of the Lancer"
    s = position({"a1": "red guardian", "a2": "red runner", "b1": "red lancer", "a3": "blue runner"})
    assert violation(s, "a1xa3") == "ply 1: a1xa3 cannot reach a3: pieces block every path of the Guardian"
    boxed = position({"a9": "red runner", "a10": "blue runner", "b9": "blue guardian", "a8": "blue guardian"})
    assert violation(boxed, "a9-exit") == "ply 1: a9-exit cannot reach rank 10: pieces block every path of the Runner"


RIDGE = {"e7": 4, "e6": 2, "d7": 2, "f7": 2, "e8": 2}  # a peak of 4 on e7


def test_a_runner_whose_jump_is_blocked_is_told_why():
    """T10/T25: a Runner's move that costs too much walking names the rule that forbids the
    jump the player meant too (the square jumped over must be empty) and who stands there."""
    s = position({"e5": "red runner", "e6": "blue lancer", "a1": "red runner"}, RIDGE)
    assert violation(s, "e5-e7") == (
        "ply 1: e5-e7 costs 8, the Runner has 5, and cannot jump over e6, where a blue lancer stands"
    )
    s = position({"e5": "red runner", "e6": "red lancer", "e7": "blue runner", "j10": "blue runner"}, RIDGE)
    assert violation(s, "e5xe7") == ("ply 1: e5xe7 costs 8, the Runner has 5, and cannot jump over e6, where a red lancer stands")
    boxed = position({"a1": "red runner", "a2": "red lancer", "b1": "red guardian", "j10": "blue runner"})
    assert violation(boxed, "a1-a3") == (
        "ply 1: a1-a3 cannot reach a3: pieces block every path of the Runner, and cannot jump over a2, where a red lancer stands"
    )
