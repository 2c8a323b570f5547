"""Compare the rules engines of two checkouts side by side, in one run, on one core.

For a change to the engines (issue 10: within 5 % of main or better), the figures of two
trees are measured in turn, round after round, each in a fresh process pinned to one CPU:

- engine: random Stratstone games/s, Sage Stones (4 colours) plies/s, terrain plies/s
  (random moves applied, events built, no log);
- play: ``commands.play`` in memory, plies/s, per game;
- check-log: ``commands.check_log`` of those games written to files, plies/s, per game.

Each figure is the median of ``--reps`` timings inside the process after an untimed warm-up
(the first game imports the engines and fills their caches: left in, it is most of a short
run's difference). The report gives each tree's median over the rounds and the ratio of
the medians; the machine is shared, so only ratios of one run mean anything. Usage::

    git worktree add /tmp/main-tree main
    .venv/bin/python scripts/bench_engines_side_by_side.py /tmp/main-tree . [--rounds 3] [--cpu 1]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

MEASURE = r'''
import json, os, random, statistics, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
reps = int(sys.argv[2])
try:  # the folder-per-game layout
    from stratstone_cad.log import commands
    from stratstone_cad.registry import get_game
    from stratstone_cad.games.terrain.terrain_map import generate
except ImportError:  # a tree from before it (games/ held the engines and the log)
    from stratstone_cad.games import commands
    from stratstone_cad.games.core import get_game
    from stratstone_cad.games.terrain_map import generate

def median_rate(fn):
    fn()  # warm-up
    return statistics.median(fn() for _ in range(reps))

def engine(game, n_players, setup_of, n_games):  # only what both trees have (new_setup, initial_state)
    def run():
        rng = random.Random(1)
        g = get_game(game)
        plies = 0
        t = time.perf_counter()
        for i in range(n_games):
            ids, setup = g.new_setup(n_players, setup_of(i), random.Random(i))
            state = g.initial_state(ids, setup)
            while not state.is_terminal() and state.ply < 2000:
                if state.is_chance():
                    state, _ = state.apply_chance(state.roll(rng))
                state, _ = state.apply(state.random_move(rng))
                plies += 1
        return plies / (time.perf_counter() - t)
    return run

maps = [generate(i) for i in range(8)]
out = {
    "engine stratstone plies/s": median_rate(engine("stratstone", 2, lambda i: None, 150)),
    "engine sage-stones plies/s": median_rate(engine("sage-stones", 4, lambda i: None, 30)),
    "engine terrain plies/s": median_rate(engine("terrain", 2, lambda i: {"heightmap": maps[i % 8]}, 8)),
}
folder = Path(tempfile.mkdtemp())
for game, n in (("stratstone", 60), ("sage-stones", 30), ("terrain", 8)):
    def play(game=game, n=n):
        t = time.perf_counter()
        plies = sum(commands.play(game, s, None, None).count('"ply"') for s in range(n))
        return plies / (time.perf_counter() - t)
    out[f"play {game} plies/s"] = median_rate(play)
    paths = []
    for s in range(n):
        p = folder / f"{game}-{s}.jsonl"
        commands.play(game, s, None, p)
        paths.append(p)
    plies = sum(len(p.read_text().splitlines()) - 2 for p in paths)
    def check(paths=paths, plies=plies):
        t = time.perf_counter()
        for p in paths:
            commands.check_log(p)
        return plies / (time.perf_counter() - t)
    out[f"check-log {game} plies/s"] = median_rate(check)
    for p in paths:
        p.unlink()
print(json.dumps(out))
'''


def measure(tree: Path, reps: int, cpu: int | None) -> dict[str, float]:
    def pin() -> None:
        if cpu is not None and hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, {cpu})

    r = subprocess.run([sys.executable, "-c", MEASURE, str(tree.resolve()), str(reps)], capture_output=True,
                       text=True, preexec_fn=pin)
    if r.returncode:
        sys.exit(f"measuring {tree} failed:\n{r.stderr}")
    return json.loads(r.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", type=Path, help="the tree measured against (e.g. a worktree of main)")
    ap.add_argument("new", type=Path, nargs="?", default=Path("."), help="the tree with the change (default: .)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds, each measuring both trees (default 3)")
    ap.add_argument("--reps", type=int, default=5, help="timed repetitions per figure in a process (default 5)")
    ap.add_argument("--cpu", type=int, default=None, help="pin the measuring processes to this CPU")
    a = ap.parse_args()
    runs: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    for i in range(a.rounds):
        for name, tree in (("old", a.old), ("new", a.new)):
            runs[name].append(measure(tree, a.reps, a.cpu))
            print(f"round {i + 1}: {name} done", file=sys.stderr)
    print(f"| measure | {a.old} | {a.new} | new / old |")
    print("| --- | ---: | ---: | ---: |")
    for key in runs["old"][0]:
        old = statistics.median(r[key] for r in runs["old"])
        new = statistics.median(r[key] for r in runs["new"])
        print(f"| {key} | {old:,.0f} | {new:,.0f} | {new / old:.3f} |")
    print(f"\n{a.rounds} rounds x {a.reps} repetitions; 1-minute load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
