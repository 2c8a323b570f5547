"""What a game must provide is said once, by the abstract bases of engine/protocol.py: a
game or a state missing a member cannot be made, and every registered engine derives from them."""

from __future__ import annotations

import random

import pytest

from stratstone_cad.engine.protocol import Game, NoChance, State
from stratstone_cad.registry import game_names, get_game

#: What every engine's state defines itself (NoChance gives the four chance members to a game without dice).
STATE_MEMBERS = {"to_move", "is_chance", "roll", "chance_outcomes", "player_ids", "apply_chance", "legal_moves",
                 "parse_move", "apply", "random_move", "greedy_move", "board_text", "pieces_on"}
#: What every engine defines itself; the rest of Game has a default.
GAME_MEMBERS = {"name", "rules", "max_legal_moves", "new_setup", "initial_state", "derived"}


def _start(game: Game) -> State:
    setup = game.play_setup(None, 0)
    players, full = game.new_setup(game.default_players(setup), setup, random.Random(0))
    return game.initial_state(players, full)


def test_the_abstract_members_are_what_an_engine_must_define():
    assert State.__abstractmethods__ == STATE_MEMBERS
    assert NoChance.__abstractmethods__ == STATE_MEMBERS - {"is_chance", "roll", "chance_outcomes", "apply_chance"}
    assert Game.__abstractmethods__ == GAME_MEMBERS


@pytest.mark.parametrize("name", game_names())
def test_every_registered_engine_derives_from_the_abstract_bases(name):
    game = get_game(name)
    assert isinstance(game, Game) and isinstance(_start(game), State)


@pytest.mark.parametrize("member", sorted(GAME_MEMBERS))
@pytest.mark.parametrize("name", game_names())
def test_a_game_missing_a_member_cannot_be_made(name, member):
    game_class = type(get_game(name))
    broken = type("Broken", (game_class,), {member: getattr(Game, member)})  # the member as the base leaves it
    with pytest.raises(TypeError, match=rf"Can't instantiate abstract class Broken .*\b{member}\b"):
        broken()


@pytest.mark.parametrize("member", sorted(STATE_MEMBERS))
@pytest.mark.parametrize("name", game_names())
def test_a_state_missing_a_member_cannot_be_made(name, member):
    state_class = type(_start(get_game(name)))
    broken = type("Broken", (state_class,), {member: getattr(State, member)})
    with pytest.raises(TypeError, match=rf"Can't instantiate abstract class Broken .*\b{member}\b"):
        broken()
