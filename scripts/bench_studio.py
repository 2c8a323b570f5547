"""The studio's speed as a user feels it, in a real browser: Debian's Chromium (headless,
driven by Playwright, tests/pages.py) on the studio served as users run it
(``stratstone-cad studio --no-browser --port 0``, a fresh ``--out`` folder).

- the page's first load: from the address to the preset part's preview shown;
- a parameter changed in its number field to the redrawn preview (from the field's input
  event to the new part's frame drawn, on the page's clock; the page's 40 ms pause for
  typing included), for a stone, a gem, a piece and a board: cold (a value never made) and
  cached (back to a value made before);
- the memory of the server and its workers after 200 changes of a stone's height, asked
  for through the API as the page asks: their proportional set sizes summed (PSS, from
  /proc/PID/smaps_rollup: the pages the forked workers share with the server counted
  once, where RSS counts them in each process).

Medians of ``--rounds`` rounds, each with a fresh studio and a fresh folder. Usage::

    .venv/bin/python scripts/bench_studio.py [--rounds 3] [--changes 200]
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchlib import loadavg, machine_line  # noqa: E402  (scripts/, the script's own folder)

from tests.pages import Browser  # noqa: E402
from tests.procs import descendants  # noqa: E402

#: game, part, the parameter changed, its cold value and the preset's (cached) value
CHANGES = [("stratstone", "stone-red-01.stl", "stratstone.stone.height_mm", "8.1", "7.4"),
           ("sage-stones", "gem-red.stl", "sage-stones.gem.height_mm", "6.6", "6"),
           ("terrain", "lancer-red.stl", "terrain.piece.lancer_height_mm", "19.5", "18"),
           ("stratstone", "board.stl", "stratstone.board.rim_width_mm", "17.5", None)]
LOOPBACK = ["--proxy-bypass-list=127.0.0.1"]  # tests/pages.py sends everything else to no proxy at all


def studio(out: Path) -> tuple[subprocess.Popen[str], str]:
    p = subprocess.Popen([sys.executable, "-m", "stratstone_cad", "studio", "--no-browser", "--port", "0", "--out",
                          str(out)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    return p, (p.stdout.readline().split() + ["", ""])[1]  # type: ignore[union-attr]


def stop(p: subprocess.Popen[str]) -> None:
    p.send_signal(signal.SIGINT)
    p.wait(30)


def preset_value(url: str, game: str, name: str) -> float:
    form = json.loads(urllib.request.urlopen(f"{url}api/form/{game}", timeout=60).read())
    return next(float(f["value"]) for s in form["sections"] for f in s["fields"] if f["name"] == name)


def redrawn(b: Browser, name: str, value: str) -> float:
    """Seconds from ``value`` typed in the field ``name`` (its input event) to the new
    preview drawn, both on the page's clock (``performance.now()``: no polling in the figure)."""
    before = b.js("window.studio.previews")
    field = json.dumps(f'input[type=number][aria-label="{name}"]')
    start = b.js(f"""(() => {{ const f = document.querySelector({field}); const t = performance.now();
        f.value = {json.dumps(value)}; f.dispatchEvent(new Event('input', {{ bubbles: true }})); return t; }})()""")
    b.wait(f"window.studio.previews > {before}", timeout=300)
    return (b.js("window.studio.shownAt") - start) / 1000


def one_round(changes: int) -> dict[str, float]:
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-studio-") as tmp:
        p, url = studio(Path(tmp))
        b = Browser((1280, 800), flags=LOOPBACK)
        try:
            start = time.monotonic()
            b.open(url + "?game=sage-stones&part=gem-red.stl")
            b.wait("window.studio && window.studio.ready", timeout=300)
            out["first load (gem, cold)"] = time.monotonic() - start
            for game, part, name, cold, back in CHANGES:
                b.open(f"{url}?game={game}&part={part}")
                b.wait("window.studio && window.studio.ready", timeout=600)
                preset = preset_value(url, game, name)
                cold = cold or f"{preset * 1.1:.2f}"
                back = back or f"{preset:g}"
                out[f"{part} {name} changed, cold"] = redrawn(b, name, cold)
                out[f"{part} {name} changed, cached"] = redrawn(b, name, back)
            for i in range(changes):  # a stone's height, 200 values, as the page asks for each
                q = f"set=stratstone.stone.height_mm={5 + i * 0.01:.2f}&client=bench"
                urllib.request.urlopen(f"{url}api/part/stratstone/stone-red-01.stl?{q}", timeout=300).read()
            out[f"memory (PSS) after {changes} changes, MB"] = pss_mb(p.pid)
        finally:
            b.close()
            stop(p)
    return out


def pss_mb(pid: int) -> float:
    """The memory of ``pid`` and every process below it, each shared page counted once."""
    total = 0
    for q in {pid, *descendants(pid)}:
        try:
            for line in Path(f"/proc/{q}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--changes", type=int, default=200)
    args = ap.parse_args()
    rounds = []
    for r in range(args.rounds):
        rounds.append(one_round(args.changes))
        print(f"round {r + 1} done", file=sys.stderr)
    print(f"{machine_line()}; load average after: {loadavg()}\n")
    print("| measure | median | rounds |\n| --- | ---: | --- |")
    for key in rounds[0]:
        values = [r[key] for r in rounds]
        print(f"| {key} | {statistics.median(values):.2f} | {', '.join(f'{v:.2f}' for v in values)} |")


if __name__ == "__main__":
    main()
