"""The terrain game's rules, one test per rule (docs/rules.md, T1-T25), on hand-built positions.

Positions are built from an explicit setup: a heightmap (level 0 unless given per square)
and the pieces. The last test compares the engine's legal moves with a brute-force
reference (every simple path enumerated) on positions from random games.
"""

from __future__ import annotations

import random

import pytest

from stratstone_cad.engine.events import Attacked, Captured, Exited, GameOver, Moved, Term, TurnLost
from stratstone_cad.errors import MoveTextError, RuleViolation, SetupError, SquareError
from stratstone_cad.games.terrain.rules import (
    KINDS,
    MAX_MOVES,
    PASS,
    SQUARES,
    STRENGTH,
    TerrainMove,
    TerrainState,
    attack_strengths,
    parse_square,
)
from stratstone_cad.games.terrain.terrain_map import generate
from stratstone_cad.registry import get_game
from tests.picking import Pick

IDX = {name: i for i, name in enumerate(SQUARES)}


def hmap(default: int = 0, **levels: int) -> list[list[int]]:
    """A heightmap: ``default`` everywhere, ``levels`` per square (``c4=2``)."""
    rows = [[default] * 10 for _ in range(10)]
    for sq, v in levels.items():
        rows[int(sq[1:]) - 1][ord(sq[0]) - ord("a")] = v
    return rows


def position(pieces: dict[str, str], heights: dict[str, int] | None = None, **setup) -> TerrainState:
    return TerrainState.from_setup({"heightmap": hmap(**(heights or {})), "pieces": pieces, **setup})


def moves_of(state: TerrainState, square: str) -> set[str]:
    return {str(m) for m in state.legal_moves() if m.frm == IDX[square]}


def dests(state: TerrainState, square: str) -> set[str]:
    return {SQUARES[m.to] for m in state.legal_moves() if m.kind == "move" and m.frm == IDX[square]}


def violation(state: TerrainState, text: str) -> str:
    with pytest.raises(RuleViolation) as info:
        state.apply(text)
    return str(info.value)


FAR_BLUE = {"j10": "blue runner"}  # a blue piece out of the way
FAR_RED = {"a1": "red runner"}


# ------------------------------------------------------------------------- start, text


def test_start_position_and_red_moves_first():
    s = TerrainState.start(generate(0), 0)
    assert s.diagram().split("/")[0] == "..glrrlg.."
    assert s.diagram().split("/")[-1] == "..GLRRLG.."
    assert s.pieces_on("c1") == ("red guardian",) and s.pieces_on("d1") == ("red lancer",)
    assert s.pieces_on("e1") == ("red runner",)
    assert s.pieces_on("h10") == ("blue guardian",) and s.pieces_on("f10") == ("blue runner",)
    assert s.to_move() == "red" and s.ply == 0 and s.score() == {"red": 0, "blue": 0}


@pytest.mark.parametrize("text", ["c1-c4", "c1xc5", "e7-exit", "pass", "j10-j9", "a10xb10", "j1-exit"])
def test_move_text_round_trips(text):
    s = TerrainState.start(generate(0))
    assert str(s.parse_move(text)) == text


@pytest.mark.parametrize(
    "text", ["c1-c11", "k1-k2", "c1xexit", "C1-c4", "c1 - c4", "", "pass ", "c01-c2", "a0-a1", "c1-", "c1c4", "exit", "c1-Exit"]
)
def test_bad_move_text(text):
    s = TerrainState.start(generate(0))
    with pytest.raises(MoveTextError) as info:
        s.parse_move(text)
    assert str(info.value).startswith(f"ply 1: {text!r} does not parse: expected 'c1-c4' (move), 'c1xc5' (attack)")


_GRAMMAR = "'c1-c4' (move), 'c1xc5' (attack), 'e7-exit' (exit) or 'pass', with squares a1-j10"


def test_a_square_or_a_move_that_does_not_parse_is_refused_in_one_line():
    with pytest.raises(SquareError) as e:
        parse_square("k1")
    assert str(e.value) == "'k1' is not a square (expected a1-j10: file a-j, rank 1-10)"
    with pytest.raises(MoveTextError) as e:
        TerrainMove.parse("c1c4")  # parsed outside a game: no ply (0)
    assert str(e.value) == f"ply 0: 'c1c4' does not parse: expected {_GRAMMAR}"
    s = TerrainState.start(generate(0))
    for bad, shown in ((3, "'3'"), (["c1-c4"], "\"['c1-c4']\"")):  # not text: its repr is shown as the text
        with pytest.raises(MoveTextError) as e:
            s.parse_move(bad)  # type: ignore[arg-type]
        assert str(e.value) == f"ply 1: {shown} does not parse: expected {_GRAMMAR}"


def test_moves_are_shared_objects():
    """Legal-move generation hands out one object per move (it runs for every ply of
    every game the players play), and parsing gives that same object."""
    s = TerrainState.start(generate(0))
    first, again = list(s.legal_moves()), list(s.legal_moves())
    assert all(a is b for a, b in zip(first, again, strict=True))
    assert s.parse_move(str(first[-1])) is first[-1] and TerrainMove.parse("c1-c4") is TerrainMove.parse("c1-c4")


def test_every_legal_move_prints_and_parses_back_to_itself():
    s = TerrainState.start(generate(3))
    rng = random.Random(3)
    for _ in range(40):
        moves = list(s.legal_moves())
        assert len({str(m) for m in moves}) == len(moves)
        for m in moves:
            assert s.parse_move(str(m)) == m
        s, _ = s.apply(moves[rng.randrange(len(moves))])


# ------------------------------------------------------------------------- moving (T2, T8, T9)


def test_step_costs_going_up():
    # c4, c5, c6 at level 2: c3 -> c4 costs 3, then 1 per step on the plateau
    s = position({"c3": "red lancer", **FAR_BLUE}, {"c4": 2, "c5": 2, "c6": 2})
    d = dests(s, "c3")
    assert {"c4", "c5"} <= d and "c6" not in d
    assert violation(s, "c3-c6") == "ply 1: c3-c6 costs 5, the Lancer has 4"


def test_step_costs_going_down():
    s = position({"c5": "red guardian", **FAR_BLUE}, {"c4": 2, "c5": 2, "c6": 2})
    d = dests(s, "c5")
    assert "c4" in d  # level: 1
    assert "b5" in d  # down 2: 3
    assert "c3" not in d and "b4" not in d  # 1 + 3 = 4, 3 + 1 = 4
    assert violation(s, "c5-c3") == "ply 1: c5-c3 costs 4, the Guardian has 3"


def test_flat_reach_is_a_diamond():
    s = position({"e5": "red runner", **FAR_BLUE})
    d = dests(s, "e5")
    walk = {SQUARES[q] for q in range(100) if 0 < abs(q % 10 - 4) + abs(q // 10 - 4) <= 5}
    assert d == walk  # diagonal steps and jumps land inside the diamond anyway


def test_paths_cannot_pass_through_pieces_friend_or_foe():
    free = position({"c3": "red lancer", **FAR_BLUE})
    assert "c6" in dests(free, "c3")
    s = position({"c3": "red lancer", "c4": "red runner", "b4": "blue runner", **FAR_BLUE})
    d = dests(s, "c3")
    assert "c5" in d  # round by d3 d4 d5 c5: 4
    assert "c6" not in d
    assert violation(s, "c3-c6") == "ply 1: c3-c6 costs 5, the Lancer has 4"


def test_a_boxed_in_piece_cannot_move_and_the_message_says_so():
    s = position({"a1": "red lancer", "a2": "red runner", "b1": "red guardian", "j10": "blue runner"})
    assert dests(s, "a1") == set()
    assert violation(s, "a1-a3") == "ply 1: a1-a3 cannot reach a3: pieces block every path of the Lancer"


def test_a_move_cannot_end_on_its_start_or_on_a_piece():
    s = position({"c3": "red lancer", "c4": "red runner", "d3": "blue runner", **FAR_BLUE})
    assert violation(s, "c3-c3") == "ply 1: c3-c3 ends on its start square"
    assert violation(s, "c3-c4") == "ply 1: c3-c4 ends on c4, where a red runner stands"
    assert violation(s, "c3-d3") == "ply 1: c3-d3 ends on d3, where a blue runner stands; an attack is written c3xd3"


def test_a_far_square_costs_the_way_round_a_hill():
    # c4 is a hill of 2: over it c3-c8 costs 3 + 3 + 1 + 1 + 1 = 9, round it by b3 b4 b5 c5 c6 c7 c8 seven steps of 1
    s = position({"c3": "red guardian", **FAR_BLUE}, {"c4": 2})
    assert violation(s, "c3-c8") == "ply 1: c3-c8 costs 7, the Guardian has 3"


def test_moving_the_wrong_piece():
    s = position({"c3": "red lancer", **FAR_BLUE})
    assert violation(s, "j10-j9") == "ply 1: j10-j9 moves a blue runner but red is to move"
    assert violation(s, "d4-d5") == "ply 1: d4-d5 starts on d4, an empty square"


def test_the_path_shown_is_the_first_cheapest_in_n_e_s_w_order():
    s = position({"c3": "red lancer", **FAR_BLUE})
    after, events = s.apply("c3-d4")
    assert events == [Moved("red", ("c3", "c4", "d4"), (1, 1), 4)]  # N before E; 1 + 1 of the Lancer's 4
    assert after.pieces_on("d4") == ("red lancer",) and after.pieces_on("c3") == ()
    assert after.to_move() == "blue" and after.ply == 1


# ------------------------------------------------------------------------- Runner (T10)

HILL = {"f6": 4, "f5": 2, "e6": 2, "g6": 2, "f7": 2}  # a peak of 4 on f6
RIDGE = {"e7": 4, "e6": 2, "d7": 2, "f7": 2, "e8": 2}  # a peak of 4 on e7


def test_runner_diagonal_step_ignores_height():
    s = position({"e5": "red runner", **FAR_BLUE}, HILL)
    assert "f6" in dests(s, "e5")  # walking costs 6
    _, events = s.apply("e5-f6")
    assert events == [Moved("red", ("e5", "f6"), (), 5, "diagonal step")]
    lancer = position({"e5": "red lancer", **FAR_BLUE}, HILL)
    assert "f6" not in dests(lancer, "e5")


def test_runner_jump_over_an_empty_square_ignores_height():
    s = position({"e5": "red runner", **FAR_BLUE}, RIDGE)
    assert "e7" in dests(s, "e5")  # walking costs 6 (e6, e7) or more round
    _, events = s.apply("e5-e7")
    assert events == [Moved("red", ("e5", "e7"), (), 5, "jump")]


def test_runner_cannot_jump_over_a_piece():
    s = position({"e5": "red runner", "e6": "blue lancer", **FAR_RED}, RIDGE)
    assert "e7" not in dests(s, "e5")
    assert violation(s, "e5-e7") == (  # d5 d6 d7 e7: 1 + 1 + 3 + 3
        "ply 1: e5-e7 costs 8, the Runner has 5, and cannot jump over e6, where a blue lancer stands"
    )


def test_runner_jumps_only_along_files_and_ranks_and_two_squares():
    s = position({"e5": "red runner", **FAR_BLUE}, {"e5": 4, "e4": 2, "d5": 2, "f5": 2, "e6": 2})
    # from a peak of 4 every walk costs at least 3 for the first step
    d = dests(s, "e5")
    assert {"e7", "e3", "c5", "g5", "d6", "f6", "d4", "f4"} <= d  # jumps and diagonal steps
    assert "g7" not in d and "e8" not in d  # no diagonal jump, no three-square jump (walks cost more)


def test_runner_attacks_by_a_jump():
    # a ridge of 4 along rank 6 (ranks 5 and 7 at 2): walking e5 -> e7 costs 6, the jump ignores it
    ridge = {f"{f}{r}": level for f in "abcdefghij" for r, level in ((5, 2), (6, 4), (7, 2))}
    s = position({"e5": "red runner", "e7": "blue runner", **FAR_RED}, ridge)
    assert "e5xe7" in moves_of(s, "e5")
    _, events = s.apply("e5xe7")
    assert events[:3] == [Attacked("red", "e5", "e7", (Term("Runner", 1),), (Term("Runner", 1),)),
                          Captured("e7", "runner", "blue", "red"), Moved("red", ("e5", "e7"), (), 5, "jump")]


def test_runner_attacks_by_a_diagonal_step_but_walks_in_when_that_is_better():
    s = position({"e5": "red runner", "f6": "blue runner", **FAR_RED, **FAR_BLUE}, HILL)
    # the diagonal step from e5 (0) onto f6 (4) is -1: 0 against 1; walking in costs 6 or more
    assert "e5xf6" not in moves_of(s, "e5")
    s = position({"e5": "red runner", "f6": "blue runner", **FAR_RED, **FAR_BLUE}, {**HILL, "e5": 2, "f6": 2, "e4": 1, "d5": 1})
    # e5 (2) onto f6 (2): level, 1 against 1, by the diagonal or walking in from f5 / e6 (both 2)
    _, events = s.apply("e5xf6")
    # walking in beats the alternative; f5 and e6 tie, and f5 comes first (the target's neighbours N, E, S, W)
    assert [e for e in events if isinstance(e, Attacked)] == [Attacked("red", "f5", "f6", (Term("Runner", 1),), (Term("Runner", 1),))]


def test_runner_attack_by_a_diagonal_step_from_lower_ground_is_minus_one():
    s = position({"e5": "red runner", "f6": "blue runner", **FAR_RED, **FAR_BLUE}, HILL)  # e5 (0) onto f6 (4)
    assert violation(s, "e5xf6") == (
        "ply 1: e5xf6 is too weak: 0 (Runner 1, -1 from lower ground) against 1 (Runner 1); "
        "an attack needs at least the defender's strength"
    )


def test_runner_alternatives_never_exit():
    # b9 boxed in orthogonally: the walk to rank 10 costs 5 (b8 c8 d8 d9 d10), no point left
    s = position({"b9": "red runner", "b10": "blue runner", "a9": "blue runner", "c9": "blue lancer"})
    moves = moves_of(s, "b9")
    assert "b9-exit" not in moves
    assert {"b9-a10", "b9-c10"} <= moves  # the diagonal steps reach rank 10 ...
    assert violation(s, "b9-exit") == (
        "ply 1: b9-exit needs 1 point left on rank 10: the cheapest path there costs 5, the Runner has 5"
    )
    after, events = s.apply("b9-c10")
    assert after.pieces_on("c10") == ("red runner",) and after.exits == 0 and not any(isinstance(e, Exited) for e in events)


# ------------------------------------------------------------------------- attacks (T11-T15)


def test_attack_from_higher_ground_is_plus_one():
    flat = position({"c4": "red runner", "c5": "blue lancer", **FAR_RED, **FAR_BLUE})
    assert "c4xc5" not in moves_of(flat, "c4")  # 1 against 2
    high = position({"c4": "red runner", "c5": "blue lancer", **FAR_RED, **FAR_BLUE}, {"c4": 1})
    assert "c4xc5" in moves_of(high, "c4")  # 2 against 2: equal is enough
    after, events = high.apply("c4xc5")
    assert events == [
        Attacked("red", "c4", "c5", (Term("Runner", 1), Term("higher ground", 1)), (Term("Lancer", 2),)),
        Captured("c5", "lancer", "blue", "red"),
        Moved("red", ("c4", "c5"), (2,), 5),  # down one level: 1 + 1
    ]
    assert after.pieces_on("c5") == ("red runner",) and after.pieces_on("c4") == ()


def test_attack_from_lower_ground_is_minus_one_and_neighbours_count():
    pieces = {"c4": "red guardian", "c5": "blue guardian", "j10": "blue runner", "a1": "red runner"}
    s = position(pieces, {"c5": 1})
    assert attack_strengths(s.board, IDX["c4"], IDX["c5"], -1, 1) == (2, 3)
    assert violation(s, "c4xc5") == (
        "ply 1: c4xc5 is too weak: 2 (Guardian 3, -1 from lower ground) against 3 (Guardian 3); "
        "an attack needs at least the defender's strength"
    )
    helped = position({**pieces, "d5": "red runner"}, {"c5": 1})  # + the runner's strength 1
    assert "c4xc5" in moves_of(helped, "c4")
    defended = position({**pieces, "d5": "red runner", "b5": "blue runner"}, {"c5": 1})  # defender +1
    assert violation(defended, "c4xc5") == (
        "ply 1: c4xc5 is too weak: 3 (Guardian 3, -1 from lower ground, +1 from 1 friend next to c5) against "
        "4 (Guardian 3, +1 for 1 neighbour); an attack needs at least the defender's strength"
    )


def test_friendly_neighbours_add_their_strength_and_the_attacker_itself_never_counts():
    s = position({"c4": "red runner", "d5": "red guardian", "b5": "red lancer", "c5": "blue guardian", **FAR_BLUE})
    # runner 1 + guardian 3 + lancer 2 = 6 against 3
    assert attack_strengths(s.board, IDX["c4"], IDX["c5"], 0, 1) == (6, 3)
    # the guardian attacking from d5 counts the runner and the lancer, not itself: 3 + 1 + 2
    assert attack_strengths(s.board, IDX["d5"], IDX["c5"], 0, 1) == (6, 3)


def test_defender_gets_one_per_friendly_neighbour_whatever_its_strength():
    s = position({"c4": "red guardian", "c5": "blue runner", "b5": "blue guardian", "d5": "blue guardian", **FAR_RED})
    assert attack_strengths(s.board, IDX["c4"], IDX["c5"], 0, 1) == (3, 3)
    assert "c4xc5" in moves_of(s, "c4")


def test_a_forbidden_losing_attack_is_not_a_legal_move():
    s = position({"c4": "red runner", "c5": "blue lancer", **FAR_RED})
    assert not any(m.kind == "attack" for m in s.legal_moves())
    assert violation(s, "c4xc5") == (
        "ply 1: c4xc5 is too weak: 1 (Runner 1) against 2 (Lancer 2); an attack needs at least the defender's strength"
    )


def test_height_is_judged_from_the_square_stepped_in_from_not_the_start():
    # The Guardian starts on c3 (2), above the target c5 (1), but can only step in from c4 (1).
    pieces = {"c3": "red guardian", "c5": "blue guardian", "c6": "blue runner", "a1": "red runner"}
    s = position(pieces, {"c3": 2, "c4": 1, "c5": 1, "c6": 1})
    assert violation(s, "c3xc5") == (
        "ply 1: c3xc5 is too weak: 3 (Guardian 3) against 4 (Guardian 3, +1 for 1 neighbour); "
        "an attack needs at least the defender's strength"
    )
    # The Runner starts on c3 (0), below c5 (1), but steps in from c4 (2): +1 (1 + 1 against the Lancer's 2).
    s = position({"c3": "red runner", "c5": "blue lancer", **FAR_BLUE}, {"c4": 2, "c5": 1})
    assert "c3xc5" in moves_of(s, "c3")
    _, events = s.apply("c3xc5")
    assert events[:2] == [Moved("red", ("c3", "c4"), (3,), 5),  # up two levels: 2 + 1
                          Attacked("red", "c4", "c5", (Term("Runner", 1), Term("higher ground", 1)), (Term("Lancer", 2),))]


def test_the_attacker_uses_its_best_approach():
    # c5 (1) can be reached from c4 (2, higher) or from b5 (0, lower); both fit the Runner's 5 points.
    # (and by the jump from c3 (0), lower too): c4 is used, +1, 2 against the Lancer's 2
    s = position({"c3": "red runner", "c5": "blue lancer", **FAR_RED, **FAR_BLUE}, {"c4": 2, "c5": 1, "c6": 1})
    _, events = s.apply("c3xc5")
    attacked = [e for e in events if isinstance(e, Attacked)]
    assert attacked == [Attacked("red", "c4", "c5", (Term("Runner", 1), Term("higher ground", 1)), (Term("Lancer", 2),))]


def test_among_approaches_as_high_the_cheapest_then_the_targets_first_neighbour_n_e_s_w():
    # level ground: the Guardian attacks from where it stands (1 point), not from b5 or d5 (3 points)
    s = position({"c4": "red guardian", "c5": "blue runner", **FAR_RED, **FAR_BLUE})
    assert s.apply("c4xc5")[1][0] == Attacked("red", "c4", "c5", (Term("Guardian", 3),), (Term("Runner", 1),))
    # d4 (0) from d5 (1) or e4 (2), both higher: e5 (2) -> d5 -> d4 costs 2 + 2, e5 -> e4 -> d4 1 + 3;
    # equal, so d5, the target's north neighbour, comes first
    s = position({"e5": "red runner", "d4": "blue runner", **FAR_RED, **FAR_BLUE}, {"d5": 1, "e4": 2, "e5": 2})
    assert s.apply("e5xd4")[1][:2] == [Moved("red", ("e5", "d5"), (2,), 5),
                                       Attacked("red", "d5", "d4", (Term("Runner", 1), Term("higher ground", 1)),
                                                (Term("Runner", 1),))]


def test_an_attack_must_reach_the_target():
    s = position({"c1": "red guardian", "c6": "blue runner", **FAR_RED})
    assert violation(s, "c1xc6") == "ply 1: c1xc6 costs 5, the Guardian has 3"
    s = position({"c1": "red guardian", "c3": "blue runner", "c2": "blue guardian", "b2": "red runner"}, {})
    assert violation(s, "c1xd2") == "ply 1: c1xd2 attacks d2, an empty square; a move is written c1-d2"
    assert violation(s, "c1xb2") == "ply 1: c1xb2 attacks its own side's red runner on b2"


def test_lancer_charge_when_the_cheapest_path_costs_exactly_4():
    charge = position({"c1": "red lancer", "c5": "blue guardian", **FAR_RED})
    assert "c1xc5" in moves_of(charge, "c1")  # 2 + 1 charge = 3 against 3
    assert attack_strengths(charge.board, IDX["c1"], IDX["c5"], 0, 4) == (3, 3)
    short = position({"c1": "red lancer", "c4": "blue guardian", **FAR_RED})
    assert violation(short, "c1xc4") == (
        "ply 1: c1xc4 is too weak: 2 (Lancer 2) against 3 (Guardian 3); an attack needs at least the defender's strength"
    )


def test_lancer_charge_counts_movement_points_not_squares():
    # c4 is three squares away, but c3 and c4 are at level 1: c2 (1) + c3 (2) + c4 (1) = 4 -> charge
    s = position({"c1": "red lancer", "c4": "blue guardian", **FAR_RED}, {"c3": 1, "c4": 1})
    assert "c1xc4" in moves_of(s, "c1")
    _, events = s.apply("c1xc4")
    # stepped in on level ground: the +1 is the charge
    assert Attacked("red", "c3", "c4", (Term("Lancer", 2), Term("charge", 1)), (Term("Guardian", 3),)) in events
    assert [e.costs for e in events if isinstance(e, Moved)] == [(1, 2), (1,)]  # c2, up to c3, then onto c4: 4
    # one more level on c4 makes the cheapest path 5: out of reach
    s = position({"c1": "red lancer", "c4": "blue guardian", **FAR_RED}, {"c3": 1, "c4": 2})
    assert violation(s, "c1xc4") == "ply 1: c1xc4 costs 5, the Lancer has 4"


def test_lancer_charge_needs_the_cheapest_path_to_cost_4_not_any_path():
    # d8 (0) steps onto d7 (1) for 2 points; the walks in by e8 e7 or c8 c7 cost 4, but they are not the cheapest
    s = position({"d8": "red lancer", "d7": "blue guardian"}, {"d7": 1})
    assert violation(s, "d8xd7") == (
        "ply 1: d8xd7 is too weak: 1 (Lancer 2, -1 from lower ground) against 3 (Guardian 3); "
        "an attack needs at least the defender's strength"
    )


def test_an_attack_on_the_last_row_does_not_exit():
    s = position({"c9": "red guardian", "c10": "blue runner", **FAR_BLUE})
    after, events = s.apply("c9xc10")
    assert after.pieces_on("c10") == ("red guardian",) and after.exits == 0
    assert not any(isinstance(e, Exited) for e in events)


# ------------------------------------------------------------------------- exits (T16-T20)


def test_exit_from_the_last_row_at_the_start_of_the_turn():
    s = position({"c10": "red guardian", "a1": "red runner", **FAR_BLUE}, exits=1, score={"red": 0, "blue": 1})
    assert "c10-exit" in moves_of(s, "c10")
    after, events = s.apply("c10-exit")
    assert events[0] == Exited("red", "c10")
    assert after.score() == {"red": 3, "blue": 1}


def test_exit_by_reaching_the_last_row_with_a_point_left():
    s = position({"c7": "red runner", "a1": "red lancer", **FAR_BLUE})
    after, events = s.apply("c7-exit")  # 3 of 5 points to c10
    assert events[:2] == [Moved("red", ("c7", "c8", "c9", "c10"), (1, 1, 1), 5), Exited("red", "c10")]
    assert after.pieces_on("c7") == () and after.score() == {"red": 1, "blue": 0} and after.exits == 1
    assert after.result() is None


def test_no_exit_with_no_point_left():
    s = position({"c7": "red guardian", **FAR_BLUE})
    assert "c7-exit" not in moves_of(s, "c7")
    assert violation(s, "c7-exit") == (
        "ply 1: c7-exit needs 1 point left on rank 10: the cheapest path there costs 3, the Guardian has 3"
    )
    assert "c8-exit" in moves_of(position({"c8": "red guardian", **FAR_BLUE}), "c8")


def test_no_exit_from_elsewhere_when_the_way_is_blocked():
    s = position({"c9": "red runner", "c10": "blue runner", "b9": "blue runner", "d9": "blue lancer", "a1": "red guardian"})
    assert violation(s, "c9-exit") == (
        "ply 1: c9-exit needs 1 point left on rank 10: the cheapest path there costs 5, the Runner has 5"
    )
    boxed = position({"a10": "red runner", "a9": "blue runner", "b10": "blue lancer", "b9": "blue guardian"})
    assert "a10-exit" in moves_of(boxed, "a10")  # standing on the last row: always
    boxed = position({"a9": "red runner", "a10": "blue runner", "b9": "blue guardian", "a8": "blue guardian"})
    assert violation(boxed, "a9-exit") == "ply 1: a9-exit cannot reach rank 10: pieces block every path of the Runner"


def test_blue_exits_past_rank_1():
    s = position({"e3": "blue lancer", "j10": "blue runner", "a10": "red runner"}, first="blue")
    assert "e3-exit" in moves_of(s, "e3")
    after, events = s.apply("e3-exit")
    assert Exited("blue", "e1") in events and after.score() == {"red": 0, "blue": 2}


def test_moving_onto_the_last_row_is_a_choice_not_an_exit():
    s = position({"c7": "red runner", **FAR_BLUE})
    after, _ = s.apply("c7-c10")
    assert after.pieces_on("c10") == ("red runner",) and after.exits == 0
    assert "c10-exit" in moves_of(after.apply("j10-j9")[0], "c10")


def test_guardian_exiting_first_wins_at_once():
    s = position({"c10": "red guardian", "a1": "red runner", "e5": "blue guardian", "f5": "blue guardian"})
    after, events = s.apply("c10-exit")
    assert after.result().text() == "winner red (guardian exited first)"
    assert events[-1] == GameOver("red", "guardian exited first")
    assert after.to_move() is None and list(after.legal_moves()) == []
    assert after.score() == {"red": 3, "blue": 0} and after.exits == 1
    assert after.reach("e5") == [] and after.reach("a1") == []  # nobody is to move
    # the final position: the Guardian has left the board, everyone else stays
    assert after.pieces[1] == s.pieces[1] and len(after.pieces[0]) == len(s.pieces[0]) - 1


def test_a_guardian_exiting_second_is_just_the_second_exit():
    s = position({"c10": "red guardian", "a1": "red runner", **FAR_BLUE}, exits=1, score={"red": 0, "blue": 2})
    after, _ = s.apply("c10-exit")
    assert after.result().text() == "winner red (second exit)"


def test_second_exit_ends_the_game_higher_score_wins():
    s = position({"c10": "red runner", "a1": "red lancer", **FAR_BLUE}, exits=1, score={"red": 0, "blue": 2})
    after, _ = s.apply("c10-exit")
    assert after.result().text() == "winner blue (second exit)"
    assert after.score() == {"red": 1, "blue": 2}


def test_second_exit_with_equal_scores_is_a_draw():
    s = position({"c10": "red runner", "a1": "red lancer", **FAR_BLUE}, exits=1, score={"red": 0, "blue": 1})
    after, events = s.apply("c10-exit")
    assert after.result().text() == "draw (second exit)"
    assert events[-1] == GameOver(None, "second exit")


def test_the_same_side_can_make_both_exits():
    s = position({"c10": "red lancer", "a1": "red runner", **FAR_BLUE}, exits=1, score={"red": 1, "blue": 0})
    after, _ = s.apply("c10-exit")
    assert after.result().text() == "winner red (second exit)" and after.score() == {"red": 3, "blue": 0}


def test_no_pieces_left_the_other_side_scores_its_strongest_piece():
    s = position({"c4": "red lancer", "a1": "red guardian", "c5": "blue runner"}, exits=1, score={"red": 0, "blue": 2})
    after, events = s.apply("c4xc5")
    assert after.score() == {"red": 3, "blue": 2}  # + the Guardian's 3
    assert after.result().text() == "winner red (no pieces left)"
    assert events[-1] == GameOver("red", "no pieces left")


def test_no_pieces_left_can_be_a_draw():
    s = position({"c4": "red lancer", "c5": "blue runner"}, exits=1, score={"red": 0, "blue": 2})
    after, _ = s.apply("c4xc5")
    assert after.score() == {"red": 2, "blue": 2} and after.result().text() == "draw (no pieces left)"


def test_exiting_with_the_last_piece_leaves_no_pieces():
    s = position({"c1": "blue runner", "a10": "red guardian", "b10": "red runner"}, first="blue")
    after, _ = s.apply("c1-exit")
    assert after.score() == {"red": 3, "blue": 1}
    assert after.result().text() == "winner red (no pieces left)"


def test_second_exit_that_empties_a_side_also_scores_the_other_sides_strongest():
    s = position({"c10": "red runner", "e5": "blue runner"}, exits=1, score={"red": 0, "blue": 1})
    after, _ = s.apply("c10-exit")
    assert after.score() == {"red": 1, "blue": 2}
    assert after.result().text() == "winner blue (second exit)"


# ------------------------------------------------------------------------- 200 moves (T21)


def _limit(pieces: dict[str, str], move: str, **setup) -> str:
    s = position(pieces, moves_played=199, **setup)
    after, events = s.apply(move)
    assert isinstance(events[-1], GameOver)
    return after.result().text()


def test_200_moves_higher_score_wins():
    pieces = {"a1": "red runner", "j10": "blue runner", "e5": "blue guardian"}
    assert _limit(pieces, "a1-a2", exits=1, score={"red": 1, "blue": 0}) == "winner red (200 moves: higher score)"


def test_200_moves_then_the_piece_closest_to_the_finish():
    # after a1-a2 red's best piece is 8 ranks from rank 10; blue's e5 is 4 from rank 1
    pieces = {"a1": "red guardian", "j10": "blue runner", "e5": "blue runner"}
    assert _limit(pieces, "a1-a2") == "winner blue (200 moves: piece closest to the finish)"
    pieces = {"a1": "red runner", "a8": "red runner", "j10": "blue guardian", "e5": "blue guardian"}
    assert _limit(pieces, "a1-a2") == "winner red (200 moves: piece closest to the finish)"


def test_200_moves_then_the_strongest_piece():
    pieces = {"a1": "red guardian", "e5": "red runner", "e6": "blue lancer", "j10": "blue runner"}
    # red: e5 is 5 ranks from rank 10; blue: e6 is 5 ranks from rank 1; red's Guardian is the strongest
    assert _limit(pieces, "a1-b1") == "winner red (200 moves: strongest piece)"
    pieces = {"a1": "red runner", "e5": "red runner", "e6": "blue guardian", "j10": "blue runner"}
    assert _limit(pieces, "a1-b1") == "winner blue (200 moves: strongest piece)"


def test_200_moves_all_equal_is_a_draw():
    pieces = {"a1": "red lancer", "e5": "red runner", "e6": "blue lancer", "j10": "blue runner"}
    assert _limit(pieces, "a1-b1") == "draw (200 moves: all tie-breaks equal)"


def test_200_moves_counts_plies_and_the_sudden_ends_come_first():
    s = position({"a1": "red runner", "j10": "blue runner", "e5": "blue guardian"}, moves_played=198)
    s, _ = s.apply("a1-a2")
    assert s.result() is None and s.ply == 1
    s, _ = s.apply("j10-j9")
    assert s.result().reason == "200 moves: piece closest to the finish"
    s = position({"c10": "red guardian", "a1": "red runner", **FAR_BLUE}, moves_played=199)
    after, _ = s.apply("c10-exit")
    assert after.result().text() == "winner red (guardian exited first)"


def test_a_random_game_never_lasts_more_than_200_plies():
    s = TerrainState.start(generate(11))
    rng = random.Random(11)
    while not s.is_terminal():
        s, _ = s.apply(s.random_move(rng))
    assert s.ply <= 200


# ------------------------------------------------------------------------- repetition (T22)


def test_threefold_repetition_is_a_draw():
    s = position({"a1": "red guardian", "j10": "blue guardian"})
    shuffle = ["a1-a2", "j10-j9", "a2-a1", "j9-j10"]
    for i, move in enumerate(shuffle * 2):
        s, events = s.apply(move)
        if i < 7:
            assert s.result() is None, move
    assert s.ply == 8 and s.result().text() == "draw (threefold repetition)"
    assert events[-1] == GameOver(None, "threefold repetition")


def test_repetition_needs_the_same_side_to_move():
    # red's guardian goes round a 2 x 2 square in 4 moves while blue shuffles in 2: the boards
    # repeat, but with the same side to move only every 4 plies
    s = position({"a1": "red guardian", "j10": "blue guardian"})
    for move in ["a1-a2", "j10-j9", "a2-a1", "j9-j10", "a1-b1", "j10-j9"]:
        s, _ = s.apply(move)
        assert s.result() is None


def test_a_capture_starts_the_repetition_count_again():
    s = position({"a1": "red guardian", "c1": "red runner", "c2": "blue runner", "j10": "blue guardian"})
    for move in ["a1-a2", "j10-j9", "a2-a1", "j9-j10", "c1xc2", "j10-j9", "a1-a2", "j9-j10", "a2-a1"]:
        s, _ = s.apply(move)
        assert s.result() is None


def test_the_history_holds_the_positions_since_the_last_capture_or_exit():
    s = position({"c4": "red lancer", "a1": "red guardian", "c5": "blue runner", "j10": "blue lancer", "e2": "blue runner"})
    lengths = []
    for move in ["a1-a2", "j10-j9", "c4xc5", "e2-exit", "a2-a3"]:
        s, _ = s.apply(move)
        lengths.append(len(s.history))
    assert lengths == [2, 3, 1, 1, 2] and s.result() is None


# ------------------------------------------------------------------------- pass (T23)

BLOCKED = {"a1": "red guardian", "a2": "blue guardian", "b1": "blue guardian", "b2": "blue lancer"}


def test_pass_when_blocked():
    s = position(BLOCKED)
    assert list(s.legal_moves()) == [PASS]
    after, events = s.apply("pass")
    assert events == [TurnLost("red", "no legal move")]
    assert after.to_move() == "blue" and after.ply == 1 and after.board == s.board


def test_pass_with_a_legal_move_is_refused():
    s = position({"a1": "red guardian", **FAR_BLUE})
    assert violation(s, "pass") == "ply 1: pass is only allowed without a legal move, and red has a1-b1"


def test_only_passes_end_in_repetition():
    s = position({**BLOCKED, "j10": "blue runner"}, first="blue")
    for move in ["j10-j9", "pass", "j9-j10", "pass"] * 2:
        assert s.result() is None
        s, _ = s.apply(move)
    assert s.ply == 8 and s.result().text() == "draw (threefold repetition)"


# ------------------------------------------------------------------------- state, setup, errors


def test_apply_never_mutates_and_to_setup_round_trips():
    s = position({"c4": "red lancer", "c5": "blue runner", "a1": "red guardian", "j10": "blue lancer"})
    snap = tuple(getattr(s, k) for k in type(s).__slots__)
    after, _ = s.apply("c4xc5")
    assert tuple(getattr(s, k) for k in type(s).__slots__) == snap
    again = TerrainState.from_setup(after.to_setup())
    assert again.board == after.board and again.to_move() == "blue" and again.moves_played == 1


def test_the_map_and_its_seed_go_with_the_position():
    s = TerrainState.start(generate(3), 3)
    assert s.terrain.seed == 3 and s.to_setup()["terrain_seed"] == 3
    again = TerrainState.from_setup(s.apply(next(s.legal_moves()))[0].to_setup())
    assert again.terrain.seed == 3 and again.terrain == s.terrain and hash(again.terrain) == hash(s.terrain)
    other = TerrainState.start(generate(4), 4).terrain
    assert other != s.terrain and hash(other) != hash(s.terrain)


def test_moves_after_the_end_are_refused():
    s = position({"c10": "red guardian", "a1": "red runner", **FAR_BLUE})
    after, _ = s.apply("c10-exit")
    assert violation(after, "j10-j9") == "ply 2: j10-j9 comes after the end of the game: winner red (guardian exited first)"


def test_hand_built_moves_are_checked():
    s = position({"c4": "red lancer", **FAR_BLUE})
    c4 = IDX["c4"]
    for bad in (TerrainMove("move", 500, 3), TerrainMove("move", 100, 3), TerrainMove("move", c4, 100),
                TerrainMove("fly", c4, 24), TerrainMove("exit", c4, 5), TerrainMove("pass", c4, -1),
                TerrainMove("pass", -1, c4), 3):
        assert violation(s, bad) == f"ply 1: {bad!r} is not a terrain-game move"  # type: ignore[arg-type]
    with pytest.raises(MoveTextError):
        s.apply("nonsense")


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ({}, "setup.heightmap: missing"),
        ({"heightmap": hmap(), "pieces": {"k1": "red runner"}}, "setup.pieces: 'k1' is not a square a1-j10"),
        ({"heightmap": hmap(), "pieces": {"a1": "red king"}}, "setup.pieces.a1: 'red king' is not a piece"),
        ({"heightmap": hmap(), "pieces": {"a1": ["red"]}}, "setup.pieces.a1: ['red'] is not a piece"),
        ({"heightmap": hmap(), "pieces": {"a1": "red runner"}}, "setup.pieces: blue has no piece"),
        (
            {"heightmap": hmap(), "pieces": {"a1": "red runner", "a2": "red runner", "a3": "red runner", "j1": "blue runner"}},
            "setup.pieces: 3 red runners, at most 2",
        ),
        ({"heightmap": hmap(), "first": "green"}, "setup.first: 'green' is not a player"),
        ({"heightmap": hmap(), "exits": 2}, "setup.exits: 2 is not 0 or 1"),
        ({"heightmap": hmap(), "score": {"red": 1, "blue": 0}}, "setup.score: {'red': 1, 'blue': 0} but no piece has exited"),
        ({"heightmap": hmap(), "exits": 1, "score": {"red": 1, "blue": 1}}, "setup.score: {'red': 1, 'blue': 1} does not match"),
        ({"heightmap": hmap(), "score": [1]}, "setup.score: expected"),
        ({"heightmap": hmap(), "moves_played": 200}, "setup.moves_played: 200 is not an integer from 0 to 199"),
        ({"heightmap": hmap(), "terrain_seed": -1}, "setup.terrain_seed: -1 is not an integer"),
        ({"heightmap": hmap(), "colour": 1}, "setup: unknown field 'colour'"),
        ({"heightmap": hmap(c4=7)}, "setup.heightmap: c3 = 0 and c4 = 7 differ by 7, expected at most 2"),
        ({"heightmap": hmap()[:9]}, "setup.heightmap: 9 rows, expected 10"),
        ({"heightmap": None}, "setup.heightmap: expected 10 rows of 10 levels (rank 1 first), got null"),
    ],
)
def test_bad_setups(setup, message):
    with pytest.raises(SetupError) as info:
        TerrainState.from_setup(setup)
    assert str(info.value).startswith(message)


def test_players_must_be_red_and_blue():
    with pytest.raises(SetupError, match=r"players: expected \['red', 'blue'\]"):
        TerrainState.from_setup({"heightmap": hmap()}, ["yellow", "red"])
    with pytest.raises(SetupError) as e:
        get_game("terrain").initial_state(["blue", "red"], {"heightmap": hmap()})
    assert str(e.value) == "players: expected ['red', 'blue'], got ['blue', 'red']"
    with pytest.raises(SetupError) as e:
        TerrainState.from_setup({"heightmap": hmap()}, ["x" * 300])
    assert str(e.value) == "players: expected ['red', 'blue'], got ['" + "x" * 35 + "..."  # the value cut, whole


# ------------------------------------------------------------------------- brute-force reference


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def _orth(p: int) -> list[int]:
    f, r = p % 10, p // 10
    return [q for q, ok in ((p + 10, r < 9), (p + 1, f < 9), (p - 10, r > 0), (p - 1, f > 0)) if ok]


def reference_moves(state: TerrainState) -> set[str]:
    """Legal move texts by enumerating every simple path (independent of the engine's Dijkstra)."""
    board, lv, me = state.board, state.terrain.levels, state.turn
    side = [-1, 0, 0, 0, 1, 1, 1]
    kind = [-1, 0, 1, 2, 0, 1, 2]
    strength, points = (1, 2, 3), (5, 4, 3)
    last = 9 if me == 0 else 0
    out: set[str] = set()
    for s in range(100):
        if not board[s] or side[board[s]] != me:
            continue
        k = kind[board[s]]
        budget = points[k]
        best: dict[int, int] = {}
        ways: dict[int, list[tuple[int, int]]] = {}  # enemy square -> (cost, sign)

        def dfs(p: int, cost: int, seen: frozenset[int], budget: int = budget, best=best, ways=ways) -> None:
            for q in _orth(p):
                c = cost + abs(lv[p] - lv[q]) + 1
                if c > budget or q in seen:
                    continue
                if not board[q]:
                    best[q] = min(best.get(q, 99), c)
                    dfs(q, c, seen | {q})
                elif side[board[q]] != me:
                    ways.setdefault(q, []).append((c, _sign(lv[p] - lv[q])))

        dfs(s, 0, frozenset({s}))
        targets = set(best)
        if k == 0:
            f, r = s % 10, s // 10
            alts = [(f + df, r + dr, None) for df in (-1, 1) for dr in (-1, 1)]
            alts += [(f + 2 * df, r + 2 * dr, (f + df) + 10 * (r + dr)) for df, dr in ((0, 1), (1, 0), (0, -1), (-1, 0))]
            for nf, nr, mid in alts:
                if not (0 <= nf < 10 and 0 <= nr < 10) or (mid is not None and board[mid]):
                    continue
                q = nf + 10 * nr
                if not board[q]:
                    targets.add(q)
                elif side[board[q]] != me:
                    ways.setdefault(q, []).append((99, _sign(lv[s] - lv[q])))
        out |= {f"{SQUARES[s]}-{SQUARES[q]}" for q in targets}
        for t, options in ways.items():
            cheapest = min(c for c, _ in options)
            att = strength[k] + max(sg for _, sg in options) + (k == 1 and cheapest == 4)
            dfn = strength[kind[board[t]]]
            for q in _orth(t):
                if board[q] and q != s:
                    if side[board[q]] == me:
                        att += strength[kind[board[q]]]
                    else:
                        dfn += 1
            if att >= dfn:
                out.add(f"{SQUARES[s]}x{SQUARES[t]}")
        if s // 10 == last or any(q // 10 == last and c <= budget - 1 for q, c in best.items()):
            out.add(f"{SQUARES[s]}-exit")
    return out or {"pass"}


def test_legal_moves_match_a_brute_force_reference_on_random_games():
    checked = 0
    for seed in range(6):
        rng = random.Random(seed)
        s = TerrainState.start(generate(100 + seed))
        while not s.is_terminal() and s.ply < 120:
            if s.ply % 3 == 0:
                assert {str(m) for m in s.legal_moves()} == reference_moves(s), (seed, s.ply, s.diagram())
                checked += 1
            moves = list(s.legal_moves())
            attacks = [m for m in moves if m.kind == "attack"]
            s, _ = s.apply(attacks[0] if attacks and rng.random() < 0.5 else moves[rng.randrange(len(moves))])
    assert checked > 150


def test_legal_moves_match_the_reference_on_crowded_hilly_positions():
    rng = random.Random(7)
    names = ["red runner", "red lancer", "red guardian", "blue runner", "blue lancer", "blue guardian"]
    for trial in range(60):
        squares = rng.sample(range(100), 12)
        pieces = {SQUARES[q]: names[i // 2] for i, q in enumerate(squares)}
        s = TerrainState.from_setup({"heightmap": generate(trial), "pieces": pieces, "first": rng.choice(["red", "blue"])})
        assert {str(m) for m in s.legal_moves()} == reference_moves(s), s.diagram()
        for m in s.legal_moves():
            s.apply(m)  # every generated move is accepted by apply


def test_reach_lists_each_move_of_a_square_with_what_it_costs():
    """``record``'s ``moves SQUARE``: hand-counted costs (a step costs 1 + the height
    change); an attack costs the walk onto the target; an exit from the last row costs
    nothing, from further back the walk to that row; a Runner's height-blind steps say
    which they are."""
    s = position({"a1": "red guardian", "a3": "blue runner", "e8": "red runner", "j10": "blue guardian"}, {"b1": 1})
    assert s.reach("a1") == [("a1-b1", "2 points"), ("a1-a2", "1 point"), ("a1-b2", "2 points"),
                             ("a1-c2", "3 points"), ("a1-b3", "3 points"), ("a1xa3", "2 points")]
    assert s.reach("j10") == [] and s.reach("b2") == [] and s.reach("k1") == []  # not the mover's, empty, no square
    s = position({"a10": "red lancer", "c9": "blue runner", "j1": "blue guardian"}, {"b10": 2})
    assert s.reach("a10") == [("a10-a6", "4 points"), ("a10-a7", "3 points"), ("a10-b7", "4 points"),
                              ("a10-a8", "2 points"), ("a10-b8", "3 points"), ("a10-c8", "4 points"),
                              ("a10-a9", "1 point"), ("a10-b9", "2 points"), ("a10-b10", "3 points"),
                              ("a10xc9", "3 points"), ("a10-exit", "0 points")]
    s = position({"e8": "red runner", "e9": "blue lancer", "a1": "red guardian", "j10": "blue guardian"},
                 {"e7": 1, "f8": 2})
    listed = dict(s.reach("e8"))
    assert listed["e8-d8"] == "1 point" and listed["e8-e7"] == "2 points" and listed["e8-f8"] == "3 points"
    assert listed["e8-f7"] == "4 points" and listed["e8-e10"] == "4 points"  # round the blue lancer
    assert listed["e8-f9"] == "diagonal step" and listed["e8-g8"] == "jump"  # walking there costs 6
    assert listed["e8-exit"] == "3 points"  # to d10, one point to spare
    assert "e8xe9" not in listed  # a Runner cannot beat a Lancer
    s = position({"b2": "blue runner", "c7": "red lancer", "j1": "red guardian"}, first="blue")
    assert dict(s.reach("b2"))["b2-exit"] == "1 point"  # blue's way out is rank 1


def test_reach_costs_an_attack_by_its_cheapest_step_and_names_the_runners_height_blind_steps():
    # onto d4 (0): from c4 (2) at 2 + 3, from d3 (0) at 2 + 1
    s = position({"c3": "red runner", "d4": "blue runner", "j1": "red guardian", "j10": "blue guardian"},
                 {"c3": 1, "c4": 2})
    assert dict(s.reach("c3"))["c3xd4"] == "3 points"
    ridge = {f"{f}{r}": level for f in "abcdefghij" for r, level in ((5, 2), (6, 4), (7, 2))}
    s = position({"e5": "red runner", "e7": "blue runner", **FAR_RED}, ridge)
    assert dict(s.reach("e5"))["e5xe7"] == "jump"  # walking onto e7 costs 6
    s = position({"e5": "red runner", "b1": "red lancer", **FAR_BLUE}, RIDGE)
    assert dict(s.reach("e5"))["e5-e7"] == "jump"
    assert s.reach("k1") == [] and s.reach("") == []  # not squares (b1 holds a piece of the side to move)


@pytest.mark.parametrize(("pieces", "heights", "move", "strengths"), [
    ({"c4": "red runner", "c5": "blue guardian", "b5": "red runner", "d5": "red lancer", "c6": "blue runner",
      "j1": "red guardian"}, {"c5": 1}, "c4xc5",
     "3 (Runner 1, -1 from lower ground, +3 from 2 friends next to c5) against 4 (Guardian 3, +1 for 1 neighbour)"),
    ({"c1": "red lancer", "c5": "blue guardian", "b5": "blue runner", "d5": "blue lancer", "c6": "red runner",
      "j1": "red guardian"}, {}, "c1xc5",
     "4 (Lancer 2, +1 charge, +1 from 1 friend next to c5) against 5 (Guardian 3, +2 for 2 neighbours)"),
    ({"c4": "red runner", "c5": "blue guardian", "j1": "red guardian", "j10": "blue runner"}, {"c4": 1}, "c4xc5",
     "2 (Runner 1, +1 from higher ground) against 3 (Guardian 3)"),
])
def test_a_too_weak_attack_says_every_term_of_both_strengths(pieces, heights, move, strengths):
    """Counted by hand: friends next to the target add their strength, the defender's
    neighbours one each, a Lancer's four-point walk is a charge."""
    assert violation(position(pieces, heights), move) == (
        f"ply 1: {move} is too weak: {strengths}; an attack needs at least the defender's strength")


def _every_greedy_choice(s: TerrainState) -> set:
    first = Pick(0)
    return {s.greedy_move(first)} | {s.greedy_move(Pick(k)) for k in range(1, first.offered)}


def _greedy_choices(s: TerrainState) -> set:
    """The greedy player's rule, from its description, by applying every move."""
    me, forward = s.to_move(), 1 if s.to_move() == "red" else -1
    wins, exits, captures, advances = set(), {}, {}, {}
    for m in s.legal_moves():
        res = s.apply(m)[0].result()
        if res is not None and res.winner == me:
            wins.add(m)
        elif m.kind == "move":  # a plain move is judged by its ranks alone, even one that loses
            advances[m] = (m.to // 10 - m.frm // 10) * forward
        elif res is not None and res.winner is not None:
            continue  # an exit or a capture that loses at once
        elif m.kind == "exit":
            exits[m] = STRENGTH[KINDS.index(s.pieces_on(SQUARES[m.frm])[0].split()[1])]
        elif m.kind == "attack":
            captures[m] = STRENGTH[KINDS.index(s.pieces_on(SQUARES[m.to])[0].split()[1])]
    if wins:
        return wins
    for pool in (exits, captures, advances):
        if pool:
            return {m for m, v in pool.items() if v == max(pool.values())}
    return set(s.legal_moves())


def test_the_greedy_player_follows_its_rule_over_whole_games():
    """Every move greedy could pick (its random draws enumerated) is one its rule allows,
    and every one the rule allows can be picked: over random games, and from positions of
    those games moved to the last of the 200 moves, where a plain move can win."""
    rng = random.Random(5)
    met = set()
    for seed in (1, 2, 3):
        s = TerrainState.start(generate(seed), seed)
        while not s.is_terminal():
            moves = list(s.legal_moves())
            if s.ply % 2 == 0 or len(moves) < 12:  # every other ply, and every one near the end
                expected = _greedy_choices(s)
                assert _every_greedy_choice(s) == expected, s
                met |= {m.kind for m in expected}
            if s.ply % 20 == 7:
                last = TerrainState.from_setup({**s.to_setup(), "moves_played": MAX_MOVES - 1})
                assert _every_greedy_choice(last) == _greedy_choices(last), last
            s, _ = s.apply(s.random_move(rng))
    assert met >= {"move", "attack", "exit"}, met


def test_the_greedy_player_with_one_move_plays_it_without_drawing():
    rng = random.Random(1)
    state = rng.getstate()
    assert position(BLOCKED).greedy_move(rng) == PASS and rng.getstate() == state


def test_the_greedy_player_exits_rather_than_steps_when_those_are_its_two_moves():
    # a10 boxed in by the blue lancers: the diagonal step to b9 or the exit
    s = position({"a10": "red runner", "a9": "blue lancer", "b10": "blue lancer",
                  "j1": "red runner", "i1": "blue guardian", "j2": "blue guardian", "i2": "blue runner"})
    assert [str(m) for m in s.legal_moves()] == ["a10-b9", "a10-exit"]
    assert _every_greedy_choice(s) == {s.parse_move("a10-exit")}


def test_the_greedy_player_with_only_losing_moves_plays_any():
    # blue leads 2-0 after one exit: either red exit is the second and loses
    s = position({"a10": "red runner", "a9": "blue guardian", "b10": "blue lancer", "b9": "blue runner",
                  "j10": "red runner", "j9": "blue guardian", "i10": "blue lancer", "i9": "blue runner"},
                 exits=1, score={"red": 0, "blue": 2})
    assert _every_greedy_choice(s) == {s.parse_move("a10-exit"), s.parse_move("j10-exit")}


def test_the_greedy_player_sees_a_plain_winning_move_on_the_last_ply_of_a_log_that_started_late():
    # ply 2 is the 200th move: blue wins on the tie-breaks by bringing e6 within 2 ranks of rank 1 (c7 is 3 ranks
    # from rank 10; the strongest piece is red's), or by taking c7; any of those, not only the longest advance
    s = position({"c7": "red runner", "a1": "red guardian", "e6": "blue runner", "j10": "blue runner"}, moves_played=198)
    s, _ = s.apply("a1-b1")
    choices = _every_greedy_choice(s)
    assert choices == _greedy_choices(s)
    assert {str(m) for m in choices} == {"e6-e3", "e6-d3", "e6-f3", "e6-c3", "e6-g3", "e6-e2", "e6-d2", "e6-f2", "e6-e1",
                                         "e6xc7"}


def test_the_text_board_shows_each_squares_level_and_piece_rank_10_first():
    s = position({"a1": "red runner", "b1": "red lancer", "c2": "red guardian", "j10": "blue runner",
                  "i10": "blue lancer", "h9": "blue guardian"}, {"a1": 2, "j10": 1, "e5": 1},
                 score={"red": 0, "blue": 2}, exits=1, moves_played=17)
    empty = " ".join(["0."] * 10)
    assert s.board_text().split("\n") == [
        "    a  b  c  d  e  f  g  h  i  j",
        "10  0. 0. 0. 0. 0. 0. 0. 0. 0l 1r",
        " 9  0. 0. 0. 0. 0. 0. 0. 0g 0. 0.",
        *(f"{r:>2}  {empty}" for r in (8, 7, 6)),
        " 5  0. 0. 0. 0. 1. 0. 0. 0. 0. 0.",
        *(f"{r:>2}  {empty}" for r in (4, 3)),
        " 2  0. 0. 0G 0. 0. 0. 0. 0. 0. 0.",
        " 1  2R 0L 0. 0. 0. 0. 0. 0. 0. 0.",
        "score: red 0, blue 2; move 18 of 200",
        "key: each square is its level, then its piece: capitals are Red's, small letters Blue's "
        "(R Runner, L Lancer, G Guardian), . no piece",
    ]


_HUGE = 2**63 - 1
_LONG = "x" * 300
_CUT = "'" + "x" * 40 + "'... (300 characters)"  # a long value in a message: its first 40 characters and its length


def test_a_new_game_draws_its_map_seed_from_the_rng_unless_given():
    from stratstone_cad.registry import get_game

    g = get_game("terrain")
    players, setup = g.new_setup(2, None, random.Random(9))
    seed = random.Random(9).randrange(2**32)
    assert players == ["red", "blue"] and setup == {"terrain_seed": seed, "heightmap": generate(seed)}
    assert list(g.new_setup(2, {"first": "blue", "terrain_seed": 3}, random.Random(1))[1]) == [
        "terrain_seed", "heightmap", "first"]
    assert g.new_setup(2, {"terrain_seed": _HUGE}, random.Random(1))[1]["terrain_seed"] == _HUGE
    given = g.new_setup(2, {"heightmap": generate(5)}, random.Random(1))[1]
    assert given == {"terrain_seed": None, "heightmap": generate(5)}


@pytest.mark.parametrize(("n", "setup", "message"), [
    (3, None, "terrain needs 2 players, got 3"),
    (2, [1], "setup: expected an object"),
    *((2, {"terrain_seed": bad}, f"setup.terrain_seed: {bad!r} is not an integer from 0 to {_HUGE}")
      for bad in (-1, _HUGE + 1, "7", 1.0, True)),
    (2, {"terrain_seed": _LONG}, f"setup.terrain_seed: {_CUT} is not an integer from 0 to {_HUGE}"),
])
def test_a_new_games_bad_setup_is_refused_in_one_line(n, setup, message):
    from stratstone_cad.registry import get_game

    with pytest.raises(SetupError) as e:
        get_game("terrain").new_setup(n, setup, random.Random(1))
    assert str(e.value) == message


_SCORE = 'setup.score: expected {"red": n, "blue": n} with n from 0 to 2, got '


@pytest.mark.parametrize(("extra", "message"), [
    ({"terrain_seed": _HUGE + 1}, f"setup.terrain_seed: {_HUGE + 1} is not an integer from 0 to {_HUGE} or null"),
    ({"terrain_seed": _LONG}, f"setup.terrain_seed: {_CUT} is not an integer from 0 to {_HUGE} or null"),
    ({"first": "green"}, "setup.first: 'green' is not a player (expected red or blue)"),
    ({"first": _LONG}, f"setup.first: {_CUT} is not a player (expected red or blue)"),
    ({"exits": 2}, "setup.exits: 2 is not 0 or 1 (the second exit ends the game)"),
    ({"exits": True}, "setup.exits: True is not 0 or 1 (the second exit ends the game)"),
    ({"exits": _LONG}, f"setup.exits: {_CUT} is not 0 or 1 (the second exit ends the game)"),
    ({"score": {"red": 3, "blue": 0}}, _SCORE + "{'red': 3, 'blue': 0}"),
    ({"score": {"red": 1}}, _SCORE + "{'red': 1}"),
    ({"score": [1]}, _SCORE + "[1]"),
    ({"score": _LONG}, _SCORE + _CUT),
    ({"score": {"red": 1, "blue": True}, "exits": 1}, _SCORE + "{'red': 1, 'blue': True}"),
    ({"score": {"red": 1, "blue": 0}}, "setup.score: {'red': 1, 'blue': 0} but no piece has exited (exits 0)"),
    ({"score": {"red": 0, "blue": 0}, "exits": 1}, "setup.score: {'red': 0, 'blue': 0} does not match one exit (a "
     "Runner's 1 or a Lancer's 2 for one side, 0 for the other; a Guardian exiting first ends the game)"),
    ({"moves_played": 200}, "setup.moves_played: 200 is not an integer from 0 to 199"),
    ({"moves_played": -1}, "setup.moves_played: -1 is not an integer from 0 to 199"),
    ({"moves_played": True}, "setup.moves_played: True is not an integer from 0 to 199"),
    ({"moves_played": _LONG}, f"setup.moves_played: {_CUT} is not an integer from 0 to 199"),
    ({"bogus": 1}, "setup: unknown field 'bogus' (expected terrain_seed, heightmap, kit, pieces, first, score, exits, "
     "moves_played)"),
])
def test_a_bad_position_setup_is_refused_in_one_line(extra, message):
    with pytest.raises(SetupError) as e:
        TerrainState.from_setup({"heightmap": generate(1), "pieces": {"a1": "red runner", "j10": "blue runner"},
                                 **extra})
    assert str(e.value) == message


def test_a_setup_that_is_not_an_object_is_refused():
    with pytest.raises(SetupError, match="^setup: expected an object$"):
        TerrainState.from_setup([1])


@pytest.mark.parametrize(("pieces", "message"), [
    ([1], 'setup.pieces: expected an object of square -> piece, e.g. {"c1": "red guardian"}'),
    ({"k1": "red runner"}, "setup.pieces: 'k1' is not a square a1-j10"),
    ({"a1": "red king"}, "setup.pieces.a1: 'red king' is not a piece (expected e.g. 'red runner', 'blue guardian')"),
    ({"a1": "red " + _LONG}, "setup.pieces.a1: 'red " + "x" * 36 + "'... (304 characters) is not a piece (expected e.g. 'red runner', "
     "'blue guardian')"),
    ({"k" * 300: "red runner"}, "setup.pieces: '" + "k" * 40 + "'... (300 characters) is not a square a1-j10"),
])
def test_a_bad_piece_in_a_setup_is_refused_in_one_line(pieces, message):
    with pytest.raises(SetupError) as e:
        TerrainState.from_setup({"heightmap": generate(1), "pieces": pieces})
    assert str(e.value) == message


def test_a_random_move_after_the_end_is_refused():
    s, _ = position({"a1": "red runner", "j10": "blue runner"}, moves_played=199).apply("a1-b1")
    with pytest.raises(RuleViolation) as e:
        s.random_move(random.Random(1))
    assert str(e.value) == "ply 2: random move is asked for after the game ended"
