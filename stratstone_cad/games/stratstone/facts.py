"""Stratstone's facts, each written once: its engine, parts, CAD code and the viewer read them here
(apart from rules.py, whose import builds its move tables: docs/architecture.md)."""

NAME = "stratstone"
TITLE = "Stratstone"
SIZE = 4
"""Cells per side of the board."""
FILES = "abcd"
"""The files' letters, a-d; ranks are numbered 1-4."""
PLAYERS = ("yellow", "red")
"""The players' colours, first to move first by default."""
NEUTRAL = "tan"
"""The neutral stones' colour."""
STONES_PER_PLAYER = 8
TAN_STONES = 8
SETS = (*PLAYERS, NEUTRAL)
"""The three colour sets as the printed parts order them: the players' first, the neutral last."""

#: How a move is written in the log (and typed at record's prompt), with an example.
MOVE_TEXT = "a square a1-d4, a space and 1-24 steps of N/E/S/W, e.g. 'b2 NNE'"
