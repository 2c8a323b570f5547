#!/usr/bin/env python3
"""The shared replay's speed: writing a page, opening it, playing it.

    .venv/bin/python scripts/bench_web.py [--rounds 5]
    .venv/bin/python scripts/bench_web.py --sizes    # the pages' sizes alone, and their parts

- write: ``stratstone-cad replay LOG --out game.html`` in-process, log load included (a
  fresh viewer mesh cache is warmed first: the meshes are the build's, not this), for a
  100-ply Sage Stones game and a 200-ply terrain game (random players, fixed seeds);
- first frame: Debian's Chromium, headless (WebGL on SwiftShader, no GPU), from the
  navigation to the first frame drawn, for both pages;
- frames a second while playing, at 1280 x 720, over 4 s of play, and the time the page's
  WebGL takes to draw one frame and have it finished (a pixel read back after it), of play
  (the key light's shadow map drawn again) and of the camera turning (the map kept): the rest
  of a frame's time while playing is the browser's presenting the canvas, which headless
  Chromium does in software too.

Medians of ``--rounds``; the machine in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from stratstone_cad.log.commands import play_records
from stratstone_cad.log.logfile import write_log
from stratstone_cad.viewer import replay, web
from tests.pages import Browser


def _game(folder: Path, game: str, plies: int, exact: bool = True) -> Path:
    """A game of ``plies`` plies (random players, the first seed that makes one; not
    ``exact``: the first game, cut at ``plies``: a Stratstone game ends sooner)."""
    kinds = ["random"] * (6 if game == "sage-stones" else 2)  # six colours: a Sage game long enough
    for seed in range(100):
        records = play_records(game, seed, kinds, max_plies=plies)
        if len(records) - 1 >= plies or not exact:
            log = folder / f"{game}-{plies}.jsonl"
            write_log(log, records)
            return log
    raise SystemExit(f"no {game} game of {plies} plies in 100 seeds")


def page_sizes(folder: Path) -> None:
    """The pages' sizes (no browser): each game at a few lengths, and what they are made of:
    the fixed weight (the player and the page around it), the meshes (the scene with no
    ply) and what the plies add, each as the page holds it (gzipped, base64)."""
    from stratstone_cad.viewer import gltf

    fixed = len(web.page(b"", "x", packed=True).encode())
    unpacked = len(web.page(b"", "x").encode())
    print(f"fixed weight (player, page): {fixed / 1e3:.0f} kB packed, {unpacked / 1e3:.0f} kB unpacked\n")
    print("| page | plies | size | unpacked | the scene's GLB | its meshes (the start alone), as held |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for game, lengths in (("terrain", (13, 100, 200)), ("sage-stones", (13, 100)), ("stratstone", (13, 100))):
        for plies in lengths:
            log = _game(folder, game, plies, exact=False)
            rep = replay.load(log)
            glb = gltf.replay_bytes(rep, log)
            start = replay.load(_game(folder, game, 0, exact=False))
            meshes = len(web.page(gltf.replay_bytes(start, log), "x", packed=True).encode()) - fixed
            n = sum('"ply"' in line for line in log.read_text().splitlines())
            size = web.write_replay(rep, log, folder / "size.html")
            print(f"| {game} | {n} | {size / 1e6:.2f} MB | {len(web.page(glb, 'x').encode()) / 1e6:.2f} MB | "
                  f"{len(glb) / 1e6:.2f} MB | {meshes / 1e3:.0f} kB |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--sizes", action="store_true", help="only the pages' sizes and what they are made of")
    a = ap.parse_args()
    if a.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            page_sizes(Path(tmp))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        logs = {"sage-stones 100 plies": _game(folder, "sage-stones", 100), "terrain 200 plies": _game(folder, "terrain", 200)}
        for log in logs.values():
            web.write_replay(replay.load(log), log, folder / "warm.html")  # the meshes in the viewer's cache
        writes: dict[str, list[float]] = {k: [] for k in logs}
        sizes: dict[str, int] = {}
        for _ in range(a.rounds):
            for name, log in logs.items():
                start = time.perf_counter()
                sizes[name] = web.write_replay(replay.load(log), log, folder / f"{name.split()[0]}.html")
                writes[name].append(time.perf_counter() - start)
        firsts: dict[str, list[float]] = {k: [] for k in logs}
        fps: dict[str, list[float]] = {k: [] for k in logs}
        draws: dict[str, list[float]] = {k: [] for k in logs}
        turns: dict[str, list[float]] = {k: [] for k in logs}
        with Browser((1280, 720)) as b:
            for _ in range(a.rounds):
                for name in logs:
                    page = folder / f"{name.split()[0]}.html"
                    start = time.monotonic()
                    b.open(page.as_uri())
                    b.wait("window.stratstone && window.stratstone.ready && window.stratstone.frames > 0")
                    firsts[name].append(time.monotonic() - start)
                    b.key(" ", 32)
                    f0, t0 = b.js("window.stratstone.frames"), time.monotonic()
                    time.sleep(4)
                    f1, t1 = b.js("window.stratstone.frames"), time.monotonic()
                    fps[name].append((f1 - f0) / (t1 - t0))
                    b.key(" ", 32)
                    draws[name].append(b.js("window.stratstone.drawMs(10)"))
                    turns[name].append(b.js("window.stratstone.drawMs(10, false)"))
    print(f"| page | size | write (median of {a.rounds}) | first frame | frames a second, 1280 x 720 "
          "| a frame of play drawn | the camera turned |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in logs:
        print(f"| {name} | {sizes[name] / 1e6:.1f} MB | {statistics.median(writes[name]):.2f} s | "
              f"{statistics.median(firsts[name]):.2f} s | {statistics.median(fps[name]):.1f} | "
              f"{statistics.median(draws[name]):.0f} ms | {statistics.median(turns[name]):.0f} ms |")


if __name__ == "__main__":
    main()
