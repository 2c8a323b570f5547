"""The terrain game's facts, each written once: its engine, parts, CAD code and the viewer read them here
(apart from rules.py, whose import builds its neighbour tables: docs/architecture.md)."""

NAME = "terrain"
TITLE = "the terrain game"
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
MAP_FIELDS = ("heightmap", "terrain_seed")
"""The game is played on a map: the setup's fields that give it, the map itself (a heightmap)
and the seed of the engine's fair map it was generated from."""
MAP_FLAGS = {"seed": "--terrain-seed", "file": "--terrain", "board file": "--heightmap"}
"""The command line's flags for the map: a seed of the engine's fair maps (build, record),
a heightmap file a game is played on (play, record), and the board's heightmap file (build:
a JSON heightmap or a log whose header holds one)."""
MAP_PARAMETERS = {"seed": "terrain.board.seed", "board file": "terrain.board.heightmap"}
"""The board's parameters the build's map flags set."""
MAP_TEXT = "a JSON 10 x 10 list of levels (rank 1 first)"
"""What a heightmap file holds, for the flags' help."""

#: How a move is written in the log (and typed at record's prompt), with an example.
MOVE_TEXT = "'c1-c4' (move), 'c1xc5' (attack), 'e7-exit' (exit) or 'pass', with squares a1-j10"
