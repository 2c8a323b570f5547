"""The replay page in a real browser: Debian's Chromium, headless, WebGL on SwiftShader,
the network cut (tests/browser.py). The page loads from ``file://`` and asks for nothing,
logs no error, shows each piece in its print colour where the engine puts it at the start
and after presses of Right, answers the keys, the slider and the URL fragment, and its
overlay says what the log says. Its player bundle is what tools/web/build.sh makes."""

from __future__ import annotations

import json
import subprocess
import time

import numpy as np
import pytest

from stratstone_cad.log.commands import explain_log
from stratstone_cad.viewer import replay as R
from stratstone_cad.viewer import web
from tests import LOGS, ROOT
from tests.browser import Browser, chromium
from tests.web_tools import WEB, node_tools

GAMES = {"stratstone": "stratstone_win.jsonl", "sage-stones": "sage_stones_4.jsonl", "terrain": "terrain_greedy.jsonl"}
SIZE = (640, 400)


@pytest.fixture(scope="module")
def pages(_cache, tmp_path_factory):
    """Each game's replay page: {game: (rep, path)}."""
    folder = tmp_path_factory.mktemp("html")
    out = {}
    for game, log in GAMES.items():
        rep = R.load(LOGS / log)
        path = folder / f"{game}.html"
        web.write_replay(rep, LOGS / log, path)
        out[game] = (rep, path)
    return out


@pytest.fixture(scope="module")
def browser():
    chromium()
    with Browser(SIZE) as b:
        yield b


def _open(b: Browser, path, fragment: str = "") -> float:
    """Open the page; the seconds until its first frame is drawn."""
    b.events.clear()
    start = time.monotonic()
    b.open(path.as_uri() + fragment)
    b.wait("window.stratstone && (window.stratstone.ready || window.stratstone.error !== null)")
    assert b.js("window.stratstone.error") is None
    b.wait("window.stratstone.frames > 0")
    return time.monotonic() - start


def _drawn(b: Browser) -> None:
    """Wait until two more frames are drawn (what a key changed is on screen)."""
    n = b.js("window.stratstone.frames")
    b.wait(f"window.stratstone.frames >= {n + 2}")


def _rgb(colour: str) -> np.ndarray:
    return np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)], float)


def _chroma(rgb: np.ndarray) -> np.ndarray:
    return rgb / max(float(rgb.sum()), 1.0)


def _engine_tops(game: str, ply: int) -> dict[str, str | None]:
    """The colour (side) the engine has on top of each square after ``ply``."""
    from stratstone_cad.log.logfile import replay

    with replay(LOGS / GAMES[game]) as r:
        state = r.initial
        for step in r:
            if step.ply > ply:
                break
            state = step.after
        squares = r.game.squares
    out = {}
    for sq in squares:
        if game == "stratstone":
            stack = state.stack(sq)
            out[sq] = stack[-1] if stack else None
        else:
            at = state.at(sq)
            out[sq] = at.split()[0] if at else None
    return out


def _check_pieces(b: Browser, rep, game: str, ply: int) -> int:
    """On every square the engine fills, the top piece's top centre, projected by the
    page's camera, is a pixel of that piece's print colour (as the PyVista test checks)."""
    assert b.js("window.stratstone.ply()") == ply
    image = b.screenshot()
    rest = rep.rest(ply)
    tops: dict[tuple[float, float], str] = {}
    for pid, pos in rest.items():
        if pos is not None and pos[:2] in {s[:2] for s in rep.table.seats.values()}:
            if pos[:2] not in tops or pos[2] > rest[tops[pos[:2]]][2]:
                tops[pos[:2]] = pid
    engine = _engine_tops(game, ply)
    checked = 0
    for sq, seat in rep.table.seats.items():
        pid = tops.get(seat[:2])
        assert (rep.pieces[pid].colour if pid else None) == engine[sq], (ply, sq)
        if pid is None:
            continue
        x, y, z = rest[pid]
        z += rep.heights[pid] * 0.5  # mid-height: the top of a dome catches the light nearly white
        col, row = (round(v) for v in b.js(f"window.stratstone.projectPoint([{x / 1000}, {z / 1000}, {-y / 1000}])"))
        patch = image[row - 1:row + 2, col - 1:col + 2].reshape(-1, 3).astype(float)
        colour = _chroma(_rgb(rep.assets[rep.table.assets[pid]].colour))
        board = _chroma(_rgb(rep.assets[rep.table.board].colour))
        near = [np.abs(_chroma(px) - colour).sum() < np.abs(_chroma(px) - board).sum() for px in patch]
        assert sum(near) >= 5, (game, ply, sq, pid, patch[:2])
        checked += 1
    assert checked == sum(1 for v in engine.values() if v)
    return checked


def test_the_page_plays_offline_from_a_file_asking_for_nothing(pages, browser):
    for game, (_, path) in pages.items():
        first_frame = _open(browser, path)
        assert first_frame < 3.0, (game, first_frame)
        asked = browser.requests()
        # the page itself, nothing else; a texture decoded from the page is read as a blob in memory
        assert [u for u in asked if not u.startswith("blob:")] == [path.as_uri()], (game, asked)
        assert browser.console_errors() == [], game
        html = path.read_text()
        assert "http://" not in html.split("<script>", 1)[0] and "https://" not in html.split("<script>", 1)[0]


@pytest.mark.parametrize("game", GAMES)
def test_pieces_show_in_their_colours_where_the_engine_puts_them(pages, browser, game):
    rep, path = pages[game]
    _open(browser, path)
    _drawn(browser)
    _check_pieces(browser, rep, game, 0)
    presses = rep.count // 2
    for _ in range(presses):
        browser.key("ArrowRight", 39)
    _drawn(browser)
    _check_pieces(browser, rep, game, presses)
    browser.key("End", 35)
    _drawn(browser)
    _check_pieces(browser, rep, game, rep.count)


def test_the_keys_the_slider_and_the_fragment_name_the_ply(pages, browser):
    rep, path = pages["sage-stones"]
    _open(browser, path, "#ply=12")
    assert browser.js("window.stratstone.ply()") == 12  # a link names a position
    log = [json.loads(line) for line in (LOGS / GAMES["sage-stones"]).read_text().splitlines()]
    twelve = log[12]
    overlay = browser.js("document.getElementById('overlay').textContent").splitlines()
    assert overlay[0] == f"ply 12/{rep.count}   {twelve['player']}   {twelve['move']}   dice " + "-".join(
        map(str, twelve["dice"]))
    words = list(explain_log(LOGS / GAMES["sage-stones"]))[11]  # "12 red 5-4: dice ..."
    assert overlay[1] == words.split(": ", 1)[1]
    browser.key("ArrowLeft", 37)
    _drawn(browser)
    assert browser.js("[window.stratstone.ply(), location.hash]") == [11, "#ply=11"]  # the fragment follows
    browser.key("Home", 36)
    assert browser.js("window.stratstone.ply()") == 0
    browser.key("End", 35)
    assert browser.js("window.stratstone.ply()") == rep.count
    overlay = browser.js("document.getElementById('overlay').textContent")
    assert overlay.splitlines()[-1] == rep.result
    browser.js("(() => { const s = document.getElementById('slider'); s.value = '7';"
               " s.dispatchEvent(new Event('input')); })()")
    assert browser.js("[window.stratstone.ply(), location.hash]") == [7, "#ply=7"]
    browser.js("location.hash = '#ply=30'")
    browser.wait("window.stratstone.ply() === 30")
    browser.key(" ", 32)  # Space plays from here ...
    assert browser.js("window.stratstone.playing()")
    start = browser.js("window.stratstone.time()")
    browser.wait(f"window.stratstone.time() > {start + 0.3}")
    browser.key(" ", 32)  # ... and pauses
    assert not browser.js("window.stratstone.playing()")
    assert browser.js("window.stratstone.ply()") >= 31
    assert browser.console_errors() == []


def test_a_hundred_ply_game_stays_small(tmp_path):
    """The sizes the README states: a 100-ply Sage Stones game's page at most 6 MB, a
    Stratstone game's (24 distinct pebbles) at most 8 MB."""
    from stratstone_cad.log.commands import play_records
    from stratstone_cad.log.logfile import write_log

    sizes = {}
    for game, most in (("sage-stones", 6e6), ("stratstone", 8e6)):
        records = play_records(game, 9, ["random"] * 6 if game == "sage-stones" else ["random", "random"], max_plies=100)
        assert sum("ply" in r for r in records) == 100 or game == "stratstone"  # a Stratstone game is shorter
        log = tmp_path / f"{game}.jsonl"
        write_log(log, records)
        sizes[game] = web.write_replay(R.load(log), log, tmp_path / f"{game}.html")
        assert sizes[game] <= most, (game, sizes[game])
    assert sizes["sage-stones"] > 0


def test_the_player_bundle_is_what_the_build_script_makes(tmp_path):
    node_tools()
    out = tmp_path / "player.min.js"
    subprocess.run([str(WEB / "build.sh"), str(out)], check=True, timeout=300)
    assert out.read_bytes() == (ROOT / "stratstone_cad" / "viewer" / "web" / "player.min.js").read_bytes()


def test_a_set_of_parts_is_a_page_to_orbit(browser, tmp_path, _cache):
    from stratstone_cad.viewer.assets import list_assets, select

    path = tmp_path / "set.html"
    web.write_set(select(list_assets(), ["terrain"]), path)
    _open(browser, path)
    assert browser.requests() == [path.as_uri()] and browser.console_errors() == []
    assert browser.js("getComputedStyle(document.getElementById('bar')).display") == "none"  # nothing to step
    overlay = browser.js("document.getElementById('overlay').textContent").splitlines()
    assert overlay[0].startswith("terrain: ") and "terrain/runner-red" in overlay[1]


def test_the_terrain_reads_by_level_as_in_the_window(pages, browser):
    """Every empty cell's centre shows its level's colour (the window's palette), nearer to
    it than to any other level's."""
    from stratstone_cad.viewer.replay import level_colours

    rep, path = pages["terrain"]
    _open(browser, path)
    _drawn(browser)
    image = browser.screenshot().astype(float)
    palette = level_colours(rep.table.levels.values())
    taken = {pos[:2] for pos in rep.rest(0).values() if pos is not None}
    checked = 0
    for sq, (x, y, z) in rep.table.seats.items():
        if (x, y) in taken:
            continue
        col, row = (round(v) for v in browser.js(f"window.stratstone.projectPoint([{x / 1000}, {z / 1000}, {-y / 1000}])"))
        px = image[row - 1:row + 2, col - 1:col + 2].reshape(-1, 3).mean(axis=0)
        distance = {lv: np.abs(_chroma(px) - _chroma(_rgb(c))).sum() for lv, c in palette.items()}
        assert min(distance, key=distance.get) == rep.table.levels[sq], (sq, px, distance)
        checked += 1
    assert checked >= 80 and len(palette) >= 3
