"""Stratstone rules, one test (or more) per rule, on hand-built positions."""

from __future__ import annotations

import itertools
import random

import pytest

from stratstone_cad.engine.events import GameOver, Placed, Result, Sown
from stratstone_cad.errors import GameError, IllegalMoveError, MoveParseError, RuleViolation, SetupError
from stratstone_cad.games.stratstone.rules import GAME, SQUARES, WALKS, StratstoneMove, StratstoneState, winning_moves


def pos(stacks: dict[str, str], first: str = "yellow") -> StratstoneState:
    """A position from compact stacks: ``{"b2": "ty"}`` = tan under yellow (bottom first)."""
    names = {"t": "tan", "y": "yellow", "r": "red"}
    return StratstoneState.from_setup({"first": first, "stacks": {sq: [names[c] for c in s] for sq, s in stacks.items()}})


def stack(state: StratstoneState, square: str) -> str:
    return "".join(s[0] for s in state.pieces_on(square))


# ------------------------------------------------------------------------- start


def test_start_two_tan_stones_on_each_corner_and_eight_in_hand():
    s = StratstoneState.start()
    for sq in SQUARES:
        assert stack(s, sq) == ("tt" if sq in ("a1", "d1", "a4", "d4") else "")
    assert s.hand[1:] == (8, 8)
    assert s.to_move() == "yellow" and s.ply == 0 and not s.is_terminal()


def test_first_player_is_a_parameter():
    assert StratstoneState.start("red").to_move() == "red"
    with pytest.raises(SetupError, match="setup.first: 'blue' is not a player"):
        StratstoneState.start("blue")


def test_players_alternate():
    s = StratstoneState.start()
    s, _ = s.apply("a1 NNE")
    assert s.to_move() == "red"
    s, _ = s.apply("d1 NNW")
    assert s.to_move() == "yellow"


# ------------------------------------------------------------------------- move text


@pytest.mark.parametrize("text", ["b2 NNE", "a1 N", "d4 SWSWSWSW"])
def test_move_text_round_trips(text):
    assert str(StratstoneMove.parse(text)) == text


@pytest.mark.parametrize(
    "text", ["b2", "b2 ", "e1 N", "a5 N", "B2 NNE", "b2 nne", "b2 NXE", "b2  NN", "b2 NE ", "", "b2 " + "N" * 25]
)
def test_bad_move_text_does_not_parse(text):
    with pytest.raises(MoveParseError, match=r"^ply 1: .* does not parse: expected a square a1-d4"):
        StratstoneState.start().parse_move(text)


STRAT_GRAMMAR = "a square a1-d4, a space and 1-24 steps of N/E/S/W, e.g. 'b2 NNE'"


@pytest.mark.parametrize(("text", "ply", "message"), [
    ("b2 X", None, f"ply 0: 'b2 X' does not parse: expected {STRAT_GRAMMAR}"),  # no ply given: ply 0
    ("b2 X", 5, f"ply 5: 'b2 X' does not parse: expected {STRAT_GRAMMAR}"),
    (57, 3, f"ply 3: '57' does not parse: expected {STRAT_GRAMMAR}"),  # not text: shown as its repr
    (["b2", "NN"], 3, f"ply 3: \"['b2', 'NN']\" does not parse: expected {STRAT_GRAMMAR}"),
])
def test_move_text_that_does_not_parse_is_refused_in_full(text, ply, message):
    with pytest.raises(MoveParseError) as e:
        StratstoneMove.parse(text) if ply is None else StratstoneMove.parse(text, ply)
    assert str(e.value) == message


def test_square_text_reads_as_file_and_rank_and_anything_else_is_refused_in_full():
    from stratstone_cad.errors import SquareError

    assert GAME.parse_square("a1") == (0, 0) and GAME.parse_square("b3") == (1, 2) and GAME.parse_square("d4") == (3, 3)
    with pytest.raises(SquareError) as e:
        GAME.parse_square("e5")
    assert str(e.value) == "'e5' is not a square (expected a1-d4: file a-d, rank 1-4)"


def test_no_diagonal_step_exists_in_the_move_text():
    # Only N, E, S and W are steps: a diagonal has no letter (and "NE" is two steps).
    with pytest.raises(MoveParseError):
        StratstoneMove.parse("a1 X")
    assert StratstoneMove.parse("a1 NE").dirs == (0, 1)


# ------------------------------------------------------------------------- sowing


def test_sowing_drops_bottom_stone_first_and_the_added_stone_last():
    s = pos({"b2": "tr", "a1": "tt"})  # red has one stone on the board: hands 8 / 7
    s2, events = s.apply("b2 NEE")
    assert stack(s2, "b2") == ""
    assert (stack(s2, "b3"), stack(s2, "c3"), stack(s2, "d3")) == ("t", "r", "y")
    assert events[0] == Placed("yellow", "b2", "yellow")
    assert events[1:] == [
        Sown("tan", "b2", "b3", 1),
        Sown("red", "b2", "c3", 2),
        Sown("yellow", "b2", "d3", 3),
    ]
    assert s2.hand[1:] == (7, 7)


def test_a_stone_may_be_put_on_any_stack_including_the_opponents():
    s = pos({"b2": "r", "a1": "tt"})
    s2, _ = s.apply("b2 NN")
    assert (stack(s2, "b3"), stack(s2, "b4")) == ("r", "y")


def test_stones_land_on_top_of_existing_stacks():
    s = pos({"a1": "tt", "a2": "r", "a3": "t"})
    s2, _ = s.apply("a1 NNN")
    assert (stack(s2, "a2"), stack(s2, "a3"), stack(s2, "a4")) == ("rt", "tt", "y")


def test_path_may_go_round_and_come_back_to_the_origin():
    s = pos({"b2": "ttr", "a1": "tt"})  # n = 4: N E S W goes round the 2 x 2 block
    s2, events = s.apply("b2 NESW")
    assert [e.square for e in events if isinstance(e, Sown)] == ["b3", "c3", "c2", "b2"]
    assert stack(s2, "b2") == "y"  # the origin was emptied, then gets the last stone


def test_path_going_round_twice_drops_one_stone_per_visit():
    s = pos({"b2": "tttttttr"})  # 8 stones: 9 steps, b3 is visited at steps 1, 5 and 9
    s2, _ = s.apply("b2 NESWNESWN")
    assert stack(s2, "b3") == "tty"
    assert stack(s2, "c3") == "tt" and stack(s2, "c2") == "tt" and stack(s2, "b2") == "tr"


def test_path_must_have_one_step_per_stone():
    s = StratstoneState.start()
    with pytest.raises(IllegalMoveError, match=r"^ply 1: a1 NN has 2 steps; the stack of 2 plus the new stone needs 3$"):
        s.apply("a1 NN")
    with pytest.raises(IllegalMoveError, match="has 4 steps"):
        s.apply("a1 NNNE")


def test_path_must_not_step_straight_back():
    s = StratstoneState.start()
    with pytest.raises(IllegalMoveError, match=r"^ply 1: a1 NSN steps straight back$"):
        s.apply("a1 NSN")
    with pytest.raises(IllegalMoveError, match=r"^ply 1: a1 ENS steps straight back$"):
        s.apply("a1 ENS")


def test_path_must_stay_on_the_board():
    s = StratstoneState.start()
    with pytest.raises(IllegalMoveError, match=r"^ply 1: a1 WNN leaves the board at step 1$"):
        s.apply("a1 WNN")
    with pytest.raises(IllegalMoveError, match="leaves the board at step 3"):
        s.apply("d4 SSE")


def test_the_tallest_stack_is_sown_along_a_path_of_24_steps():
    # every stone but red's last on a1: 23 stones, and red's last makes 24
    s = pos({"a1": "t" * 8 + "y" * 8 + "r" * 7}, first="red")
    s2, events = s.apply("a1 " + "NESW" * 6)  # six times round a2 b2 b1 a1
    assert len(events) == 1 + 24 + 1
    assert [stack(s2, sq) for sq in ("a2", "b2", "b1", "a1")] == ["ttyyrr"] * 4
    assert s2.result() == Result(None, "all stones placed")


def test_a_player_with_no_stone_left_cannot_move():
    """The guard for a state built by hand: from a setup the player to move always has a stone."""
    start = StratstoneState.start()
    s = StratstoneState(stacks=start.stacks, turn=1, hand=(0, 0, 8))
    with pytest.raises(RuleViolation) as e:
        s.apply("a1 NNE")
    assert str(e.value) == "ply 1: a1 NNE but yellow has no stones left"


def test_empty_square_cannot_start_a_move():
    with pytest.raises(IllegalMoveError, match=r"^ply 1: b2 NN starts on an empty square$"):
        StratstoneState.start().apply("b2 NN")


def test_illegal_move_errors_are_game_errors_with_context():
    with pytest.raises(RuleViolation) as info:
        StratstoneState.start().apply("a1 NSN")
    err = info.value
    assert (err.ply, err.move, err.rule) == (1, "a1 NSN", "steps straight back")
    assert isinstance(err, GameError) and isinstance(err, ValueError)


# ------------------------------------------------------------------------- legal moves


def _brute_force_moves(state: StratstoneState) -> set[str]:
    found = set()
    for sq in SQUARES:
        h = len(state.pieces_on(sq))
        if not h:
            continue
        for path in itertools.product("NESW", repeat=h + 1):
            text = f"{sq} {''.join(path)}"
            try:
                state.apply(text)
            except IllegalMoveError:
                continue
            found.add(text)
    return found


def test_legal_moves_at_the_start_perft_1():
    s = StratstoneState.start()
    moves = [str(m) for m in s.legal_moves()]
    assert len(moves) == 40 == s.count_legal_moves()  # 4 corners x 10 paths of 3 steps
    assert set(moves) == _brute_force_moves(s)


def test_legal_moves_perft_2():
    s = StratstoneState.start()
    total = sum(s.apply(m)[0].count_legal_moves() for m in s.legal_moves())
    counted = sum(len(list(s.apply(m)[0].legal_moves())) for m in s.legal_moves())
    assert total == counted


def test_legal_moves_match_brute_force_on_random_positions():
    rng = random.Random(5)
    for _ in range(4):
        s = StratstoneState.start()
        for _ in range(rng.randrange(1, 6)):
            s, _ = s.apply(s.random_move(rng))
            if s.is_terminal():
                break
        if s.is_terminal() or max(len(st) for st in s.stacks) > 4:
            continue
        assert {str(m) for m in s.legal_moves()} == _brute_force_moves(s)


def test_walk_table_counts_paths():
    assert WALKS[0][4][1] == 2 and WALKS[5][4][1] == 4  # corner a1, inner b2
    assert WALKS[0][4][3] == 10


def test_random_move_is_uniform_over_legal_moves():
    s = StratstoneState.start()
    rng = random.Random(2)
    counts: dict[str, int] = {}
    for _ in range(4000):
        m = str(s.random_move(rng))
        counts[m] = counts.get(m, 0) + 1
    assert set(counts) == {str(m) for m in s.legal_moves()}
    assert min(counts.values()) > 50  # 100 expected for each of 40 moves


# ------------------------------------------------------------------------- ends


def test_line_of_four_in_a_row_wins():
    s = pos({"a1": "y", "b1": "y", "c1": "y", "d3": "t", "a4": "r", "b4": "r", "c3": "r"})
    s2, events = s.apply("d3 SS")  # d2 <- tan, d1 <- yellow
    assert s2.is_terminal() and s2.result() == Result("yellow", "line of four")
    assert events[-1] == GameOver("yellow", "line of four", (("a1", "b1", "c1", "d1"),))
    assert s2.to_move() is None


def test_line_of_four_in_a_column_wins():
    s = pos({"c1": "y", "c2": "y", "c3": "y", "a4": "t", "a1": "r", "a2": "r", "a3": "r"})
    s2, _ = s.apply("a4 EE")  # b4 <- tan, c4 <- yellow: file c
    assert s2.result() == Result("yellow", "line of four")


def test_line_of_four_on_a_diagonal_wins():
    s = pos({"a1": "y", "b2": "y", "c3": "y", "b4": "t", "d1": "r", "c1": "r", "a2": "r"})
    s2, _ = s.apply("b4 EE")  # c4 <- tan, d4 <- yellow
    assert s2.result() == Result("yellow", "line of four")


def test_line_of_four_on_the_other_diagonal_wins():
    s = pos({"d1": "r", "c2": "r", "b3": "r", "c4": "t", "a1": "y", "b1": "y", "d4": "y"}, first="red")
    s2, _ = s.apply("c4 WW")  # b4 <- tan, a4 <- red
    assert s2.result() == Result("red", "line of four")


def test_only_the_top_of_a_stack_counts():
    # yellow under red on d1: the row a1-d1 is not yellow's
    s = pos({"a1": "y", "b1": "y", "c1": "y", "d1": "yr", "a4": "tt", "b3": "r", "c3": "r", "d3": "r"})
    assert s.result() is None
    s2, _ = s.apply("a4 EEE")  # b4 <- tan, c4 <- tan, d4 <- yellow
    assert s2.result() is None


def test_tan_tops_belong_to_nobody():
    s = pos({"a1": "t", "b1": "t", "c1": "t", "d3": "t", "a4": "tt"})
    s2, _ = s.apply("d3 SS")  # d2 <- tan, d1 <- yellow: a1-c1 are tan
    assert s2.result() is None


def test_a_move_showing_lines_for_both_players_wins_for_the_mover():
    # red tops a2 b2 c2, yellow tops a1 b1 c1; yellow sows d3 (red) S S: d2 <- red, d1 <- yellow
    s = pos({"a1": "y", "b1": "y", "c1": "y", "a2": "r", "b2": "r", "c2": "r", "d3": "r"})
    s2, events = s.apply("d3 SS")
    assert s2.result() == Result("yellow", "line of four")
    assert events[-1].lines == (("a1", "b1", "c1", "d1"),)  # the winner's line, not red's a2-d2


def test_a_move_showing_only_the_opponents_line_loses():
    s = pos({"a2": "r", "b2": "r", "c2": "r", "d3": "r", "a4": "y", "b4": "y", "a3": "y"})
    s2, events = s.apply("d3 SS")  # d2 <- red completes red's row; d1 <- yellow
    assert s2.result() == Result("red", "line of four")
    assert events[-1] == GameOver("red", "line of four", (("a2", "b2", "c2", "d2"),))


def test_draw_when_both_players_have_placed_all_their_stones():
    s = pos({"a1": "yyyyyyyt", "b1": "rrrrrrrt", "c3": "t"})  # one stone left each
    s, _ = s.apply("c3 NE")  # c4 <- tan, d4 <- yellow
    assert not s.is_terminal()
    s, events = s.apply("c4 WW")  # b4 <- tan, a4 <- red
    assert s.hand[1:] == (0, 0)
    assert s.result() == Result(None, "all stones placed")
    assert events[-1] == GameOver(None, "all stones placed")


def test_the_first_player_placing_the_last_stone_does_not_end_the_game_while_the_other_has_one():
    s = pos({"a1": "yyyyyyyt", "b1": "rrrrrrrt", "c3": "t"}, first="red")  # one stone left each
    s, _ = s.apply("c3 NE")  # c4 <- tan, d4 <- red
    assert s.hand[1:] == (1, 0) and not s.is_terminal() and s.to_move() == "yellow"
    s, _ = s.apply("c4 WW")  # b4 <- tan, a4 <- yellow
    assert s.result() == Result(None, "all stones placed")


def test_a_line_on_the_last_stone_wins_rather_than_draws():
    s = pos({"a1": "yyyyyyyt", "b1": "rrrrt", "a2": "r", "b2": "r", "c2": "r", "c3": "t", "d4": "t"})
    s, _ = s.apply("c3 NW")  # c4 <- tan, b4 <- yellow: no line
    assert not s.is_terminal()
    s, _ = s.apply("d4 SS")  # d3 <- tan, d2 <- red: row 2 is red's, with the last stone
    assert s.hand[1:] == (0, 0)
    assert s.result() == Result("red", "line of four")


def test_no_move_after_the_end():
    s = pos({"a1": "y", "b1": "y", "c1": "y", "d3": "t", "a4": "r", "b4": "r", "c3": "r"})
    s2, _ = s.apply("d3 SS")
    assert list(s2.legal_moves()) == [] and s2.count_legal_moves() == 0
    with pytest.raises(
        IllegalMoveError, match=r"^ply 2: a4 NN.* comes after the end of the game: winner yellow \(line of four\)$"
    ):
        s2.apply("a4 NN")


# ------------------------------------------------------------------------- greedy's win search


def _brute_force_wins(state: StratstoneState) -> set[str]:
    me = state.to_move()
    wins = set()
    for m in state.legal_moves():
        r = state.apply(m)[0].result()
        if r is not None and r.winner == me:
            wins.add(str(m))
    return wins


def test_winning_moves_finds_a_known_win():
    s = pos({"a1": "y", "b1": "y", "c1": "y", "d3": "t", "a4": "r", "b4": "r", "c3": "r"})
    wins = {str(m) for m in winning_moves(s)}
    assert "d3 SS" in wins
    assert wins <= _brute_force_wins(s)


def test_winning_moves_agree_with_brute_force_on_random_positions():
    rng = random.Random(11)
    checked = with_win = 0
    while checked < 60:
        s = StratstoneState.start(rng.choice(["yellow", "red"]))
        for _ in range(rng.randrange(2, 14)):
            m = s.random_move(rng)
            nxt = s.apply(m)[0]
            if nxt.is_terminal():
                break
            s = nxt
        if s.count_legal_moves() > 3000:
            continue
        checked += 1
        brute = _brute_force_wins(s)
        found = winning_moves(s)
        assert {str(m) for m in found} <= brute
        assert bool(found) == bool(brute)
        with_win += bool(brute)
    assert with_win >= 5  # the sample does contain winning positions


def test_a_win_whose_last_two_stones_drop_on_b1_then_a1_is_found():
    s = pos({"a2": "y", "a3": "y", "a4": "y", "c1": "t", "d2": "r", "d3": "r", "c4": "r"})
    assert [str(m) for m in winning_moves(s)] == ["c1 WW"]  # b1 <- tan, a1 <- yellow: file a
    assert _brute_force_wins(s) == {"c1 WW"}


# ------------------------------------------------------------------------- setup and state


def test_setup_validation():
    with pytest.raises(SetupError, match="9 yellow stones, at most 8"):
        pos({"a1": "yyyyyyyyy"})
    with pytest.raises(SetupError, match="9 tan stones"):
        pos({"a1": "ttttttttt"})
    with pytest.raises(SetupError, match="already shows a line of four"):
        pos({"a1": "y", "b1": "y", "c1": "y", "d1": "y", "a3": "r", "b3": "r", "c3": "r", "d4": "r"})
    with pytest.raises(SetupError, match="expected equal or one more for the first player"):
        pos({"a1": "yy", "b1": "t"})
    with pytest.raises(SetupError, match="not a square"):
        StratstoneState.from_setup({"stacks": {"e5": ["tan"]}})
    with pytest.raises(SetupError, match="board is empty"):
        StratstoneState.from_setup({"stacks": {}})
    with pytest.raises(SetupError, match="unknown field 'size'"):
        StratstoneState.from_setup({"size": 5})
    with pytest.raises(SetupError) as e:
        GAME.initial_state(["red", "yellow"], {})
    assert str(e.value) == "players: expected ['yellow', 'red'], got ['red', 'yellow']"


def test_to_setup_round_trips():
    s = StratstoneState.start()
    s, _ = s.apply("a1 NNE")
    again = StratstoneState.from_setup(s.to_setup())
    assert again.stacks == s.stacks and again.turn == s.turn and again.hand == s.hand


def test_apply_returns_a_new_state_and_leaves_the_old_one_alone():
    s = StratstoneState.start()
    before = (s.stacks, s.turn, s.hand, s.ply, s.result())
    s2, _ = s.apply("a1 NNE")
    assert (s.stacks, s.turn, s.hand, s.ply, s.result()) == before
    assert s2 is not s and s2.ply == 1


def test_no_chance_in_stratstone():
    s = StratstoneState.start()
    assert not s.is_chance()
    with pytest.raises(IllegalMoveError):
        s.apply_chance((1, 2, 3))


def test_moves_built_by_hand_are_checked():
    s = StratstoneState.start()
    for bad in [
        StratstoneMove(16, (0, 0, 0)),
        StratstoneMove(0, (0, 7, 1)),
        StratstoneMove(0, ()),
        StratstoneMove(0, (-1, 0, 0)),
        StratstoneMove(0, ([0], 0, 0)),  # unhashable
    ]:
        with pytest.raises(IllegalMoveError, match="is not a Stratstone move"):
            s.apply(bad)
    with pytest.raises(IllegalMoveError, match="is not a Stratstone move"):
        s.apply(object())  # type: ignore[arg-type]


def test_the_diagram_shows_each_squares_top_stone_rank_4_first():
    s = pos({"a1": "ty", "d1": "r", "b2": "yrt", "a4": "t", "d4": "rry"})
    assert s.diagram() == "t..y/..../.t../y..r"
    assert repr(s) == "<StratstoneState ply=0 to_move=yellow 't..y/..../.t../y..r'>"
    assert StratstoneState.start().diagram() == "t..t/..../..../t..t"


@pytest.mark.parametrize(("setup", "message"), [
    ([1], "setup: expected an object"),
    ({"stacks": [1]}, "setup.stacks: expected an object of square -> list of stones"),
    ({"stacks": {"e5": ["tan"]}}, "setup.stacks: 'e5' is not a square a1-d4"),
    ({"stacks": {"x" * 100: ["tan"]}}, f"setup.stacks: {'x' * 40!r}... (100 characters) is not a square a1-d4"),
    ({"stacks": {}}, "setup.stacks: the board is empty, a move needs a stack"),
    ({"stacks": {"a1": ["yellow"] * 8, "b1": ["red"] * 8}}, "setup: no stones left in hand, the game would already be over"),
    ({"stacks": {"a1": ["yellow"] * 9}}, "setup.stacks: 9 yellow stones, at most 8"),
    ({"stacks": {sq: ["red", "yellow"] for sq in ("a1", "b1", "c1", "d1")}}, "setup: the board already shows a line of four"),
])
def test_a_bad_setup_is_refused_in_one_line(setup, message):
    with pytest.raises(SetupError) as e:
        StratstoneState.from_setup(setup)
    assert str(e.value) == message


def test_a_setup_may_use_every_stone_of_one_colour_and_keeps_who_went_first():
    s = StratstoneState.from_setup({"stacks": {"a1": ["yellow"] * 8, "b2": ["red"] * 7}, "first": "red"})
    assert s.to_move() == "red" and s.first == 2 and s.ply == 0  # colour 2: red
    after, _ = s.apply(next(iter(s.legal_moves())))
    assert after.first == 2 and after.ply == 1


def test_a_move_of_another_kind_and_a_random_move_after_the_end_are_refused():
    with pytest.raises(RuleViolation) as e:
        StratstoneState.start().apply(3.5)
    assert str(e.value) == "ply 1: 3.5 is not a Stratstone move"
    won, _ = pos({"a1": "y", "b1": "y", "c1": "y", "d3": "t", "a4": "r", "b4": "r", "c3": "r"}).apply("d3 SS")
    assert won.result() is not None
    with pytest.raises(RuleViolation) as e:
        won.random_move(random.Random(1))
    assert str(e.value) == f"ply {won.ply + 1}: random move is asked for after the game ended"


def test_the_board_text_shows_every_stack_top_first_in_columns_at_least_two_wide():
    assert pos({"a1": "t", "c3": "y", "d4": "r"}).board_text() == (
        "   a  b  c  d\n"
        "4  .  .  .  r\n"
        "3  .  .  y  .\n"
        "2  .  .  .  .\n"
        "1  t  .  .  .\n"
        "in hand: yellow 7, red 7 (stacks top stone first: y yellow, r red, t tan)"
    )
    assert pos({"a1": "tyr", "c3": "t"}).board_text().splitlines()[:2] == ["   a   b   c   d", "4  .   .   .   ."]
    assert pos({"a1": "tyr", "c3": "t"}).board_text().splitlines()[4] == "1  ryt .   .   ."


@pytest.mark.parametrize(("players", "setup", "ok"), [
    (["yellow", "red"], {}, True),
    (["yellow", "red"], {"first": "red"}, True),
    (["yellow", "red"], {"first": "yellow"}, True),
    (["yellow", "red"], {"first": "blue"}, False),
    (["yellow", "red"], {"first": "red", "stacks": {"a1": ["tan"]}}, False),  # a start position: the schema's
    (["red", "yellow"], {}, False),
])
def test_the_fast_header_check_takes_exactly_the_usual_setups(players, setup, ok):
    assert GAME.fast_header(players, setup) is ok
