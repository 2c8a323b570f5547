"""The viewer tests' shared fixture."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="module")
def _cache(tmp_path_factory):
    """The viewer's mesh cache in the test session's folder (one a test process, shared by
    its modules: the meshes are made once), never the user's. A module may replace it."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "viewer-cache"))
        yield
