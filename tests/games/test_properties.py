"""Property tests over random playouts (hypothesis picks the seeds and the players)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from stratstone_cad.engine.events import Captured, GameOver, Placed, Sown
from stratstone_cad.engine.players import get_player
from stratstone_cad.games.sage_stones.rules import STONES, SageStonesState
from stratstone_cad.games.stratstone.rules import StratstoneState
from stratstone_cad.log import logfile as log
from stratstone_cad.log.commands import play_records
from stratstone_cad.registry import FACTS, get_game

seeds = st.integers(0, 2**32)
kinds = st.sampled_from(["random", "greedy"])


def _snapshot(state):
    return tuple(getattr(state, name) for name in type(state).__slots__)


@settings(max_examples=25, deadline=None)
@given(seeds, st.lists(kinds, min_size=2, max_size=2), st.sampled_from(["yellow", "red"]))
def test_stratstone_playouts_revalidate_and_keep_counts(tmp_path_factory, seed, players, first):
    records = play_records("stratstone", seed, players, {"first": first})
    path = tmp_path_factory.mktemp("p") / "g.jsonl"
    log.write_log(path, records)
    report = log.validate(path)
    assert report.plies == len(records) - 1 - ("result" in records[-1])
    state = StratstoneState.start(first)
    rng = random.Random(seed)
    while not state.is_terminal():
        before = _snapshot(state)
        move = get_player(rng.choice(players))(state, rng)
        nxt, events = state.apply(move)
        assert _snapshot(state) == before  # apply never mutates the old state
        # every stone is somewhere: 8 tan + the stones placed so far
        on_board = sum(len(s) for s in nxt.stacks)
        assert on_board == 8 + (16 - nxt.hand[1] - nxt.hand[2])
        assert nxt.hand[state.turn] == state.hand[state.turn] - 1
        sown = [e for e in events if isinstance(e, Sown)]
        assert len(sown) == len(state.stacks[move.square]) + 1
        assert isinstance(events[0], Placed) and sown[-1].stone == state.to_move()
        assert nxt.is_terminal() == isinstance(events[-1], GameOver)
        state = nxt
    assert sum(len(s) for s in state.stacks) <= 24


@settings(max_examples=25, deadline=None)
@given(seeds, st.integers(2, 6), kinds, st.booleans())
def test_sage_stones_playouts_revalidate_and_keep_counts(tmp_path_factory, seed, n, kind, two_player):
    setup = {"variant": "two-player"} if two_player else None
    n = 2 if two_player else n
    records = play_records("sage-stones", seed, [kind] * n, setup, max_plies=400)
    path = tmp_path_factory.mktemp("p") / "g.jsonl"
    log.write_log(path, records)
    log.validate(path)
    # replay the same log and check counts ply by ply
    with log.walk_log(path) as r:
        for step in r:
            before, after = step.before, step.after
            assert isinstance(after, SageStonesState)
            counts = [0] * len(after.colours)
            for v in after.board:
                if v:
                    counts[v - 1] += 1
            assert tuple(counts) == after.on_board
            assert all(0 <= c <= STONES for c in counts)
            removed = sum(1 for e in step.events if isinstance(e, Captured))
            placed = sum(1 for e in step.events if isinstance(e, Placed))
            if any(e.kind == "board reset" for e in step.events):
                assert sum(after.on_board) == 0
            else:
                assert sum(after.on_board) == sum(before.on_board) + placed - removed
            assert after.is_terminal() == (max(after.on_board) == STONES)


@settings(max_examples=15, deadline=None)
@given(seeds)
def test_sage_apply_never_mutates_the_old_state(seed):
    rng = random.Random(seed)
    state = SageStonesState.start()
    for _ in range(120):
        if state.is_terminal():
            break
        snap = _snapshot(state)
        rolled, _ = state.apply_chance(state.roll(rng))
        assert _snapshot(state) == snap
        snap2 = _snapshot(rolled)
        state, _ = rolled.apply(get_player("greedy")(rolled, rng))
        assert _snapshot(rolled) == snap2


@settings(max_examples=10, deadline=None)
@given(seeds, st.sampled_from(list(FACTS)))
def test_play_is_deterministic_for_a_seed(seed, game):
    """Every registered game, with as many players as it has when nobody says."""
    n = get_game(game).default_players(None)
    a = play_records(game, seed, ["greedy"] + ["random"] * (n - 1))
    b = play_records(game, seed, ["greedy"] + ["random"] * (n - 1))
    assert a == b
    assert get_game(game).name == a[0]["game"]


def test_sage_stones_own_playout_is_the_generic_one_step_for_step():
    """Sage Stones' fast playout (one list of the board, no states or events) ends where the
    generic loop of rolls, random or greedy moves and applies ends, having drawn the same
    numbers from the same generator: from positions of every variant along real games
    (rolls pending or not, lost turns, resets, the last stone, the end), with any share of
    random moves and any step limit. Seen on the way: wins, resets and lost turns."""
    from stratstone_cad.engine.protocol import State

    seen = {"won": 0, "reset": 0, "lost turn": 0}
    for seed in range(240):
        rng = random.Random(seed)
        n = 2 + seed % 5
        players = ["p1", "p2"] if seed % 3 == 0 else ["yellow", "red", "blue", "green", "white", "black"][:n]
        setup = {"variant": "two-player"} if seed % 3 == 0 else {}
        if seed % 8 == 7:  # columns 3-8 full (9 stones of each of six colours): most rolls reset the board
            colours = ["yellow", "red", "blue", "green", "white", "black"]
            board = {f"{c}-{r}": colours[((c - 3) * 9 + r) % 6] for c in range(3, 9) for r in range(1, 10)}
            position = SageStonesState.from_setup(colours, {"board": board})
        else:
            start = SageStonesState.from_setup(players, setup)
            position = State.playout(start, rng, 0.5, rng.randrange(0, 400))  # somewhere along a game
        explore, steps = rng.choice([0.0, 0.1, 0.5, 1.0]), rng.choice([0, 1, 7, 60, 200, 1000])
        a, b = random.Random(seed * 7 + 1), random.Random(seed * 7 + 1)
        generic, fast = State.playout(position, a, explore, steps), position.playout(b, explore, steps)
        assert fast == generic and fast.result() == generic.result(), (seed, explore, steps)
        assert a.getstate() == b.getstate(), (seed, explore, steps)
        seen["won"] += generic.is_terminal() and not position.is_terminal()
        seen["reset"] += sum(position.on_board) == 54 and sum(generic.on_board) < 50
        seen["lost turn"] += generic.ply > position.ply and generic.board == position.board
    assert all(v > 0 for v in seen.values()), seen
