"""Sage Stones' three dice on the table, the set's own die mesh: each ply's roll face up (the
face carrying each die's value on top), before the first roll see-through; in the window's
pictures and in the page, in a real Chromium."""

from __future__ import annotations

import numpy as np
import pytest

from stratstone_cad.viewer import replay as R
from stratstone_cad.viewer import web
from stratstone_cad.viewer.replay import dice as D
from tests import LOGS
from tests.viewer.test_gltf import Glb

LOG = LOGS / "sage_stones_4.jsonl"  # ply 1 rolls 1-3-2 (the turn is lost: nothing else moves), ply 2 3-1-1


@pytest.fixture(scope="module")
def sage(_cache):
    return R.load(LOG)


def _axis(face: str) -> np.ndarray:
    v = np.zeros(3)
    v["xyz".index(face[1])] = 1.0 if face[0] == "+" else -1.0
    return v


def _region(scene, rep) -> tuple[slice, slice]:
    """The pixels round the dice in the scene's image (each die's box projected)."""
    half = float(np.ptp(np.array(D._bounds(rep)), axis=0).max()) / 2
    pts = [scene.project(p + np.array([dx, dy, dz])) for p in D.places(rep)
           for dx in (-half, half) for dy in (-half, half) for dz in (-half, half)]
    cols, rows = [c for c, _ in pts], [r for _, r in pts]
    return slice(min(rows) - 3, max(rows) + 4), slice(min(cols) - 3, max(cols) + 4)  # and their anti-aliased edges


def test_the_picture_shows_each_plys_roll_face_up_on_the_dice(sage):
    assert [p.dice for p in sage.plies[:2]] == [(1, 3, 2), (3, 1, 1)]
    scene = R.Scene(sage, (640, 400))
    try:
        images = {}
        for ply in (0, 1, 2):
            scene.show(ply)
            images[ply] = scene.image().astype(float)
            actors = scene.dice.actors
            assert len(actors) == 3 and all(a.GetVisibility() for a in actors)
            for i, actor in enumerate(actors):
                m = np.array([[actor.GetUserMatrix().GetElement(r, c) for c in range(4)] for r in range(4)])
                if ply == 0:  # not rolled yet: as printed, see-through
                    assert actor.GetProperty().GetOpacity() < 1
                    continue
                value = sage.plies[ply - 1].dice[i]
                assert actor.GetProperty().GetOpacity() == 1.0
                up = m[:3, :3] @ _axis(sage.table.die_faces[value])
                assert up == pytest.approx([0.0, 0.0, 1.0], abs=1e-9), (ply, i, value)  # the value's face on top
                centre = m[:3, :3] @ D.die_centre(sage) + m[:3, 3]
                assert centre[:2] == pytest.approx(sage.table.dice[i][:2])  # on its spot, beside the board
        rows, cols = _region(scene, sage)
        lo, _ = sage.board_bounds
        assert all(y < lo[1] for _, y, _ in sage.table.dice)  # in front of the board's near edge
        for a, b in ((0, 1), (1, 2)):  # the dice look different when the roll does
            assert np.abs(images[a][rows, cols] - images[b][rows, cols]).mean() > 3, (a, b)
        outside = np.ones(images[0].shape[:2], bool)
        outside[rows, cols] = False
        outside[: int(0.3 * images[0].shape[0])] = False  # the caption
        assert np.abs(images[0] - images[1])[outside].max() < 1  # ply 1 lost its turn: only the dice change
    finally:
        scene.close()


def test_the_page_carries_each_plys_roll_and_turns_its_dice_to_it(sage, tmp_path):
    from tests.pages import Browser, chromium
    from tests.viewer.test_web import _drawn, _open

    glb = Glb(__import__("stratstone_cad.viewer.gltf", fromlist=["x"]).replay_glb(sage))
    extras = glb.doc["scenes"][0]["extras"]
    assert [p["dice"] for p in extras["plies"]] == [list(p.dice) for p in sage.plies]
    nodes = glb.nodes()
    assert extras["dice"]["nodes"] == ["die-1", "die-2", "die-3"] and all(n in nodes for n in extras["dice"]["nodes"])
    path = tmp_path / "sage.html"
    web.write_replay(sage, LOG, path)
    chromium()
    shots = {}
    with Browser((800, 500)) as b:
        for ply in (0, 1):
            _open(b, path, f"#ply={ply}")
            _drawn(b)
            shots[ply] = b.screenshot().astype(float)
        assert b.console_errors() == []
    h, w = shots[0].shape[:2]
    changed = np.abs(shots[0] - shots[1]).sum(axis=2) > 30
    changed[: h // 5] = False  # the caption says the ply
    changed[int(0.9 * h):] = False  # the slider moves
    rows, cols = np.nonzero(changed)
    assert len(rows) > 500  # the dice turned and came out of their see-through start
    assert rows.min() > h * 0.6 and w * 0.3 < cols.min() and cols.max() < w * 0.7  # below the board, in the middle
