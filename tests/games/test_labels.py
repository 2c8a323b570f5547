"""Every registered game's board labels (its coordinates) can be read once printed."""

from __future__ import annotations

import pytest

from stratstone_cad.base.params import snap_depth
from stratstone_cad.registry import game_names


@pytest.mark.parametrize("game", game_names())
def test_labels_are_engraved_deep_and_wide_enough_to_read(game, params, profiles):
    """The board's coordinates: 4 layers deep at 0.30 mm, grooves three 0.4 mm extrusions wide."""
    b = params.params_of(game).board
    assert snap_depth(b.engrave_depth_mm, profiles["board"]) == pytest.approx(1.2)
    assert b.label_stroke_mm == pytest.approx(3 * 0.4)
