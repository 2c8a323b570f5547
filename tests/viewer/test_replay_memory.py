"""The replay's memory follows what it shows, not the length of the log: a still
or a short range of plies of a 100,000-ply log costs about what the same export of a
10-ply log costs.

Why a difference and not the issue's 200 MB outright: PyVista, VTK and Mesa's software
OpenGL alone take most of that (a still of a 10-ply log peaks near 370 MB on the test
machine), so the bound is on what the log adds: at most 40 MB over the short log (before
the seek points, the 100k-ply still added about 180 MB, and it grew with the log: 3 GB at
1.15 million plies)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

EXTRA_MB = 40

# Runs the replay in a child and prints the child's peak RSS in KiB: measured in a fresh
# process, so that no earlier child of the test run counts.
MEASURE = """
import resource, subprocess, sys
r = subprocess.run([sys.executable, "-m", "stratstone_cad", "replay", *sys.argv[1:]], capture_output=True, text=True)
sys.stderr.write(r.stderr)
print(r.returncode, r.stdout.strip().replace(chr(10), " "))
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def _lost_turns(path, plies: int) -> None:
    """A Sage Stones log of ``plies`` lost turns (every roll a 1-2-3, rule G2), written directly."""
    players = ["yellow", "red"]
    header = {"format": "stratstone-cad/log", "version": 1, "game": "sage-stones", "rules": "sage-stones/1",
              "players": players, "seed": None, "setup": {"variant": "standard"}}
    dice = ("[1, 2, 3]", "[3, 2, 1]", "[2, 1, 3]")
    with open(path, "w") as f:
        f.write(json.dumps(header) + "\n")
        f.writelines(f'{{"ply": {i}, "player": "{players[(i - 1) % 2]}", "dice": {dice[i % 3]}, "move": "-"}}\n'
                     for i in range(1, plies + 1))


def _peak_mb(tmp_path, *args: str) -> tuple[float, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    r = subprocess.run([sys.executable, "-c", MEASURE, *args], capture_output=True, text=True, timeout=900, env=env,
                       cwd=tmp_path)
    status, peak = r.stdout.splitlines()
    assert status.startswith("0 wrote "), (status, r.stderr[-1500:])
    return int(peak) / 1024, status


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("memory")
    _lost_turns(tmp / "short.jsonl", 10)
    _lost_turns(tmp / "long.jsonl", 100_000)
    _peak_mb(tmp, str(tmp / "short.jsonl"), "--out", str(tmp / "warm.png"))  # the mesh cache filled, not measured
    return tmp


def test_a_still_of_a_long_log_costs_what_a_still_of_a_short_one_does(logs):
    short, _ = _peak_mb(logs, str(logs / "short.jsonl"), "--out", str(logs / "s.png"), "--ply", "5")
    long, said = _peak_mb(logs, str(logs / "long.jsonl"), "--out", str(logs / "l.png"), "--ply", "5")
    assert "100000 plies, the position after ply 5" in said
    assert long - short <= EXTRA_MB, f"a still of ply 5: {long:.0f} MB at 100k plies, {short:.0f} MB at 10"


def test_a_range_of_plies_of_a_long_log_costs_what_the_same_range_of_a_short_one_does(logs):
    gif = ("--size", "160x90", "--frames-per-ply", "2")
    short, _ = _peak_mb(logs, str(logs / "short.jsonl"), "--out", str(logs / "s.gif"), "--plies", "1-10", *gif)
    long, said = _peak_mb(logs, str(logs / "long.jsonl"), "--out", str(logs / "l.gif"), "--plies", "99991-100000", *gif)
    assert "100000 plies, 11 frames" in said  # a lost turn moves nothing: its two frames are one in the GIF
    assert long - short <= EXTRA_MB, f"a GIF of 10 plies: {long:.0f} MB at 100k plies, {short:.0f} MB at 10"
