"""The Play room's page (/play) in a real browser (Debian's Chromium, tests/pages.py) on the
studio run as users run it: two browser contexts, one a seat, play a whole terrain game by
clicking the 2D view's ``data-square`` elements and leave a log check-log accepts; the squares
a click lights are the engine's moves from there (and the terrain's costs the cheapest
paths'); a click a piece cannot make says why in the engine's words."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Error as PlaywrightError

from stratstone_cad.engine.protocol import State
from stratstone_cad.registry import game_names, get_game
from stratstone_cad.studio.tables import to_of
from tests.pages import Browser
from tests.studio.test_tables import _cheapest, new

SEED = 7  # a terrain where the Runners reach the far edge in a few moves each


def until(page: Any, expression: str, timeout: float = 30) -> None:
    """Wait until ``expression`` holds in ``page`` (evaluated through DevTools: the page's policy
    forbids eval, so Playwright's own wait_for_function cannot run there)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if page.evaluate(f"() => !!({expression})"):
                return
        except PlaywrightError as e:  # a page navigating meanwhile (the form opens its table)
            assert "context was destroyed" in str(e) or "navigat" in str(e), e
        assert time.monotonic() < deadline, f"{expression}: not true after {timeout} s"
        time.sleep(0.02)  # poll: the expression true in the page


def url(client: httpx.Client) -> str:
    return str(client.base_url).rstrip("/")


def opened(b: Browser, page: Any, url: str) -> Any:
    page.goto(url)
    until(page, "window.play && window.play.version >= 0")
    return page


def state_of(t: dict[str, Any]) -> State:
    """The engine's own state of the table ``t`` (its header and plies played again)."""
    g = get_game(t["game"])
    s = g.initial_state(t["players"], t["setup"])
    for p in t["plies"]:
        if s.is_chance():
            s = s.apply_chance(p[g.chance_field])[0]
        s = s.apply(p["move"])[0]
    if s.is_chance() and t["dice"]:  # the studio's dice of the ply being played
        s = s.apply_chance(t["dice"])[0]
    return s


def lit(page: Any, square: str) -> dict[str, str]:
    """The squares lit after a click on ``square``: square -> its ``data-reach``."""
    until(page, "window.play.version === window.play.table.version")  # the position shown is the table's
    before = page.evaluate("window.play.reachMs.length")
    page.click(f'#board2d [data-square="{square}"]')
    until(page, f"window.play.reachMs.length > {before}")
    return page.evaluate("Object.fromEntries([...document.querySelectorAll('#board2d [data-reach]')]"
                         ".map(e => [e.dataset.square, e.dataset.reach]))")


def _runner_first(client: httpx.Client, table: str, t: dict[str, Any]) -> tuple[str, str]:
    """A short game: an exit when there is one, else the move that gains the most ranks (a
    Runner's first), as the reach endpoint gives them; ``(from, to)``."""
    board = client.get(f"/api/table/{table}/board").json()
    side, forward = t["to_move"], 1 if board["exit_rank"][t["to_move"]] else -1
    best: tuple[Any, ...] = ()
    for sq in board["squares"]:
        if not sq["pieces"] or sq["pieces"][0]["colour"] != side:
            continue
        for m in client.get(f"/api/table/{table}/reach/{sq['square']}").json():
            gain = 100 if m["to"] == "exit" else forward * (int(m["to"][1:]) - int(sq["square"][1:]))
            key = (gain, sq["pieces"][0]["kind"] == "runner", m["kind"] != "attack")
            if not best or key > best[0]:
                best = (key, sq["square"], m["to"])
    return best[1], best[2]


def test_two_screens_play_a_whole_terrain_game(play_studio: tuple[httpx.Client, Path], browser: Browser) -> None:
    client, folder = play_studio
    table, seats = new(client, "terrain", players=["person", "person"], seed=SEED)
    other = browser.browser.new_context(viewport={"width": 1000, "height": 860})
    try:
        pages = {"red": browser.page, "blue": other.new_page()}
        for side, page in pages.items():
            opened(browser, page, f"{url(client)}/play?table={table}&seat={seats[side]}&view=2d")
        played = []
        for _ in range(80):
            t = client.get(f"/api/table/{table}").json()
            if t["over"]:
                break
            page = pages[t["to_move"]]
            frm, to = _runner_first(client, table, t)
            lit(page, frm)
            page.click(f'#board2d [data-square="{to}"]')
            for p in pages.values():  # both screens follow live
                until(p, f"window.play.table.ply === {t['ply'] + 1} && window.play.version === "
                                    "window.play.table.version")
            played.append(client.get(f"/api/table/{table}").json()["plies"][-1]["move"])
        t = client.get(f"/api/table/{table}").json()
        assert t["over"] and t["result"]["reason"] == "second exit", t["result"]
        assert [p["move"] for p in t["plies"]] == played
        for p in pages.values():
            assert p.locator("#download-log").get_attribute("href") == f"/api/table/{table}/log"
        log = folder / t["log"]
        checked = subprocess.run([sys.executable, "-m", "stratstone_cad", "check-log", str(log)], capture_output=True,
                                 text=True)
        assert checked.returncode == 0, checked.stdout + checked.stderr
    finally:
        other.close()


@pytest.mark.parametrize(("game", "body", "square"), [
    ("terrain", {"seed": SEED}, "e1"),
    ("stratstone", {"seed": 3}, "a1"),
    ("sage-stones", {"seed": 5, "setup": {"variant": "two-player"}}, None),
])
def test_the_lit_squares_are_the_engines_moves(play_studio: tuple[httpx.Client, Path], browser: Browser, game: str,
                                               body: dict[str, Any], square: str | None) -> None:
    client, _ = play_studio
    table, seats = new(client, game, players=["person", "person"], **body)
    t = client.get(f"/api/table/{table}").json()
    page = opened(browser, browser.page, f"{url(client)}/play?table={table}&seat={seats[t['to_move']]}&view=2d")
    state = state_of(t)
    g = get_game(game)
    if square is None:  # Sage Stones: the roll's column, a square of it clicked
        square = next(str(m) for m in state.legal_moves() if str(m) != "-")
        column = g.parse_square(square)[0]
        expected = {str(m): "" for m in state.legal_moves() if str(m) != "-" and g.parse_square(str(m))[0] == column}
    else:
        moves = [str(m) for m in state.legal_moves() if str(m).startswith(square)]
        expected = {to_of(state.apply(m)[1]): "" for m in moves}
    shown = lit(page, square)
    assert shown.keys() == expected.keys() and expected
    if game == "terrain":
        levels = [lv for row in t["setup"]["heightmap"] for lv in row]
        cheapest = _cheapest(levels, state, square)
        assert all(int(cost) == cheapest[sq] for sq, cost in shown.items()), (shown, cheapest)


def test_a_click_out_of_reach_says_why_in_the_engines_words(play_studio: tuple[httpx.Client, Path], browser: Browser) -> None:
    client, _ = play_studio
    table, seats = new(client, "terrain", players=["person", "greedy"], seed=SEED)
    page = opened(browser, browser.page, f"{url(client)}/play?table={table}&seat={seats['red']}&view=2d")
    state = state_of(client.get(f"/api/table/{table}").json())
    lit(page, "e1")
    page.click('#board2d [data-square="e9"]')
    until(page, "document.getElementById('why').textContent !== ''")
    with pytest.raises(Exception) as refused:
        state.apply("e1-e9")
    assert page.locator("#why").text_content() == str(refused.value)


def test_the_form_makes_a_table_for_a_second_device_with_a_clock(play_studio: tuple[httpx.Client, Path],
                                                                 browser: Browser) -> None:
    client, _ = play_studio
    page = browser.page
    page.goto(f"{url(client)}/play")
    until(page, "window.play.ready")
    assert page.eval_on_selector_all("#game option", "os => os.map(o => o.value)") == game_names()
    levels = page.eval_on_selector_all("#opponent option", "os => os.map(o => o.value)")
    searches = [lv for lv in levels if lv.startswith("search:")]
    assert len(searches) >= 3 and searches[-1] == f"search:{get_game(page.input_value('#game')).search_simulations}"
    page.select_option("#game", "terrain")
    page.select_option("#side", "red")
    page.select_option("#opponent", "remote")
    page.fill("#seed", str(SEED))
    page.select_option("#clock", "5+3")
    page.click("#start")
    until(page, "window.play && window.play.version >= 0 && document.querySelector('#join .qr svg path')")
    until(page, "document.querySelectorAll('#clock span').length === 2")
    shown = page.locator("#clock span").all_text_contents()
    assert re.fullmatch(r"red [45]:[0-5]\d", shown[0]) and shown[1] == "blue 5:00", shown
    join = page.locator("#join a.join-link").get_attribute("href")
    other = browser.browser.new_context()
    try:
        second = opened(browser, other.new_page(), url(client) + join)
        table = join.split("table=")[1].split("&")[0]
        assert client.get(f"/api/table/{table}").json()["kinds"] == {"red": "person", "blue": "person"}
        lit(second, "e10")  # blue's screen: a blue piece selected, but red is to move: nothing is sent
        moves = lit(page, "e1")
        page.click(f'#board2d [data-square="{next(iter(moves))}"]')
        until(second, "window.play.table.ply === 1")  # the second screen follows
        assert client.get(f"/api/table/{table}").json()["to_move"] == "blue"
        second.click("#draw")  # blue offers a draw; red's screen offers to accept it
        until(page, "document.getElementById('draw').textContent === 'accept the draw'")
        page.click("#draw")
        until(second, "window.play.table.over")
        assert second.locator("#over p").text_content() == "no winner (draw agreed)"
    finally:
        other.close()


def test_against_the_search_a_takeback_and_the_review(play_studio: tuple[httpx.Client, Path], browser: Browser) -> None:
    client, _ = play_studio
    page = browser.page
    page.goto(f"{url(client)}/play")
    until(page, "window.play.ready")
    page.select_option("#game", "terrain")
    page.select_option("#side", "red")
    quick = page.eval_on_selector_all("#opponent option", "os => os.map(o => o.value)")[3]
    page.select_option("#opponent", quick)
    page.fill("#seed", str(SEED))
    page.click("#start")
    until(page, "window.play && window.play.version >= 0")
    for square in ("e1", "f1"):
        lit(page, square)
        page.click('#board2d [data-reach]')
        until(page, "window.play.table.ply === 2", timeout=60)  # the engine's reply came without asking
        if square == "e1":
            page.click("#takeback")
            until(page, "window.play.table.ply === 0")
    page.click("#resign")
    until(page, "document.getElementById('review')")
    assert page.locator("#over p").text_content() == "blue wins (resignation)"
    review = page.locator("#review").get_attribute("href")
    assert review == f"/api/table/{page.evaluate('() => window.play.table.id')}/view3d?review=1"
    page.goto(url(client) + review.replace("review=1", "review=20"))  # the review (a small budget: quick)
    until(page, "window.stratstone && window.stratstone.ready", timeout=120)
    assert page.locator("#strip").is_visible()


def test_the_form_takes_a_heightmap_file(play_studio: tuple[httpx.Client, Path], browser: Browser, tmp_path: Path) -> None:
    client, _ = play_studio
    levels = [[(r + f) // 4 for f in range(10)] for r in range(10)]
    (tmp_path / "map.json").write_text(json.dumps({"heightmap": levels}))
    page = browser.page
    page.goto(f"{url(client)}/play")
    until(page, "window.play.ready")
    page.select_option("#game", "terrain")
    page.select_option("#opponent", "person")
    page.set_input_files("#heightmap", str(tmp_path / "map.json"))
    page.click("#start")
    until(page, "window.play && window.play.version >= 0")
    assert page.evaluate("() => window.play.table.setup.heightmap") == levels
    shown = page.eval_on_selector_all("#board2d [data-square] text.label", "ts => ts.map(t => t.textContent)")
    assert shown[:10] == [str(lv) for lv in levels[0]]  # each square's level as the server gave it


def test_sage_stones_dice_entered_from_the_printed_ones(play_studio: tuple[httpx.Client, Path], browser: Browser) -> None:
    client, _ = play_studio
    table, seats = new(client, "sage-stones", players=["person", "person"], setup={"variant": "two-player"},
                       dice="entered")
    page = opened(browser, browser.page, f"{url(client)}/play?table={table}&seat={seats['p1']}&view=2d")
    until(page, "document.querySelectorAll('#dice-box input').length === 3")
    for box, value in zip(page.locator("#dice-box input").all(), (1, 2, 2), strict=True):
        box.fill(str(value))
    page.click("#dice-box button")
    until(page, "window.play.table.dice && !window.play.table.roll")
    t = client.get(f"/api/table/{table}").json()
    assert t["dice"] == [1, 2, 2] and t["legal"]
    assert set(lit(page, t["legal"][0])) == {m for m in t["legal"] if m != "-"}


def test_an_attack_shows_its_sums_and_a_runner_its_stars(play_studio: tuple[httpx.Client, Path], browser: Browser) -> None:
    client, _ = play_studio
    setup = {"heightmap": [[0 if (r, f) in ((0, 2), (2, 2)) else 2 for f in range(10)] for r in range(10)],
             "pieces": {"c1": "red runner", "a10": "blue guardian", "e1": "red lancer", "e3": "blue runner",
                        "j10": "blue lancer"}}
    table, seats = new(client, "terrain", players=["person", "person"], setup=setup, seed=1)
    page = opened(browser, browser.page, f"{url(client)}/play?table={table}&seat={seats['red']}&view=2d")
    t = client.get(f"/api/table/{table}").json()
    state = state_of(t)
    shown = lit(page, "e1")
    assert "e3" in shown
    until(page, "document.getElementById('explain').textContent.includes('e1xe3')")
    after, events = state.apply("e1xe3")
    lines = page.locator("#explain").text_content().splitlines()  # each attack in reach, before it is made
    assert f"e1xe3: {get_game('terrain').explain(state, after, events)}" in lines
    lit(page, "c1")
    stars = set(page.eval_on_selector_all("#board2d [data-reach] text.cost", "ts => ts.filter(t => t.textContent === "
                                          "'\\u2605').map(t => t.parentNode.dataset.square)"))
    special = {to_of(state.apply(m)[1]) for m, why in state.reach("c1") if not why[0].isdigit()}
    assert stars == special and stars
