"""The terrain game's facts, each written once: the rules engine, the map generator, the
parts, the CAD code and the viewer read them from here (through the engine's Game object
where they have one).

Kept apart from :mod:`.rules` for start-up speed only: planning a build needs these few
names, and importing the engine (its neighbour tables) costs an unchanged rebuild about a
tenth of its time (docs/architecture.md).
"""

NAME = "terrain"
SIZE = 10
"""Squares per side: files a-j, ranks 1-10."""
FILES = "abcdefghij"
START_FILES = tuple(range(2, 8))
"""Files c-h (0-based 2-7): the six start squares of each side's start row."""
PLAYERS = ("red", "blue")
"""The sides, Red first; Red starts on rank 1, Blue on rank 10."""
KINDS = ("runner", "lancer", "guardian")
TITLES = ("Runner", "Lancer", "Guardian")
SYMBOLS = ("pentagon", "diamond", "triangle")
"""The symbol each kind of piece carries."""
STRENGTH = (1, 2, 3)
"""Strength of a Runner, a Lancer and a Guardian (also what an exit scores)."""
