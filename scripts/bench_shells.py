"""Time building each game's board as a shell against the solid board: its mesh (the build's
``make_board``) and its B-rep solid (``solid_board``, what STEP files and the model API get),
as the build plans them for the default printer.

Prints per board and kind (shell, solid) the median seconds of ``--runs`` runs of each, the
shell's cavity volume, and with ``--hashes`` the sha256 of each tile's STL bytes and STEP
text (to check that a change meant to be only faster leaves the files as they were).

Usage::

    .venv/bin/python scripts/bench_shells.py [--runs 5] [--games stratstone,sage-stones,terrain] [--hashes]
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchlib import loadavg, machine_line  # noqa: E402  (scripts/ is on the path when run as a script)

from stratstone_cad.base.printers import get_printer, load_profiles  # noqa: E402
from stratstone_cad.geometry.boards import BoardParams  # noqa: E402
from stratstone_cad.printing.stl import stl_bytes  # noqa: E402
from stratstone_cad.registry import get_parts, load_params  # noqa: E402


def board_job(game: str, shell: bool):
    """The build's job that makes ``game``'s board, its shell set to ``shell``."""
    ps, profiles = load_params(sets={f"{game}.board.shell": str(shell).lower()}), load_profiles()
    g = next(g for g in get_parts(None) if g.name == game)
    for j in g.plan(ps.params_of(g.name), get_printer("prusa-mk4"), profiles, ps.mesh):
        if isinstance(j.args.get("board"), BoardParams) and "plan" in j.args:
            return j
    raise SystemExit(f"bench_shells: {game} has no board job")


def _call(job, name: str):
    module = importlib.import_module(job.maker.split(":")[0])
    return getattr(module, name)(**job.args)


def timings(job, runs: int) -> tuple[float, float]:
    """Median seconds of the mesh and of the B-rep solid."""
    mesh, solid = [], []
    for _ in range(runs):
        t = time.perf_counter()
        _call(job, "make_board")
        mesh.append(time.perf_counter() - t)
        t = time.perf_counter()
        _call(job, "solid_board")
        solid.append(time.perf_counter() - t)
    return statistics.median(mesh), statistics.median(solid)


def hashes(job) -> list[str]:
    """sha256 (12 hex digits) of every tile's STL bytes, then of every tile's STEP file."""
    out = [hashlib.sha256(stl_bytes(m, "board")).hexdigest()[:12] for m in _call(job, "make_board")]
    with tempfile.TemporaryDirectory() as tmp:
        for k, s in enumerate(_call(job, "solid_board")):
            path = Path(tmp) / f"{k}.step"
            s.exportStep(str(path))
            text = "\n".join(ln for ln in path.read_text().splitlines() if not ln.startswith("FILE_NAME"))
            out.append("step:" + hashlib.sha256(text.encode()).hexdigest()[:12])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--games", default="stratstone,sage-stones,terrain")
    ap.add_argument("--hashes", action="store_true", help="print the sha256 of each tile's STL and STEP")
    a = ap.parse_args()
    print(f"{machine_line()}; load {loadavg()} before")
    print("| board | shell: mesh / B-rep (s) | solid: mesh / B-rep (s) | shell volume (cm3) |")
    print("| --- | ---: | ---: | ---: |")
    for game in a.games.split(","):
        shell, solid = board_job(game, True), board_job(game, False)
        _call(shell, "make_board")  # warm: imports and memo of what both share
        sm, ss = timings(shell, a.runs)
        dm, ds = timings(solid, a.runs)
        volume = sum(m.volume_mm3() for m in _call(shell, "make_board")) / 1000
        print(f"| {game} | {sm:.2f} / {ss:.2f} | {dm:.2f} / {ds:.2f} | {volume:.2f} |", flush=True)
        if a.hashes:
            print(f"  {game} shell: {' '.join(hashes(shell))}", flush=True)
    print(f"load {loadavg()} after")


if __name__ == "__main__":
    main()
