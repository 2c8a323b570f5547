"""The replay explains each ply: the engine's words in the caption, and on the
board what the rules counted, read from the ply's events. Rendered off screen at 640 x 360
(the size the text must read at); a drawing is found by the colour of the pixel where the
point it passes through projects."""

from __future__ import annotations

import json

import numpy as np
import pytest

from stratstone_cad.engine.events import Attacked, DiceRolled, GameOver, Moved, sum_text
from stratstone_cad.games.terrain import rules as terrain
from stratstone_cad.viewer import replay as R
from stratstone_cad.viewer.overlays import style as O
from stratstone_cad.viewer.overlays.plan import options
from tests import LOGS, golden_logs
from tests.viewer.pixels import check_winning_rings, ring_points
from tests.viewer.pixels import is_colour as _is
from tests.viewer.pixels import occupied as _occupied

SIZE = (800, 450)  # text stands 20 px high at least: at 640 x 360 the chips crowd a 24-square board
GAMES = golden_logs()  # each registered game and its golden log


@pytest.fixture(scope="module")
def loaded(_cache):
    return {g: R.load(LOGS / f) for g, f in GAMES.items()}


def _without_pieces(scene) -> np.ndarray:
    """The scene as shown, rendered with every piece (and so its shadow) and the halos over
    the pieces hidden."""
    for actor in (*scene.actors.values(), *scene.overlays.halos):
        actor.SetVisibility(False)
    return scene.image()


# ------------------------------------------------------------------------- the terrain game


def test_the_path_walked_shows_at_each_square_and_each_step_cost_at_the_square_it_enters(loaded):
    """Every ply that walks: at the centre of each square of the path the tube's axis
    projects to a pixel of the path's colour (the pieces hidden, and the halos over them: one
    standing in front of a square hides it in the scene); each step's cost (or what kind of step it was) is
    labelled inside the square it enters, in order."""
    rep = loaded["terrain"]
    table, pitch = rep.table, rep.table.pitch_mm
    lift = O.TUBE * pitch + O.LIFT_MM
    scene = R.Scene(rep, SIZE)
    try:
        checked = 0
        for ply in rep.plies:
            walks = [n.event for n in ply.named if isinstance(n.event, Moved)]
            if not walks:
                continue
            scene.show(ply.number)
            image = _without_pieces(scene)
            for sq in dict.fromkeys(q for w in walks for q in w.path):
                x, y, z = table.seats[sq]
                col, row = scene.project((x, y, z + lift))
                assert _is(image[row, col], O.PATH_COLOUR), (ply.move, sq, image[row, col])
                checked += 1
            want = [(b, str(w.costs[k]) if w.costs else w.special) for w in walks
                    for k, b in enumerate(w.path[1:])]
            shown = scene.overlays.steps.shown
            assert [t for _, t in shown] == [t for _, t in want], ply.move
            for (point, _), (sq, _) in zip(shown, want, strict=True):
                x, y, _ = table.seats[sq]
                assert abs(point[0] - x) < pitch / 2 and abs(point[1] - y) < pitch / 2, (ply.move, sq, point)
        assert checked >= 50
    finally:
        scene.close()


def _terrain_log(tmp_path, name: str, pieces: dict[str, str], move: str, levels: dict[str, int] | None = None):
    """A one-ply terrain log from a hand-built position on a map flat but for ``levels``."""
    rows = [[0] * 10 for _ in range(10)]
    for sq, level in (levels or {}).items():
        f, r = terrain.parse_square(sq)
        rows[r][f] = level
    header = {"format": "stratstone-cad/log", "version": 1, "game": "terrain", "rules": "terrain/1",
              "players": ["red", "blue"], "seed": None, "setup": {"heightmap": rows, "pieces": pieces}}
    log = tmp_path / f"{name}.jsonl"
    log.write_text(json.dumps(header) + "\n" + json.dumps({"ply": 1, "player": "red", "move": move}) + "\n")
    return log, terrain.TerrainState.from_setup(header["setup"])


ATTACKS = {  # the move, the position, the map, then the two sums counted by hand
    "from above": ("c4xc5", {"c4": "red runner", "c5": "blue lancer", "a1": "red guardian", "j10": "blue runner"},
                   {"c4": 1}, 2, 2),
    "from below, helpers on both sides": (
        "c4xc5", {"c4": "red guardian", "c5": "blue guardian", "d5": "red runner", "b5": "blue runner",
                  "c6": "red lancer", "j10": "blue runner"}, {"c5": 1}, 5, 4),
    "the charge": ("c1xc5", {"c1": "red lancer", "c5": "blue guardian", "a1": "red runner", "j10": "blue runner"},
                   {}, 3, 3),
}


@pytest.mark.parametrize("case", list(ATTACKS))
def test_an_attack_shows_both_sums_term_by_term_and_rings_both_pieces(case, tmp_path, _cache):
    """Hand-built attacks: the caption carries both sums term by term as the engine's
    Attacked event has them, their totals are the hand counts, each total is labelled
    beside a halo over its piece's square (the attacker's, the defender's)."""
    move, pieces, levels, attack, defence = ATTACKS[case]
    log, state = _terrain_log(tmp_path, case.split(",")[0].replace(" ", "-"), pieces, move, levels)
    _, events = state.apply(move)
    (att,) = [e for e in events if isinstance(e, Attacked)]  # the engine's own numbers
    assert (sum(t.value for t in att.attack), sum(t.value for t in att.defence)) == (attack, defence)
    rep = R.load(log)
    scene = R.Scene(rep, SIZE)
    try:
        scene.show(1)
        caption = " ".join(scene.overlays.caption.actor.GetInput().split())  # as drawn, lines joined
        assert f"attack {sum_text(att.attack)} against {sum_text(att.defence)}" in caption
        for t in (*att.attack, *att.defence):
            assert f"{t.what} {abs(t.value)}" in caption
        assert [t for _, t in scene.overlays.sums[0].shown] == [f"attack {attack}"]
        assert [t for _, t in scene.overlays.sums[1].shown] == [f"defence {defence}"]
        for halo, sq in zip(scene.overlays.halos, (att.square, att.target), strict=True):
            assert halo.GetVisibility() and halo.GetPosition()[:2] == pytest.approx(rep.table.seats[sq][:2])
        image = scene.image()
        for halo, colour in zip(scene.overlays.halos, (O.PATH_COLOUR, O.MARK_COLOUR), strict=True):
            x, y, z = halo.GetPosition()
            r = 0.3 * rep.table.pitch_mm  # the halo's ring, round its centre
            seen = [image[row, col] for col, row in (scene.project((x + r * np.cos(a), y + r * np.sin(a), z))
                                                     for a in np.linspace(0, 2 * np.pi, 16, endpoint=False))]
            assert sum(_is(px, colour) for px in seen) >= 8, (colour, seen[:3])
    finally:
        scene.close()


def test_the_reach_lights_each_square_with_its_cost_stars_the_special_moves_and_marks_the_exit(tmp_path, _cache):
    """With reach on, the squares the piece to move could reach are the engine's ``reach``
    of its square before the ply: each lit with its cost, a Runner's jump and diagonal
    steps starred, an exit an arrow on the rim labelled with its cost; off, none of it."""
    pieces = {"e5": "red runner", "c8": "red lancer", "j1": "blue runner"}
    levels = {"e6": 4, "e7": 2, "e5": 2, "d6": 2, "f6": 4, "f5": 2, "g6": 2, "f7": 2}
    log, state = _terrain_log(tmp_path, "reach", pieces, "e5-e7", levels)
    rep = R.load(log)
    opts = options(state, [n.event for n in rep.plies[0].named])
    assert {tuple(o) for o in opts} >= {("e7", "jump", "special"), ("d6", "diagonal step", "special"),
                                        ("e4", "3 points", "move"), ("f5", "1 point", "move")}
    assert len(opts) == len(state.reach("e5"))
    scene = R.Scene(rep, SIZE, reach=True)
    try:
        scene.show(1)
        image = scene.image()
        plain = [o for o in opts if o.kind in ("move", "attack")]
        assert sorted(t for _, t in scene.overlays.costs.shown) == sorted(o.cost.split()[0] for o in plain)
        specials = [o for o in opts if o.kind == "special"]
        assert scene.overlays.stars.GetVisibility() and scene.overlays.stars.GetMapper().GetInput().GetNumberOfCells() > 0
        for o in specials:  # a star's middle, on its square (one not under the piece that moved there)
            if o.square == "e7":
                continue
            x, y, _ = rep.table.seats[o.square]
            col, row = scene.project((x, y, scene.overlays.top(o.square) + O.LIFT_MM))
            assert _is(image[row, col], O.MARK_COLOUR), (o, image[row, col])
    finally:
        scene.close()
    # an exit: the Runner on c7 reaches the far edge with 3 points; the arrow is on the rim beyond c10
    log, state = _terrain_log(tmp_path, "exit", {"c7": "red runner", "a1": "red lancer", "j1": "blue runner"}, "c7-exit")
    rep = R.load(log)
    assert ("c10", "3 points", "exit") in {tuple(o) for o in options(state, [n.event for n in rep.plies[0].named])}
    scene = R.Scene(rep, SIZE, reach=True)
    off = R.Scene(rep, SIZE)
    try:
        scene.show(1)
        off.show(1)
        (point, text), = [(p, t) for p, t in scene.overlays.costs.shown if t.startswith("exit")]
        assert text == "exit 3" and point[1] > rep.table.seats["c10"][1] + rep.table.pitch_mm / 2  # beyond the cells
        assert not off.overlays.costs.shown and not off.overlays.lit.GetVisibility()
    finally:
        scene.close()
        off.close()


# ------------------------------------------------------------------------- Sage Stones


def test_the_allowed_column_is_highlighted_and_no_other(loaded):
    """Every ply whose dice allow a column: each empty well of that column shows the band's
    cyan (blue well over red), each empty well of the columns beside it shows none."""
    rep = loaded["sage-stones"]
    scene = R.Scene(rep, SIZE)
    try:
        checked = 0
        for ply in rep.plies[::2]:
            (dice,) = [n.event for n in ply.named if isinstance(n.event, DiceRolled)]
            if dice.column is None:
                continue
            scene.show(ply.number)
            image = scene.image()
            traps = {q for n in ply.named if n.event.kind == "trapped" for q in n.event.squares}  # under a trap's line
            empty = set(rep.table.seats) - _occupied(rep, ply.number) - traps
            for column in range(3, 10):
                for sq in (f"{column}-{r}" for r in range(1, 10)):
                    if sq not in empty or abs(column - dice.column) > 1:
                        continue
                    x, y, _ = rep.table.seats[sq]
                    col, row = scene.project((x, y, rep.table.tops[sq]))
                    r, _, b = (int(v) for v in image[row, col])
                    if column == dice.column:
                        assert b - r > 40, (ply.number, dice.column, sq, image[row, col])
                        checked += 1
                    else:
                        assert b - r < 15, (ply.number, dice.column, sq, image[row, col])
        assert checked >= 50
    finally:
        scene.close()


def test_each_trap_is_drawn_from_the_gem_placed_to_the_far_one_before_the_trapped_gems_lift(loaded):
    """A trap's line passes over each trapped gem's well while it is still there, at the
    start of the ply; it stops short of the two gems at its ends, whose colours show."""
    from stratstone_cad.engine.events import Trapped

    rep = loaded["sage-stones"]
    scene = R.Scene(rep, SIZE)
    try:
        traps = [(p, n.event) for p in rep.plies for n in p.named if isinstance(n.event, Trapped)]
        assert len(traps) >= 4
        for ply, trap in traps:
            scene.show(ply.number, 0.02)  # the gem placed is dropping, the trapped ones still in their wells
            image = scene.image()
            z = max(rep.table.tops[q] for q in (*trap.ends, *trap.squares)) + 0.5 * scene.overlays.tallest + O.LIFT_MM
            for sq in trap.squares:
                x, y, _ = rep.table.seats[sq]
                col, row = scene.project((x, y, z))
                assert _is(image[row, col], O.PATH_COLOUR), (ply.move, sq, image[row, col])
    finally:
        scene.close()


# ------------------------------------------------------------------------- Stratstone


def test_the_sowing_path_is_numbered_and_the_winning_line_rings_its_four_stacks_once_the_ply_is_done(loaded):
    """The sowing: each sown square labelled with its step number(s), in its cell. The end:
    the top stone of each square of the winning line ringed in cyan (most of the ring's
    points show it), no other stack ringed; during the last ply, no ring yet."""
    rep = loaded["stratstone"]
    table, pitch = rep.table, rep.table.pitch_mm
    last = rep.plies[-1]
    (over,) = [n.event for n in last.named if isinstance(n.event, GameOver)]
    line = {q for ln in over.lines for q in ln}
    assert len(line) == 4
    scene = R.Scene(rep, SIZE)
    try:
        scene.show(rep.count)
        sown = [n.event for n in last.named if n.event.kind == "sown"]
        want: dict[str, list[str]] = {}
        for e in sown:
            want.setdefault(e.square, []).append(str(e.step))
        shown = {}
        for point, text in scene.overlays.steps.shown:
            (sq,) = [q for q, (x, y, _) in table.seats.items() if abs(point[0] - x) < pitch / 2 and abs(point[1] - y) < pitch / 2]
            shown[sq] = text
        assert shown == {sq: ", ".join(n) for sq, n in want.items()}

        def ringed(image, sq: str) -> int:
            x, y, _ = table.seats[sq]
            z = scene.overlays.stack_top(sq, last.rest) - 0.03 * pitch
            points = ring_points(x, y, z, O.RING * pitch)
            return sum(_is(image[row, col], O.MARK_COLOUR) for col, row in map(scene.project, points))

        image = scene.image()
        check_winning_rings(lambda sq: ringed(image, sq), table.seats, line, _occupied(rep, rep.count))
        scene.show(rep.count, 0.5)
        image = scene.image()
        assert all(ringed(image, sq) == 0 for sq in line)
    finally:
        scene.close()


# ------------------------------------------------------------------------- the caption


@pytest.mark.parametrize("game", list(GAMES))
def test_the_caption_says_each_ply_in_the_engines_words_wrapped_to_the_image(game, loaded):
    """Under the move line, the engine's explanation (``check-log --explain``'s words);
    every line drawn fits the room left of the legend, at 640 x 360 and at 1280 x 720."""
    from stratstone_cad.log.commands import explain_log

    rep = loaded[game]
    said = {int(line.split(" ", 1)[0]): line.split(" ", 1)[1] for line in explain_log(LOGS / GAMES[game])
            if line[0].isdigit()}
    for size in (SIZE, (1280, 720)):
        scene = R.Scene(rep, size)
        try:
            caption = scene.overlays.caption
            for ply in range(1, rep.count + 1):
                scene.show(ply)
                p = rep.plies[ply - 1]
                drawn = caption.actor.GetInput().split("\n")
                assert all(caption.width(line) <= caption.right - caption.margin for line in drawn), (ply, drawn)
                assert " ".join(" ".join(drawn).split()) == " ".join(scene._text(ply, True).split())  # and the key
                lines = R.scene._overlay(rep, ply).split("\n")
                assert lines[0].startswith(f"ply {ply}/")
                if ply < rep.count:
                    assert lines[1] == p.explain
                else:  # the result on its own line, the last
                    assert lines[1] and lines[1] in p.explain and rep.result not in lines[1] and lines[-1] == rep.result
                assert said[ply].startswith(f"{p.player} {p.move}: ") and said[ply].endswith(p.explain)
        finally:
            scene.close()


def test_the_reach_is_on_in_the_window_and_off_in_exports_unless_asked(tmp_path, monkeypatch, _cache):
    """``replay --reach`` / ``--no-reach``: the window lights the reach unless told not to,
    an export only when told to."""
    from stratstone_cad.cli import main

    asked = []
    monkeypatch.setattr(R, "show_window", lambda rep, *a, reach, **kw: asked.append(("window", reach)))
    monkeypatch.setattr(R, "export", lambda rep, out, *, reach, **kw: asked.append(("export", reach)) or 1)
    log = str(LOGS / "terrain_passes.jsonl")
    for flags in ([], ["--reach"], ["--no-reach"]):
        assert main(["replay", log, *flags]) == 0
        assert main(["replay", log, "--out", str(tmp_path / "x.png"), *flags]) == 0
    assert asked == [("window", True), ("export", False), ("window", True), ("export", True), ("window", False),
                     ("export", False)]
