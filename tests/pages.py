"""A real browser for the tests: Debian's Chromium, headless, driven by Playwright for
Python (``executable_path``: no browser download, ``playwright install`` is never run). The
one browser driver of the project: the replay page's tests and the studio's use it.

WebGL runs on SwiftShader (software), as on a machine without a GPU. The network is cut
but loopback (every host resolves to nothing, a proxy that does not exist takes the rest,
loopback bypasses it) and every request the page makes is recorded, so a test can say the
page asked for nothing.
"""

from __future__ import annotations

import io
import os
import shutil
import time
from typing import Any

import numpy as np
import pytest

__all__ = ["FLAGS", "Browser", "chromium"]

CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
FLAGS = ["--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist",
         "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1", "--proxy-server=127.0.0.1:9",
         "--proxy-bypass-list=<-loopback>", "--disable-background-networking", "--disable-component-update"]


def chromium() -> str:
    """The browser's executable; skips the test when there is none or Playwright is missing
    (fails when ``STRATSTONE_REQUIRE_BROWSER`` is set, as in CI)."""
    found = next((shutil.which(n) for n in CANDIDATES if shutil.which(n)), None)
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        found = None
    if found:
        return found
    if os.environ.get("STRATSTONE_REQUIRE_BROWSER"):
        pytest.fail("chromium and playwright are required (apt-get install -y chromium; pip install playwright)")
    pytest.skip("chromium or playwright is not installed")


_DRIVER: list[Any] = []  # one Playwright driver a process (its sync API allows one a thread)


def _driver() -> Any:
    if not _DRIVER:
        import atexit

        from playwright.sync_api import sync_playwright

        _DRIVER.append(sync_playwright().start())
        atexit.register(_DRIVER[0].stop)
    return _DRIVER[0]


class Browser:
    """One headless Chromium with one page (``size``: its viewport in CSS pixels)."""

    def __init__(self, size: tuple[int, int] = (1280, 720), flags: tuple[str, ...] | list[str] = ()) -> None:
        self.browser = _driver().chromium.launch(executable_path=chromium(), args=[*FLAGS, *flags])
        self.context = self.browser.new_context(viewport={"width": size[0], "height": size[1]}, accept_downloads=True)
        self.page = self.context.new_page()
        self.asked: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", lambda r: self.asked.append(r.url))
        self.page.on("console", lambda m: m.type in ("error", "assert") and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def clear(self) -> None:
        """Forget the requests and errors seen so far."""
        self.asked.clear()
        self.errors.clear()

    def open(self, url: str) -> None:
        self.page.goto(url, wait_until="commit")

    def js(self, expression: str, timeout: float = 60) -> Any:
        """The value of ``expression`` in the page (awaited when it is a promise). Evaluated
        through the DevTools protocol, so a page's policy against eval does not stop it."""
        try:
            return self.page.evaluate(f"async () => ({expression})")
        except Exception as e:
            raise RuntimeError(f"{expression}: {e}") from None

    def wait(self, expression: str, timeout: float = 30) -> float:
        """Seconds until ``expression`` is true in the page."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            try:
                if self.js(expression):
                    return time.monotonic() - start
            except RuntimeError:
                pass
            time.sleep(0.02)  # poll: the expression true in the page
        raise TimeoutError(f"{expression} not true after {timeout} s")

    def key(self, key: str, code: int = 0) -> None:
        """Press and release a key (``"ArrowRight"``; ``" "`` is Space)."""
        self.page.keyboard.press("Space" if key == " " else key)

    def drag(self, x0: int, y: int, x1: int) -> None:
        """Drag with the left button from (x0, y) to (x1, y)."""
        self.page.mouse.move(x0, y)
        self.page.mouse.down()
        self.page.mouse.move(x1, y, steps=4)
        self.page.mouse.up()

    def viewport(self, width: int, height: int) -> None:
        self.page.set_viewport_size({"width": width, "height": height})

    def screenshot(self) -> np.ndarray:
        """The page as an (h, w, 3) uint8 image."""
        import imageio.v3 as iio

        return iio.imread(io.BytesIO(self.page.screenshot(type="png")))[:, :, :3]

    def requests(self) -> list[str]:
        """Every URL the page asked for."""
        return list(self.asked)

    def console_errors(self) -> list[str]:
        return list(self.errors)

    def close(self) -> None:
        self.browser.close()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
