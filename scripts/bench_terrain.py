"""Benchmark the terrain game on one core: random games and map generation.

Measures, each as the median of several runs (one process, pinned to one CPU):

- random games: plies per second of whole games between uniform random players, with
  **full legal-move generation** every ply (``random_move`` lists every legal move: one
  bounded Dijkstra per piece of the side to move), ``apply`` with its events and every
  end-of-game rule, on a new generated map per game;
- terrain generation: fair maps per second from ``terrain_map.generate(seed)`` (hills,
  half-turn symmetry, the neighbour rule, then the check against the terrain rule and the
  fairness measure, which every map passes before it is returned);
- for information: greedy-vs-greedy plies per second, and ``play`` / ``check-log`` of
  terrain logs in plies per second.

Targets (issue 4): random games >= 2,000 plies/s; generation >= 50 fair maps/s. Usage::

    .venv/bin/python scripts/bench_terrain.py [--runs 5] [--seconds 1.0] [--cpu N] [--write FILE.md]
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchlib import loadavg, machine_block, pin_cpu, rate  # noqa: E402  (scripts/ is on the path when run as a script)

from stratstone_cad.games.terrain.rules import TerrainState  # noqa: E402
from stratstone_cad.games.terrain.terrain_map import generate  # noqa: E402
from stratstone_cad.log import commands  # noqa: E402

TARGET_PLIES = 2_000
TARGET_MAPS = 50


def plies_per_second(seconds: float, seed: int, greedy: bool = False) -> float:
    """Plies per second of random (or greedy-vs-greedy) games, full legal-move generation
    every ply; a new map each game, its generation not timed."""
    rng = random.Random(seed)
    plies = 0
    elapsed = 0.0
    game = 0
    while elapsed < seconds:
        state = TerrainState.start(generate(seed * 10_000 + game))
        game += 1
        t = time.perf_counter()
        while not state.is_terminal():
            choose = state.greedy_move if greedy else state.random_move
            state, _ = state.apply(choose(rng))
            plies += 1
        elapsed += time.perf_counter() - t
    return plies / elapsed


def maps_per_second(seconds: float, seed: int) -> float:
    """Fair maps per second from consecutive seeds."""
    n = itertools.count()

    def one_map() -> int:
        generate(seed * 1_000_000 + next(n))
        return 1

    return rate(seconds, one_map)


def play_vs_check(n_games: int, seed: int, folder: Path) -> dict[str, float]:
    """Plies per second of ``play`` (in memory) and ``check_log`` of the same games written to files."""
    seeds = [seed * 100_000 + i for i in range(n_games)]
    commands.play("terrain", seed * 100_000 + n_games, None, None)  # untimed: imports the engines, fills caches
    t = time.perf_counter()
    plies = 0
    for s in seeds:
        plies += commands.play("terrain", s, None, None).count('"ply"')
    t_play = time.perf_counter() - t
    paths = [folder / f"terrain-{s}.jsonl" for s in seeds]
    for s, p in zip(seeds, paths, strict=True):
        commands.play("terrain", s, None, p)
    t = time.perf_counter()
    for p in paths:
        commands.check_log(p)
    t_check = time.perf_counter() - t
    for p in paths:
        p.unlink()
    return {"play": plies / t_play, "check": plies / t_check, "plies": plies}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="runs per figure (median reported)")
    ap.add_argument("--seconds", type=float, default=1.0, help="length of one run, s")
    ap.add_argument("--games", type=int, default=30, help="games per play/check-log run")
    ap.add_argument("--cpu", type=int, default=None, help="pin to this CPU (default: the last one allowed)")
    ap.add_argument("--write", type=Path, default=None, help="also write the figures as Markdown here")
    args = ap.parse_args()

    pinned = pin_cpu(args.cpu)

    load_before = loadavg()
    rand = [plies_per_second(args.seconds, 1 + i) for i in range(args.runs)]
    maps = [maps_per_second(args.seconds, 1 + i) for i in range(args.runs)]
    gre = [plies_per_second(args.seconds, 1 + i, greedy=True) for i in range(args.runs)]
    with tempfile.TemporaryDirectory() as tmp:
        pvc = [play_vs_check(args.games, 1 + i, Path(tmp)) for i in range(args.runs)]
    med = statistics.median
    play_runs = [r["play"] for r in pvc]
    check_runs = [r["check"] for r in pvc]
    plies_per_run = int(med([r["plies"] for r in pvc]))
    rows = [
        (
            "random games, full legal-move generation",
            f"{med(rand):,.0f} plies/s",
            f">= {TARGET_PLIES:,} plies/s",
            med(rand) >= TARGET_PLIES,
        ),
        ("terrain generation (checked fair)", f"{med(maps):,.0f} maps/s", f">= {TARGET_MAPS} maps/s", med(maps) >= TARGET_MAPS),
        ("greedy vs greedy", f"{med(gre):,.0f} plies/s", "", None),
        ("play (random players, log text in memory)", f"{med(play_runs):,.0f} plies/s", "", None),
        ("check-log of those games", f"{med(check_runs):,.0f} plies/s", "", None),
    ]
    out = [
        "# Terrain game benchmark",
        "",
        f"Made by `scripts/bench_terrain.py` (`--runs {args.runs} --seconds {args.seconds} --games {args.games}`),"
        f" one process, {pinned}. Medians of {args.runs} runs.",
        "",
        "| measure | median | target | met |",
        "| --- | ---: | --- | --- |",
    ]
    for name, value, target, ok in rows:
        out.append(f"| {name} | {value} | {target} | {'' if ok is None else ('yes' if ok else 'NO')} |")
    out += [
        "",
        "All runs (same order):",
        "",
        f"- random plies/s: {', '.join(f'{x:,.0f}' for x in rand)}",
        f"- maps/s: {', '.join(f'{x:,.0f}' for x in maps)}",
        f"- greedy plies/s: {', '.join(f'{x:,.0f}' for x in gre)}",
        f"- play plies/s: {', '.join(f'{x:,.0f}' for x in play_runs)}; check-log plies/s: "
        f"{', '.join(f'{x:,.0f}' for x in check_runs)} ({plies_per_run:,} plies per run)",
        "",
        *machine_block(load_before),
    ]
    text = "\n".join(out)
    print(text)
    if args.write:
        args.write.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
