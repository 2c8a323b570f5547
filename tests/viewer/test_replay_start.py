"""The start of a replay looks like the table before the first roll: Sage Stones' gems in
every player's hand beside the board, who moves first said, in the stills and the page."""

from __future__ import annotations

import numpy as np
import pytest

from stratstone_cad.viewer import gltf
from stratstone_cad.viewer import replay as R
from stratstone_cad.viewer.preview import project
from tests import LOGS
from tests.viewer.pixels import chroma, rgb
from tests.viewer.test_gltf import Glb, _expected


@pytest.fixture(scope="module")
def sage(_cache):
    return R.load(LOGS / "sage_stones_4.jsonl")


def test_every_gem_starts_in_its_players_hand_beside_the_board(sage):
    lo, hi = sage.board_bounds
    start = sage.rest(0)
    assert len(sage.pieces) == 40  # four players, ten gems each
    for pid in sage.pieces:
        x, y, z = start[pid]  # none hidden
        assert x < lo[0] or x > hi[0], pid  # beside the board, on the table
        assert lo[1] <= y <= hi[1] and z == 0.0, pid
    spots = [p[:2] for p in start.values()]
    assert len(set(spots)) == 40  # no two gems on one spot
    sides = {c: {start[p][0] < lo[0] for p in sage.pieces if sage.pieces[p].colour == c} for c in sage.players}
    assert all(len(s) == 1 for s in sides.values())  # a player's hand on one side


def test_the_start_shows_each_players_gems_beside_the_board_and_says_who_moves(sage):
    scene = R.Scene(sage, (960, 600))
    try:
        scene.show(0)
        image = scene.image().astype(float)
        lo, hi = sage.board_bounds
        left = max(project(scene.p, (lo[0], y, hi[2]))[0] for y in (lo[1], hi[1]))
        right = min(project(scene.p, (hi[0], y, hi[2]))[0] for y in (lo[1], hi[1]))
        caption = scene.overlays.caption.text
    finally:
        scene.close()
    flat = image / np.maximum(image.sum(axis=2, keepdims=True), 1)  # each pixel's chromaticity
    cols = np.arange(image.shape[1])[None, :].repeat(image.shape[0], axis=0)
    for colour in sage.players:
        want = chroma(rgb(sage.assets[f"gem-{colour}"].colour))
        mask = (np.abs(flat - want).sum(axis=2) < 0.08) & (image.sum(axis=2) > 60)
        beside = mask & ((cols < left) | (cols > right))
        assert beside.sum() > 2000, (colour, int(beside.sum()), int(mask.sum()))  # ten gems' worth of pixels
    assert "yellow to move" in caption


def test_the_page_starts_with_the_same_hands_and_caption(sage, tmp_path):
    path = tmp_path / "sage.glb"
    gltf.write_replay(sage, LOGS / "sage_stones_4.jsonl", path, 0.8)
    glb = Glb(path.read_bytes())
    nodes = glb.nodes()
    for pid in sage.pieces:
        assert np.allclose(glb.sample(nodes[pid], "scale", 0.0), 1), pid
        assert np.allclose(glb.sample(nodes[pid], "translation", 0.0), _expected(sage, pid, sage.rest(0)[pid]),
                           atol=2e-6), pid
    start = glb.doc["scenes"][0]["extras"]["start"]
    assert start[-1] == "yellow to move" and start[0].startswith("Sage Stones: start")
