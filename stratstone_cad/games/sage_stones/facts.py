"""Sage Stones' facts, each written once: the rules engine, the parts, the CAD code and the
viewer read them from here (through the engine's Game object where they have one).

Kept apart from :mod:`.rules` for start-up speed only: planning a build needs these few
names, and importing the engine (its ray tables) costs an unchanged rebuild about a
tenth of its time (docs/architecture.md).
"""

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
