"""The piece ledgers: which physical piece is where, followed through the engines' events.

Each test plays games through the engine and checks the ledger against the state after
every ply: the pieces the ledger puts on a square are, bottom first, of the colours (and
kinds) the state has there, no piece is in two places, and the events name the pieces
the rules moved (hand-built positions for the exact ones).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from stratstone_cad.engine.events import BoardReset, Captured, Exited, Moved, Placed, Sown
from stratstone_cad.games.sage_stones.rules import SQUARES as SAGE_SQUARES
from stratstone_cad.games.stratstone.rules import SQUARES as STRAT_SQUARES
from stratstone_cad.games.terrain.rules import SQUARES as TERRAIN_SQUARES
from stratstone_cad.registry import get_game


def _start(name: str, n: int | None = None, setup: dict[str, Any] | None = None, seed: int = 1) -> Any:
    game = get_game(name)
    players, full = game.new_setup(n or game.default_players(setup), game.play_setup(setup, seed), random.Random(seed))
    return game, game.initial_state(players, full)


def _games(name: str, seeds: range, n: int | None = None, setup: dict[str, Any] | None = None):
    """(state, ledger, named events) after every ply of random games."""
    for seed in seeds:
        game, state = _start(name, n, setup, seed)
        ledger = game.ledger(state)
        rng = random.Random(seed)
        yield state, ledger, []
        while not state.is_terminal() and state.ply < 300:
            events = []
            if state.is_chance():
                state, events = state.apply_chance(state.roll(rng))
            state, more = state.apply(state.random_move(rng))
            yield state, ledger, ledger.follow(events + more)


def _no_piece_twice(ledger: Any) -> None:
    where = [p for ids in ledger.squares.values() for p in ids]
    elsewhere = [p for ids in ledger.reserve.values() for p in ids] + ledger.off
    assert len(set(where)) == len(where)
    assert not set(where) & set(elsewhere)
    assert sorted(where + elsewhere) == sorted(ledger.pieces)


def test_stratstone_ledger_follows_every_stack_stone_by_stone() -> None:
    for state, ledger, named in _games("stratstone", range(12)):
        for sq in STRAT_SQUARES:
            assert tuple(ledger.pieces[p].colour for p in ledger.squares.get(sq, [])) == state.pieces_on(sq), sq
        _no_piece_twice(ledger)
        assert len(ledger.pieces) == 24
        for n in named:
            for p in n.pieces:
                assert ledger.pieces[p].colour == n.event.stone
        assert {len(left) for c, left in ledger.reserve.items() if c != "tan"} <= {state.hand[1], state.hand[2]}


def test_stratstone_events_name_the_stones_of_the_picked_up_stack_bottom_first() -> None:
    game, state = _start("stratstone")
    ledger = game.ledger(state)
    assert ledger.squares["a1"] == ["tan-01", "tan-02"] and ledger.squares["d4"] == ["tan-07", "tan-08"]
    state, events = state.apply("a1 EEN")
    named = [(type(n.event), n.pieces) for n in ledger.follow(events)]
    assert named == [(Placed, ("yellow-01",)), (Sown, ("tan-01",)), (Sown, ("tan-02",)), (Sown, ("yellow-01",))]
    assert ledger.squares["b1"] == ["tan-01"] and ledger.squares["c2"] == ["yellow-01"] and "a1" not in ledger.squares
    state, events = state.apply("b1 NE")  # red's first stone goes on tan-01; both are sown
    assert [n.pieces for n in ledger.follow(events)][1:] == [("tan-01",), ("red-01",)]
    assert ledger.squares["c2"] == ["yellow-01", "red-01"]


def test_a_ledger_copy_is_followed_on_its_own() -> None:
    game, state = _start("stratstone")
    ledger = game.ledger(state)
    before = ledger.copy()
    ledger.follow(state.apply("a1 EEN")[1])
    assert before.squares["a1"] == ["tan-01", "tan-02"] and before.reserve["yellow"][0] == "yellow-01"
    assert ledger.reserve["yellow"][0] == "yellow-02"


@pytest.mark.parametrize("n", [2, 6])
def test_sage_ledger_follows_every_gem(n: int) -> None:
    captures = resets = 0
    for state, ledger, named in _games("sage-stones", range(6), n=n):
        for sq in SAGE_SQUARES:
            ids = ledger.squares.get(sq, [])
            assert tuple(ledger.pieces[p].colour for p in ids) == state.pieces_on(sq), sq
        _no_piece_twice(ledger)
        for x in named:
            if isinstance(x.event, Placed | Captured):
                assert [ledger.pieces[p].colour for p in x.pieces] == [x.event.stone]
            captures += isinstance(x.event, Captured)
            resets += isinstance(x.event, BoardReset)
    assert captures > 0


def test_sage_board_reset_names_every_gem_it_clears() -> None:
    game = get_game("sage-stones")
    board = {"6-1": "red", **{f"{c}-{r}": "yellow" for c in (4,) for r in range(1, 10)},
             **{f"6-{r}": "blue" for r in range(2, 10)}}
    state = game.initial_state(["yellow", "red", "blue"], {"board": board})
    ledger = game.ledger(state)
    assert len(ledger.squares) == 18
    state, ev = state.apply_chance((1, 1, 2))  # a 4: column 4 is full and column 6 too
    state, more = state.apply("-")
    (named,) = [n for n in ledger.follow(ev + more) if n.pieces]
    assert isinstance(named.event, BoardReset) and len(named.pieces) == 18
    assert ledger.squares == {} and ledger.reserve["yellow"][:3] == ["yellow-01", "yellow-02", "yellow-03"]


def test_terrain_ledger_follows_every_piece() -> None:
    exits = attacks = 0
    for state, ledger, named in _games("terrain", range(8)):
        board = state.board_text()
        for i, sq in enumerate(TERRAIN_SQUARES):
            ids = ledger.squares.get(sq, [])
            code = state.board[i]
            assert len(ids) == (1 if code else 0), (sq, board)
            if ids:
                p = ledger.pieces[ids[0]]
                assert (f"{p.colour} {p.kind}",) == state.pieces_on(sq), (sq, board)
        _no_piece_twice(ledger)
        for x in named:
            if isinstance(x.event, Moved):
                assert ledger.pieces[x.pieces[0]].colour == x.event.player
            exits += isinstance(x.event, Exited)
            attacks += isinstance(x.event, Captured)
    assert exits and attacks


def test_terrain_pieces_are_numbered_per_side_and_kind_from_a1() -> None:
    game, state = _start("terrain")
    ledger = game.ledger(state)
    assert ledger.squares["c1"] == ["red-guardian-1"] and ledger.squares["h1"] == ["red-guardian-2"]
    assert ledger.squares["e10"] == ["blue-runner-1"] and ledger.squares["f10"] == ["blue-runner-2"]
    assert len(ledger.pieces) == 12 and not ledger.reserve


@pytest.mark.parametrize(("name", "cols", "rows", "examples", "bad"), [
    ("stratstone", 4, 4, {"a1": (0, 0), "b3": (1, 2), "d4": (3, 3)}, ["e1", "a0", "A1", "a10", ""]),
    ("sage-stones", 7, 9, {"3-1": (0, 0), "5-7": (2, 6), "9-9": (6, 8)}, ["2-1", "3-0", "10-1", "5_7", "57"]),
    ("terrain", 10, 10, {"a1": (0, 0), "c7": (2, 6), "j10": (9, 9)}, ["k1", "a11", "a01", "J10", None]),
])
def test_every_engine_parses_its_squares_to_board_cells(name, cols, rows, examples, bad) -> None:
    from stratstone_cad.errors import SquareError

    game = get_game(name)
    cells = [game.parse_square(sq) for sq in game.squares]
    assert sorted(cells) == [(c, r) for c in range(cols) for r in range(rows)]  # every cell once
    for sq, cell in examples.items():
        assert game.parse_square(sq) == cell
    for text in bad:
        with pytest.raises(SquareError, match=r"is not a square \(expected "):
            game.parse_square(text)


def test_pieces_say_their_colour_kind_and_number() -> None:
    for name, kind, per in (("stratstone", "stone", 8), ("sage-stones", "gem", 10)):
        game, state = _start(name)
        pieces = game.ledger(state).pieces.values()
        assert {p.kind for p in pieces} == {kind}
        for colour in {p.colour for p in pieces}:
            mine = sorted((p for p in pieces if p.colour == colour), key=lambda p: p.number)
            assert [p.number for p in mine] == list(range(1, per + 1))
            assert [p.id for p in mine] == [f"{colour}-{n:02d}" for n in range(1, per + 1)]
    game, state = _start("terrain")
    pieces = game.ledger(state).pieces
    assert pieces["blue-lancer-2"].number == 2 and pieces["blue-lancer-2"].kind == "lancer"
    assert pieces["red-runner-1"].colour == "red"


def test_stones_on_the_board_of_a_setup_are_numbered_first() -> None:
    game = get_game("stratstone")
    state = game.initial_state(["yellow", "red"], {"first": "red", "stacks": {"b2": ["tan", "yellow"], "c3": ["red"],
                                                                              "a1": ["yellow"]}})
    ledger = game.ledger(state)
    assert ledger.squares == {"a1": ["yellow-01"], "b2": ["tan-01", "yellow-02"], "c3": ["red-01"]}
    assert ledger.reserve["yellow"][0] == "yellow-03" and ledger.reserve["red"][0] == "red-02"
    assert len(ledger.reserve["tan"]) == 7  # the tan stones of the set that this setup leaves out


def test_a_copy_keeps_its_own_captured_and_exited_pieces() -> None:
    ledger = next(led for _, led, named in _games("terrain", range(3))
                  if any(isinstance(n.event, Captured) for n in named))
    before_off = list(ledger.off)
    assert before_off
    copy = ledger.copy()
    copy.off.append("x")
    copy.squares.clear()
    assert ledger.off == before_off and ledger.squares


def test_the_ledger_base_refuses_what_the_events_cannot_mean() -> None:
    from stratstone_cad.engine.ledger import Piece, PieceLedger
    from stratstone_cad.errors import GameError

    pieces = [Piece(f"p-{n}", "red", "gem", n) for n in (9, 10, 11)]  # ids whose text order is not their numbers'
    ledger = PieceLedger(pieces, {"a1": ["p-11"]})
    with pytest.raises(GameError, match=r"^piece ledger: no piece on b2$"):
        ledger.take("b2")
    assert ledger.from_reserve("red") == "p-9" and ledger.from_reserve("red") == "p-10"
    with pytest.raises(GameError, match=r"^piece ledger: no red piece left in reserve$"):
        ledger.from_reserve("red")
    for p in ("p-11", "p-10", "p-9"):
        ledger.to_reserve(p)
    assert ledger.reserve["red"] == ["p-9", "p-10", "p-11"]  # by number: the lowest comes out first
    ledger.reserve.clear()
    ledger.to_reserve("p-10")  # a colour whose every piece was in play
    assert ledger.reserve == {"red": ["p-10"]}


def test_gems_on_the_board_of_a_setup_are_numbered_first_in_their_colours() -> None:
    game = get_game("sage-stones")
    state = game.initial_state(["yellow", "red", "blue"], {"board": {"3-1": "red", "5-5": "blue", "4-2": "red"}})
    ledger = game.ledger(state)
    assert ledger.squares == {"3-1": ["red-01"], "4-2": ["red-02"], "5-5": ["blue-01"]}
    assert ledger.reserve["red"][0] == "red-03" and ledger.reserve["yellow"][0] == "yellow-01"
