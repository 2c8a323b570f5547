"""The studio's tests' shared fixtures: a studio run as users run it (uvicorn, a free loopback
port) on a folder of its own, one a test module, for the Play room's tests; a Chromium window
of the Play room's size, one a test module (a module with a ``browser`` of its own keeps it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.pages import Browser, chromium
from tests.studio.test_tables import start, stop

LOOPBACK = ["--proxy-bypass-list=127.0.0.1"]  # the studio's port on 127.0.0.1 goes to no proxy


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Headless Chromium at 1280 x 860 (the Play room's page with its 3D view and panel)."""
    chromium()
    b = Browser((1280, 860), flags=LOOPBACK)
    try:
        yield b
    finally:
        b.close()


@pytest.fixture(scope="module")
def play_studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[httpx.Client, Path]]:
    """A studio on a folder of its own and a client of it: (client, folder). (Named apart from
    test_page.py's ``studio``, a URL, and test_api.py's.)"""
    folder = tmp_path_factory.mktemp("play")
    p, client = start(folder)
    try:
        yield client, folder
    finally:
        client.close()
        stop(p)
