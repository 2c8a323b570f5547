"""The board base class names what a game's board must say about itself."""

from dataclasses import dataclass

import pytest

from stratstone_cad.geometry.boards import BoardParams, GridBoard

_SIZES = {"cell_pitch_mm": 30.0, "rim_width_mm": 12.0, "thickness_mm": 6.0, "corner_radius_mm": 4.0,
          "label_height_mm": 6.0, "label_stroke_mm": 1.0, "engrave_depth_mm": 0.6, "joint_clearance_mm": 0.2,
          "joint_width_mm": 10.0, "joint_length_mm": 6.0, "shell": True, "shell_top_layers": 3, "shell_wall_extrusions": 2}


@dataclass(frozen=True)
class _Board(BoardParams):
    PREFIX = "test.board"

    def grid(self) -> GridBoard:
        return GridBoard(4, 4, self.cell_pitch_mm, self.rim_width_mm, self.rim_width_mm, self.corner_radius_mm)

    def col_texts(self) -> list[str]:
        return list("abcd")

    def row_texts(self) -> list[str]:
        return ["1", "2", "3", "4"]


def test_a_board_that_says_its_grid_and_labels_is_made_and_checked():
    board = _Board(**_SIZES)
    assert board.grid().cols == 4 and board.col_texts() == ["a", "b", "c", "d"]


@pytest.mark.parametrize("missing", ["grid", "col_texts", "row_texts"])
def test_a_board_class_without_its_grid_or_labels_cannot_be_made(missing: str):
    body = {name: getattr(_Board, name) for name in ("grid", "col_texts", "row_texts") if name != missing}
    incomplete = dataclass(frozen=True)(type("Incomplete", (BoardParams,), {"PREFIX": "test.board", **body}))
    with pytest.raises(TypeError, match=f"abstract method.* {missing}"):
        incomplete(**_SIZES)
