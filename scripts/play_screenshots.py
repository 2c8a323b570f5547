"""The Play room's screenshots for docs/images/: each game in the 2D view with a piece selected
(its reach lit) and in the 3D view (the printed set's meshes) with the same piece selected by a
click in the 3D canvas (its reach lit there), on a studio started for it.

    .venv/bin/python scripts/play_screenshots.py [--out docs/images]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.pages import Browser, chromium  # noqa: E402
from tests.studio.test_tables import new, start, stop  # noqa: E402

GAMES = {"terrain": {"seed": 7}, "stratstone": {"seed": 3},
         "sage-stones": {"seed": 5, "setup": {"variant": "two-player"}}}


def until(page: object, expression: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not page.evaluate(f"() => !!({expression})"):  # type: ignore[attr-defined]
        if time.monotonic() > deadline:
            raise TimeoutError(expression)
        time.sleep(0.05)  # poll: the page drawn


def shoot(b: Browser, client: object, game: str, out: Path) -> None:
    table, seats = new(client, game, players=["person", "person"], **GAMES[game])  # type: ignore[arg-type]
    t = client.get(f"/api/table/{table}").json()  # type: ignore[attr-defined]
    client.post(f"/api/table/{table}/move", json={"move": t["legal"][-1], "ply": 0,  # type: ignore[attr-defined]
                                                   "seat": seats[t["to_move"]]}).raise_for_status()
    t = client.get(f"/api/table/{table}").json()  # type: ignore[attr-defined]
    base = str(client.base_url).rstrip("/")  # type: ignore[attr-defined]
    b.page.goto(f"{base}/play?table={table}&seat={seats[t['to_move']]}&view=2d")
    until(b.page, "window.play && window.play.version >= 0")
    square = re.split(r"[- x]", t["legal"][len(t["legal"]) // 2])[0] if game != "sage-stones" else t["legal"][0]
    b.page.click(f'#board2d [data-square="{square}"]')
    until(b.page, "window.play.reachMs.length > 0")
    b.page.screenshot(path=str(out / f"play-{game}-2d.png"))
    b.page.goto(f"{base}/play?table={table}&seat={seats[t['to_move']]}&view=3d")
    until(b.page, "window.play && window.play.version >= 0")
    frame = b.page.frame_locator("#view3d").locator("body")
    deadline = time.monotonic() + 180
    while not frame.evaluate("() => !!(window.stratstone && window.stratstone.ready)"):
        if time.monotonic() > deadline:
            raise TimeoutError("the 3D view never became ready")
        time.sleep(0.1)  # poll: the 3D view drawn
    until(b.page, "window.play.view3d")
    # the same piece selected in the 3D view: a click where its square is seen
    at = client.get(f"/api/table/{table}/squares3d").json()["squares"][square]  # type: ignore[attr-defined]
    x, y = next(f for f in b.page.frames if "/view3d" in f.url).evaluate(f"window.stratstone.projectPoint({at})")
    box = b.page.locator("#view3d").bounding_box()
    b.page.mouse.click(box["x"] + x, box["y"] + y)
    until(b.page, f"window.play.lit3d && window.play.lit3d.square === '{square}'")
    time.sleep(0.2)  # not a wait: a frame drawn with the reach
    b.page.screenshot(path=str(out / f"play-{game}-3d.png"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    args = ap.parse_args()
    chromium()
    with tempfile.TemporaryDirectory() as folder:
        p, client = start(Path(folder))
        b = Browser((1280, 760), flags=["--proxy-bypass-list=127.0.0.1"])
        try:
            for game in GAMES:
                shoot(b, client, game, args.out)
                print(f"play-{game}-2d.png, play-{game}-3d.png")
        finally:
            b.close()
            client.close()
            stop(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
