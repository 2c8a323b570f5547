"""The studio's tests' shared fixture: a studio run as users run it (uvicorn, a free loopback
port) on a folder of its own, one a test module, for the Play room's tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.studio.test_tables import start, stop


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
