"""Stratstone's facts, each written once: the rules engine, the parts, the CAD code and the
viewer read them from here (through the engine's Game object where they have one).

Kept apart from :mod:`.rules` for start-up speed only: planning a build needs these few
names, and importing the engine (its move tables) costs an unchanged rebuild about a
tenth of its time (docs/architecture.md).
"""

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
