"""The sha256 of every output of a fixed set, to show that a refactor changed no byte.

Runs the command line only (so the same script measures any revision of the tree): the
default build with its plates (STL, 3MF), one game's STEP files and set, replays of the
golden logs as a still, a glTF and a page, and a still of a preview. Prints one line a
file, `sha256  path`, sorted by path; compare two runs with diff.

    python scripts/output_hashes.py --out /tmp/hashes-before > before.txt
"""

from __future__ import annotations

import argparse
import hashlib
import shlex
import subprocess
import sys
from pathlib import Path

LOGS = Path(__file__).resolve().parent.parent / "tests" / "data" / "logs"
REPLAYS = ("stratstone_win", "sage_stones_two_player", "terrain_greedy")
SIZE = "640x360"  # the stills small: the bytes are what is compared, not the picture


def _commands(out: Path, cli: list[str]) -> list[list[str]]:
    runs = [[*cli, "build", "--plates", "--no-slice", "--quiet", "--out", str(out / "build")],
            [*cli, "build", "stratstone", "--step", "--quiet", "--out", str(out / "step")],
            [*cli, "preview", "stratstone/stone-red-03", "--size", SIZE, "--out", str(out / "preview.png")]]
    for name in REPLAYS:
        log = str(LOGS / f"{name}.jsonl")
        runs += [[*cli, "replay", log, "--ply", "6", "--size", SIZE, "--out", str(out / f"{name}.png")],
                 [*cli, "replay", log, "--out", str(out / f"{name}.glb")],
                 [*cli, "replay", log, "--out", str(out / f"{name}.html")]]
    return runs


def _hashes(out: Path) -> list[str]:
    skip = {"manifest.json", "print-report.md", ".lock"}  # times, the cache and the lock: not the outputs
    files = sorted(p for p in out.rglob("*") if p.is_file() and p.name not in skip)
    return [f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(out)}" for p in files]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="an empty or new folder for the outputs")
    parser.add_argument("--cli", default=str(Path(sys.executable).parent / "stratstone-cad"),
                        help="the command to run, e.g. 'python -m stratstone_cad' with PYTHONPATH at another checkout")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for command in _commands(args.out, shlex.split(args.cli)):
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    print("\n".join(_hashes(args.out)))


if __name__ == "__main__":
    main()
