"""Benchmark of the replay's off-screen export (issue: 1280 x 720, software OpenGL).

A 100-ply Sage Stones game (six random players, seed 5, cut at 100 plies) at 10 frames a
ply: 1,001 frames (the start, then 10 a ply). Measured, median of ``--rounds``:

- the floor: the pure render of the final scene, nothing moved (render + read back the
  pixels, what any frame of an export costs at least);
- the export's time per frame, in process (``replay.export`` to MP4: moving the actors,
  the overlay, rendering, reading back, encoding);
- the whole command as a user runs it (``stratstone-cad replay LOG --out x.mp4``: Python
  start, checking and loading the log, the meshes from the cache, the export).

Run: ``.venv/bin/python scripts/bench_replay.py [--rounds 3]``; with ``PYTHONPATH=TREE`` it measures
another checkout's code (side by side with this one, in turn).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from benchlib import loadavg, machine_line, timed

from stratstone_cad.viewer import replay as R

try:  # the folder-per-game layout
    from stratstone_cad.log.commands import play_records
    from stratstone_cad.log.logfile import dumps_line
except ImportError:  # a tree from before it, measured side by side (PYTHONPATH=that tree)
    from stratstone_cad.games.commands import play_records
    from stratstone_cad.games.log import dumps_line

SIZE = (1280, 720)
PER_PLY = 10


def write_log(folder: Path) -> Path:
    records = play_records("sage-stones", 5, ["random"] * 6, None, 100)
    assert len(records) == 101 and "result" not in records[-1], "seed 5 no longer gives a 100-ply game"
    path = folder / "sage-100.jsonl"
    path.write_text("".join(dumps_line(r) + "\n" for r in records))
    return path


def floor(rep: R.GameOnTable, n: int = 40) -> float:
    scene = R.Scene(rep, SIZE, smooth=False)
    try:
        scene.show(rep.count)
        scene.image()
        t = time.perf_counter()
        for _ in range(n):
            scene.image()
        return (time.perf_counter() - t) / n
    finally:
        scene.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        log = write_log(folder)
        rep = R.load(log)
        frames = len(R.frames(rep, PER_PLY))
        floors, per_frame, whole = [], [], []
        for _ in range(a.rounds):
            floors.append(floor(rep))
            out = folder / "x.mp4"
            t = time.perf_counter()
            R.export(rep, out, size=SIZE, per_ply=PER_PLY, fps=25)
            per_frame.append((time.perf_counter() - t) / frames)
            out.unlink()
            whole.append(timed(["replay", str(log), "--out", str(out), "--size", "1280x720", "--frames-per-ply",
                                str(PER_PLY), "--fps", "25"]))
            out.unlink()
        f, p, w = statistics.median(floors), statistics.median(per_frame), statistics.median(whole)
        print(f"machine: {machine_line()}, load {loadavg()}")
        print(f"Sage Stones, {rep.count} plies x {PER_PLY} frames = {frames} frames at {SIZE[0]}x{SIZE[1]}, "
              f"median of {a.rounds}")
        print(f"floor (render + read back, final scene): {f * 1000:.1f} ms  rounds {[round(x * 1000, 1) for x in floors]}")
        print(f"export per frame: {p * 1000:.1f} ms = {p / f:.2f} x the floor  rounds "
              f"{[round(x * 1000, 1) for x in per_frame]}")
        print(f"whole command to MP4: {w:.1f} s  rounds {[round(x, 1) for x in whole]}")


if __name__ == "__main__":
    main()
