#!/usr/bin/env python3
"""Benchmark: the Play room's page in a real Chromium (headless, Playwright) on the studio as
users run it (loopback only): the reach of a selected piece drawn after the click, by the
page's own clock (``performance.now()`` from the click's handler to the next animation frame
after the lit squares are drawn: the reach endpoint's answer included), for each game, the
median of ``--clicks`` clicks (target: within 150 ms). ``--view 3d``: the same clicks in the 3D
view's canvas (where each square is seen; from its handler, the pick of what the click meets
included), to the player's next frame after the reach is drawn over the scene (the reach3d
endpoint's answer included), and the medians of its parts: to the answer, the drawings built,
to the frame.

    python scripts/bench_play_page.py [--clicks 20] [--view 3d]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
from benchlib import loadavg, machine_line

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.pages import Browser, chromium  # noqa: E402
from tests.studio.test_tables import start, stop  # noqa: E402

SQUARES = {"terrain": ("e1", "f1"), "stratstone": ("a1", "d4"), "sage-stones": ("5-1", "6-1")}
BODIES = {"terrain": {"seed": 7}, "stratstone": {"seed": 3}, "sage-stones": {"seed": 5, "setup": {"variant": "two-player"}}}


def clicks(b: Browser, client: httpx.Client, game: str, n: int, view: str = "2d") -> list[float]:
    """The page's own times (ms) of ``n`` selections, alternating two pieces of the side to move."""
    r = client.post(f"/api/table/{game}", json={"players": ["person", "person"], **BODIES[game]})
    r.raise_for_status()
    made = r.json()
    t = client.get(f"/api/table/{made['id']}").json()
    base = str(client.base_url).rstrip("/")
    b.page.goto(f"{base}/play?table={made['id']}&seat={made['seats'][t['to_move']]}&view={view}")
    wait(b, "window.play && window.play.version >= 0")
    squares = SQUARES[game]
    if game == "sage-stones":  # the roll's column: any square of it
        other = next(sq for sq in ("3-1", "9-1") if sq.split("-")[0] != t["legal"][0].split("-")[0])
        squares = (t["legal"][0], other)
    if view == "3d":
        return clicks3d(b, client, made["id"], squares, n)
    for i in range(n):
        b.page.click(f'#board2d [data-square="{squares[i % 2]}"]')
        wait(b, f"window.play.reachMs.length > {i}")
    return list(b.page.evaluate("() => window.play.reachMs"))


def clicks3d(b: Browser, client: httpx.Client, table: str, squares: tuple[str, str], n: int) -> list[float]:
    wait(b, "window.play.view3d && window.play.view3d.ready", 300)
    frame = next(f for f in b.page.frames if "/view3d" in f.url)
    places = client.get(f"/api/table/{table}/squares3d").json()["squares"]
    box = b.page.locator("#view3d").bounding_box()
    points = [frame.evaluate(f"window.stratstone.projectPoint({places[sq]})") for sq in squares]
    for i in range(n):
        x, y = points[i % 2]
        b.page.mouse.click(box["x"] + x, box["y"] + y)
        wait(b, f"window.play.reach3dMs.length > {i}")
    parts = b.page.evaluate("() => window.play.reach3dParts")
    print("  the parts' medians: " + ", ".join(f"{k} {statistics.median(p[k] for p in parts):.0f} ms" for k in parts[0]))
    return list(b.page.evaluate("() => window.play.reach3dMs"))


def wait(b: Browser, expression: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not b.page.evaluate(f"() => !!({expression})"):
        if time.monotonic() > deadline:
            raise TimeoutError(expression)
        time.sleep(0.01)  # poll: the page's answer


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clicks", type=int, default=20)
    ap.add_argument("--view", choices=("2d", "3d"), default="2d")
    args = ap.parse_args()
    chromium()
    print(machine_line(), f"load {loadavg()}")
    with tempfile.TemporaryDirectory() as folder:
        p, client = start(Path(folder))
        b = Browser((1280, 800), flags=["--proxy-bypass-list=127.0.0.1"])
        try:
            for game in SQUARES:
                ms = clicks(b, client, game, args.clicks, args.view)
                print(f"{game}: reach drawn after a click ({args.view}), median {statistics.median(ms):.0f} ms of {len(ms)} "
                      f"(min {min(ms):.0f}, max {max(ms):.0f})")
        finally:
            b.close()
            client.close()
            stop(p)


if __name__ == "__main__":
    main()
