"""Benchmark the OpenSpiel wrappers and the search player, for every registered game.

Measures, per game (the registry's, never a list written here):

- plies per second of random play through the OpenSpiel wrapper (``legal_actions``,
  ``apply_action``, dice sampled from ``chance_outcomes``), beside the engine's own random
  play (``random_move`` + ``apply``) on the same machine: the wrapper's cost;
- MCTS simulations per second (``MCTSBot`` with one greedy playout a simulation, as the
  ``search`` player runs it), from the positions after 0, 4 and 8 random plies;
- seconds a move of the default ``search`` (the game's ``search_simulations``) from those
  positions;
- seconds a move of ``search:Ns`` (``--budget``, 0.3 s) from those positions: the budget and
  the one simulation that started before it ran out (0.3-0.8 s at 0.3 s was the test's claim);
- ``search`` against ``greedy`` over ``--games`` games (seeds ``--first-seed`` on, search
  seated first on even seeds and second on odd: two processes can share a long run), as ``play`` plays them: wins, draws, losses.

Usage::

    .venv/bin/python scripts/bench_players.py [--seconds 2] [--games 2] [--search search:50] [--budget 0.3] [--only GAME]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchlib import loadavg, machine_line  # noqa: E402  (scripts/ is on the path when run as a script)

from stratstone_cad.analysis import spiel  # noqa: E402
from stratstone_cad.analysis.players import UCT_C, evaluator, make_player, selection  # noqa: E402
from stratstone_cad.log.commands import play_records  # noqa: E402
from stratstone_cad.registry import game_names, get_game  # noqa: E402


def wrapped_plies_per_second(name: str, seconds: float, seed: int) -> float:
    """Random plies a second through the OpenSpiel wrapper (chance steps not counted as plies)."""
    rng = random.Random(seed)
    game = spiel.load(name, seed=seed)
    plies = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                plies += 1
    return plies / (time.perf_counter() - start)


def engine_plies_per_second(name: str, seconds: float, seed: int) -> float:
    """Random plies a second of the engine alone, on the same game as the wrapper's."""
    rng = random.Random(seed)
    game = spiel.load(name, seed=seed)
    engine = get_game(name)
    plies = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = engine.initial_state(game.player_ids, game.setup)
        while not state.is_terminal() and state.ply < game.max_plies:
            if state.is_chance():
                state, _ = state.apply_chance(state.roll(rng))
            state, _ = state.apply(state.random_move(rng))
            plies += 1
    return plies / (time.perf_counter() - start)


def positions(name: str, seed: int) -> list:
    """The engine states after 0, 4 and 8 random plies of one game (those not over, waiting for a move)."""
    rng = random.Random(seed)
    game = spiel.load(name, seed=seed)
    engine = get_game(name)
    state = engine.initial_state(game.player_ids, game.setup)
    out = []
    while not state.is_terminal() and state.ply <= 8:
        if state.is_chance():
            state, _ = state.apply_chance(state.roll(rng))
            continue
        if state.ply in (0, 4, 8):
            out.append(state)
        state, _ = state.apply(state.random_move(rng))
    return out


def simulations_per_second(name: str, simulations: int, seed: int) -> float:
    """MCTS simulations a second (OpenSpiel's MCTSBot, the search's greedy playouts), over :func:`positions`."""
    import numpy as np
    from open_spiel.python.algorithms import mcts

    game = spiel.load(name, seed=seed)
    done = 0
    took = 0.0
    for state in positions(name, seed):
        rs = np.random.RandomState(seed)
        bot = mcts.MCTSBot(game, UCT_C, simulations, evaluator(rs), solve=True, random_state=rs,
                           child_selection_fn=selection(get_game(name)))
        start = time.perf_counter()
        root = bot.mcts_search(game.state_of(state))
        took += time.perf_counter() - start
        done += root.explore_count
    return done / took


def default_move_seconds(name: str, seed: int) -> list[float]:
    """Seconds of one move of the default ``search`` from each of :func:`positions`."""
    player = make_player("search", get_game(name))
    out = []
    for i, state in enumerate(positions(name, seed)):
        start = time.perf_counter()
        player(state, random.Random(i))
        out.append(time.perf_counter() - start)
    return out


def budget_move_seconds(name: str, budget: float, seed: int) -> list[float]:
    """Seconds of one move of ``search:{budget}s`` from each of :func:`positions` (OpenSpiel
    imported before the clock starts)."""
    engine = get_game(name)
    player = make_player(f"search:{budget:g}s", engine)
    make_player("search:2", engine)(positions(name, seed)[0], random.Random(0))
    out = []
    for i, state in enumerate(positions(name, seed)):
        start = time.perf_counter()
        player(state, random.Random(i))
        out.append(time.perf_counter() - start)
    return out


def match(name: str, games: int, kind: str, against: str = "greedy",
          setup: dict | None = None, first_seed: int = 0, make: Any = make_player) -> tuple[int, int, int, float]:
    """``kind`` against ``against`` over ``games`` games from seed ``first_seed`` (``kind``
    first on even seeds), players made by ``make``: (wins, draws, losses, seconds)."""
    wins = draws = losses = 0
    start = time.perf_counter()
    for seed in range(first_seed, first_seed + games):
        kinds = [kind, against] if seed % 2 == 0 else [against, kind]
        records = play_records(name, seed, kinds, setup, make_player=make)
        ids = records[0]["players"]
        me = ids[seed % 2]
        winner = records[-1]["result"]["winner"] if "result" in records[-1] else None
        if winner is None:
            draws += 1
        elif winner == me:
            wins += 1
        else:
            losses += 1
        # a line a game on stderr: a long run stopped part way still says how it stood
        print(f"{name} seed {seed}: {wins} won, {draws} drawn, {losses} lost so far "
              f"({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
    return wins, draws, losses, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="seconds of random play per game and engine")
    ap.add_argument("--simulations", type=int, default=200, help="MCTS simulations a search when timing them")
    ap.add_argument("--games", type=int, default=2, help="games of search against greedy, per game")
    ap.add_argument("--search", default="search:50", help="the search player's kind in those games")
    ap.add_argument("--only", action="append", default=None, help="this game only (repeat for several)")
    ap.add_argument("--against", default="greedy", help="the other player's kind in those games (search:1200 ...)")
    ap.add_argument("--setup", default=None, help='the games\' setup as JSON (Sage Stones: \'{"variant": "two-player"}\')')
    ap.add_argument("--matches-only", action="store_true", help="only the games, not the speeds")
    ap.add_argument("--first-seed", type=int, default=0, help="the first game's seed (the others follow it)")
    ap.add_argument("--budget", type=float, default=0.3, help="seconds of the timed search whose moves are timed")
    a = ap.parse_args(argv)
    print(f"machine: {machine_line()}; load before: {loadavg()}")
    setup = json.loads(a.setup) if a.setup else None
    for name in a.only or game_names():
        if a.matches_only:
            w, d, lost, took = match(name, a.games, a.search, a.against, setup, a.first_seed)
            print(f"{name}: {a.search} vs {a.against} over {a.games} games: {w} won, {d} drawn, {lost} lost "
                  f"({took:.0f} s)", flush=True)
            continue
        wrapped = wrapped_plies_per_second(name, a.seconds, 1)
        raw = engine_plies_per_second(name, a.seconds, 1)
        sims = simulations_per_second(name, a.simulations, 1)
        moves = default_move_seconds(name, 1)
        print(f"{name}: random plies/s through OpenSpiel {wrapped:,.0f} (engine alone {raw:,.0f}, x{raw / wrapped:.1f}); "
              f"MCTS {sims:,.0f} simulations/s; default search ({get_game(name).search_simulations} simulations) "
              f"{statistics.median(moves):.2f} s a move (median of {', '.join(f'{m:.2f}' for m in moves)})", flush=True)
        timed = budget_move_seconds(name, a.budget, 1)
        print(f"{name}: search:{a.budget:g}s {max(timed):.2f} s a move at most ({', '.join(f'{m:.2f}' for m in timed)})",
              flush=True)
        if a.games:
            w, d, lost, took = match(name, a.games, a.search, a.against, setup, a.first_seed)
            print(f"{name}: {a.search} vs {a.against} over {a.games} games: {w} won, {d} drawn, {lost} lost "
                  f"({took:.0f} s)", flush=True)
    print(f"load after: {loadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
