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


def test_the_answer_is_the_piece_itself_translucent_where_it_would_rest_and_its_path(puzzles, tmp_path):
    """The ghost of a move (here puzzle 1's answer, a sowing from c3 that ends on b3; the
    review's best move is drawn by the same code): the stone sown last, itself, see-through,
    on top of b3's stack, with the path; in the window's picture and in the page."""
    from stratstone_cad.viewer import gltf
    from stratstone_cad.viewer.preview import project
    from tests.viewer.test_gltf import Glb

    out, _ = puzzles
    puzzle = read_puzzle(out, 1, tmp_path)
    assert puzzle.solution == "c3 SSWNN"
    rep = R.load(puzzle.log)
    rest = rep.rest(rep.count)
    on = lambda sq: sorted((p for p, at in rest.items() if at and at[:2] == rep.table.seats[sq][:2]),  # noqa: E731
                           key=lambda p: rest[p][2])
    scene = R.Scene(rep, (640, 400))
    try:
        scene.show(rep.count)
        plain = scene.image().astype(float)
        rep.answer = (puzzle.state, puzzle.solution)
        scene.overlays.ply, scene.shown = -1, None  # drawn again with the answer
        scene.show(rep.count)
        shown = scene.image().astype(float)
        pid, at = Plan(rep).ghost_piece(rep.plies[-1])
        assert pid == on("c3")[-1] and rep.pieces[pid].colour == "yellow"  # the top stone, the last one sown
        x, y, z = rep.table.seats["b3"]
        assert at == pytest.approx((x, y, z + sum(rep.heights[p] for p in on("b3"))))
        actor = scene.overlays.ghosts[2]
        assert actor.GetVisibility() and 0 < actor.GetProperty().GetOpacity() < 1
        assert tuple(actor.GetPosition()) == pytest.approx(tuple(a - b for a, b in zip(at, rep.anchors[pid], strict=True)))
        col, row = project(scene.p, (x, y, at[2] + rep.heights[pid]))
        patch = lambda im: im[row - 3:row + 4, col - 3:col + 4].reshape(-1, 3).mean(axis=0)  # noqa: E731
        assert abs(patch(shown) - patch(plain)).sum() > 30  # the ghost's piece is seen there
    finally:
        scene.close()
    glb = Glb(gltf.replay_glb(rep))
    draw = glb.doc["scenes"][0]["extras"]["plies"][-1]["draw"]
    assert draw["ghostPiece"]["node"] == pid and draw["ghost"] and draw["ghostSquare"]


def test_the_page_opens_at_the_puzzle_and_says_its_task_and_the_answer_only_on_request(puzzles, tmp_path):
    """``replay puzzles.jsonl --puzzle 1 --out p.html``, in a real Chromium: the page opens at
    the puzzle's position, its overlay says whose move it is, to win or save and how deep
    (the puzzle's heading), the solution only with --solution."""
    from tests.pages import Browser, chromium
    from tests.viewer.test_web import _open

    out, first = puzzles
    heading = read_puzzle(out, 1, tmp_path).heading
    pages = {}
    for name, extra in (("p", []), ("s", ["--solution"])):
        pages[name] = tmp_path / f"{name}.html"
        assert main(["replay", str(out), "--puzzle", "1", "--out", str(pages[name]), *extra]) == 0
    chromium()
    with Browser((800, 500)) as b:
        overlay = {}
        for name, path in pages.items():
            _open(b, path)
            assert b.js("location.hash") == "#ply=14"  # the position (after the 14 plies before it), not the start
            overlay[name] = b.js("document.getElementById('overlay').textContent").splitlines()
        assert b.console_errors() == []
    assert overlay["p"][0] == heading == "puzzle 1: yellow to move, win in one"
    assert overlay["p"][1].startswith("the position after ply 14/14 ")
    assert not any(first["solution"] in line for line in overlay["p"])
    assert overlay["s"][:2] == [heading, f"solution: {first['solution']}"]
