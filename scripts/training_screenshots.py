"""The Training page's screenshot for docs/images/: a terrain puzzle (found by ``puzzles`` in a
game the built-in players played) with a piece selected, its reach lit, on a studio started for
it with ``--puzzles`` (beside the package's own set, when it ships one).

    .venv/bin/python scripts/training_screenshots.py [--out docs/images]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from stratstone_cad.analysis.puzzles import write_puzzles  # noqa: E402
from stratstone_cad.log import logfile as _log  # noqa: E402
from stratstone_cad.log.commands import play_records  # noqa: E402
from tests.pages import Browser, chromium  # noqa: E402
from tests.studio.test_tables import stop  # noqa: E402
from tests.studio.test_training import start  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    args = ap.parse_args()
    chromium()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        log, puzzles = folder / "terrain-7.jsonl", folder / "puzzles.jsonl"
        _log.write_log(log, play_records("terrain", 7, ["greedy", "random"]))
        write_puzzles([log], puzzles)
        save = next(p for p in map(json.loads, puzzles.read_text().splitlines()) if p["kind"] == "save")
        p, client = start(folder / "studio", puzzles)
        b = Browser((1280, 760), flags=["--proxy-bypass-list=127.0.0.1"])
        try:
            listed = client.get("/api/training/terrain").json()["puzzles"]
            mine = next(x for x in listed if x["source"] == str(log) and x["kind"] == "save")
            b.page.goto(f"{str(client.base_url).rstrip('/')}/training?game=terrain&puzzle={mine['id']}")
            b.wait(f"window.training && window.training.position && window.training.position.id === '{mine['id']}'")
            b.page.click(f'#board2d [data-square="{save["solution"][:3].rstrip("x-")}"]')
            b.wait("document.querySelectorAll('#board2d [data-reach]').length > 0")
            time.sleep(0.2)  # not a wait: the lit squares' paint settles before the shot
            b.page.screenshot(path=str(args.out / "training-terrain.png"))
            print("training-terrain.png")
        finally:
            b.close()
            client.close()
            stop(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
