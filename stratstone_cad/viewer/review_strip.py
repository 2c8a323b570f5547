"""The review in the replay's pictures (``replay LOG --review [FILE]``): an evaluation
strip along the bottom of every frame and the ply's class in the caption.

The strip is lichess's evaluation graph laid along the timeline: a column a ply, its
light part the first player's expected score after the ply (0-1, from the review's
``expected_after``, turned to the first player's side), a dark line at one half, the
ply shown marked, and a dot under each ply the review classes ``inaccuracy`` (yellow),
``mistake`` (orange) or ``blunder`` (red). With more than two players one score says
nothing of the others', so a column is the mover's own expected score, lit in the
mover's colour, and the line is at an even share (1/N). It is painted on the rendered
frame (numpy pixels), so the PNG, GIF and MP4 show the same strip; the window draws the
same pixels under its scene, and the shared page (FILE.html) draws the same columns from
its extras (:func:`page_review`).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from stratstone_cad.analysis.review import CLASSES, PlyReview, review_log
from stratstone_cad.base.colours import display_colour, load_colours, rgb
from stratstone_cad.base.fileio import read_user_file
from stratstone_cad.errors import LogError, counted, short_repr
from stratstone_cad.log.logfile import walk_log

__all__ = ["CLASS_COLOURS", "caption_line", "check_review_line", "columns", "first_player_score", "load_review",
           "page_review", "paint_strip",
           "ply_review", "strip_height", "strip_pixels"]

LIGHT = (235, 235, 235)
"""A column's lit part, two players."""
CLASS_COLOURS = {"inaccuracy": (240, 200, 40), "mistake": (240, 130, 20), "blunder": (220, 30, 30)}
"""The dot under a ply of these classes (RGB)."""
STRIP_KEY = ("strip along the bottom: a column a ply, its height the first player's expected score (more players: the "
             "mover's, in the mover's colour), the ply shown marked; dots yellow inaccuracy, orange mistake, red blunder")
"""The strip's key, the last part of the caption's key line where a replay has a review."""
STRIP_FRACTION = 0.07
"""The strip's height, as a fraction of the frame's."""
REVIEW_FILE_LIMIT = 64 * 2**20


def load_review(log: Path, saved: Path | None, budget: int | None = None) -> list[PlyReview]:
    """The review of the log ``log``: read from ``saved`` (what ``check-log --review --json``
    wrote; it must be of this log, ply by ply: :func:`check_review_line`) or made now with
    ``budget`` simulations a ply (None: the game's own, as check-log --review).

    Raises:
        LogError: the review file is not the review of this log.
    """
    if saved is None:
        return list(review_log(log, budget))
    with walk_log(log) as w:
        logged = [(step.player, step.move) for step in w]
        players = list(w.header.players)
    data = read_user_file(saved, "review file", REVIEW_FILE_LIMIT, "the output of check-log --review --json", LogError)
    reviews = []
    for n, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        try:
            obj = json.loads(line)
            review = PlyReview.from_json(obj)
        except (ValueError, KeyError, TypeError, AttributeError):
            raise LogError(f"review file {saved} line {n}: not a ply of check-log --review --json") from None
        why = check_review_line(obj, review, n, players, logged)
        if why is not None:
            raise LogError(f"review file {saved} line {n}: {why}; expected the review of this log "
                           "(check-log --review --json)")
        reviews.append(review)
    if len(reviews) != len(logged):
        raise LogError(f"review file {saved}: {counted(len(reviews), 'ply', 'plies')} reviewed, the log has "
                       f"{len(logged)}: expected the review of this log (check-log --review --json)")
    return reviews


def check_review_line(obj: dict[str, object], review: PlyReview, n: int, players: Sequence[str],
                      logged: Sequence[tuple[str, str]]) -> str | None:
    """What is wrong with line ``n`` of a saved review (``obj`` as read, ``review`` made of
    it) for a log of ``players`` whose plies were ``logged`` (mover, move), or None."""
    if type(obj["ply"]) is not int or review.ply != n:
        return f"ply {short_repr(obj['ply'])}: expected {n} (the plies in order from 1)"
    if n > len(logged):
        return f"ply {n}: the log has {counted(len(logged), 'ply', 'plies')}"
    mover, move = logged[n - 1]
    if review.player not in players:
        return f"player {short_repr(review.player)}: not a player of this game ({', '.join(players)})"
    if review.player != mover:
        return f"player {short_repr(review.player)}: not the log's mover of ply {n} ({mover})"
    if review.move != move:
        return f"move {short_repr(review.move)}: not the log's move of ply {n} ({short_repr(move)})"
    if review.cls not in CLASSES:
        return f"class {short_repr(review.cls)}: expected one of {', '.join(CLASSES)}"
    for name in ("expected_before", "expected_after"):
        value = getattr(review, name)
        if type(obj[name]) not in (int, float) or not (math.isfinite(value) and 0 <= value <= 1):
            return f"{name} {short_repr(obj[name])}: expected a number from 0 to 1"
    legal = obj.get("legal_moves", 0)
    if type(legal) is not int or legal < 0:
        return f"legal_moves {short_repr(legal)}: expected a number of legal moves"
    return None


def first_player_score(review: PlyReview, first: str) -> float:
    """The first player's expected score after the ply (two players: the other's is 1 - it)."""
    return review.expected_after if review.player == first else 1.0 - review.expected_after


def caption_line(review: PlyReview) -> str:
    """``review: mistake, best c1 N, expected 0.62 -> 0.45``: the ply's review in the caption."""
    best = "" if review.cls in ("best", "forced") or review.best == review.move else f", best {review.best}"
    return f"review: {review.cls}{best}, expected {review.expected_before:.2f} -> {review.expected_after:.2f}"


def strip_height(height: int) -> int:
    """The strip's height in pixels under a frame ``height`` pixels high (the scene gets the rest)."""
    return max(12, int(height * STRIP_FRACTION))


def columns(reviews: Sequence[PlyReview], players: Sequence[str]) -> list[tuple[float, tuple[int, int, int]]]:
    """Each column's height (0-1) and colour, the start first: two players, the first
    player's score in light grey; more, the mover's own score in the mover's colour (an
    even share at the start)."""
    if len(players) <= 2:
        return [(0.5, LIGHT), *((first_player_score(r, players[0]), LIGHT) for r in reviews)]
    return [(1 / len(players), LIGHT), *((r.expected_after, _shown_colour(r.player)) for r in reviews)]


@functools.cache
def _shown_colour(player: str) -> tuple[int, int, int]:
    """A player's display colour (RGB), ``presets/colours.toml`` read once a process: the
    strip is painted on every frame of a film."""
    return rgb(display_colour(load_colours(), player))


def paint_strip(image: np.ndarray, reviews: Sequence[PlyReview], players: Sequence[str], ply: int,
                height: int) -> np.ndarray:
    """``image`` (the scene, H x W x 3 uint8) with the evaluation strip added under it, ``ply``
    marked: a frame ``height`` pixels high (``H`` + :func:`strip_height`)."""
    return np.vstack([image, strip_pixels(reviews, players, ply, image.shape[1], height - image.shape[0])])


def strip_pixels(reviews: Sequence[PlyReview], players: Sequence[str], ply: int, w: int, sh: int) -> np.ndarray:
    """The evaluation strip, ``sh`` x ``w`` x 3 uint8 (rows from the top), ``ply`` marked:
    what :func:`paint_strip` adds under a frame and the replay window draws under its scene."""
    strip = np.empty((sh, w, 3), np.uint8)
    strip[:] = (40, 40, 40)
    n = max(1, len(reviews))
    edges = np.linspace(0, w, n + 2).round().astype(int)  # column 0 is the start, an even share
    bar = sh - 4
    for i, (score, colour) in enumerate(columns(reviews, players)):
        light = round(bar * score)
        strip[sh - 2 - light:sh - 2, edges[i]:max(edges[i] + 1, edges[i + 1])] = colour
    strip[sh - 2 - round(bar / max(2, len(players))), :] = (120, 120, 120)  # an even share
    d = max(2, sh // 6)
    for i, r in enumerate(reviews, 1):
        colour = CLASS_COLOURS.get(r.cls)
        if colour is not None:
            cx = (edges[i] + edges[i + 1]) // 2
            strip[:2 * d, max(0, cx - d):cx + d] = colour
    x0, x1 = edges[min(ply, n)], edges[min(ply, n) + 1]
    for x in (x0, x1):
        strip[:, max(0, x - 1):x + 1] = (60, 140, 255)
    return strip


def page_review(reviews: Sequence[PlyReview], players: Sequence[str]) -> dict[str, object]:
    """The strip as the shared page's player draws it (the same columns, line and dots as
    :func:`strip_pixels`, in CSS colours): ``columns`` [height 0-1, colour] from the start,
    ``even`` the line's height, ``classes`` the dots' colours."""
    return {"columns": [[round(score, 4), _css(colour)] for score, colour in columns(reviews, players)],
            "even": round(1 / max(2, len(players)), 4), "classes": {k: _css(v) for k, v in CLASS_COLOURS.items()}}


def ply_review(review: PlyReview) -> dict[str, object]:
    """A ply's review in the shared page's extras: its class, best move, the mover's
    expected score before and after, and the caption's line."""
    return {"class": review.cls, "best": review.best, "before": round(review.expected_before, 4),
            "after": round(review.expected_after, 4), "caption": caption_line(review)}


def _css(colour: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*colour)
