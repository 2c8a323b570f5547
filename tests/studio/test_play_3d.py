"""The Play room's 3D view played by clicking, in a real browser (Debian's Chromium,
tests/pages.py) on the studio as users run it: a click on a piece in the 3D canvas (at its
square's projected point) selects it and lights its reach there, the same squares as the 2D
view's with the terrain's costs (one request for the click, the set kept drawn under the reach,
the picture the whole scene's), and a click on a lit square plays the move into the log. And
a terrain table from the printed kit (the form's "from the kit"): the map and arrangement
``play terrain --kit --seed N`` lays, in the table's log, and ``kit setup``'s picture shown."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

from tests.pages import Browser
from tests.studio.test_play_page import SEED, _runner_first, opened, until, url
from tests.studio.test_tables import new


def _click3d(page: Any, frame: Any, point: list[float]) -> None:
    """A click in the 3D canvas where the scene's ``point`` (metres, Y up) is seen."""
    x, y = frame.evaluate(f"window.stratstone.projectPoint({json.dumps(point)})")
    box = page.locator("#view3d").bounding_box()
    page.mouse.click(box["x"] + x, box["y"] + y)


def test_a_move_clicked_in_the_3d_view_reaches_the_log(play_studio: tuple[httpx.Client, Path],
                                                     browser: Browser) -> None:
    client, folder = play_studio
    table, seats = new(client, "terrain", players=["person", "person"], seed=SEED)
    page = opened(browser, browser.page, f"{url(client)}/play?table={table}&seat={seats['red']}&view=3d")
    until(page, "window.play.view3d && window.play.view3d.ready", 60)
    frame = next(f for f in page.frames if "/view3d" in f.url)
    t = client.get(f"/api/table/{table}").json()
    frm, to = _runner_first(client, table, t)
    places = client.get(f"/api/table/{table}/squares3d").json()["squares"]
    x, y = frame.evaluate(f"window.stratstone.projectPoint({json.dumps(places[frm])})")
    box = page.locator("#view3d").bounding_box()
    page.mouse.move(box["x"] + x, box["y"] + y)  # an orbit's drag from the piece: it turns the view, selects nothing
    page.mouse.down()
    page.mouse.move(box["x"] + x + 40, box["y"] + y, steps=4)
    page.mouse.up()
    assert page.evaluate("window.play.selected === undefined")  # a click's selection is made in its handler
    page.mouse.move(box["x"] + x, box["y"] + y, steps=4)  # the view turned back for the clicks
    page.mouse.down()
    page.mouse.move(box["x"] + x - 40, box["y"] + y, steps=4)
    page.mouse.up()
    assert page.evaluate("window.play.selected === undefined")
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    frame.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")  # the drags' last frame
    kept = frame.evaluate("[window.stratstone.frames, window.stratstone.setDrawn()]")
    _click3d(page, frame, places[frm])  # the piece standing there is what the ray meets
    until(page, f"window.play.lit3d && window.play.lit3d.square === {json.dumps(frm)}")
    until(page, "window.play.reach3dMs.length > 0 && window.play.reachMs.length > 0")
    assert [u.split("/api/table/")[1] for u in asked if "/reach" in u] == [f"{table}/reach3d/{frm}"]  # one request
    lit = page.evaluate("window.play.lit3d.targets")
    _kept_set_drawn_once(frame, kept)
    reach = client.get(f"/api/table/{table}/reach/{frm}").json()
    assert {p[3] for p in lit} == {m["to"] for m in reach} and lit
    cheapest: dict[str, int] = {}
    for m in reach:
        cheapest[m["to"]] = min(cheapest.get(m["to"], 99), m["cost"])
    drawn = frame.evaluate("window.stratstone.drawn()")
    assert "reach" in drawn and "band-edge" in drawn, drawn  # the squares lit, the selected one framed
    chips = sorted(c["text"] for c in frame.evaluate("window.stratstone.chips()") if c["kind"] == "cost")
    want = sorted(f"exit {c}" if sq == "exit" else str(c) for sq, c in cheapest.items()
                  if sq == "exit" or next(m for m in reach if m["to"] == sq)["kind"] != "special")
    assert chips == want
    target = next(p for p in lit if p[3] == to)
    _click3d(page, frame, places[to] if to != "exit" else target[:3])
    until(page, "window.play.table.ply === 1")
    t = client.get(f"/api/table/{table}").json()
    move = t["plies"][0]["move"]
    assert move in {m["move"] for m in reach if m["to"] == to}
    lines = (folder / t["log"]).read_text().splitlines()
    assert json.loads(lines[-1])["move"] == move


def _kept_set_drawn_once(frame: Any, before: list[int]) -> None:
    """The click's frames drew the reach over the set kept (the set not drawn again), and the
    picture is the one the whole scene drawn at once gives: the same pixels but for a few on
    the edges (the antialiasing's samples mixed in another order), no patch of them (the
    reach drawn over a piece that hides it, a lit square missing)."""
    frames, drawn = frame.evaluate("[window.stratstone.frames, window.stratstone.setDrawn()]")
    assert frames > before[0] and drawn == before[1] and drawn >= 1
    kept = _canvas(frame)
    frame.evaluate("window.stratstone.keepSet(false)")
    until(frame, f"window.stratstone.frames > {frames}")
    whole = _canvas(frame)
    frame.evaluate("window.stratstone.keepSet(true)")
    differ = np.abs(kept.astype(int) - whole.astype(int)).max(axis=2) > 24
    inside = differ[1:-1, 1:-1] & differ[:-2, 1:-1] & differ[2:, 1:-1] & differ[1:-1, :-2] & differ[1:-1, 2:]
    assert differ.mean() < 0.01 and inside.sum() < 20, (differ.mean(), inside.sum())  # thin edges, no patch


def _canvas(frame: Any) -> np.ndarray:
    _left, _top, w, h, data = frame.evaluate("window.stratstone.pixels()")
    return np.frombuffer(base64.b64decode(data), np.uint8).reshape(h, w, 3)


def _cli(*args: str) -> None:
    r = subprocess.run([sys.executable, "-m", "stratstone_cad", *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_table_from_the_kit_lays_play_kits_map_and_shows_kit_setups_picture(
        play_studio: tuple[httpx.Client, Path], browser: Browser, tmp_path: Path) -> None:
    client, folder = play_studio
    seed = 11
    page = browser.page
    page.goto(f"{url(client)}/play")
    until(page, "window.play.ready")
    page.select_option("#game", "terrain")
    page.select_option("#opponent", "person")
    page.check("#from-kit")
    page.fill("#seed", str(seed))
    page.click("#start")
    until(page, "window.play && window.play.version >= 0")
    until(page, "document.getElementById('kit-setup') && document.getElementById('kit-setup').complete "
                "&& document.getElementById('kit-setup').naturalWidth > 0")
    t = client.get(f"/api/table/{page.evaluate('() => window.play.table.id')}").json()
    _cli("play", "terrain", "--kit", "--seed", str(seed), "--out", str(tmp_path / "play.jsonl"))
    played = json.loads((tmp_path / "play.jsonl").read_text().splitlines()[0])["setup"]
    assert t["setup"]["heightmap"] == played["heightmap"] and t["setup"]["kit"] == played["kit"]  # the same map
    logged = json.loads((folder / t["log"]).read_text().splitlines()[0])["setup"]
    assert logged["kit"] == played["kit"] and logged["heightmap"] == played["heightmap"]  # the table's log holds it
    _cli("kit", "setup", str(folder / t["log"]), "--out", str(tmp_path / "setup.png"), "--size", "600")
    shown = client.get(f"/api/table/{t['id']}/kit-setup.png")
    assert shown.headers["content-type"] == "image/png"
    assert shown.content == (tmp_path / "setup.png").read_bytes()  # kit setup's own picture
    assert page.evaluate("document.getElementById('kit-setup').naturalWidth") == 600
    words = page.locator("#kit p").text_content()
    for q, tile in played["kit"]["tiles"].items():
        assert f"{q.upper()}: tile {tile['design']}, turn {tile['turn']}" in words
    plain, _ = new(client, "terrain", players=["person", "person"], seed=seed)
    refused = client.get(f"/api/table/{plain}/kit-setup.png")
    assert refused.status_code == 404 and "no kit" in refused.text


@pytest.mark.parametrize(("game", "body", "square"), [
    ("stratstone", {"seed": 3}, "a1"),
    ("sage-stones", {"seed": 5, "setup": {"variant": "two-player"}}, None),
])
def test_the_3d_view_lights_what_the_2d_view_lights_in_every_game(play_studio: tuple[httpx.Client, Path], game: str,
                                                                  body: dict[str, Any], square: str | None) -> None:
    client, _ = play_studio
    table, _ = new(client, game, players=["person", "person"], **body)
    t = client.get(f"/api/table/{table}").json()
    places = client.get(f"/api/table/{table}/squares3d").json()
    board = client.get(f"/api/table/{table}/board").json()
    assert set(places["squares"]) == {s["square"] for s in board["squares"]}
    if square is None:  # Sage Stones: the page lights the roll's column from the legal moves, and asks it drawn
        legal = [m for m in t["legal"] if m in places["squares"]]
        square, query, want = legal[0], "?lit=" + ",".join(legal), set(legal)
    else:
        query, want = "", {m["to"] for m in client.get(f"/api/table/{table}/reach/{square}").json()}
    r = client.get(f"/api/table/{table}/reach3d/{square}{query}").json()
    assert {p[3] for p in r["targets"]} == want and want
    if not query:  # the page's one request for a click: the reach itself with its drawing
        assert r["moves"] == client.get(f"/api/table/{table}/reach/{square}").json()
    assert len(r["draw"]["lit"]) == len(want) and len(r["draw"]["edges"]) == 4
    for x, _y, z, to in r["targets"]:  # each lit place over its square
        assert abs(x - places["squares"][to][0]) < 1e-6 and abs(z - places["squares"][to][2]) < 1e-6
