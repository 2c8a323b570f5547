"""Compare the terrain kit's maps with the generator's: games between two players on each.

For seeds ``--first-seed`` on, plays ``--games`` games on the map ``play terrain --kit
--seed N`` lays and as many on the generator's map of seed N (``play terrain --seed N``),
with the same player kinds (``--players``, default greedy,greedy, quick), and prints per
kind of map: Red's wins, Blue's, draws, the mean plies a game and the mean cheapest
crossing cost of the six start squares. The search's strength on kit maps is measured by
``scripts/bench_players.py --only terrain --matches-only --games 200 --search search --setup
'{"kit": {"seed": 1, "band": "2-4", "designs": 4}}'``.

Usage::

    .venv/bin/python scripts/bench_kit.py [--games 200] [--players greedy,greedy]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchlib import machine_line  # noqa: E402  (scripts/ is on the path when run as a script)

from stratstone_cad.games.terrain.terrain_map import crossing_costs  # noqa: E402
from stratstone_cad.log.commands import play_records  # noqa: E402

KIT = {"seed": 1, "band": "2-4", "designs": 4}


def run(games: int, first: int, kinds: list[str], setup: dict | None) -> dict[str, float]:
    red = blue = draws = 0
    plies, costs = [], []
    start = time.perf_counter()
    for seed in range(first, first + games):
        records = play_records("terrain", seed, kinds, setup)
        winner = records[-1].get("result", {}).get("winner")
        red, blue, draws = red + (winner == "red"), blue + (winner == "blue"), draws + (winner is None)
        plies.append(sum(1 for r in records if "ply" in r))
        costs.append(statistics.mean(crossing_costs(records[0]["setup"]["heightmap"])[0]))
    return {"red": red, "blue": blue, "draws": draws, "plies": statistics.mean(plies),
            "crossing": statistics.mean(costs), "seconds": time.perf_counter() - start}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--players", default="greedy,greedy")
    a = ap.parse_args(argv)
    print(machine_line())
    kinds = a.players.split(",")
    for name, setup in (("generator", None), ("kit", {"kit": KIT})):
        r = run(a.games, a.first_seed, kinds, setup)
        print(f"{name}: {a.games} games {a.players}: red {r['red']}, blue {r['blue']}, drawn {r['draws']}; "
              f"{r['plies']:.1f} plies a game; mean crossing cost {r['crossing']:.2f} ({r['seconds']:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
