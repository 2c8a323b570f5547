"""The replay page in a real browser: Debian's Chromium, headless, WebGL on SwiftShader,
the network cut (tests/pages.py: Playwright driving Debian's Chromium). The page loads from ``file://`` and asks for nothing,
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
from tests import LOGS, ROOT, golden_logs
from tests.pages import Browser, chromium
from tests.viewer.pixels import check_winning_rings, ring_points
from tests.viewer.pixels import chroma as _chroma
from tests.viewer.pixels import is_colour as _is
from tests.viewer.pixels import occupied as _occupied
from tests.viewer.pixels import rgb as _rgb
from tests.web_tools import WEB, node_tools

GAMES = golden_logs()  # each registered game and its golden log
SIZE = (800, 500)  # the view under the caption and over the buttons: 800 x 330


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
    b.clear()
    start = time.monotonic()
    b.open(path.as_uri() + fragment)
    b.wait("window.stratstone && (window.stratstone.ready || window.stratstone.error !== null)")
    assert b.js("window.stratstone.error") is None
    b.wait("window.stratstone.frames > 0")
    return time.monotonic() - start


def _drawn(b: Browser) -> None:
    """Wait until a frame asked for after what a key changed is drawn (the page draws on demand)."""
    n = b.js("window.stratstone.redraw(), window.stratstone.frames")
    b.wait(f"window.stratstone.frames > {n}")


def _engine_tops(game: str, ply: int) -> dict[str, str | None]:
    """The colour (side) the engine has on top of each square after ``ply``."""
    from stratstone_cad.log.logfile import walk_log

    with walk_log(LOGS / GAMES[game]) as r:
        state = r.initial
        for step in r:
            if step.ply > ply:
                break
            state = step.after
        squares = r.game.squares
    out = {}
    for sq in squares:
        on = state.pieces_on(sq)
        out[sq] = on[-1].split()[0] if on else None
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


def test_the_page_draws_a_frame_when_something_changes_and_none_while_still(pages, browser):
    """A page left open draws nothing (no CPU spent on a still picture); a key, the reach
    button's R, a drag of the mouse and the GL context given back after a loss (a phone's
    browser in the background) each draw a frame by themselves (nothing here asks the page
    for one), and the frames drawn show the pieces where the engine puts them."""
    rep, path = pages["terrain"]
    _open(browser, path)

    def still() -> int:
        time.sleep(0.3)  # not a wait: the last change's frames drawn before the count is read
        n = browser.js("window.stratstone.frames")
        time.sleep(0.6)  # not a wait: a while in which nothing may be drawn
        assert browser.js("window.stratstone.frames") == n  # nothing changed, nothing drawn
        return n

    n = still()
    browser.key("ArrowRight", 39)
    browser.wait(f"window.stratstone.frames > {n}", timeout=10)
    _check_pieces(browser, rep, "terrain", 1)
    n = still()
    browser.key("r", 82)
    browser.wait(f"window.stratstone.frames > {n}", timeout=10)
    n = still()
    w, h = SIZE
    browser.drag(w // 2, h // 2, w // 2 + 120)
    browser.wait(f"window.stratstone.frames > {n}", timeout=10)
    n = still()
    # a phone's browser may take the GL context away and give it back: the page draws again
    browser.js("(() => { const gl = document.querySelector('canvas').getContext('webgl2');"
               " const x = gl.getExtension('WEBGL_lose_context'); x.loseContext();"
               " setTimeout(() => x.restoreContext(), 100); })()")
    browser.wait(f"window.stratstone.frames > {n}", timeout=10)
    _check_pieces(browser, rep, "terrain", 1)
    still()


def test_a_phone_turned_sees_the_whole_board_framed_again(pages, browser):
    """A phone held sideways, then upright (two phones), then sideways again: after each turn
    every corner of the board is on the screen and the board fills most of it (framed again for
    the new width, as when the page opened)."""
    rep, path = pages["terrain"]
    seats = json.dumps([[x / 1000, z / 1000, -y / 1000] for x, y, z in rep.table.seats.values()])
    lo, hi = rep.board_bounds
    corners = json.dumps([[x / 1000, z / 1000, -y / 1000] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                          for z in (lo[2], hi[2])])

    def framed(w: int, h: int) -> None:
        browser.viewport(w, h)
        browser.wait(f"document.querySelector('canvas').clientWidth === {w}")
        _drawn(browser)
        left, top, cw, ch = browser.js("(() => { const r = document.querySelector('canvas').getBoundingClientRect();"
                                       " return [r.left, r.top, r.width, r.height]; })()")
        points = browser.js(f"{seats}.map(p => window.stratstone.projectPoint(p))")
        cols, rows = [c for c, _ in points], [r for _, r in points]
        assert left <= min(cols) and max(cols) <= left + cw and top <= min(rows) and max(rows) <= top + ch, (w, h)
        assert max((max(cols) - min(cols)) / cw, (max(rows) - min(rows)) / ch) > 0.6, (w, h)
        # the whole board, its rims and their letters, not only its squares' centres
        edge = browser.js(f"{corners}.map(p => window.stratstone.projectPoint(p))")
        assert all(left <= c <= left + cw and top <= r <= top + ch for c, r in edge), (w, h, edge)

    try:
        browser.viewport(700, 390)
        _open(browser, path)
        for w, h in ((700, 390), (390, 700), (390, 844), (700, 390)):
            framed(w, h)
    finally:
        browser.viewport(*SIZE)


def test_a_hundred_ply_game_stays_small(tmp_path):
    """The sizes docs/viewer.md states (scripts/bench_web.py --sizes measures them): the page's
    fixed weight (the player, gzipped) about a quarter of a megabyte, a 100-ply Sage Stones
    game's page about half a megabyte, a Stratstone game's (24 distinct pebbles) about one."""
    from stratstone_cad.log.commands import play_records
    from stratstone_cad.log.logfile import write_log

    assert len(web.page(b"", "x", packed=True).encode()) <= 0.26e6
    sizes = {}
    for game, most in (("sage-stones", 0.65e6), ("stratstone", 1.05e6)):  # the boards as shells: 0.1-0.15 MB more
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
    from stratstone_cad.viewer.meshes import list_assets, select

    path = tmp_path / "set.html"
    web.write_set(select(list_assets(), ["terrain"]), path)
    _open(browser, path)
    assert browser.requests() == [path.as_uri()] and browser.console_errors() == []
    assert browser.js("getComputedStyle(document.getElementById('bar')).display") == "none"  # nothing to step
    overlay = browser.js("document.getElementById('overlay').textContent").splitlines()
    assert overlay[0].startswith("terrain: ") and "terrain/runner-red" in overlay[1]


def _framed_whole(b: Browser) -> None:
    """Every corner of what the page framed (its board and pieces, or its parts) shows inside
    the view, and the box fills most of its width or height."""
    lo, hi = b.js("window.stratstone.framed")
    corners = [[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
    left, top, w, h = b.js("(() => { const r = document.querySelector('canvas').getBoundingClientRect();"
                           " return [r.left, r.top, r.width, r.height]; })()")
    seen = b.js(f"{json.dumps(corners)}.map(p => window.stratstone.projectPoint(p))")
    cols, rows = [c for c, _ in seen], [r for _, r in seen]
    assert left <= min(cols) and max(cols) <= left + w and top <= min(rows) and max(rows) <= top + h, (seen, w, h)
    assert max((max(cols) - min(cols)) / w, (max(rows) - min(rows)) / h) > 0.8, (seen, w, h)


def test_the_opening_camera_frames_a_whole_game_of_parts_and_a_board_of_large_cells(browser, tmp_path, _cache):
    """preview --out all.html (every part of every game: the terrain board cut at the top
    before) and a replay on a board of 120 mm cells (its near ranks cut): every corner in view."""
    from stratstone_cad.viewer.meshes import list_assets

    every = tmp_path / "all.html"
    web.write_set(list(list_assets().values()), every)
    _open(browser, every)
    _framed_whole(browser)
    rep = R.load(LOGS / GAMES["terrain"], {"terrain.board.cell_pitch_mm": "120"})
    large = tmp_path / "large.html"
    web.write_replay(rep, LOGS / GAMES["terrain"], large)
    _open(browser, large)
    _framed_whole(browser)


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


# ------------------------------------------------------------------------- the explanations


def _at(b: Browser, point) -> tuple[int, int]:
    """The pixel (column, row) where the page's camera puts a point of the board (mm, Z up)."""
    return _all(b, [point])[0]


def _all(b: Browser, points) -> list[tuple[int, int]]:
    """:func:`_at` of each point, asked of the page at once."""
    gltf = json.dumps([[float(x) / 1000, float(z) / 1000, -float(y) / 1000] for x, y, z in points])
    return [(round(c), round(r)) for c, r in b.js(f"{gltf}.map(p => window.stratstone.projectPoint(p))")]


def _show(b: Browser, ply: int, only: list[str] | None = None, animate: bool = False) -> np.ndarray:
    """The page's scene at the end of ``ply`` (``animate``: at its start, the ply under way),
    with only the drawings named in ``only`` and no piece (None: everything): the canvas's
    pixels where the page has them (the rest black), read by the page (a third of the time
    of the browser's screenshot)."""
    import base64

    b.js(f"window.stratstone.go({ply}, {json.dumps(animate)})")
    b.js(f"window.stratstone.isolate({json.dumps(only)})")
    _drawn(b)
    left, top, w, h, data = b.js("window.stratstone.pixels()")
    image = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)
    image[top:top + h, left:left + w] = np.frombuffer(base64.b64decode(data), np.uint8).reshape(h, w, 3)
    return image


def test_the_page_draws_the_path_its_costs_and_an_attacks_sums_as_the_window_does(pages, browser):
    """The terrain game: at the centre of each square walked the path's tube shows in the
    path's colour (the pieces hidden); each step's cost is a chip, in order, as the engine
    counted them; an attack rings the attacker and the defender (magenta, cyan) and its two
    sums are chips beside them with the engine's totals."""
    from stratstone_cad.engine.events import Attacked, Moved
    from stratstone_cad.viewer.overlays import style as O
    from stratstone_cad.viewer.overlays.plan import Plan

    rep, path = pages["terrain"]
    plan = Plan(rep)
    pitch = rep.table.pitch_mm
    _open(browser, path)
    walking = [p for p in rep.plies if any(isinstance(n.event, Moved) for n in p.named)]
    attacks = [p for p in walking if any(isinstance(n.event, Attacked) for n in p.named)]
    assert len(attacks) >= 2
    checked = 0
    for ply in [*walking[:2], *attacks[:3]]:
        walks = [n.event for n in ply.named if isinstance(n.event, Moved)]
        image = _show(browser, ply.number, ["path"])
        squares = list(dict.fromkeys(q for w in walks for q in w.path))
        for sq, (col, row) in zip(squares, _all(browser, [plan.at(q, O.TUBE * pitch + O.LIFT_MM) for q in squares]),
                                  strict=True):
            assert _is(image[row, col], O.PATH_COLOUR), (ply.move, sq, image[row, col])
            checked += 1
        _show(browser, ply.number)
        chips = browser.js("window.stratstone.chips()")
        want = [str(w.costs[k]) if w.costs else w.special for w in walks for k in range(len(w.path) - 1)]
        assert [c["text"] for c in chips if c["kind"] == "step"] == want, ply.move
        attack = [n.event for n in ply.named if isinstance(n.event, Attacked)]
        sums = [c for c in chips if c["kind"] == "sum"]
        if not attack:
            assert not sums
            continue
        (att,) = attack
        assert [c["text"] for c in sums] == [f"attack {sum(t.value for t in att.attack)}",
                                             f"defence {sum(t.value for t in att.defence)}"]
        image = _show(browser, ply.number, ["halo-0", "halo-1"])
        r = 0.3 * pitch  # the halo's ring round its centre (the one in front may cover part of the other)
        for at, colour, chip in zip(plan.draw(ply).halos, (O.PATH_COLOUR, O.MARK_COLOUR), sums, strict=True):
            ring = _all(browser, [(at[0] + r * np.cos(a), at[1] + r * np.sin(a), at[2])
                                  for a in np.linspace(0, 2 * np.pi, 24, endpoint=False)])
            assert sum(_is(image[row, col], colour) for col, row in ring) >= 8, (ply.move, colour)
            centre = _at(browser, at)
            beside = chip["right"] <= centre[0] if chip["side"] == "left" else chip["left"] >= centre[0]
            assert beside and chip["top"] - 10 <= centre[1] <= chip["bottom"] + 10, (chip, centre)
    assert checked >= 12
    browser.js("window.stratstone.isolate(null)")
    assert browser.console_errors() == []


def test_the_page_lights_the_reach_with_its_costs_and_a_button_and_r_hide_it(pages, browser):
    """The reach (on when the page opens, as in the window): a chip per move the piece had,
    with the cost the engine gives it; the button and the R key hide and show it. The
    legend lists the levels, highest first, in the window's colours."""
    from stratstone_cad.viewer.overlays.plan import options
    from stratstone_cad.viewer.replay import level_colours

    rep, path = pages["terrain"]
    _open(browser, path)
    ply = rep.plies[2]
    _show(browser, ply.number)
    moves = options(ply.before, [n.event for n in ply.named])
    assert len(moves) >= 10
    want = sorted(f"exit {o.cost.split()[0]}" if o.kind == "exit" else o.cost.split()[0]
                  for o in moves if o.kind != "special")
    costs = lambda: sorted(c["text"] for c in browser.js("window.stratstone.chips()") if c["kind"] == "cost")  # noqa: E731
    assert browser.js("window.stratstone.reach()") and costs() == want
    assert "reach" in browser.js("window.stratstone.drawn()")
    browser.js("document.getElementById('reach').click()")
    _drawn(browser)
    assert costs() == [] and "reach" not in browser.js("window.stratstone.drawn()")
    browser.key("r", 82)
    _drawn(browser)
    assert costs() == want
    browser.js("window.stratstone.stays = true")  # gone if a key reloads the page
    for modifier in ("Control", "Meta"):  # Ctrl+R and Cmd+R are the browser's (reload), not the reach's
        browser.page.keyboard.down(modifier)
        browser.page.keyboard.down("r")
        assert browser.js("window.stratstone.reach() && window.stratstone.stays"), modifier
        browser.page.keyboard.up("r")
        browser.page.keyboard.up(modifier)
    palette = level_colours(rep.table.levels.values())
    rows = browser.js("[...document.querySelectorAll('#legend .level')].map(r => [r.textContent,"
                      " getComputedStyle(r.firstChild).backgroundColor])")
    assert [int(t) for t, _ in rows] == sorted(palette, reverse=True)
    for text, css in rows:
        assert css == "rgb({}, {}, {})".format(*(int(palette[int(text)][i:i + 2], 16) for i in (1, 3, 5)))


def test_the_page_draws_sage_stones_column_and_traps(pages, browser):
    """Sage Stones: the column the dice allow, a translucent cyan band over its wells
    (each well of it bluer with the band than without, a well two columns off unchanged);
    each trap's line over the gems it traps, in the path's colour, from the start of the ply."""
    from stratstone_cad.engine.events import DiceRolled, Trapped
    from stratstone_cad.viewer.overlays import style as O
    from stratstone_cad.viewer.overlays.plan import Plan

    rep, path = pages["sage-stones"]
    plan = Plan(rep)
    seats = rep.table.seats
    _open(browser, path)
    assert not browser.js("getComputedStyle(document.getElementById('reach')).display !== 'none'")
    banded = [p for p in rep.plies if any(isinstance(n.event, DiceRolled) and n.event.column is not None for n in p.named)
              and any(n.event.kind == "placed" for n in p.named)]
    assert len(banded) >= 10
    for ply in banded[:2]:
        (placed,) = [n.event.square for n in ply.named if n.event.kind == "placed"]
        x = seats[placed][0]
        column = [sq for sq, s in seats.items() if abs(s[0] - x) < 1e-6]
        away = [sq for sq, s in seats.items() if abs(abs(s[0] - x) - 2 * rep.table.pitch_mm) < 1e-6]
        with_band = _show(browser, ply.number, ["band", "band-edge"]).astype(float)
        without = _show(browser, ply.number, []).astype(float)
        for sq, (col, row) in zip(column, _all(browser, [plan.at(q) for q in column]), strict=True):
            a, b = with_band[row, col], without[row, col]
            assert a[2] - a[0] > b[2] - b[0] + 20, (ply.move, sq, a, b)
        for sq, (col, row) in zip(away, _all(browser, [plan.at(q) for q in away]), strict=True):
            assert np.abs(with_band[row, col] - without[row, col]).max() <= 3, (ply.move, sq)
    traps = [(p, n.event) for p in rep.plies for n in p.named if isinstance(n.event, Trapped)]
    assert len(traps) >= 4
    for ply, trap in traps[:3]:
        image = _show(browser, ply.number, ["path"], animate=True)
        z = max(plan.top(q) for q in (*trap.ends, *trap.squares)) + 0.5 * plan.tallest + O.LIFT_MM
        for sq, (col, row) in zip(trap.squares, _all(browser, [(*seats[q][:2], z) for q in trap.squares]), strict=True):
            assert _is(image[row, col], O.PATH_COLOUR), (ply.move, sq, image[row, col])
    browser.js("window.stratstone.isolate(null)")


def test_the_page_numbers_stratstones_sowing_and_rings_the_winning_line_once_done(pages, browser):
    """Stratstone: each sown square's step numbers as a chip in its cell; at the end the
    top stone of each square of the winning line ringed in cyan, no other stack ringed;
    while the last ply is under way, no ring yet."""
    from stratstone_cad.engine.events import GameOver
    from stratstone_cad.viewer.overlays import style as O
    from stratstone_cad.viewer.overlays.plan import Plan

    rep, path = pages["stratstone"]
    plan = Plan(rep)
    table, pitch = rep.table, rep.table.pitch_mm
    last = rep.plies[-1]
    (over,) = [n.event for n in last.named if isinstance(n.event, GameOver)]
    line = {q for ln in over.lines for q in ln}
    _open(browser, path)
    image = _show(browser, rep.count)
    want: dict[str, list[str]] = {}
    for n in last.named:
        if n.event.kind == "sown":
            want.setdefault(n.event.square, []).append(str(n.event.step))
    corners = dict(zip(table.seats, _all(browser, [plan.at(q) + np.array([-0.32 * pitch, 0.32 * pitch, 0.0])
                                                    for q in table.seats]), strict=True))  # where a number goes
    shown = {}
    for chip in browser.js("window.stratstone.chips()"):
        middle = ((chip["left"] + chip["right"]) / 2, (chip["top"] + chip["bottom"]) / 2)
        shown[min(corners, key=lambda q: np.hypot(*np.subtract(corners[q], middle)))] = chip["text"]
    assert shown == {sq: ", ".join(n) for sq, n in want.items()}

    def ringed(image, sq: str) -> int:
        x, y, _ = table.seats[sq]
        z = plan.stack_top(sq, last.rest) - 0.03 * pitch
        return sum(_is(image[row, col], O.MARK_COLOUR) for col, row in _all(browser, ring_points(x, y, z, O.RING * pitch)))

    check_winning_rings(lambda sq: ringed(image, sq), table.seats, line, _occupied(rep, rep.count))
    image = _show(browser, rep.count, animate=True)
    assert "win" not in browser.js("window.stratstone.drawn()")
    assert all(ringed(image, sq) == 0 for sq in line)




def test_without_webgl_the_page_says_it_needs_it_and_how_to_turn_it_on(pages):
    """A browser with WebGL turned off: the page says so at once, instead of loading for ever."""
    _, path = pages["stratstone"]
    with Browser(SIZE, ["--disable-webgl", "--disable-3d-apis"]) as b:
        b.open(path.as_uri())
        b.wait("window.stratstone && window.stratstone.error !== null", timeout=30)
        text = b.js("document.getElementById('overlay').textContent")
    assert text.startswith("This replay needs WebGL") and "graphics acceleration" in text, text
