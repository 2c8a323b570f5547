"""Sage Stones' facts, each written once: its engine, parts, CAD code and the viewer read them here
(apart from rules.py, whose import builds its ray tables: docs/architecture.md)."""

NAME = "sage-stones"
TITLE = "Sage Stones"
COLUMNS = 7
"""Columns of the board, numbered 3-9 (the totals of three 3-sided dice)."""
ROWS = 9
"""Rows of the board, numbered 1-9."""
FIRST_COLUMN = 3
STONES = 10
"""Gems of each colour."""
COLOURS = ("yellow", "red", "blue", "green", "white", "black")
"""The players' colours, in the engine's order."""

#: How a move is written in the log (and typed at record's prompt), with an example.
MOVE_TEXT = "a square column-row with column 3-9 and row 1-9 (e.g. '5-7'), or '-'"
