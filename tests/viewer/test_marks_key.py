"""Every mark a replay draws has a key: the caption's last line names each mark of the ply
shown by its colour (the window, the pictures and the page say the same), and the
evaluation strip's key is there wherever the strip is."""

from __future__ import annotations

import pytest

from stratstone_cad.analysis.review import PlyReview
from stratstone_cad.viewer import gltf
from stratstone_cad.viewer import replay as R
from stratstone_cad.viewer.overlays.plan import Plan
from stratstone_cad.viewer.replay.scene import KEY_MIN_WIDTH
from tests import LOGS, golden_logs
from tests.viewer.test_gltf import Glb

GAMES = golden_logs()
#: a drawing's field, when it holds something, and what the key must then say
NAMED = {"tubes": "magenta", "halos": "magenta ring the attacker, cyan ring the defender", "band": "cyan band",
         "rings": "cyan rings the winning line", "lit": "white squares", "stars": "cyan star"}


@pytest.fixture(scope="module")
def loaded(_cache):
    return {g: R.load(LOGS / f) for g, f in GAMES.items()}


@pytest.mark.parametrize("game", list(GAMES))
def test_each_mark_drawn_is_named_in_the_key(game, loaded):
    rep = loaded[game]
    plan = Plan(rep, reach=True)
    seen = set()
    for p in list(rep.plies)[:40] + list(rep.plies)[-2:]:
        d, key = plan.draw(p), plan.key(p)
        for name, words in NAMED.items():
            if any(x is not None for x in getattr(d, name)):
                assert words in key, (game, p.number, name, key)
                seen.add(name)
        assert ("blue frame" in key) == bool(p.squares), (game, p.number, key)
        assert ("orange frame" in key) == (len(p.squares) == 2), (game, p.number, key)
    assert seen  # every game draws some marks


def test_the_caption_and_the_page_carry_the_key_and_the_strips(loaded):
    rep = loaded["terrain"]
    k = next(p.number for p in rep.plies if any(n.event.kind == "attacked" for n in p.named))
    scene = R.Scene(rep, (KEY_MIN_WIDTH, 720), reach=True)
    try:
        scene.show(k)
        caption = scene.overlays.caption.text
    finally:
        scene.close()
    key = Plan(rep, reach=True).key(rep.plies[k - 1])
    assert caption.splitlines()[-1] == key and "magenta ring the attacker" in key and "cyan star" in key
    rep.review = [PlyReview(p.number, p.player, p.move, p.move, "mistake" if p.number == 3 else "best", 0.5, 0.5, 2)
                  for p in rep.plies]
    try:
        extras = Glb(gltf.replay_glb(rep)).doc["scenes"][0]["extras"]
    finally:
        rep.review = None
    assert extras["plies"][k - 1]["key"].startswith(key)
    assert all("dots yellow inaccuracy, orange mistake, red blunder" in p["key"] for p in extras["plies"])
    assert "strip along the bottom" in extras["start"][-1]
