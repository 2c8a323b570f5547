"""Benchmark of what the replay's overlays cost a frame (issue 25: the path, the sums, the
column, the traps, the sowing, the winning line; the reach).

- The drawings' share of a frame: a render + read back of one ply's scene at 1280 x 720
  with the drawings and with them hidden (the caption, the engine's words, stays, as the
  overlay text did before), in turn, 20 renders each way a round, medians of the rounds:
  each game's busiest ply (Sage Stones: a column and two traps; the terrain game: a
  charge's attack, with and without the reach; Stratstone: the sowing and the winning line).
- What setting up a ply's drawings costs (once a ply: over 10 frames a ply, a tenth of it
  a frame), median over every ply of the game.
- The budget's figures: the replay benchmark's game (``bench_replay.py``: a 100-ply Sage
  Stones game of six random players, 10 frames a ply, 1,001 frames at 1280 x 720)
  exported to MP4 in process, a frame against the floor (``bench_replay.floor``: a render
  and read back of the final position, nothing moved), with the overlays and without
  their drawings (``Overlays._build`` a no-op).

Medians of ``--rounds``. Run: ``.venv/bin/python scripts/bench_overlays.py [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench_replay import PER_PLY, SIZE, floor, write_log
from benchlib import loadavg, machine_line

from stratstone_cad.viewer import replay as R
from stratstone_cad.viewer.overlays.actors import Overlays

LOGS = Path(__file__).resolve().parent.parent / "tests" / "data" / "logs"
BUSIEST = {  # log, ply, reach
    "Sage Stones (column, two traps)": ("sage_stones_two_player.jsonl", 31, False),
    "terrain (a charge's attack)": ("terrain_greedy.jsonl", 8, False),
    "terrain (the same, with the reach)": ("terrain_greedy.jsonl", 8, True),
    "Stratstone (sowing, winning line)": ("stratstone_win.jsonl", 13, False),
}


@contextmanager
def drawings_off() -> Iterator[None]:
    """The overlays without their drawings: a ply builds nothing, the caption still shows."""
    build = Overlays._build
    Overlays._build = lambda self, ply: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        Overlays._build = build  # type: ignore[method-assign]


def drawings(scene: R.Scene) -> list:
    ov = scene.overlays
    return [ov.path, *ov.win, ov.band, ov.edges, ov.lit, ov.stars, *ov.halos, ov.costs.actor, ov.steps.actor,
            *(s.actor for s in ov.sums)]


def share(rep: R.GameOnTable, ply: int, reach: bool, rounds: int, n: int = 20) -> tuple[float, float]:
    """Median seconds of a frame of ``ply`` with its drawings and without, in turn."""
    scene = R.Scene(rep, SIZE, smooth=False, reach=reach)
    try:
        scene.show(ply)
        shown = [a for a in drawings(scene) if a.GetVisibility()]
        on, off = [], []
        for _ in range(rounds):
            for visible, out in ((True, on), (False, off)):
                for a in shown:
                    a.SetVisibility(visible)
                scene.image()
                t = time.perf_counter()
                for _ in range(n):
                    scene.image()
                out.append((time.perf_counter() - t) / n)
        return statistics.median(on), statistics.median(off)
    finally:
        scene.close()


def builds(rep: R.GameOnTable, reach: bool) -> float:
    """Median seconds of setting up a ply's drawings, over every ply."""
    scene = R.Scene(rep, (320, 180), smooth=False, reach=reach)
    try:
        took = []
        for ply in range(1, rep.count + 1):
            p = rep.plies[ply - 1]
            t = time.perf_counter()
            scene.overlays._build(p)
            took.append(time.perf_counter() - t)
        return statistics.median(took)
    finally:
        scene.close()


def export(rep: R.GameOnTable, out: Path) -> float:
    """Seconds a frame of the in-process MP4 export takes."""
    n = len(R.frames(rep, PER_PLY))
    t = time.perf_counter()
    R.export(rep, out, size=SIZE, per_ply=PER_PLY, fps=25)
    took = (time.perf_counter() - t) / n
    out.unlink()
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    print(f"machine: {machine_line()}, load {loadavg()} at the start")
    print(f"{SIZE[0]}x{SIZE[1]}, medians of {a.rounds} rounds")
    for name, (log, ply, reach) in BUSIEST.items():
        rep = R.load(LOGS / log)
        on, off = share(rep, ply, reach, a.rounds)
        print(f"{name}, ply {ply}: a frame {on * 1000:.1f} ms with the drawings, {off * 1000:.1f} ms without: "
              f"{on / off:.2f} x; setting up a ply's drawings {builds(rep, reach) * 1000:.1f} ms (median of its plies)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        sage = R.load(write_log(folder))
        out = folder / "x.mp4"
        m: dict[str, list[float]] = {}
        for _ in range(a.rounds):
            m.setdefault("floor", []).append(floor(sage))
            m.setdefault("export", []).append(export(sage, out))
            with drawings_off():
                m.setdefault("floor, no drawings", []).append(floor(sage))
                m.setdefault("export, no drawings", []).append(export(sage, out))
        med = {k: statistics.median(v) for k, v in m.items()}
        for k, v in m.items():
            print(f"Sage Stones 100 plies, {k}: {med[k] * 1000:.1f} ms  rounds {[round(x * 1000, 1) for x in v]}")
        print(f"export / floor: {med['export'] / med['floor']:.2f} with the drawings, "
              f"{med['export, no drawings'] / med['floor, no drawings']:.2f} without")
        print(f"1,001 frames in process: {med['export'] * 1001:.1f} s with the drawings, "
              f"{med['export, no drawings'] * 1001:.1f} s without")
    print(f"load {loadavg()} at the end")


if __name__ == "__main__":
    main()
