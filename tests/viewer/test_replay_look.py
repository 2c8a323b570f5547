"""The replay's look (the scene reads at a glance): a board of levels coloured by
level, ``--colours print`` keeping the print colours, anti-aliased stills. Rendered off
screen at small sizes (Mesa's software OpenGL)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from stratstone_cad.viewer import replay as R
from tests import LOGS


@pytest.fixture(scope="module")
def terrain(_cache):
    return R.load(LOGS / "terrain_greedy.jsonl")


def _board_only(rep: R.GameOnTable, colours: str, size: tuple[int, int] = (480, 270)) -> tuple[np.ndarray, dict]:
    """The board alone (every piece hidden, so no piece or shadow covers a cell), and the
    pixel at each cell's centre: square -> (level, the mean colour of the 3 x 3 pixels there)."""
    scene = R.Scene(rep, size, colours=colours)
    try:
        scene.show(0)
        for actor in scene.actors.values():
            actor.SetVisibility(False)
        image = scene.image()
        at = {}
        for sq, (x, y, z) in rep.table.seats.items():
            col, row = scene.project((x, y, z))
            at[sq] = (rep.table.levels[sq], image[row - 1:row + 2, col - 1:col + 2].reshape(-1, 3).astype(float).mean(axis=0))
    finally:
        scene.close()
    return image, at


def test_the_terrains_levels_show_as_distinct_colours_at_the_cells_centres(terrain):
    """Each level one colour: the cells of a level alike within a few steps of 255, two
    levels' colours far apart; the legend in the upper right shows each level's swatch in
    its colour as given (unlit)."""
    image, at = _board_only(terrain, "levels")
    by_level: dict[int, list[np.ndarray]] = {}
    for level, rgb in at.values():
        by_level.setdefault(level, []).append(rgb)
    assert len(by_level) == 5  # the map of terrain_greedy.jsonl has levels 0 to 4
    means = {}
    for level, rgbs in by_level.items():
        spread = np.ptp(np.array(rgbs), axis=0).max()
        assert spread <= 12, (level, spread)  # the same colour, whatever the cell
        means[level] = np.mean(rgbs, axis=0)
    for a in means:
        for b in means:
            if a < b:
                assert np.linalg.norm(means[a] - means[b]) >= 40, (a, b, means[a], means[b])
    corner = image[: image.shape[0] // 2, image.shape[1] * 3 // 4:].reshape(-1, 3).astype(int)
    for level, colour in R.level_colours(by_level).items():
        want = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])
        assert (np.abs(corner - want).max(axis=1) <= 2).sum() >= 20, (level, colour)  # a swatch of it


def test_print_colours_keep_the_terrain_in_its_print_colour(terrain):
    """``--colours print``: every cell's top the board's print colour (its chromaticity:
    the light scales its brightness), the levels told apart only by their shading."""
    _, at = _board_only(terrain, "print")
    board = np.array([int(terrain.assets[terrain.table.board].colour[i:i + 2], 16) for i in (1, 3, 5)], float)
    for sq, (_, rgb) in at.items():
        assert np.abs(rgb / rgb.sum() - board / board.sum()).max() < 0.01, (sq, rgb)
    tops = np.array([rgb for _, rgb in at.values()])
    assert np.ptp(tops, axis=0).max() <= 12  # one colour on every cell


def test_the_colours_change_nothing_for_a_game_without_levels(_cache):
    rep = R.load(LOGS / "sage_stones_two_player.jsonl")
    images = []
    for colours in R.COLOUR_MODES:
        scene = R.Scene(rep, (320, 180), colours=colours)
        try:
            scene.show(rep.count)
            images.append(scene.image())
        finally:
            scene.close()
    assert np.array_equal(images[0], images[1])


def _edge_blend(image: np.ndarray) -> float:
    """The share of rows whose first pixel off the white background, from the left, is a
    blend of the background and what lies behind it (a step of the edge seen from an
    anti-aliased image), over the rows the scene covers."""
    grey = image[:, :, :3].astype(float).mean(axis=2)
    blended = rows = 0
    for line in grey:
        off = np.nonzero(line < 247)[0]
        if len(off) < 4:
            continue
        x = off[0]
        inner = line[x + 2]
        rows += 1
        blended += 0.2 < (255 - line[x]) / max(255 - inner, 1) < 0.8
    return blended / max(rows, 1)


def test_a_still_is_anti_aliased_and_an_animations_frame_is_not(terrain, tmp_path):
    """A PNG still is rendered twice the size and averaged down: along the board's slanted
    left edge many rows start with a pixel that blends the background and the board (with
    2 x 2 samples a pixel, about three rows in four could); an animation's frame, rendered
    at its size without multisampling, has next to none."""
    R.export(terrain, tmp_path / "still.png", size=(320, 180), ply=0)
    still = np.asarray(Image.open(tmp_path / "still.png").convert("RGB"))
    scene = R.Scene(terrain, (320, 180), smooth=False)
    try:
        scene.show(0)
        frame = scene.image()
    finally:
        scene.close()
    assert still.shape == frame.shape == (180, 320, 3)
    assert _edge_blend(still) >= 0.35, _edge_blend(still)
    assert _edge_blend(frame) <= 0.15, _edge_blend(frame)


def test_a_bad_colours_value_is_one_line(tmp_path):
    r = subprocess.run([sys.executable, "-m", "stratstone_cad", "replay", str(LOGS / "terrain_greedy.jsonl"), "--out",
                        str(tmp_path / "x.png"), "--colours", "grey"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "--colours: invalid choice: 'grey' (choose from 'levels', 'print')" in r.stderr
    assert not (tmp_path / "x.png").exists()


def test_the_caption_keeps_clear_of_the_corner_and_reads_at_a_small_size(terrain, tmp_path):
    """In a 640 x 360 still the caption's first dark pixels are 10 px or more from the top
    and left edges (they touched them), and a line's letters stand 14 px or more (about 10)."""
    R.export(terrain, tmp_path / "small.png", size=(640, 360), ply=3)
    image = np.asarray(Image.open(tmp_path / "small.png").convert("L")).astype(int)
    ink = image[:120, :240] < 100  # the caption's black letters in the upper left
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    assert rows[0] >= 10 and cols[0] >= 10, (rows[0], cols[0])
    runs, start = [], None  # the text's lines: runs of rows with ink
    for y in range(ink.shape[0] + 1):
        on = y < ink.shape[0] and ink[y].any()
        if on and start is None:
            start = y
        elif not on and start is not None:
            runs.append(y - start)
            start = None
    assert runs and max(runs) >= 14, runs


def test_the_board_stays_clear_of_a_caption_wrapped_onto_more_lines(_cache):
    """A long ply's words wrap onto five or more lines at 640 x 360 (the caption's letters
    20 px): the camera keeps every corner of the board's top out of the caption's box
    (with three lines kept clear, the rings of the winning line showed through it)."""
    rep = R.load(LOGS / "stratstone_win.jsonl")
    scene = R.Scene(rep, (640, 360), captions=[rep.count])
    try:
        scene.show(rep.count)
        caption = scene.overlays.caption
        lines = caption.wrap(R.scene._overlay(rep, rep.count)).split("\n")
        assert len(lines) > R.scene.TEXT_LINES
        right = caption.margin + max(caption.width(line) for line in lines)
        bottom = caption.height(len(lines))
        lo, hi = rep.board_bounds
        corners = np.array([[x, y, hi[2]] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])])
        for col, row in scene._pixels(corners):
            assert not (col < right and row < bottom), (col, row, right, bottom)
    finally:
        scene.close()
