"""The review in the replay's pictures: the evaluation strip painted under the scene (a
column a ply, lit to the first player's expected score; the classes' dots; the ply shown
marked), the class in the caption, and a saved review read back only for its own log."""

from __future__ import annotations

import numpy as np
import pytest

from stratstone_cad.analysis.review import PlyReview
from stratstone_cad.errors import LogError
from stratstone_cad.viewer.review_strip import CLASS_COLOURS, caption_line, load_review, paint_strip, strip_height

LIGHT = (235, 235, 235)
REVIEWS = [PlyReview(1, "yellow", "a1 NNE", "a1 NNE", "best", 0.5, 0.5, 40),
           PlyReview(2, "red", "d4 SSW", "c1 N", "blunder", 0.6, 0.1, 50),  # yellow's chance after it: 0.9
           PlyReview(3, "yellow", "b1 WN", "b1 WN", "best", 1.0, 1.0, 30)]


def test_the_strip_is_lit_to_the_first_players_score():
    w, h = 400, 300
    scene = np.zeros((h - strip_height(h), w, 3), np.uint8)
    frame = paint_strip(scene, REVIEWS, "yellow", 2, h)
    assert frame.shape == (h, w, 3) and (frame[:scene.shape[0]] == 0).all()  # the scene untouched above it
    strip = frame[scene.shape[0]:]
    edges = np.linspace(0, w, len(REVIEWS) + 2).round().astype(int)
    lit = [(strip[:, (edges[i] + edges[i + 1]) // 2 + 3] == LIGHT).all(axis=1).sum() for i in range(len(REVIEWS) + 1)]
    bar = strip.shape[0] - 4
    want = [round(bar * score) for score in (0.5, 0.5, 0.9, 1.0)]
    assert all(abs(n - k) <= 1 for n, k in zip(lit, want, strict=True)), (lit, want)  # the half's line covers one
    dots = [tuple(strip[1, (edges[i] + edges[i + 1]) // 2]) for i in (1, 2, 3)]
    assert dots[1] == CLASS_COLOURS["blunder"] and dots[0] not in CLASS_COLOURS.values()
    marked = {x for x in range(w) if tuple(strip[0, x]) == (60, 140, 255)}
    assert marked and min(marked) >= edges[2] - 1 and max(marked) <= edges[3]  # the ply shown, 2


def test_the_caption_names_the_class_and_the_best_move():
    assert caption_line(REVIEWS[1]) == "review: blunder, best c1 N, expected 0.60 -> 0.10"
    assert caption_line(REVIEWS[0]) == "review: best, expected 0.50 -> 0.50"


def test_a_saved_review_of_another_log_is_refused(tmp_path):
    import json

    saved = tmp_path / "review.jsonl"
    saved.write_text("".join(json.dumps(r.to_json()) + "\n" for r in REVIEWS))
    assert load_review(tmp_path / "unused.jsonl", saved, 3) == REVIEWS
    with pytest.raises(LogError, match="3 plies reviewed, the log has 5"):
        load_review(tmp_path / "unused.jsonl", saved, 5)
    saved.write_text("{}\n")
    with pytest.raises(LogError, match="line 1: not a ply"):
        load_review(tmp_path / "unused.jsonl", saved, 1)
