"""The review in the replay's pictures: the evaluation strip painted under the scene (a
column a ply, lit to the first player's expected score; the classes' dots; the ply shown
marked), the class in the caption, and a saved review read back only for its own log."""

from __future__ import annotations

from pathlib import Path

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
    frame = paint_strip(scene, REVIEWS, ["yellow", "red"], 2, h)
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


def test_with_more_players_a_column_is_the_movers_own_score_in_the_movers_colour():
    """Three players: ply 2's mover, red, expects 0.9 after it; one score says nothing of the
    two others', so its column is red's 0.9 in red, and the line marks an even third."""
    from stratstone_cad.base.colours import display_colour, load_colours, rgb

    reviews = [PlyReview(1, "yellow", "5-5", "5-5", "best", 0.4, 0.4, 12),
               PlyReview(2, "red", "3-3", "3-3", "best", 0.9, 0.9, 12),
               PlyReview(3, "blue", "4-4", "7-7", "mistake", 0.3, 0.15, 12)]
    w, h = 400, 300
    scene = np.zeros((h - strip_height(h), w, 3), np.uint8)
    strip = paint_strip(scene, reviews, ["yellow", "red", "blue"], 3, h)[scene.shape[0]:]
    edges = np.linspace(0, w, len(reviews) + 2).round().astype(int)
    bar = strip.shape[0] - 4
    colours = load_colours()
    for i, (score, colour) in enumerate([(1 / 3, LIGHT), *((r.expected_after, rgb(display_colour(colours, r.player)))
                                                           for r in reviews)]):
        column = strip[:, (edges[i] + edges[i + 1]) // 2 + 3]
        assert abs((column == colour).all(axis=1).sum() - round(bar * score)) <= 1, (i, colour)
    line = [y for y in range(strip.shape[0]) if tuple(strip[y, 1]) == (120, 120, 120)]
    assert line == [strip.shape[0] - 2 - round(bar / 3)]


def test_the_caption_names_the_class_and_the_best_move():
    assert caption_line(REVIEWS[1]) == "review: blunder, best c1 N, expected 0.60 -> 0.10"
    assert caption_line(REVIEWS[0]) == "review: best, expected 0.50 -> 0.50"


def test_a_saved_review_of_another_log_is_refused(tmp_path, capsys):
    import json

    log, review = _game_and_review(tmp_path, capsys)
    saved = tmp_path / "review.jsonl"
    saved.write_text("".join(json.dumps(r) + "\n" for r in review[:3]))
    with pytest.raises(LogError, match=f"3 plies reviewed, the log has {len(review)}"):
        load_review(log, saved)
    saved.write_text("{}\n")
    with pytest.raises(LogError, match="line 1: not a ply"):
        load_review(log, saved)


def test_replay_review_draws_the_strip_and_the_caption(tmp_path, _cache, capsys):
    """replay LOG --review FILE --out x.png: a frame of the asked size whose bottom rows are
    the strip (the start column at one half), the class in the caption; the shared page
    takes it too; a review of another log is refused in one line."""
    import json

    from PIL import Image

    from stratstone_cad.cli import main
    from stratstone_cad.log import logfile as _log
    from stratstone_cad.log.commands import play_records

    log = tmp_path / "game.jsonl"
    _log.write_log(log, play_records("stratstone", 3, ["greedy", "random"]))
    saved = tmp_path / "review.jsonl"
    assert main(["check-log", "--review", str(log), "--budget", "8", "--json"]) == 0
    saved.write_text(capsys.readouterr().out)
    png = tmp_path / "x.png"
    assert main(["replay", str(log), "--review", str(saved), "--out", str(png), "--ply", "2", "--size", "320x180"]) == 0
    image = np.asarray(Image.open(png).convert("RGB"))
    sh = strip_height(180)
    assert image.shape == (180, 320, 3)
    strip = image[180 - sh:]
    assert (strip[-1] == (40, 40, 40)).all(axis=1).sum() > 200  # the strip's dark frame
    assert (strip[sh - 3, 2] == LIGHT).all() and (strip[1, 2] == (40, 40, 40)).all()  # the start: lit to one half
    capsys.readouterr()
    assert main(["replay", str(log), "--review", str(saved), "--out", str(tmp_path / "x.html")]) == 0  # the page too
    saved.write_text(json.dumps(json.loads(saved.read_text().splitlines()[0])) + "\n")
    assert main(["replay", str(log), "--review", str(saved), "--out", str(png), "--ply", "1"]) == 2
    assert "1 ply reviewed, the log has" in capsys.readouterr().err


def _blundered(tmp_path, cls: str = "blunder") -> tuple[Path, list[PlyReview]]:
    """A short Stratstone game (greedy against random) and a review of it that classes ply 2
    ``cls`` with another legal move as the best."""
    from stratstone_cad.log import logfile as _log
    from stratstone_cad.log.commands import play_records
    from stratstone_cad.registry import get_game

    log = tmp_path / "game.jsonl"
    records = play_records("stratstone", 3, ["greedy", "random"])
    _log.write_log(log, records)
    plies = [r for r in records if "ply" in r]
    header = records[0]
    state, _ = get_game("stratstone").initial_state(header["players"], header["setup"]).apply(plies[0]["move"])
    best = next(str(m) for m in state.legal_moves() if str(m) != plies[1]["move"])
    return log, [PlyReview(r["ply"], r["player"], r["move"], best if r["ply"] == 2 else r["move"],
                           cls if r["ply"] == 2 else "best", 0.5, 0.1 if r["ply"] == 2 else 0.5, 5) for r in plies]


def test_the_glb_carries_each_plys_review_and_the_ghost_only_where_the_move_was_a_blunder(tmp_path, _cache):
    """replay --review --out x.glb: each ply's class, best move, scores and caption line; the
    strip's columns (the start first, one a ply) and its dots' colours; the best move's
    ghost in ply 2's drawings (a blunder) and in no other; without a review, none of it."""
    from stratstone_cad.viewer import replay as R
    from stratstone_cad.viewer.gltf import replay_glb
    from stratstone_cad.viewer.overlays.style import GHOST_COLOUR

    def extras(glb: bytes) -> dict:
        import json

        n = int.from_bytes(glb[12:16], "little")
        return json.loads(glb[20:20 + n])["scenes"][0]["extras"]

    log, reviews = _blundered(tmp_path)
    rep = R.load(log)
    plain = extras(replay_glb(rep))
    rep.review = reviews
    seen = extras(replay_glb(rep))
    assert "review" not in plain and all("review" not in p for p in plain["plies"]) and "ghost" not in plain["overlay"]
    assert [p["review"]["class"] for p in seen["plies"]] == [r.cls for r in reviews]
    two = seen["plies"][1]["review"]
    assert two == {"class": "blunder", "best": reviews[1].best, "before": 0.5, "after": 0.1,
                   "caption": caption_line(reviews[1])}
    assert [p["ply"] for p in seen["plies"] if "ghost" in p.get("draw", {})] == [2]
    assert seen["plies"][1]["draw"]["ghostSquare"] and seen["overlay"]["ghost"] == GHOST_COLOUR
    assert len(seen["review"]["columns"]) == len(reviews) + 1 and seen["review"]["columns"][0] == [0.5, "#ebebeb"]
    assert seen["review"]["columns"][2][0] == 0.9  # ply 2: red's 0.1, yellow's 0.9
    assert seen["review"]["classes"]["blunder"] == "#dc1e1e"


def test_the_window_draws_the_strip_under_its_scene(tmp_path, _cache):
    """The replay window with a review (its Scene and bind, off screen here): the window
    grows by the strip, whose pixels are the pictures' strip for the ply shown, and follow
    the keys; the scene above keeps its size."""
    from stratstone_cad.viewer import replay as R
    from stratstone_cad.viewer.review_strip import strip_pixels

    log, reviews = _blundered(tmp_path)
    rep = R.load(log)
    rep.review = reviews
    scene = R.Scene(rep, (320, 200), off_screen=True)
    controls = R.bind(scene, per_ply=2, fps=10)
    w, h = scene.p.window_size
    assert w == 320 and h - strip_height(h) == 200 > h - 1 - strip_height(h - 1)  # the scene as big as asked
    for step in (0, 1, 1):
        for _ in range(step):
            controls.next()
        shot = scene.p.screenshot(return_img=True)
        assert shot.shape == (h, 320, 3)
        assert (shot[200:] == strip_pixels(reviews, rep.players, controls.ply, 320, h - 200)).all(), controls.ply
    assert controls.ply == 2


def test_the_shared_page_shows_the_strip_the_class_and_the_ghost(tmp_path, _cache):
    """replay --review --out x.html in a real browser: the strip shown along the timeline with
    the blunder's red dot, the class in the overlay, the ghost drawn at the blunder's ply and
    at no other; a click on the strip goes to its ply, ``#ply=N`` still lands; a page
    without a review shows no strip."""
    import io

    from PIL import Image

    from stratstone_cad.viewer import replay as R
    from stratstone_cad.viewer import web
    from tests.pages import Browser, chromium

    log, reviews = _blundered(tmp_path)
    rep = R.load(log)
    plain = tmp_path / "plain.html"
    web.write_replay(rep, log, plain)
    rep.review = reviews
    page = tmp_path / "reviewed.html"
    web.write_replay(rep, log, page)
    chromium()
    with Browser((800, 500)) as b:
        b.open(page.as_uri() + "#ply=2")
        b.wait("window.stratstone && window.stratstone.ready")
        assert b.js("window.stratstone.ply()") == 2 and b.console_errors() == []
        assert caption_line(reviews[1]) in b.js("document.getElementById('overlay').textContent")
        assert {"ghost", "ghost-square"} <= set(b.js("window.stratstone.drawn()"))
        png = b.page.locator("#strip").screenshot(type="png")
        strip = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
        w = strip.shape[1]
        edges = np.linspace(0, w, len(reviews) + 2).round().astype(int)
        dot = strip[1, (edges[2] + edges[3]) // 2]
        assert np.abs(dot - CLASS_COLOURS["blunder"]).max() < 8, dot
        assert np.abs(strip[1, (edges[3] + edges[4]) // 2] - (40, 40, 40)).max() < 8  # ply 3: best, no dot
        box = b.js("(() => { const r = document.getElementById('strip').getBoundingClientRect();"
                   " return [r.left, r.top, r.width, r.height]; })()")
        b.page.mouse.click(box[0] + box[2] * (len(reviews) + 0.5) / (len(reviews) + 1), box[1] + box[3] / 2)
        assert b.js("window.stratstone.ply()") == len(reviews) and b.js("location.hash") == f"#ply={len(reviews)}"
        assert not {"ghost", "ghost-square"} & set(b.js("window.stratstone.drawn()"))
        b.open(plain.as_uri() + "#ply=2")
        b.wait("window.stratstone && window.stratstone.ready")
        assert b.js("document.getElementById('strip').hidden") is True
        assert "review:" not in b.js("document.getElementById('overlay').textContent")


def test_a_blunder_shows_the_best_move_as_a_ghost(tmp_path, _cache, capsys):
    """replay --review: where the review classes a ply a blunder, the still of that ply
    shows the best move in the ghost's green (its sowing and the square it ends on); the
    same review calling it the best move shows none."""
    import dataclasses
    import json

    from PIL import Image

    from stratstone_cad.cli import main

    log, blundered = _blundered(tmp_path)
    best = blundered[1].best

    def still(cls: str, code: int = 0) -> np.ndarray:
        reviews = [dataclasses.replace(r, cls=cls, best=best) if r.ply == 2 else r for r in blundered]
        saved = tmp_path / f"{cls}.jsonl"
        saved.write_text("".join(json.dumps(r.to_json()) + "\n" for r in reviews))
        png = tmp_path / f"{cls}.png"
        assert main(["replay", str(log), "--review", str(saved), "--out", str(png), "--ply", "2",
                     "--size", "320x180"]) == code
        return np.asarray(Image.open(png).convert("RGB")).astype(int)

    def green(image: np.ndarray) -> int:
        r, g, b = image[..., 0], image[..., 1], image[..., 2]
        return int(((g > 170) & (g > r + 50) & (g > b + 70)).sum())

    assert green(still("best")) < 10 < 100 < green(still("blunder"))
    capsys.readouterr()
    best = "d4 SSSS"  # a review of another game: its best move is no move here
    (tmp_path / "blunder.png").unlink()
    with pytest.raises(FileNotFoundError):
        still("blunder", code=2)  # and no picture written
    assert capsys.readouterr().err == ("stratstone-cad: error: review: ply 2: best move 'd4 SSSS' is not legal there; "
                                       "expected the review of this log (check-log --review --json)\n")


def _game_and_review(tmp_path, capsys) -> tuple[Path, list[dict]]:
    """A short Stratstone game and its review as check-log --review --json writes it."""
    import json

    from stratstone_cad.cli import main
    from stratstone_cad.log import logfile as _log
    from stratstone_cad.log.commands import play_records

    log = tmp_path / "game.jsonl"
    _log.write_log(log, play_records("stratstone", 3, ["greedy", "random"]))
    assert main(["check-log", "--review", str(log), "--budget", "4", "--json"]) == 0
    return log, [json.loads(line) for line in capsys.readouterr().out.splitlines()]


@pytest.mark.parametrize(("field", "value", "message"), [
    ("move", "a1 NNE", "move 'a1 NNE': not the log's move of ply 2"),
    ("player", "blue", "player 'blue': not a player of this game"),
    ("player", "yellow", "player 'yellow': not the log's mover of ply 2"),
    ("class", "brilliant", "class 'brilliant': expected one of best, excellent"),
    ("expected_before", float("nan"), "expected_before nan: expected a number from 0 to 1"),
    ("expected_after", -0.5, "expected_after -0.5: expected a number from 0 to 1"),
    ("expected_after", 1.5, "expected_after 1.5: expected a number from 0 to 1"),
    ("ply", 99, "ply 99: expected 2 (the plies in order from 1)"),
    ("legal_moves", -1, "legal_moves -1: expected a number of legal moves"),
])
def test_every_field_of_a_saved_review_is_checked_and_its_line_named(tmp_path, capsys, field, value, message):
    import json

    log, review = _game_and_review(tmp_path, capsys)
    saved = tmp_path / "review.jsonl"
    saved.write_text("".join(json.dumps(r) + "\n" for r in review))
    assert [r.to_json() for r in load_review(log, saved)] == review
    review[1][field] = value
    saved.write_text("".join(json.dumps(r) + "\n" for r in review))
    with pytest.raises(LogError) as e:
        load_review(log, saved)
    assert str(e.value).startswith(f"review file {saved} line 2: {message}"), str(e.value)


def test_a_saved_review_of_another_game_with_as_many_plies_is_refused(tmp_path, capsys):
    import json

    from stratstone_cad.log import logfile as _log
    from stratstone_cad.log.commands import play_records

    _, review = _game_and_review(tmp_path, capsys)
    other = tmp_path / "other.jsonl"
    records = play_records("stratstone", 5, ["random", "random"])
    _log.write_log(other, records)
    saved = tmp_path / "review.jsonl"
    saved.write_text("".join(json.dumps(r) + "\n" for r in review))
    with pytest.raises(LogError, match=f"review file {saved} line [0-9]+: move"):
        load_review(other, saved)
