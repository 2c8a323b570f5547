"""``replay puzzles.jsonl --puzzle N``: the picture and the line it prints say whose move it
is, whether to win or to save the game, and how deep; the answer only with --solution."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from stratstone_cad.analysis.puzzles import read_puzzle
from stratstone_cad.cli import main
from stratstone_cad.log import logfile as _log
from stratstone_cad.log.commands import play_records
from stratstone_cad.viewer import replay as R
from stratstone_cad.viewer.overlays.plan import Plan


@pytest.fixture(scope="module")
def puzzles(_cache, tmp_path_factory):
    """A puzzle file of one played Stratstone game (seed 2: yellow wins at ply 15 by the only winning move)."""
    folder = tmp_path_factory.mktemp("puzzles")
    log = folder / "g2.jsonl"
    _log.write_log(log, play_records("stratstone", 2, ["greedy", "random"]))
    out = folder / "puzzles.jsonl"
    assert main(["puzzles", str(log), "--out", str(out)]) == 0
    first = json.loads(out.read_text().splitlines()[0])
    assert (first["player"], first["kind"]) == ("yellow", "win")
    return out, first


def test_a_puzzle_says_who_moves_and_what_to_do_and_keeps_its_answer(puzzles, tmp_path):
    out, first = puzzles
    puzzle = read_puzzle(out, 1, tmp_path)
    assert puzzle.heading == "puzzle 1: yellow to move, win in one"
    assert str(puzzle.state.to_move()) == "yellow" and puzzle.solution == first["solution"]
    save = type(puzzle)(puzzle.log, 3, "red", "save", "a1", (1, 2, 3))
    assert save.heading == "puzzle 3: red to move (dice 1-2-3), save the game in one (any other move loses at once)"
    rep = R.load(puzzle.log)
    rep.puzzle = (puzzle.heading,)
    caption = R.scene._overlay(rep, rep.count)
    assert caption.splitlines()[0] == puzzle.heading and first["solution"] not in caption
    assert Plan(rep).ghost(rep.plies[-1]) == ([], [])  # no answer drawn unless asked for
    rep.answer = (puzzle.state, puzzle.solution)
    tubes, outlines = Plan(rep).ghost(rep.plies[-1])
    assert tubes and outlines  # the answer's sowing path, and its last square


def test_the_command_prints_the_task_and_the_solution_only_on_request(puzzles, tmp_path):
    out, first = puzzles

    def replay(*args):
        return subprocess.run([sys.executable, "-m", "stratstone_cad", "replay", str(out), "--puzzle", "1", *args],
                              capture_output=True, text=True, timeout=600)

    r = replay("--out", str(tmp_path / "p.png"), "--size", "320x200")
    assert r.returncode == 0, r.stderr[-1500:]
    assert r.stdout.splitlines()[0] == "puzzle 1: yellow to move, win in one" and "solution" not in r.stdout
    r = replay("--out", str(tmp_path / "s.png"), "--size", "320x200", "--solution")
    assert r.returncode == 0, r.stderr[-1500:]
    assert r.stdout.splitlines()[:2] == ["puzzle 1: yellow to move, win in one", f"solution: {first['solution']}"]
    r = subprocess.run([sys.executable, "-m", "stratstone_cad", "replay", str(out), "--solution"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--solution: only with --puzzle" in r.stderr
