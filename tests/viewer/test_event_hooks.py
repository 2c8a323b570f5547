"""Every kind of event engine/events.py defines is worded, animated and drawn through a hook of its
own, and an event a game brings of its own gets the hooks' defaults: its words, its pieces
carried to where the ply leaves them, a loop round each square it names. Forgetting a hook
for a new kind of event fails here instead of leaving the move silently unshown."""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np
import pytest

from stratstone_cad.engine import events
from stratstone_cad.engine.events import Event, event_words
from stratstone_cad.engine.ledger import Named
from stratstone_cad.viewer.overlays.plan import Plan
from stratstone_cad.viewer.replay import load
from stratstone_cad.viewer.replay.timeline import Timeline
from tests import LOGS

MEMBERS = typing.get_args(Event)
SAMPLE = {"player": "red", "square": "b2", "stone": "red", "origin": "a1", "step": 1, "owner": "red", "by": "blue",
          "ends": ("a1", "c1"), "squares": ("b1",), "path": ("a1", "a2"), "target": "a2", "dice": (1, 2),
          "reason": "a reason", "winner": "red"}


def _sample(cls: type) -> object:
    fields = [f for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING]
    return cls(**{f.name: SAMPLE[f.name] for f in fields})


def _hook(kind: str) -> str:
    return kind.replace(" ", "_")


def test_the_event_union_holds_every_event_class_of_the_events_module():
    declared = {c for c in vars(events).values() if isinstance(c, type) and isinstance(getattr(c, "kind", None), str)}
    assert declared == set(MEMBERS)


@pytest.mark.parametrize("cls", MEMBERS, ids=lambda c: c.__name__)
def test_each_event_of_the_core_is_worded_animated_and_drawn_by_a_hook_of_its_own(cls):
    event = _sample(cls)
    assert event.words() and event_words(event) == event.words()
    assert f"on_{_hook(cls.kind)}" in vars(Timeline), f"Timeline has no on_{_hook(cls.kind)}"
    assert f"draw_{_hook(cls.kind)}" in vars(Plan), f"Plan has no draw_{_hook(cls.kind)}"


@dataclass(frozen=True, slots=True)
class Glowed:
    """A game's own event: the piece on ``square`` glows and is carried to ``to``."""

    kind: ClassVar[str] = "glowed"
    square: str
    to: str

    def words(self) -> str:
        return f"glows on {self.square} and goes to {self.to}"


@pytest.fixture(scope="module")
def terrain(_cache):
    return load(LOGS / "terrain_greedy.jsonl")


def _ply_with(rep, event: object):
    """The first ply of the terrain log with its events replaced by ``event``, about the piece it moved."""
    ply = rep.plies[0]
    piece = ply.named[0].pieces[0]
    return replace(ply, named=[Named(event, (piece,))]), piece


def test_a_games_own_event_is_said_in_its_own_words():
    assert event_words(Glowed("a1", "b2")) == "glows on a1 and goes to b2"


def test_a_games_own_event_is_drawn_as_a_loop_round_each_square_it_names(terrain):
    ply, _ = _ply_with(terrain, Glowed("c3", "d4"))
    plan = Plan(terrain)
    drawn = plan.draw(ply)
    loops = [t for t in drawn.tubes if len(t) == 5 and np.allclose(t[0], t[-1])]
    seats = terrain.table.seats
    centres = sorted(tuple(np.round(t[:4, :2].mean(axis=0), 6)) for t in loops)
    assert centres == sorted(tuple(np.round(seats[sq][:2], 6)) for sq in ("c3", "d4"))
    for t in loops:  # each loop round its cell, over the cell's top
        assert np.ptp(t[:, 0]) == pytest.approx(0.8 * plan.pitch) and np.ptp(t[:, 1]) == pytest.approx(0.8 * plan.pitch)


def test_a_games_own_event_carries_its_piece_to_where_the_ply_leaves_it(terrain):
    ply, piece = _ply_with(terrain, Glowed("c3", "d4"))
    before = terrain.rest(0)
    x, y, z = terrain.table.seats["d4"]
    rest = {**before, piece: (x, y, z + 5.0)}
    tl = Timeline(terrain, before, {})
    keys = tl.play(ply.named, rest)[piece]
    assert keys[0][1] == before[piece] and keys[-1] == (1.0, rest[piece])
    assert max(p[2] for _, p in keys if p is not None) > max(before[piece][2], rest[piece][2])  # lifted clear


def test_a_games_own_event_shows_in_a_still_and_in_the_scene_the_page_plays(terrain, tmp_path):
    """The loop the default drawing puts round a square is in the picture (where the
    loop's side projects, the still differs from the same ply without the event) and in
    the glTF scene the page plays (one more drawn mesh)."""
    from stratstone_cad.viewer import gltf
    from stratstone_cad.viewer.replay import Scene

    ply, _ = _ply_with(terrain, Glowed("e5", "e5"))
    plain, _ = _ply_with(terrain, events.Exited("red", "e5"))  # the same piece, a hooked event
    shots, glbs = [], []
    for p in (ply, plain):
        rep = replace(terrain, plies=[p])
        scene = Scene(rep, (640, 360))
        try:
            scene.show(1)
            x, y, _ = terrain.table.seats["e5"]
            h, z = 0.4 * Plan(rep).pitch, Plan(rep).top("e5")
            sides = [scene.project((x + h, y + f * h, z)) for f in (-0.5, 0.0, 0.5)]
            shots.append([scene.image()[r, c].astype(int) for c, r in sides])
        finally:
            scene.close()
        glbs.append(gltf.replay_glb(rep, 1.0))
    assert all(np.abs(a - b).sum() > 60 for a, b in zip(*shots, strict=True)), shots
    assert glbs[0] != glbs[1]
