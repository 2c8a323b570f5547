"""The studio's page in a real browser (Debian's Chromium, tests/pages.py) on the studio run
as users run it: a slider moved redraws the preview, a refused value shows the command
line's one line beside its control and keeps the preview, and the STL the page downloads is
the one ``stratstone-cad build`` writes for the same setting."""

from __future__ import annotations

import hashlib
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.pages import Browser, chromium

GEM = "sage-stones.gem.diameter_mm"
SET = f"{GEM}=15"
LOOPBACK = ["--proxy-bypass-list=127.0.0.1"]  # the studio's port on 127.0.0.1 goes to no proxy


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The studio's address; stopped with Ctrl-C (SIGINT) at the end, which it obeys promptly."""
    out = tmp_path_factory.mktemp("studio")
    p = subprocess.Popen([sys.executable, "-m", "stratstone_cad", "studio", "sage-stones", "--no-browser", "--port", "0",
                          "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith("studio: http://127.0.0.1:") and line.endswith(" (Ctrl-C stops)\n"), line
        yield line.split()[1]
    finally:
        p.send_signal(signal.SIGINT)
        stopped = time.monotonic()
        try:
            p.communicate(timeout=15)
        finally:
            if p.poll() is None:
                p.kill()
        assert time.monotonic() - stopped < 10 and p.returncode is not None


@pytest.fixture(scope="module")
def page(studio: str) -> Iterator[Browser]:
    """One browser page on the studio, the red gem chosen and its preview drawn."""
    chromium()
    b = Browser((1280, 800), flags=LOOPBACK)
    try:
        b.open(studio + "?game=sage-stones&part=gem-red.stl")
        b.wait("window.studio && window.studio.ready", timeout=60)
        _drawn(b)
        yield b
    finally:
        b.close()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder ``stratstone-cad build sage-stones --set SET`` writes."""
    out = tmp_path_factory.mktemp("built")
    subprocess.run([sys.executable, "-m", "stratstone_cad", "build", "sage-stones", "--set", SET, "--out", str(out),
                    "--quiet"], check=True, capture_output=True)
    return out


def _drawn(b: Browser) -> None:
    """Wait until the preview's player (the iframe) says it has drawn its scene."""
    frame = b.page.frame_locator("#preview")
    deadline = time.monotonic() + 60
    while not frame.locator("body").evaluate("() => !!(window.stratstone && window.stratstone.ready)"):
        assert time.monotonic() < deadline, "the preview never became ready"
        time.sleep(0.05)  # poll: the preview drawn


def _preview(b: Browser) -> np.ndarray:
    png = b.page.frame_locator("#preview").locator("canvas").first.screenshot(type="png")
    import io

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def _changed(b: Browser, act: object) -> None:
    """Run ``act`` and wait for the page's next preview, drawn."""
    before = b.js("window.studio.previews")
    act()  # type: ignore[operator]
    b.wait(f"window.studio.previews > {before}", timeout=60)
    _drawn(b)


def test_moving_the_gems_diameter_slider_redraws_the_preview(page: Browser) -> None:
    """The slider moved by the keyboard (a tenth of its range down: up, the gem outgrows its square): the page makes the gem
    again and the preview's pixels change, drawn by the player already loaded (the frame's page
    not loaded again: a mark left in it stays)."""
    before = _preview(page)
    frame = page.page.frame_locator("#preview").locator("body")
    frame.evaluate("() => { window.kept = 'the same page'; }")
    slider = page.page.locator(f'input[type=range][aria-label="{GEM} slider"]')
    _changed(page, lambda: (slider.focus(), page.page.keyboard.press("PageDown")))
    after = _preview(page)
    assert before.shape == after.shape
    assert (np.abs(before - after).sum(axis=2) > 30).mean() > 0.002, "the preview did not change"
    assert page.js("window.studio.error") == ""
    assert frame.evaluate("() => window.kept") == "the same page", "the preview's page was loaded again"


def test_a_refused_value_shows_the_command_lines_message_beside_its_control_and_keeps_the_preview(
        page: Browser, tmp_path: Path) -> None:
    """A diameter below its range typed in: the field shows the line the command line prints
    for the same setting (less its ``stratstone-cad: error:`` prefix), the preview stays."""
    cli = subprocess.run([sys.executable, "-m", "stratstone_cad", "build", "sage-stones", "--set", f"{GEM}=1",
                          "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert cli.returncode == 2
    before, src, shown = _preview(page), page.js("document.getElementById('preview').src"), page.js("window.studio.previews")
    page.page.fill(f'input[type=number][aria-label="{GEM}"]', "1")
    page.wait("window.studio.error !== ''")
    beside = page.page.locator(f'.field[data-name="{GEM}"] .error').inner_text()
    assert beside == cli.stderr.strip().removeprefix("stratstone-cad: error: ")
    assert page.js("document.getElementById('preview').src") == src and page.js("window.studio.previews") == shown
    assert np.array_equal(_preview(page), before)


def test_the_command_box_keeps_the_last_accepted_command_and_marks_a_refused_one(page: Browser) -> None:
    """A refused diameter typed in: the command-line box still shows the last command the
    studio accepted (not one with the refused value, which would fail) and says the new
    value was not applied, with the command line's reason; a good value then replaces both."""
    box = page.page.locator("#command")
    note = page.page.locator("#command-note")
    _changed(page, lambda: page.page.fill(f'input[type=number][aria-label="{GEM}"]', "16"))
    accepted = box.inner_text()
    assert f"--set {GEM}=16" in accepted and note.inner_text() == ""
    page.page.fill(f'input[type=number][aria-label="{GEM}"]', "2")
    page.wait("document.getElementById('command-note').textContent !== ''")
    assert box.inner_text() == accepted
    assert note.inner_text() == f"not applied: {page.js('window.studio.error')} (the command above is the last one accepted)"
    assert f"{GEM} = 2" in note.inner_text() or f"{GEM}=2" in note.inner_text()
    _changed(page, lambda: page.page.fill(f'input[type=number][aria-label="{GEM}"]', "17"))
    assert f"--set {GEM}=17" in box.inner_text() and note.inner_text() == ""


def test_the_downloaded_stl_is_the_one_the_build_writes_for_the_same_setting(page: Browser, built: Path,
                                                                            tmp_path: Path) -> None:
    """The diameter typed in, the page's STL link followed: its bytes are those of
    ``stratstone-cad build sage-stones --set`` the same diameter, and the page shows that command."""
    _changed(page, lambda: page.page.fill(f'input[type=number][aria-label="{GEM}"]', SET.split("=")[1]))
    assert f"--set {SET}" in page.page.locator("#command").inner_text()
    with page.page.expect_download(timeout=60_000) as got:
        page.page.locator('#downloads a[download="gem-red.stl"]').click()
    got.value.save_as(tmp_path / "gem-red.stl")
    digest = hashlib.sha256((tmp_path / "gem-red.stl").read_bytes()).hexdigest()
    assert digest == hashlib.sha256((built / "sage-stones" / "gem-red.stl").read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def other_site(studio: str) -> Iterator[str]:
    """A page of another site (``localhost`` on another port: another site than 127.0.0.1
    for the browser) that frames the studio, opened at a part with a setting, and links to it."""
    import http.server
    import threading

    target = studio + f"?game=sage-stones&part=gem-blue.stl&set={GEM}=17"
    html = (f'<!DOCTYPE html><title>another site</title><a id="go" href="{target}">the studio</a>'
            f'<iframe id="framed" src="{target}" width="800" height="500"></iframe>').encode()

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(html)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://localhost:{server.server_address[1]}/"
    finally:
        server.shutdown()


def _asked_to_build(b: Browser) -> list[str]:
    return [u for u in b.requests() if "/api/part/" in u or "/api/check/" in u or "/api/plate/" in u or "/set/" in u]


def test_another_sites_frame_of_the_studio_is_blocked_and_builds_nothing(studio: str, other_site: str) -> None:
    """Another site's page framing the studio at a part and a setting: the browser refuses
    to show the frame (X-Frame-Options, CSP frame-ancestors) and the studio is asked for no
    part, no check, no plate."""
    with Browser((1280, 800), flags=["--proxy-bypass-list=127.0.0.1;localhost"]) as b:
        b.open(other_site)
        b.page.wait_for_load_state("load")
        time.sleep(3)  # not a wait: a while in which the studio must be asked to build nothing
        assert any(u.startswith(studio) for u in b.requests())  # the frame's page was asked for...
        framed = next(f for f in b.page.frames if f is not b.page.main_frame)
        assert not framed.evaluate("() => !!window.studio")  # ... and not shown
        assert _asked_to_build(b) == []


def test_a_link_from_another_site_shows_the_settings_and_builds_only_on_a_click(studio: str, other_site: str) -> None:
    """Another site's link to the studio at a part and a setting, followed: the page shows
    the form with those values and builds nothing until the person presses Preview."""
    with Browser((1280, 800), flags=["--proxy-bypass-list=127.0.0.1;localhost"]) as b:
        b.open(other_site)
        b.page.locator("#go").click()
        b.page.wait_for_url(studio + "*")
        b.wait(f"document.querySelector('input[type=number][aria-label=\"{GEM}\"]') !== null")
        assert b.page.locator(f'input[type=number][aria-label="{GEM}"]').input_value() == "17"
        assert b.page.locator("#part").input_value() == "gem-blue.stl"
        time.sleep(3)  # not a wait: a while in which the studio must be asked to build nothing
        assert _asked_to_build(b) == []
        b.page.locator("#held").click()
        b.wait("window.studio && window.studio.ready", timeout=60)
        assert any("/api/part/sage-stones/gem-blue.stl" in u and f"{GEM}%3D17" in u for u in _asked_to_build(b))


def test_only_the_seed_of_a_games_map_has_a_new_terrain_button(page: Browser, studio: str) -> None:
    """Each game's form in the page: the "new terrain" button beside the field the game's facts
    name as its map's seed (``MAP_PARAMETERS``), beside no other field (a stone's seed is no
    map's). Last here: it leaves the page on the gem it started on."""
    from stratstone_cad.registry import FACTS, game_names

    for game in game_names():
        page.open(f"{studio}?game={game}")
        page.wait(f"document.querySelector('.field[data-name^=\"{game}.\"]') !== null", timeout=60)
        beside = page.js("[...document.querySelectorAll('.field')].filter((f) => [...f.querySelectorAll('button')]"
                         ".some((b) => b.textContent === 'new terrain')).map((f) => f.dataset.name)")
        seed = getattr(FACTS[game], "MAP_PARAMETERS", {}).get("seed")
        assert beside == ([seed] if seed else []), game
    page.open(studio + "?game=sage-stones&part=gem-red.stl")
    page.wait("window.studio && window.studio.ready", timeout=60)


def test_the_solids_grams_and_the_slicers_cost_are_told_apart(page: Browser) -> None:
    """The part's grams are labelled the solid's (its volume in PLA), not a cost; the
    plate's figure from PrusaSlicer is the one said to be the print's cost, for the plate
    and the parts it holds."""
    labels = page.js("[...document.querySelectorAll('#facts dt')].map((d) => d.textContent)")
    assert "solid volume" in labels and "solid as PLA" in labels and "PLA" not in labels and "volume" not in labels
    grams = page.js("[...document.querySelectorAll('#facts dt')].find((d) => d.textContent === 'solid as PLA')"
                    ".nextElementSibling.textContent")
    assert "not the print's cost" in grams
    said = page.js("window.studio.plateText({plate: 'terrain/board-seed-1-plate-2-of-4.3mf', copies: 1, "
                   "print: {time_s: 7260, filament_g: 104.2, filament_m: 34.9, layers: 120}})")
    assert said == ("print cost (PrusaSlicer's estimate for the plate, board-seed-1-plate-2-of-4.3mf): "
                    "104.2 g of PLA (34.9 m), 2 h 1 min, 120 layers")
    several = page.js("window.studio.plateText({plate: 'sage-stones/gems-red.3mf', copies: 10, "
                      "print: {time_s: 600, filament_g: 20, filament_m: 6.7, layers: 30}})")
    assert several.startswith("print cost (PrusaSlicer's estimate for the plate's 10 parts, gems-red.3mf): 20 g of PLA")
    assert "no estimate" in page.js("window.studio.plateText({plate: 'sage-stones/dice.3mf', copies: 2, print: null})")


def test_the_plate_says_what_it_waits_for_and_how_far_its_build_is(page: Browser) -> None:
    """The plate's line while its build is queued or running: the builds ahead, or how long
    ago it started and the build's last step (the answers of /api/plate-progress,
    tests/studio/test_api.py)."""
    said = page.js("[{state: 'waiting', ahead: 2, for_s: 5}, {state: 'waiting', ahead: 0, for_s: 1}, "
                   "{state: 'building', for_s: 40, step: '[2/8] sliced sage-stones/gems-red.3mf as set'}, "
                   "{state: 'idle'}].map((s) => window.studio.progressText(s, 'slicing (PrusaSlicer)'))")
    assert said == ["plate: waiting for 2 builds of this game's plates ahead (5 s)",
                    "plate: starting (asked 1 s ago)",
                    "plate: slicing (PrusaSlicer), started 40 s ago (last step: [2/8] sliced sage-stones/gems-red.3mf as set)",
                    "plate: slicing (PrusaSlicer)..."]


def test_a_tiled_boards_plate_link_names_only_a_plate_the_build_writes(page: Browser, studio: str) -> None:
    """The terrain board, cut in tiles at the default printer: the page links no plate
    until the build has named it (``board-seed-1-plate-i-of-n.3mf``; never the
    ``board-seed-1.3mf`` no build writes). That the named plate downloads is
    tests/studio/test_api.py's walk of every part; here the page is not kept waiting for the
    build. Last here: the terrain's plates, asked for in the background, stop with the studio."""
    import re

    page.open(f"{studio}?game=terrain&part=board-seed-1-tile-2-of-4.stl")
    page.wait("window.studio && window.studio.ready", timeout=120)
    linked = page.js("[...document.querySelectorAll('#downloads a')].map((a) => a.getAttribute('download'))"
                     ".filter((n) => n.endsWith('.3mf'))")
    assert all(re.fullmatch(r"board-seed-1-plate-[1-4]-of-4\.3mf", n) for n in linked), linked
    assert "board-seed-1.3mf" not in page.page.locator("#facts").inner_text()
