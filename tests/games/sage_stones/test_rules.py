"""Sage Stones rules, one test (or more) per rule, on hand-built positions."""

from __future__ import annotations

import random

import pytest

from stratstone_cad.engine.events import (
    BoardReset,
    Captured,
    DiceRolled,
    ExtraTurn,
    GameOver,
    Placed,
    Result,
    Trapped,
    TurnLost,
)
from stratstone_cad.errors import IllegalMoveError, MoveParseError, SetupError
from stratstone_cad.games.sage_stones.rules import GAME, PASS, SQUARES, SagePlace, SageStonesState, capture_squares, parse_move
from tests.picking import Pick

FOUR = ["yellow", "red", "blue", "green"]


def sage(board: dict[str, str] | None = None, players=FOUR, **setup) -> SageStonesState:
    return SageStonesState.from_setup(players, {"board": board or {}, **setup})


def turn(state: SageStonesState, dice, move: str):
    """Roll ``dice`` and play ``move``; returns the new state and all the ply's events."""
    s, ev1 = state.apply_chance(dice)
    s, ev2 = s.apply(move)
    return s, ev1 + ev2


def full_column(col: int, colours=FOUR, start: int = 0) -> dict[str, str]:
    return {f"{col}-{r}": colours[(r + start) % len(colours)] for r in range(1, 10)}


def captured(events) -> list[str]:
    return sorted(e.square for e in events if isinstance(e, Captured))


# ------------------------------------------------------------------------- board and moves


def test_board_has_seven_columns_3_to_9_and_nine_rows():
    assert len(SQUARES) == 63
    assert SQUARES[0] == "3-1" and SQUARES[-1] == "9-9"


@pytest.mark.parametrize("text", ["5-7", "3-1", "9-9", "-"])
def test_move_text_round_trips(text):
    assert str(parse_move(text)) == text


def test_square_text_reads_as_column_and_row_and_anything_else_is_refused_in_full():
    from stratstone_cad.errors import SquareError

    assert GAME.parse_square("3-1") == (0, 0) and GAME.parse_square("5-7") == (2, 6) and GAME.parse_square("9-9") == (6, 8)
    with pytest.raises(SquareError) as e:
        GAME.parse_square("2-1")
    assert str(e.value) == "'2-1' is not a square (expected column-row, column 3-9 and row 1-9, such as 5-7)"


SAGE_GRAMMAR = "a square column-row with column 3-9 and row 1-9 (e.g. '5-7'), or '-'"


@pytest.mark.parametrize(("text", "ply", "message"), [
    ("5_7", None, f"ply 0: '5_7' does not parse: expected {SAGE_GRAMMAR}"),  # no ply given: ply 0
    ("5_7", 4, f"ply 4: '5_7' does not parse: expected {SAGE_GRAMMAR}"),
    (57, 2, f"ply 2: '57' does not parse: expected {SAGE_GRAMMAR}"),  # not text: shown as its repr
    ([5, 7], 2, f"ply 2: '[5, 7]' does not parse: expected {SAGE_GRAMMAR}"),
])
def test_move_text_that_does_not_parse_is_refused_in_full(text, ply, message):
    with pytest.raises(MoveParseError) as e:
        parse_move(text) if ply is None else parse_move(text, ply)
    assert str(e.value) == message


@pytest.mark.parametrize("text", ["2-1", "10-1", "5-0", "5-10", "5_7", "57", " 5-7", "", "--", "5-7 "])
def test_bad_move_text_does_not_parse(text):
    with pytest.raises(MoveParseError, match=r"^ply 1: .* does not parse: expected a square column-row"):
        sage().parse_move(text)


def test_start_empty_board_ten_stones_each_first_colour_rolls():
    s = sage()
    assert s.is_chance() and s.to_move() == "yellow"
    assert s.in_hand() == dict.fromkeys(FOUR, 10)
    assert list(s.legal_moves()) == []


# ------------------------------------------------------------------------- dice


def test_roll_selects_the_column_of_the_total():
    s, events = sage().apply_chance((1, 1, 2))
    assert events == [DiceRolled("yellow", (1, 1, 2), 4)]
    assert [str(m) for m in s.legal_moves()] == [f"4-{r}" for r in range(1, 10)]
    s2, events = s.apply("4-5")
    assert s2.pieces_on("4-5") == ("yellow",) and s2.to_move() == "red"
    assert events == [Placed("yellow", "4-5", "yellow")]


def test_any_empty_square_of_the_column_is_legal_and_others_are_not():
    s = sage({"7-3": "red"})
    s1, _ = s.apply_chance((3, 2, 2))
    assert "7-3" not in {str(m) for m in s1.legal_moves()}
    with pytest.raises(IllegalMoveError, match=r"^ply 1: 7-3 is not empty$"):
        s1.apply("7-3")
    with pytest.raises(IllegalMoveError, match=r"^ply 1: 6-3 is not in column 7 \(dice 3-2-2\)$"):
        s1.apply("6-3")
    with pytest.raises(IllegalMoveError, match=r"^ply 1: - places no stone but column 7 has room"):
        s1.apply(PASS)


def test_dice_must_be_three_dice_of_1_to_3():
    for bad in [(1, 2), (1, 2, 3, 1), (0, 1, 2), (1, 4, 2), (1.0, 1, 1), (True, 1, 1), "123", None, ([1], 1, 1)]:
        with pytest.raises(IllegalMoveError, match="are not three dice of 1-3"):
            sage().apply_chance(bad)


@pytest.mark.parametrize(("dice", "shown"), [
    ((1, True, 1), "[1, True, 1]"),  # True == 1, and hashes alike: only its type tells
    ((1, 1, 2.0), "[1, 1, 2.0]"),
    ((1, 1, 1, [1]), "[1, 1, 1, [1]]"),  # unhashable, though its first three are dice
    (([1],), "[[1]]"),
    ((1, 2, "x" * 80), "[1, 2, '" + "x" * 47),  # the label is cut at 60 characters
    ("x" * 80, "'" + "x" * 54),
])
def test_a_roll_that_is_not_three_dice_is_refused_in_full(dice, shown):
    with pytest.raises(IllegalMoveError) as e:
        sage().apply_chance(dice)
    assert str(e.value) == f"ply 1: dice {shown} are not three dice of 1-3"


def test_move_before_the_roll_and_two_rolls_are_refused():
    with pytest.raises(IllegalMoveError, match="comes before the dice are rolled"):
        sage().apply("5-5")
    s, _ = sage().apply_chance((1, 1, 2))
    with pytest.raises(IllegalMoveError) as e:
        s.apply_chance([3, 3, 3])
    assert str(e.value) == "ply 1: dice [3, 3, 3] come before the previous roll was played"


@pytest.mark.parametrize("dice", [(1, 1, 1), (2, 2, 2), (3, 3, 3)])
def test_a_triple_gives_an_extra_turn(dice):
    col = sum(dice)
    s, events = turn(sage(), dice, f"{col}-1")
    assert events[-1] == ExtraTurn("yellow", "rolled a triple")
    assert s.to_move() == "yellow"


def test_extra_turns_repeat():
    s = sage()
    s, _ = turn(s, (1, 1, 1), "3-1")
    s, _ = turn(s, (3, 3, 3), "9-1")
    s, _ = turn(s, (2, 2, 2), "6-1")
    assert s.to_move() == "yellow" and s.on_board[0] == 3
    s, _ = turn(s, (1, 1, 2), "4-1")
    assert s.to_move() == "red"


@pytest.mark.parametrize("dice", [(1, 2, 3), (3, 2, 1), (2, 3, 1), (1, 3, 2), (2, 1, 3), (3, 1, 2)])
def test_1_2_3_loses_the_turn(dice):
    s, _ = sage().apply_chance(dice)
    assert list(s.legal_moves()) == [PASS]
    with pytest.raises(IllegalMoveError, match=r"6-1 places a stone but 1-2-3 loses the turn"):
        s.apply("6-1")
    s2, events = s.apply("-")
    assert events == [TurnLost("yellow", "rolled 1-2-3")]
    assert s2.to_move() == "red" and s2.on_board == (0, 0, 0, 0) and s2.ply == 1


def test_1_2_3_loses_the_turn_even_when_column_6_is_full():
    s, _ = sage(full_column(6)).apply_chance((2, 1, 3))
    s2, events = s.apply("-")
    assert events == [TurnLost("yellow", "rolled 1-2-3")]
    assert s2.on_board == s.on_board


def test_a_full_column_makes_the_roll_count_as_6():
    s = sage(full_column(4))
    s1, events = s.apply_chance((1, 1, 2))
    assert events == [DiceRolled("yellow", (1, 1, 2), 6)]  # the column the roll allows, not its total
    assert [str(m) for m in s1.legal_moves()] == [f"6-{r}" for r in range(1, 10)]
    with pytest.raises(
        IllegalMoveError, match=r"4-1 is not in column 6 \(dice 1-1-2, column 4 is full so the roll counts as 6\)"
    ):
        s1.apply("4-1")
    s2, _ = s1.apply("6-4")
    assert s2.pieces_on("6-4") == ("yellow",)


def test_a_triple_on_a_full_column_counts_as_6_and_still_plays_again():
    s, events = turn(sage(full_column(9)), (3, 3, 3), "6-2")
    assert events[-1] == ExtraTurn("yellow", "rolled a triple")
    assert s.pieces_on("6-2") == ("yellow",) and s.to_move() == "yellow"


@pytest.mark.parametrize("dice", [(1, 1, 2), (2, 2, 2)])
def test_full_column_and_full_column_6_wipe_the_board_and_restart(dice):
    board = {**full_column(4), **full_column(6, start=1), "8-8": "green"}
    s = sage(board, first="blue")  # blue rolls first; after the reset blue starts again
    s, _ = turn(s, (1, 2, 2), "5-1")  # blue
    assert s.to_move() == "green"
    s1, _ = s.apply_chance(dice)
    assert list(s1.legal_moves()) == [PASS]
    with pytest.raises(IllegalMoveError, match="places a stone but the board must be reset"):
        s1.apply("6-1")
    s2, events = s1.apply("-")
    assert events == [BoardReset("column 4 and column 6 are full" if sum(dice) == 4 else "column 6 is full")]
    assert s2.board == (0,) * 63
    assert s2.in_hand() == dict.fromkeys(FOUR, 10)
    assert s2.to_move() == "blue" and s2.ply == 2 and s2.is_chance()


def test_a_roll_of_6_with_column_6_full_resets():
    s1, _ = sage(full_column(6)).apply_chance((2, 2, 2))
    s2, events = s1.apply("-")
    assert events == [BoardReset("column 6 is full")]
    assert s2.board == (0,) * 63 and s2.to_move() == "yellow"


def test_a_reset_after_a_lost_turn_names_the_rolled_column_and_gives_the_roll_back_to_the_first_player():
    from stratstone_cad.games.sage_stones.rules import SagePass

    s = sage({**full_column(5), **full_column(6, start=2)}, first="blue")
    s, events = turn(s, (2, 3, 1), SagePass())  # a pass built by hand is a pass
    assert events == [DiceRolled("blue", (2, 3, 1), None), TurnLost("blue", "rolled 1-2-3")] and s.to_move() == "green"
    s, events = turn(s, (2, 1, 2), "-")  # green: column 5 is full, and column 6
    assert events == [DiceRolled("green", (2, 1, 2), None), BoardReset("column 5 and column 6 are full")]
    assert s.board == (0,) * 63 and s.to_move() == "blue" and s.ply == 2 and s.is_chance()


# ------------------------------------------------------------------------- trapping


def test_trap_in_a_row():
    s, events = turn(sage({"5-5": "red", "6-5": "yellow"}), (1, 1, 2), "4-5")
    assert captured(events) == ["5-5"]
    assert s.pieces_on("5-5") == () and s.pieces_on("4-5") == ("yellow",) and s.pieces_on("6-5") == ("yellow",)
    assert events[1:] == [Placed("yellow", "4-5", "yellow"), Trapped("yellow", ("4-5", "6-5"), ("5-5",)),
                          Captured("5-5", "red", "red", "yellow")]


def test_trap_in_a_column():
    _s, events = turn(sage({"4-6": "red", "4-7": "blue", "4-8": "yellow"}), (1, 1, 2), "4-5")
    assert captured(events) == ["4-6", "4-7"]


def test_trap_on_both_diagonals():
    board = {"5-6": "red", "6-7": "yellow", "5-4": "green", "6-3": "yellow"}
    _s, events = turn(sage(board), (1, 1, 2), "4-5")
    assert captured(events) == ["5-4", "5-6"]


def test_run_of_several_colours_is_removed_whole():
    board = {"5-5": "red", "6-5": "blue", "7-5": "green", "8-5": "yellow"}
    s, events = turn(sage(board), (1, 1, 2), "4-5")
    assert captured(events) == ["5-5", "6-5", "7-5"]
    assert s.in_hand() == {"yellow": 8, "red": 10, "blue": 10, "green": 10}


def test_runs_in_several_directions_are_all_removed():
    board = {
        "5-5": "red",
        "6-5": "yellow",  # east
        "4-6": "blue",
        "4-7": "yellow",  # north
        "4-4": "green",
        "4-3": "green",
        "4-2": "yellow",  # south
        "3-5": "red",
        "9-5": "yellow",  # west, across the wrap
    }
    _s, events = turn(sage(board), (1, 1, 2), "4-5")
    assert captured(events) == ["3-5", "4-3", "4-4", "4-6", "5-5"]


def test_an_empty_square_breaks_the_run():
    _s, events = turn(sage({"5-5": "red", "7-5": "yellow"}), (1, 1, 2), "4-5")
    assert captured(events) == []


def test_a_run_with_no_stone_of_the_colour_at_its_end_stays():
    _s, events = turn(sage({"4-6": "red", "4-7": "red", "4-8": "red", "4-9": "blue"}), (1, 1, 2), "4-5")
    assert captured(events) == []


def test_an_own_stone_next_to_the_placed_one_traps_nothing():
    _s, events = turn(sage({"5-5": "yellow", "6-5": "red", "7-5": "yellow"}), (1, 1, 2), "4-5")
    assert captured(events) == []


def test_rows_wrap_across_the_long_edge():
    # 9-5 yellow, 3-5 red: placing 4-5 traps 3-5 going west (4 -> 3 -> 9)
    _s, events = turn(sage({"3-5": "red", "9-5": "yellow"}), (1, 1, 2), "4-5")
    assert captured(events) == ["3-5"]
    # and from column 9 going east into column 3
    _s, events = turn(sage({"3-2": "red", "4-2": "blue", "5-2": "yellow"}), (3, 3, 3), "9-2")
    assert captured(events) == ["3-2", "4-2"]


def test_diagonals_wrap_across_the_long_edge():
    # placing 3-5: south-west is 9-4 then 8-3
    _s, events = turn(sage({"9-4": "red", "8-3": "yellow"}), (1, 1, 1), "3-5")
    assert captured(events) == ["9-4"]
    assert events[-1] == ExtraTurn("yellow", "rolled a triple")


def test_lines_never_wrap_across_the_numbered_edge():
    # column 5: placing 5-8 with red on 5-9 and yellow on 5-1: no trap through row 9 -> row 1
    _s, events = turn(sage({"5-9": "red", "5-1": "yellow"}), (1, 2, 2), "5-8")
    assert captured(events) == []
    _s, events = turn(sage({"6-9": "red", "7-1": "yellow"}), (1, 2, 2), "5-8")
    assert captured(events) == []


def test_a_full_ring_without_another_own_stone_traps_nothing():
    ring = {f"{c}-5": ("red", "blue", "green")[c % 3] for c in range(4, 10)}
    _s, events = turn(sage(ring), (1, 1, 1), "3-5")
    assert captured(events) == []


def test_traps_happen_only_when_a_stone_is_placed():
    # red placed between two yellows is safe; yellow's later placement elsewhere does not trap it
    s, _ = turn(sage({"4-5": "yellow", "6-5": "yellow"}, first="red"), (1, 2, 2), "5-5")
    assert s.pieces_on("5-5") == ("red",)
    s, events = turn(s, (1, 1, 3), "5-1")  # blue
    assert s.pieces_on("5-5") == ("red",) and captured(events) == []


def test_capture_squares_matches_apply():
    rng = random.Random(3)
    s = sage()
    for _ in range(200):
        if s.is_terminal():
            break
        s1, _ = s.apply_chance(s.roll(rng))
        m = s1.random_move(rng)
        if isinstance(m, SagePlace):
            expect = sorted(SQUARES[q] for q in capture_squares(s1.board, m.square, s1.seat + 1))
            s, events = s1.apply(m)
            assert captured(events) == expect
        else:
            s, _ = s1.apply(m)


# ------------------------------------------------------------------------- end of the game


def test_a_colour_with_all_ten_stones_on_the_board_wins():
    board = {f"3-{r}": "yellow" for r in range(1, 10)}
    s, events = turn(sage(board), (1, 1, 2), "4-1")
    assert s.result() == Result("yellow", "all 10 stones on the board")
    assert events[-1] == GameOver("yellow", "all 10 stones on the board")
    assert s.is_terminal() and not s.is_chance() and s.to_move() is None and s.colour_to_move() is None
    with pytest.raises(IllegalMoveError) as e:
        s.apply_chance((1, 1, 1))
    assert str(e.value) == "ply 2: dice [1, 1, 1] come after the end of the game: winner yellow (all 10 stones on the board)"


def test_the_tenth_stone_wins_even_on_a_triple():
    board = {f"3-{r}": "yellow" for r in range(1, 10)}
    s, events = turn(sage(board), (2, 2, 2), "6-1")
    assert s.result() == Result("yellow", "all 10 stones on the board")
    assert not any(isinstance(e, ExtraTurn) for e in events)


def test_captured_stones_go_back_to_their_owner():
    board = {f"5-{r}": "red" for r in range(1, 10)} | {"6-5": "yellow"}
    s = sage(board)
    assert s.in_hand()["red"] == 1
    s, events = turn(s, (1, 1, 2), "4-5")
    assert captured(events) == ["5-5"]
    assert s.in_hand() == {"yellow": 8, "red": 2, "blue": 10, "green": 10}
    assert s.stones_on_board()["red"] == 8


# ------------------------------------------------------------------------- players and variant


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_two_to_six_players_take_turns_in_seat_order(n):
    players = ["yellow", "red", "blue", "green", "white", "black"][:n]
    s = SageStonesState.from_setup(players, {})
    seen = []
    for _ in range(n):
        seen.append(s.to_move())
        s, _ = turn(s, (1, 1, 2), next(str(m) for m in s.apply_chance((1, 1, 2))[0].legal_moves()))
    assert seen == players and s.to_move() == "yellow"


def test_player_count_and_ids_are_checked():
    with pytest.raises(SetupError, match="needs 2 to 6 players, got 1"):
        SageStonesState.from_setup(["yellow"], {})
    with pytest.raises(SetupError, match="'purple' is not a colour"):
        SageStonesState.from_setup(["yellow", "purple"], {})
    with pytest.raises(SetupError, match="repeated"):
        SageStonesState.from_setup(["yellow", "yellow"], {})
    with pytest.raises(SetupError, match="two-player variant needs 2 players, got 3"):
        SageStonesState.from_setup(["p1", "p2", "p3"], {"variant": "two-player"})
    with pytest.raises(SetupError, match="already over"):
        sage({f"3-{r}": "red" for r in range(1, 10)} | {"4-1": "red"})
    with pytest.raises(SetupError, match="not one of yellow, red, blue, green"):
        sage({"5-5": "white"})


def test_two_player_variant_seats_four_colours_in_turn_order():
    s = SageStonesState.from_setup(["p1", "p2"], {"variant": "two-player"})
    order = []
    for _ in range(4):
        order.append((s.to_move(), s.colour_to_move()))
        s, _ = turn(s, (1, 1, 2), next(str(m) for m in s.apply_chance((1, 1, 2))[0].legal_moves()))
    assert order == [("p1", "yellow"), ("p2", "red"), ("p1", "blue"), ("p2", "green")]


def test_two_player_variant_may_remove_its_own_other_colour():
    s = SageStonesState.from_setup(
        ["p1", "p2"], {"variant": "two-player", "board": {"5-5": "blue", "6-5": "red", "7-5": "yellow"}}
    )
    s, events = turn(s, (1, 1, 2), "4-5")  # p1 plays yellow
    assert captured(events) == ["5-5", "6-5"]
    assert Captured("5-5", "blue", "p1", "p1") in events


def test_two_player_variant_winner_is_the_player_owning_the_colour():
    board = {f"3-{r}": "blue" for r in range(1, 10)}
    s = SageStonesState.from_setup(["p1", "p2"], {"variant": "two-player", "board": board, "first": "blue"})
    assert s.to_move() == "p1"
    s, _events = turn(s, (1, 1, 2), "4-1")
    assert s.result() == Result("p1", "all 10 stones on the board")


def test_to_setup_round_trips():
    s = sage({"5-5": "red"}, first="blue")
    s, _ = turn(s, (1, 1, 2), "4-4")
    again = GAME.initial_state(list(s.owners), s.to_setup())
    assert again.board == s.board and again.seat == s.seat and again.on_board == s.on_board


def test_a_two_player_position_writes_its_setup_in_full():
    s = SageStonesState.from_setup(["p1", "p2"], {"variant": "two-player", "colours": ["green", "white", "black", "yellow"],
                                                  "board": {"5-5": "white"}, "first": "black"})
    s, _ = turn(s, (1, 1, 2), "4-4")  # p1 places black
    assert s.to_setup() == {"variant": "two-player", "colours": ["green", "white", "black", "yellow"],
                            "board": {"4-4": "black", "5-5": "white"}, "first": "yellow"}


def test_a_game_restarted_from_its_setup_is_the_same_state_after_every_kind_of_ply():
    """After a placement, a lost turn and a reset, the state built from ``to_setup()`` is
    the state played, field for field, but for the ply count and who began."""
    import dataclasses

    def restarts_the_same(state):
        players = list(dict.fromkeys(state.owners))  # p1, p2 (seated twice) in the variant
        again = GAME.initial_state(players, state.to_setup())
        assert again.ply == 0 and again.first == state.seat
        assert dataclasses.replace(again, ply=state.ply, first=state.first) == state

    s = SageStonesState.from_setup(["p1", "p2"], {"variant": "two-player", "board": {"5-5": "red"}})
    restarts_the_same(s)
    s, _ = turn(s, (1, 1, 2), "4-4")  # placed
    restarts_the_same(s)
    s, _ = turn(s, (3, 1, 2), "-")  # lost
    restarts_the_same(s)
    s, _ = turn(sage({**full_column(4), **full_column(6)}, first="red"), (1, 2, 1), "-")  # reset
    assert s.board == (0,) * 63
    restarts_the_same(s)


def test_apply_leaves_the_old_state_alone():
    def fields(state):  # every field, as it stands
        return tuple(getattr(state, name) for name in type(state).__slots__)

    s = sage({"5-5": "red", "6-5": "yellow"})
    snap = fields(s)
    s1, _ = s.apply_chance((1, 1, 2))
    snap1 = fields(s1)
    s2, _ = s1.apply("4-5")
    assert fields(s) == snap and fields(s1) == snap1 and s2.pieces_on("5-5") == ()


def test_moves_built_by_hand_are_checked():
    s, _ = sage().apply_chance((1, 1, 2))
    for bad in [SagePlace(63), SagePlace(-1), object()]:
        with pytest.raises(IllegalMoveError, match="is not a Sage Stones move"):
            s.apply(bad)  # type: ignore[arg-type]


def test_the_diagram_shows_each_wells_colour_row_9_first():
    s = sage({"3-1": "yellow", "9-1": "red", "5-9": "blue", "4-5": "green"})
    rows = s.diagram().split("/")
    assert len(rows) == 9 and all(len(r) == 7 for r in rows)
    assert rows[0] == "..b...." and rows[4] == ".g....." and rows[8] == "y.....r"
    assert set("".join(rows[1:4] + rows[5:8])) == {"."}


def test_every_refusal_and_roll_description_reads_in_full():
    """The messages players see in ``record``, pinned whole."""
    from stratstone_cad.errors import RuleViolation

    s = sage()
    assert s.describe_roll() == "no roll yet"
    for move, message in (("5-5", "ply 1: 5-5 comes before the dice are rolled"),
                          (3.5, "ply 1: 3.5 is not a Sage Stones move")):
        with pytest.raises(RuleViolation) as e:
            s.apply(move)
        assert str(e.value) == message
    assert s.apply_chance((1, 2, 3))[0].describe_roll() == "the turn is lost (1-2-3)"
    assert s.apply_chance((2, 2, 2))[0].describe_roll() == "place in column 6"
    assert sage(full_column(9)).apply_chance((3, 3, 3))[0].describe_roll() == "place in column 6 (column 9 is full)"
    both = sage({**full_column(9), **full_column(6)}).apply_chance((3, 3, 3))[0]
    assert both.describe_roll() == "the board is reset (column 6 is full too)"
    won, _ = turn(sage({f"3-{r}": "yellow" for r in range(1, 10)}), (1, 1, 2), "4-1")
    with pytest.raises(RuleViolation) as e:
        won.apply("5-5")
    assert str(e.value) == "ply 2: 5-5 comes after the end of the game: winner yellow (all 10 stones on the board)"


@pytest.mark.parametrize(("dice", "shown"), [
    ([1, 2], "[1, 2]"), ((1, 2), "[1, 2]"), (7, "7"),
    ((1, 2, "x" * 80), "[1, 2, '" + "x" * 44 + "..."),
])
def test_dice_in_a_game_without_them_are_refused_by_name(dice, shown):
    from stratstone_cad.errors import RuleViolation
    from stratstone_cad.games.stratstone.rules import StratstoneState
    from stratstone_cad.games.terrain.rules import TerrainState
    from stratstone_cad.games.terrain.terrain_map import generate

    for state, title in ((StratstoneState.start(), "Stratstone"), (TerrainState.start(generate(1), 1), "the terrain game")):
        with pytest.raises(RuleViolation) as e:
            state.apply_chance(dice)
        assert str(e.value) == f"ply 1: dice {shown} are not part of {title}"


@pytest.mark.parametrize("variant", ["four", "two-player"])
def test_the_greedy_player_takes_a_best_trap_and_draws_among_equals(variant):
    """Over whole random games: greedy's choices are exactly the placements that trap the
    most stones of other owners minus its own (counted here with capture_squares), or any
    placement when any one wins; random's are every empty well of the column."""
    from stratstone_cad.errors import RuleViolation
    from stratstone_cad.games.sage_stones.rules import STONES

    rng = random.Random(11)
    seen = {"tie": 0, "unique": 0, "winning": 0, "own": 0}
    for _ in range(6):
        s = sage(players=["p1", "p2"], variant="two-player") if variant == "two-player" else sage()
        with pytest.raises(RuleViolation) as e:
            s.random_move(rng)
        assert str(e.value) == f"ply {s.ply + 1}: random move is asked for before the roll or after the end"
        while not s.is_terminal():
            s1, _ = s.apply_chance(s.roll(rng))
            moves = list(s1.legal_moves())
            randoms = {s1.random_move(Pick(k)) for k in range(len(moves))}
            assert randoms == set(moves), s1
            greedy = {s1.greedy_move(Pick(k)) for k in range(len(moves))}
            if len(moves) > 1:
                seat, board = s1.seat, s1.board
                me = s1.owners[seat]
                score = {m: sum(1 if s1.owners[board[q] - 1] != me else -1
                                for q in capture_squares(board, m.square, seat + 1)) for m in moves}
                if s1.on_board[seat] == STONES - 1:
                    best, kind = set(moves), "winning"
                else:
                    best = {m for m in moves if score[m] == max(score.values())}
                    kind = "tie" if len(best) > 1 else "unique"
                    seen["own"] += any(v < 0 for v in score.values())
                assert greedy == best, s1
                seen[kind] += 1
            else:
                assert greedy == set(moves)
            s, _ = s1.apply(s1.random_move(rng))
    if variant == "four":  # a trap never takes a colour's own stones: only the two-player variant meets "own"
        seen.pop("own")
    assert all(seen.values()), seen  # each case met


FOUR_SETUP_FIELDS = "(expected variant, colours, board, first)"


@pytest.mark.parametrize(("players", "setup", "message"), [
    (FOUR, [1], "setup: expected an object"),
    (FOUR, {"zz": 2, "bogus": 1}, f"setup: unknown field 'bogus' {FOUR_SETUP_FIELDS}"),
    (FOUR, {"colours": FOUR}, "setup.colours: only for the two-player variant (players are the colours)"),
    (["p1", "p2"], {"variant": "two-player", "colours": ["yellow", "red", "blue"]},
     "setup.colours: expected 4 colours of yellow, red, blue, green, white, black"),
    (["p1", "p2"], {"variant": "two-player", "colours": ["yellow", "red", "blue", "red"]},
     "setup.colours: ['yellow', 'red', 'blue', 'red'] has a repeated colour"),
    (["p1", "p1"], {"variant": "two-player"}, "players: ['p1', 'p1'] has a repeated id"),
    (["yellow", "yellow"], {}, "players: ['yellow', 'yellow'] has a repeated id"),
    (FOUR, {"first": "white"}, "setup.first: 'white' is not one of yellow, red, blue, green"),
    (FOUR, {"board": [["5-5", "red"]]}, "setup.board: expected an object of square -> colour"),
    (FOUR, {"board": {"2-1": "red"}}, "setup.board: '2-1' is not a square (column 3-9, row 1-9)"),
    (FOUR, {"first": "x" * 100}, f"setup.first: {'x' * 40!r}... (100 characters) is not one of yellow, red, blue, green"),
    (["yellow"], {}, "players: sage-stones needs 2 to 6 players, got 1"),
    ([*FOUR, "white", "black", "x"], {}, "players: sage-stones needs 2 to 6 players, got 7"),
])
def test_a_bad_setup_is_refused_in_one_line(players, setup, message):
    with pytest.raises(SetupError) as e:
        SageStonesState.from_setup(players, setup)
    assert str(e.value) == message


def test_a_two_player_setup_may_name_its_colours_and_who_starts():
    s = SageStonesState.from_setup(["p1", "p2"], {"variant": "two-player", "colours": ["green", "white", "black", "yellow"]})
    assert s.colours == ("green", "white", "black", "yellow") and s.to_move() == "p1" and s.dice is None
    s = SageStonesState.from_setup(["p1", "p2"], {"variant": "two-player", "first": "blue"})
    assert s.colour_to_move() == "blue" and s.to_move() == "p1"


@pytest.mark.parametrize(("line", "ok"), [
    ({"ply": 1, "player": "yellow", "dice": [1, 2, 3], "move": "-"}, True),
    ({"ply": 9, "player": "red", "dice": [3, 3, 3], "move": "x" * 64}, True),
    ({"ply": 9, "player": "red", "dice": [3, 3, 3], "move": "x" * 65}, False),
    ({"ply": 9, "player": "red", "dice": [3, 3, 3], "move": ""}, False),
    ({"ply": 0, "player": "red", "dice": [1, 1, 1], "move": "3-1"}, False),
    ({"ply": 1, "player": "blue", "dice": [1, 1, 1], "move": "3-1"}, False),
    ({"ply": 1, "player": "red", "dice": [4, 1, 1], "move": "6-1"}, False),
    ({"ply": 1, "player": "red", "dice": [1, 4, 1], "move": "6-1"}, False),
    ({"ply": 1, "player": "red", "dice": [1, 1, 4], "move": "6-1"}, False),
    ({"ply": 1, "player": "red", "dice": [0, 1, 1], "move": "3-1"}, False),
    ({"ply": 1, "player": "red", "dice": [1.0, 1, 1], "move": "3-1"}, False),
    ({"ply": 1, "player": "red", "dice": [1, True, 1], "move": "3-1"}, False),
    ({"ply": 1, "player": "red", "dice": [1, 1, 1.0], "move": "3-1"}, False),
    ({"ply": 1, "player": "red", "dice": [1, 1], "move": "3-1"}, False),
    ({"ply": 1, "player": "red", "move": "3-1"}, False),
    ({"ply": 1, "player": "red", "dice": [1, 1, 1], "move": "3-1", "x": 1}, False),
])
def test_the_fast_ply_check_takes_exactly_the_documented_lines(line, ok):
    """SageStones.fast_ply: ply >= 1, a player of the header, three dice 1-3 and a move of
    1-64 characters; every line it takes is valid by the schema too."""
    from stratstone_cad.log.logfile import validate_line

    assert GAME.fast_ply(line, frozenset({"yellow", "red"})) is ok
    if ok:
        assert validate_line(line, "ply", "sage-stones") is None


TWO = ["p1", "p2"]


@pytest.mark.parametrize(("players", "setup", "ok"), [
    (FOUR, {}, True),
    (FOUR, {"variant": "standard", "first": "red"}, True),
    (TWO, {"variant": "two-player", "colours": ["green", "white", "black", "yellow"], "first": "black"}, True),
    (TWO, {"variant": "two-player"}, True),
    (FOUR, {"variant": "five-player"}, False),
    (FOUR, {"first": "purple"}, False),
    (FOUR, {"first": 3}, False),
    (FOUR, {"board": {}}, False),  # a start position: the schema's
    (TWO, {"variant": "two-player", "colours": ["yellow", "red", "blue", "purple"]}, False),
    (TWO, {"variant": "two-player", "colours": ["yellow", "red", "blue", "red"]}, False),
    (TWO, {"variant": "two-player", "colours": ["yellow", "red", "blue"]}, False),
    (TWO, {"variant": "two-player", "colours": "yellow red blue green"}, False),
])
def test_the_fast_header_check_takes_exactly_the_usual_setups(players, setup, ok):
    """SageStones.fast_header: a variant, ``first`` a colour, ``colours`` four distinct
    colours, and nothing else."""
    assert GAME.fast_header(players, setup) is ok
