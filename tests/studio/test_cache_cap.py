"""The studio's folder under its cap (``--max-cache-mb``), through the ASGI test client: the
parts least recently used dropped first, never one being served, never the Play room's
``tables/`` or training progress beside them."""

from __future__ import annotations

import concurrent.futures as cf
import warnings
from pathlib import Path

with warnings.catch_warnings():  # Starlette 1 would rather have httpx2 (as in test_api)
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from stratstone_cad.pipeline.build import run_job
from stratstone_cad.studio.app import Studio, app
from stratstone_cad.studio.cache_cap import _size
from stratstone_cad.studio.part_making import PartMaker
from stratstone_cad.studio.set_builds import SetBuilds


def _url(height: float) -> str:
    return f"/api/part/sage-stones/gem-red.stl?set=sage-stones.gem.height_mm={height}"


def test_the_parts_folder_keeps_to_its_cap_least_recently_used_first(tmp_path: Path) -> None:
    """A cap of three and a half parts' folders: six parts asked, the first asked again
    before the fourth (used: it outlives the third), the second held all along as if being
    served (never dropped); the parts' folder stays under the cap, the least recently used
    go first; the Play room's folders beside them are untouched."""
    pool = cf.ThreadPoolExecutor(1)
    kept = {"tables/t1.json": b"{}" * 50_000, "training/run/progress.jsonl": b"x" * 300_000}
    for name, data in kept.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    studio = Studio(tmp_path, PartMaker(tmp_path, pool, run_job), SetBuilds(tmp_path, 1))
    c = TestClient(app(studio))
    keys = [c.get(_url(6)).json()["key"]]
    one = _size(tmp_path / "parts" / keys[0])
    studio.cap.max_bytes = int(3.5 * one)  # three parts' folders and a half
    with studio.cap.held(tmp_path / "parts" / (second := c.get(_url(6.1)).json()["key"])):
        keys.append(second)
        keys.append(c.get(_url(6.2)).json()["key"])
        assert c.get(_url(6)).status_code == 200  # the first used again: now the most recent but one
        for h in (6.3, 6.4, 6.5):  # as large as the first, within a few per cent
            keys.append(c.get(_url(h)).json()["key"])
            assert _size(tmp_path / "parts") <= studio.cap.max_bytes
            if h == 6.3:  # the third dropped, not the first (used since)
                assert {keys[0], keys[1], keys[3]} == {p.name for p in (tmp_path / "parts").iterdir()}
    left = {p.name for p in (tmp_path / "parts").iterdir()}
    assert keys[1] in left  # held: never dropped
    assert left == {keys[1], keys[4], keys[5]}  # the least recently used went first
    for name, data in kept.items():
        assert (tmp_path / name).read_bytes() == data
    pool.shutdown()
