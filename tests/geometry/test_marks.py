"""The mark parameters, declared once for every marked part."""

import dataclasses
from dataclasses import dataclass

import pytest

from stratstone_cad.base.params import param
from stratstone_cad.errors import ParameterError
from stratstone_cad.geometry.marks import MarkParams, MarkSpec, mark_spec
from stratstone_cad.registry import get_parts


@dataclass(frozen=True)
class _Token(MarkParams):
    PREFIX = "test.token"
    MARK_COUNT = 2
    MARK_HELP = "engrave a mark on every token"
    MARKS_HELP = "mark of each colour"
    THE_MARK = "the token's mark"

    width_mm: float = param("width of a token", lo=5, hi=50)


def test_a_marked_part_gets_the_mark_fields_after_its_own_with_its_words():
    fields = {f.name: f for f in dataclasses.fields(_Token)}
    assert list(fields) == ["width_mm", "mark", "marks", "mark_size_mm", "mark_stroke_mm", "mark_depth_mm"]
    assert fields["mark"].metadata["doc"] == "engrave a mark on every token"
    assert fields["marks"].metadata["length"] == 2
    assert fields["mark_depth_mm"].metadata["doc"] == "depth of the token's mark, snapped to whole layers"
    token = _Token(width_mm=20.0, mark=True, marks=["ring", "cross"], mark_size_mm=8.0, mark_stroke_mm=1.0, mark_depth_mm=0.5)
    assert mark_spec(token, "ring") == MarkSpec("ring", 8.0, 1.0, 0.5)
    with pytest.raises(ParameterError, match=r"^test.token.marks = \['ring'\]: expected a list of 2 names from "):
        _Token(width_mm=20.0, mark=True, marks=["ring"], mark_size_mm=8.0, mark_stroke_mm=1.0, mark_depth_mm=0.5)


def test_every_marked_part_of_every_game_ends_with_the_mark_fields():
    marked = [cls for game in get_parts(None) for cls in game.sections.values() if issubclass(cls, MarkParams)]
    assert marked
    for cls in marked:
        assert [f.name for f in dataclasses.fields(cls)][-5:] == ["mark", "marks", "mark_size_mm", "mark_stroke_mm",
                                                                   "mark_depth_mm"]
