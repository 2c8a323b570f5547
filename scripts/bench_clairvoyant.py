"""A clairvoyant bound on Sage Stones' two-player search against greedy.

Sage Stones rolls the dice once a ply, from ``random.Random(seed)`` (``play_records``), so a
seed's rolls do not depend on the moves; and ``greedy`` draws its ties from its own
``random.Random(f"{seed}/{i}")``. This script plays each seed's game as the benchmark does
(``bench_players.py``: the same seats, dice and greedy), with the ``search`` side replaced by
one that knows every future roll and greedy's every future draw: OpenSpiel's MCTS on the game
with no chance left (each chance node has the one roll the seed will give; greedy's nodes have
the one move greedy will make) and playouts that roll the seed's dice too.

No fair player can do better on a seed than the best play that knows its future. So the
clairvoyant search's score is a rough ceiling on what ``search`` could score against greedy
on these seeds (rough: this search is not the best play either, so the true ceiling is at least
as high as what it finds); where it falls short of 90 %, the target is out of reach of better
search alone. Run:

    .venv/bin/python scripts/bench_clairvoyant.py --first-seed 100 --games 40 [--simulations 2000]

A line a game on stderr, the totals on stdout.
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
import time
from typing import Any

import numpy as np
from open_spiel.python.algorithms import mcts

from stratstone_cad.analysis import spiel
from stratstone_cad.analysis.evaluators import EXPLORE, MAX_PLAYOUT, GreedyRolloutEvaluator
from stratstone_cad.analysis.players import UCT_C
from stratstone_cad.engine.players import get_player
from stratstone_cad.log.commands import MAX_PLIES
from stratstone_cad.registry import get_game

NAME = "sage-stones"
SETUP = {"variant": "two-player"}


class _Same:
    """A value clones share (``copy.deepcopy`` keeps it)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __deepcopy__(self, memo: dict[int, Any]) -> _Same:
        return self


class KnownDice(random.Random):
    """A ``random.Random`` whose ``randrange(27)`` gives the seed's roll of ply ``ply + 1``,
    ``ply + 2``, ...; all else is its own. The engine rolls by ``randrange(27)``, the index of
    the outcome in ``chance_outcomes()`` (``SageStonesState.roll``, and its playout the same);
    its other draws choose among the squares of one column, never 27."""

    def __init__(self, seed: int, rolls: list[int], ply: int) -> None:
        super().__init__(seed)
        self._rolls, self._next = rolls, ply

    def randrange(self, start: int, stop: Any = None, step: int = 1) -> int:  # type: ignore[override]
        if start == 27 and stop is None:
            self._next += 1
            return self._rolls[self._next - 1]
        return super().randrange(start, stop, step)


class ClairvoyantState(spiel.EngineState):
    """The wrapped game with the future known: one outcome at a chance node (the seed's roll
    of that ply) and one action at greedy's nodes (its move, with its own random draws)."""

    def __init__(self, game: Any, state: Any, rolls: _Same, greedy_seat: int, greedy_rng: random.Random) -> None:
        super().__init__(game, state)
        self._rolls, self._greedy_seat, self._greedy_rng = rolls, greedy_seat, greedy_rng
        self._greedy: tuple[int, random.Random] | None = None

    def _greedy_action(self) -> tuple[int, random.Random]:
        if self._greedy is None:
            rng = copy.deepcopy(self._greedy_rng)
            move = self.engine_state().greedy_move(rng)
            self._greedy = (self._pos.legal().index(move), rng)
        return self._greedy

    def _legal_actions(self, player: int) -> list[int]:
        if player == self._greedy_seat:
            return [self._greedy_action()[0]]
        return super()._legal_actions(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(self._rolls.value[self.engine_state().ply], 1.0)]

    def _apply_action(self, action: int) -> None:
        if not self.is_chance_node() and self.current_player() == self._greedy_seat:
            self._greedy_rng = self._greedy_action()[1]
        self._greedy = None
        super()._apply_action(action)


class KnownDicePlayouts(GreedyRolloutEvaluator):
    """The search's playouts (greedy with a random move one time in ten) with the seed's
    rolls instead of fresh dice; the prior is the search's own. Each playout has its own
    generator (seeded from one draw of ``random_state``), not the parent's one stream."""

    def __init__(self, random_state: np.random.RandomState, rolls: list[int]) -> None:
        # not the parent's __init__: a generator a playout (KnownDice), not one for all
        self.explore, self.max_playout = EXPLORE, MAX_PLAYOUT
        self._seed = int(random_state.randint(2**31))
        self._rolls = rolls
        self._count = 0

    def evaluate(self, state: Any) -> np.ndarray:
        self._count += 1
        engine = state.engine_state()
        end = engine.playout(KnownDice(self._seed + self._count, self._rolls, engine.ply), self.explore, self.max_playout)
        return np.array(state.returns_of(end))


def game(seed: int, simulations: int) -> tuple[float, int]:
    """One game of seed ``seed`` as ``bench_players.match`` plays it (the clairvoyant side
    where ``search`` sits: first on even seeds): (the clairvoyant side's score, plies)."""
    engine = get_game(NAME)
    greedy = get_player("greedy")
    setup = engine.play_setup(dict(SETUP), seed)
    chance_rng = random.Random(seed)
    ids, full_setup = engine.new_setup(2, setup, chance_rng)
    agent_rngs = [random.Random(f"{seed}/{i}") for i in range(2)]
    me = seed % 2
    state = engine.initial_state(ids, full_setup)
    # every roll the seed will give, as the index of the engine's chance outcome
    outcomes = [dice for dice, _ in state.chance_outcomes()]
    ahead = copy.deepcopy(chance_rng)
    rolls = [outcomes.index(state.roll(ahead)) for _ in range(MAX_PLIES + MAX_PLAYOUT + 2)]
    wrapped_game = spiel.game_class(NAME)({"players": 2})
    rs = np.random.RandomState(seed)
    while not state.is_terminal() and state.ply < MAX_PLIES:
        pid = state.to_move()
        if state.is_chance():
            dice = state.roll(chance_rng)
            assert dice == outcomes[rolls[state.ply]], "a roll a ply, in the order drawn"
            state, _ = state.apply_chance(dice)
        seat = ids.index(pid)
        if seat != me:
            move = greedy(state, agent_rngs[seat])
        else:
            node = ClairvoyantState(wrapped_game, state, _Same(rolls), 1 - me, copy.deepcopy(agent_rngs[1 - me]))
            legal = node.legal_actions()
            if len(legal) == 1:
                move = node.move_of(legal[0])
            else:
                bot = mcts.MCTSBot(wrapped_game, UCT_C, simulations, KnownDicePlayouts(rs, rolls), solve=True,
                                   random_state=rs)
                move = node.move_of(bot.step(node))
        state, _ = state.apply(move)
    result = state.result()
    winner = None if result is None else result.winner
    return (0.5 if winner is None else float(winner == ids[me])), state.ply


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--first-seed", type=int, default=100)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--simulations", type=int, default=2000)
    ap.add_argument("--seeds", default="", help="these seeds only (comma-separated), instead of a range")
    args = ap.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")] if args.seeds else range(args.first_seed, args.first_seed + args.games)
    start = time.perf_counter()
    won = drawn = lost = 0
    for seed in seeds:
        score, plies = game(seed, args.simulations)
        won, drawn, lost = won + (score == 1), drawn + (score == 0.5), lost + (score == 0)
        print(f"{NAME} seed {seed}: {'won' if score == 1 else 'drawn' if score else 'lost'} in {plies} plies; "
              f"{won}-{drawn}-{lost} so far ({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
    total = won + drawn + lost
    print(f"{NAME} clairvoyant search ({args.simulations} simulations) vs greedy: {won} won, {drawn} drawn, "
          f"{lost} lost of {total} ({(won + drawn / 2) / total:.1%}); {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
