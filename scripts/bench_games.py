"""Benchmark the rules engines and the log checker on one core.

Measures, each as the median of several runs:

- Stratstone: random games per second (uniform random players, engine only, events on);
- Sage Stones, 4 colours: random plies per second (roll + place, engine only, events on);
- the ``play`` command vs the ``check-log`` command, in plies per second, per game:
  ``play`` in memory (players + engine + log text), ``play`` to a file (atomic write with
  fsync), and ``check_log`` of those files (read + schema + every ply through the engine).

Targets (issue 3): Stratstone >= 500 games/s, Sage Stones >= 20,000 plies/s, check-log at
least as fast as play. Usage::

    .venv/bin/python scripts/bench_games.py [--runs 5] [--seconds 1.0] [--cpu N] [--write FILE.md]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchlib import loadavg, machine_block, pin_cpu, rate  # noqa: E402  (scripts/ is on the path when run as a script)

from stratstone_cad.games.sage_stones.rules import SageStonesState  # noqa: E402
from stratstone_cad.games.stratstone.rules import StratstoneState  # noqa: E402
from stratstone_cad.log import commands  # noqa: E402

TARGET_STRATSTONE_GAMES = 500
TARGET_SAGE_PLIES = 20_000


def stratstone_games(seconds: float, seed: int) -> float:
    """Random Stratstone games per second."""
    rng = random.Random(seed)

    def one_game() -> int:
        state = StratstoneState.start()
        while not state.is_terminal():
            state, _ = state.apply(state.random_move(rng))
        return 1

    return rate(seconds, one_game)


def sage_plies(seconds: float, seed: int) -> float:
    """Random Sage Stones plies per second, 4 colours."""
    rng = random.Random(seed)

    def one_game() -> int:
        plies = 0
        state = SageStonesState.start()
        while not state.is_terminal():
            state, _ = state.apply_chance(state.roll(rng))
            state, _ = state.apply(state.random_move(rng))
            plies += 1
        return plies

    return rate(seconds, one_game)


def play_vs_check(game: str, n_games: int, seed: int, folder: Path) -> dict[str, float]:
    """Plies per second of play (in memory, to a file) and of check_log on the same games."""
    kinds = ["random"] * (4 if game == "sage-stones" else 2)
    seeds = [seed * 100_000 + i for i in range(n_games)]
    commands.play(game, seed * 100_000 + n_games, kinds, None)  # untimed: imports the engines, fills caches
    t = time.perf_counter()
    plies = 0
    for s in seeds:
        text = commands.play(game, s, kinds, None)
        plies += text.count('"ply"')
    t_mem = time.perf_counter() - t
    paths = [folder / f"{game}-{s}.jsonl" for s in seeds]
    t = time.perf_counter()
    for s, p in zip(seeds, paths, strict=True):
        commands.play(game, s, kinds, p)
    t_file = time.perf_counter() - t
    t = time.perf_counter()
    for p in paths:
        commands.check_log(p)
    t_check = time.perf_counter() - t
    for p in paths:
        p.unlink()
    return {"play_mem": plies / t_mem, "play_file": plies / t_file, "check": plies / t_check, "plies": plies}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="runs per figure (median reported)")
    ap.add_argument("--seconds", type=float, default=1.0, help="length of one engine run, s")
    ap.add_argument("--games", type=int, default=200, help="games per play/check run")
    ap.add_argument("--cpu", type=int, default=None, help="pin to this CPU (default: stay on the current one)")
    ap.add_argument("--write", type=Path, default=None, help="write the figures as Markdown here")
    args = ap.parse_args()

    pinned = pin_cpu(args.cpu)

    load_before = loadavg()
    strat = [stratstone_games(args.seconds, 1000 + i) for i in range(args.runs)]
    sage = [sage_plies(args.seconds, 2000 + i) for i in range(args.runs)]
    pvc: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for game in ("stratstone", "sage-stones"):
            runs = [play_vs_check(game, args.games, 3000 + i, Path(tmp)) for i in range(args.runs)]
            pvc[game] = {k: [r[k] for r in runs] for k in ("play_mem", "play_file", "check", "plies")}

    med = statistics.median
    rows = [
        (
            "Stratstone, random games (engine)",
            f"{med(strat):,.0f} games/s",
            f">= {TARGET_STRATSTONE_GAMES} games/s",
            med(strat) >= TARGET_STRATSTONE_GAMES,
        ),
        (
            "Sage Stones 4 colours, random plies (engine)",
            f"{med(sage):,.0f} plies/s",
            f">= {TARGET_SAGE_PLIES:,} plies/s",
            med(sage) >= TARGET_SAGE_PLIES,
        ),
    ]
    for game, r in pvc.items():
        rows.append((f"{game}: play, log text in memory", f"{med(r['play_mem']):,.0f} plies/s", "", None))
        rows.append((f"{game}: play, log written to a file", f"{med(r['play_file']):,.0f} plies/s", "", None))
        ok = med(r["check"]) >= med(r["play_mem"])
        rows.append((f"{game}: check-log of those files", f"{med(r['check']):,.0f} plies/s", ">= play (in memory)", ok))
    out = [
        "# Games benchmark",
        "",
        "Made by `scripts/bench_games.py`"
        f" (`--runs {args.runs} --seconds {args.seconds} --games {args.games}`), one process, {pinned}.",
        f"Medians of {args.runs} runs. Random players throughout; Sage Stones with 4 colours.",
        "",
        "| measure | median | target | met |",
        "| --- | ---: | --- | --- |",
    ]
    for name, value, target, ok in rows:
        out.append(f"| {name} | {value} | {target} | {'' if ok is None else ('yes' if ok else 'NO')} |")
    out += [
        "",
        "What is measured: *engine* rows loop `random_move` + `apply` (and `roll` + `apply_chance`)",
        "with events built, no log. *play* is `commands.play` for whole games between random players:",
        "players, engine and the log text (*in memory*: `out=None`), or that plus the atomic write with",
        "fsync (*to a file*). *check-log* is `commands.check_log` on those files: read line by line,",
        "JSON, schema, every ply through the engine, the result line.",
        "",
        "All runs (same order):",
        "",
        f"- Stratstone games/s: {', '.join(f'{x:,.0f}' for x in strat)}",
        f"- Sage Stones plies/s: {', '.join(f'{x:,.0f}' for x in sage)}",
    ]
    for game, r in pvc.items():
        out.append(
            f"- {game}: play (memory) {', '.join(f'{x:,.0f}' for x in r['play_mem'])}; "
            f"play (file) {', '.join(f'{x:,.0f}' for x in r['play_file'])}; "
            f"check-log {', '.join(f'{x:,.0f}' for x in r['check'])} plies/s "
            f"({int(med(r['plies'])):,} plies per run)"
        )
    out += [
        "",
        *machine_block(load_before),
    ]
    text = "\n".join(out)
    print(text)
    if args.write:
        args.write.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
