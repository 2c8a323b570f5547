"""A fourth game needs only its own module and its registration.

The game here (one pile, take 1 to 3, who takes the last wins) is written against the
protocol of :mod:`stratstone_cad.engine.core` only and registered; ``play``, the built-in
players and ``record`` then serve it with no change. (The log format names its games in
``log_schema.json``: a new game is a new entry of that published format, so ``check-log``
refuses it until the format lists it.)
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pytest

from stratstone_cad import registry
from stratstone_cad.engine.core import GameBase, GameOver, MoveTextError, NoChance, Result, RuleViolation
from stratstone_cad.log.commands import play_records
from stratstone_cad.log.record import record
from stratstone_cad.registry import register

PLAYERS = ("north", "south")


@dataclass(frozen=True, slots=True)
class Take:
    n: int

    def __str__(self) -> str:
        return str(self.n)


@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class PileState(NoChance):
    GAME_TITLE = "Pile"
    pile: int
    turn: int
    ply: int = 0
    _result: Result | None = None

    def to_move(self) -> str | None:
        return None if self._result else PLAYERS[self.turn]

    def legal_moves(self) -> Iterator[Take]:
        if self._result is None:
            yield from (Take(n) for n in range(1, min(3, self.pile) + 1))

    def parse_move(self, text: str) -> Take:
        if text not in ("1", "2", "3"):
            raise MoveTextError(text, self.ply + 1, "1, 2 or 3 (stones to take)")
        return Take(int(text))

    def apply(self, move: Take | str) -> tuple[PileState, list[Any]]:
        take = self.parse_move(move) if isinstance(move, str) else move
        if take.n > self.pile:
            raise RuleViolation(str(take), self.ply + 1, f"takes more than the {self.pile} left")
        left = self.pile - take.n
        result = Result(PLAYERS[self.turn], "took the last") if left == 0 else None
        events = [GameOver(result.winner, result.reason)] if result else []
        return PileState(pile=left, turn=1 - self.turn, ply=self.ply + 1, _result=result), events

    def random_move(self, rng: random.Random) -> Take:
        return rng.choice(list(self.legal_moves()))

    def greedy_move(self, rng: random.Random) -> Take:
        return Take(self.pile % 4 or 1)

    def board_text(self) -> str:
        return f"pile: {self.pile}"


class Pile(GameBase):
    name = "pile"
    rules = "pile/1"
    players = PLAYERS

    def new_setup(self, n_players: int, setup: Mapping[str, Any] | None, rng: random.Random) -> tuple[list[str], dict[str, Any]]:
        return list(PLAYERS), {"pile": (setup or {}).get("pile", 10)}

    def initial_state(self, players: Sequence[str], setup: Mapping[str, Any]) -> PileState:
        return PileState(pile=setup["pile"], turn=0)

    def derived(self, before: Any, after: Any, events: Sequence[Any]) -> dict[str, Any]:
        return {"left": after.pile}



@dataclass(frozen=True, slots=True, kw_only=True)
class DicePileState:
    """The pile game where, from an odd pile, a die (1-2) is rolled first: the most the
    player may take. A game whose plies do not all start with a roll."""

    pile: int
    turn: int
    ply: int = 0
    die: int | None = None
    _result: Result | None = None

    def to_move(self) -> str | None:
        return None if self._result else PLAYERS[self.turn]

    def is_terminal(self) -> bool:
        return self._result is not None

    def result(self) -> Result | None:
        return self._result

    def is_chance(self) -> bool:
        return self._result is None and self.pile % 2 == 1 and self.die is None

    def roll(self, rng: random.Random) -> tuple[int]:
        return (rng.randint(1, 2),)

    def apply_chance(self, outcome: Sequence[int]) -> tuple[DicePileState, list[Any]]:
        return replace(self, die=outcome[0]), []

    def describe_roll(self) -> str:
        return f"take at most {self.die}"

    def legal_moves(self) -> Iterator[Take]:
        if self._result is None and not self.is_chance():
            yield from (Take(n) for n in range(1, min(self.die or 3, self.pile) + 1))

    def parse_move(self, text: str) -> Take:
        return PileState(pile=self.pile, turn=self.turn, ply=self.ply).parse_move(text)

    def apply(self, move: Take | str) -> tuple[DicePileState, list[Any]]:
        take = self.parse_move(move) if isinstance(move, str) else move
        if take not in list(self.legal_moves()):
            raise RuleViolation(str(take), self.ply + 1, f"is not a legal take from {self.pile} (die {self.die})")
        left = self.pile - take.n
        result = Result(PLAYERS[self.turn], "took the last") if left == 0 else None
        return DicePileState(pile=left, turn=1 - self.turn, ply=self.ply + 1, _result=result), []

    def board_text(self) -> str:
        return f"pile: {self.pile}"


class DicePile(Pile):
    name = "dice-pile"
    rules = "dice-pile/1"
    chance_field = "die"

    def new_setup(self, n_players: int, setup: Mapping[str, Any] | None, rng: random.Random) -> tuple[list[str], dict[str, Any]]:
        """A pile of 4 to 999 stones drawn with ``rng`` unless the setup gives it."""
        return list(PLAYERS), {"pile": setup["pile"] if setup and "pile" in setup else rng.randrange(4, 1000)}

    def initial_state(self, players: Sequence[str], setup: Mapping[str, Any]) -> DicePileState:
        return DicePileState(pile=setup["pile"], turn=0)

@pytest.fixture
def pile_game() -> Iterator[Pile]:
    game = register(Pile())
    yield game
    del registry._ENGINES["pile"]



@pytest.fixture
def dice_pile_game() -> Iterator[DicePile]:
    game = register(DicePile())
    yield game
    del registry._ENGINES["dice-pile"]

def test_play_and_its_players_serve_a_registered_fourth_game(pile_game: Pile) -> None:
    records = play_records("pile", 7, ["greedy", "random"], {"pile": 10})
    assert records[0]["game"] == "pile" and records[0]["setup"] == {"pile": 10}
    takes = [int(r["move"]) for r in records[1:] if "move" in r]
    assert sum(takes) == 10
    # greedy leaves a multiple of 4 whenever it can: 10 -> 8 on ply 1
    assert takes[0] == 2
    assert records[-1]["result"]["reason"] == "took the last"


def test_play_stops_a_game_at_its_ply_limit_and_says_so(pile_game: Pile, tmp_path: Any) -> None:
    """A pile of 40,000 takes more than 10,000 plies (3 stones a ply at most): written unfinished, no result line."""
    from stratstone_cad.log.commands import MAX_PLIES, play

    out = tmp_path / "pile.jsonl"
    assert play("pile", 7, None, out, {"pile": 40_000}) == f"wrote {out}: pile, unfinished after {MAX_PLIES} plies (limit {MAX_PLIES})"
    lines = out.read_text().splitlines()
    assert len(lines) == 1 + MAX_PLIES and '"ply": 10000' in lines[-1]


def test_a_one_ply_game_is_summed_up_in_the_singular(pile_game: Pile, tmp_path: Any) -> None:
    from stratstone_cad.log.commands import play

    out = tmp_path / "pile.jsonl"
    assert play("pile", 7, None, out, {"pile": 1}) == f"wrote {out}: pile, 1 ply, winner north (took the last)"


def test_record_serves_a_registered_fourth_game(pile_game: Pile, tmp_path: Any) -> None:
    out = tmp_path / "pile.jsonl"
    said: list[str] = []
    closing = record("pile", out, {"pile": 4}, None, roll=False, seed=None, stdin=io.StringIO("moves\n4\n3\nmoves 1\n1\n"),
                     say=said.append, interactive=False, on_warning=said.append)
    assert said.count("1, 2, 3") == 1 and said.count("1") == 1  # the moves, then the one left
    assert "refused: ply 1: '4' does not parse: expected 1, 2 or 3 (stones to take)" in said
    assert "winner south (took the last)" in closing
    lines = out.read_text().splitlines()
    assert len(lines) == 4 and '"move": "3"' in lines[1] and '"move": "1"' in lines[2]



def test_record_says_when_the_side_to_move_has_no_legal_move(pile_game: Pile, tmp_path: Any) -> None:
    """An empty pile: none of the three games ever leaves the side to move without a move."""
    said: list[str] = []
    closing = record("pile", tmp_path / "pile.jsonl", {"pile": 0}, None, roll=False, seed=None,
                     stdin=io.StringIO("moves\nmoves 1\nquit\n"), say=said.append, interactive=False, on_warning=said.append)
    assert said[-5:-1] == ["north to move> moves", "no legal move", "north to move> moves 1", "1: no legal move from there"]
    assert "unfinished after 0 plies (quit;" in closing


def test_record_with_roll_logs_the_die_only_of_the_plies_that_roll_it(dice_pile_game: DicePile, tmp_path: Any) -> None:
    out = tmp_path / "dice-pile.jsonl"
    said: list[str] = []
    record("dice-pile", out, {"pile": 4}, None, roll=True, seed=3, stdin=io.StringIO("1\nundo\n1\n1\nquit\n"),
           say=said.append, interactive=False, on_warning=said.append)
    assert "took back ply 1: north 1" in said  # a ply without a roll, undone with the next one's die rolled
    plies = [json.loads(t) for t in out.read_text().splitlines()[1:]]
    assert [p["move"] for p in plies] == ["1", "1"] and "die" not in plies[0] and plies[1]["die"] in ([1], [2])
    assert f"dice {plies[1]['die'][0]}: take at most {plies[1]['die'][0]}" in said


def test_a_setup_the_engine_draws_comes_from_the_seed_of_roll(dice_pile_game: DicePile, tmp_path: Any) -> None:
    def header(n: int, seed: int) -> dict[str, Any]:
        out = tmp_path / f"g{n}.jsonl"
        record("dice-pile", out, None, None, roll=True, seed=seed, stdin=io.StringIO("quit\n"), say=lambda _: None,
               interactive=False, on_warning=lambda _: None)
        return json.loads(out.read_text().splitlines()[0])

    assert header(1, 3)["setup"] == header(2, 3)["setup"] == {"pile": random.Random(3).randrange(4, 1000)}

def test_a_game_keeps_the_defaults_it_does_not_override(pile_game: Pile) -> None:
    """GameBase's defaults, as a fourth game without dice, map or board sees them."""
    from stratstone_cad.engine.core import SquareError

    assert pile_game.chance_field is None and pile_game.map_fields == () and pile_game.squares == ()
    assert pile_game.default_players(None) == 2 and pile_game.play_setup({"pile": 3}, 5) == {"pile": 3}
    assert pile_game.setup_warnings({"pile": 3}) == []
    assert not pile_game.fast_ply({"ply": 1, "player": "south", "move": "1"}, frozenset({"south"}))
    assert not pile_game.fast_header(["south", "north"], {"pile": 3})
    with pytest.raises(TypeError, match="^pile is not played on a map$"):
        pile_game.load_map("x.json")
    with pytest.raises(SquareError) as e:
        pile_game.parse_square("a1")
    assert str(e.value) == "'a1' is not a square (pile has no board)"
    ledger = pile_game.ledger(PileState(pile=3, turn=0))
    assert ledger.pieces == {} and ledger.squares == {} and ledger.follow([]) == []
    state = PileState(pile=3, turn=0, ply=4)
    with pytest.raises(RuleViolation) as e:
        state.roll(random.Random(1))
    assert str(e.value) == "ply 5: roll is not part of Pile (no dice)"  # its GAME_TITLE
