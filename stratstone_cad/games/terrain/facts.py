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
KIT_QUADRANTS = ("sw", "se", "ne", "nw")
"""The quadrants a kit's four tiles lie in (games/terrain/kit.py)."""
KIT_PARAMETERS = {"print": "terrain.kit.print"}
"""The game has a kit of tiles that forms many maps: the parameter build --kit sets to true
(the kit printed in place of the one board); play --kit and record --kit play a map of it."""
"""What a heightmap file holds, for the flags' help."""

#: How a move is written in the log (and typed at record's prompt), with an example.
MOVE_TEXT = "'c1-c4' (move), 'c1xc5' (attack), 'e7-exit' (exit) or 'pass', with squares a1-j10"

SQUARE = f"[{FILES[0]}-{FILES[-1]}](?:{'|'.join([*map(str, range(SIZE, 9, -1)), '[1-9]'])})"
"""A square's grammar, a regular expression: the rules', the heightmap checks' and the log schema's."""


def _kit_schema() -> dict[str, object]:
    """The setup's optional ``kit`` field: the tiles that lay the heightmap."""
    return {
        "description": "Optional: the printed kit's tiles that lay the heightmap (build --kit): the kit "
                       "(its seed, border band and number of designs, terrain.kit.*) and, for each "
                       "quadrant, the design (its letter, engraved under the tile) and its turn (quarter "
                       "turns counterclockwise: the tile's arrow points north, west, south, east). The "
                       "engine refuses an arrangement that does not lay the heightmap.",
        "type": "object",
        "required": ["seed", "band", "designs", "tiles"],
        "additionalProperties": False,
        "properties": {
            "seed": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
            "band": {"type": "string", "pattern": "^[0-9]-[0-9]$"},
            "designs": {"type": "integer", "minimum": 2, "maximum": 12},
            "tiles": {
                "type": "object", "required": list(KIT_QUADRANTS), "additionalProperties": False,
                "properties": {q: {"type": "object", "required": ["design", "turn"],
                                   "additionalProperties": False,
                                   "properties": {"design": {"type": "string", "pattern": "^[A-L]$"},
                                                  "turn": {"type": "integer", "minimum": 0, "maximum": 3}}}
                               for q in KIT_QUADRANTS}}}}


def log_schema() -> dict[str, object]:
    """The game's entry in the log format (JSON Schema): what its header's players must be,
    the definitions of its setup and of its ply lines (stratstone_cad/log assembles the
    published schema from every game's)."""
    two = {"type": "object", "required": list(PLAYERS), "additionalProperties": False}
    return {
        "players": {"const": list(PLAYERS)},
        "setup": {
            "description": "The full heightmap (so a replay never depends on the generator) and the terrain seed it "
                           "was generated from; the other fields describe a hand-made start position. Sizes, levels "
                           "and the neighbour rule are checked by the engine (messages name the square).",
            "type": "object",
            "required": [MAP_FIELDS[0]],
            "additionalProperties": False,
            "properties": {
                MAP_FIELDS[1]: {
                    "description": "The seed terrain_map.generate() made the heightmap from, or null for a given "
                                   "heightmap. Informative: a replay uses the heightmap.",
                    "type": ["integer", "null"], "minimum": 0, "maximum": 2**63 - 1},
                MAP_FIELDS[0]: {
                    "description": f"{SIZE} rows of {SIZE} integer levels 0-20: heightmap[0] is rank 1, heightmap[0][0] "
                                   "is a1; orthogonal neighbours differ by at most 2.",
                    "type": "array", "items": {"type": "array"}},
                "kit": _kit_schema(),
                "pieces": {
                    "description": "Optional start position: square -> piece. Absent: the standard start (files "
                                   f"{FILES[START_FILES[0]]}-{FILES[START_FILES[-1]]} of ranks 1 and {SIZE}).",
                    "type": "object",
                    "propertyNames": {"$ref": "#/$defs/terrain_square"},
                    "additionalProperties": {"enum": [f"{p} {k}" for p in PLAYERS for k in KINDS]}},
                "first": {"description": f"Who plays ply 1 (default {PLAYERS[0]}).", "$ref": "#/$defs/terrain_side"},
                "score": {"description": "Points scored before ply 1 (default 0 each).", **two,
                          "properties": {p: {"type": "integer", "minimum": 0, "maximum": 2} for p in PLAYERS}},
                "exits": {"description": "Exits before ply 1 (default 0).", "type": "integer", "minimum": 0, "maximum": 1},
                "moves_played": {
                    "description": "Plies played before ply 1, counted towards the 200-move limit (default 0).",
                    "type": "integer", "minimum": 0, "maximum": 199},
            },
        },
        "ply": {
            "player": {"$ref": "#/$defs/terrain_side"},
            "properties": {
                "score": {"description": "Optional derived fact, checked: points of each side after the ply.", **two,
                          "properties": {p: {"type": "integer", "minimum": 0, "maximum": 9} for p in PLAYERS}},
                "captured": {
                    "description": "Optional derived fact, checked: the square emptied by an attack on this ply ([] for "
                                   "none).",
                    "type": "array", "items": {"$ref": "#/$defs/terrain_square"}, "maxItems": 1},
            },
        },
        "defs": {"terrain_square": {"type": "string", "pattern": f"^{SQUARE}$"}, "terrain_side": {"enum": list(PLAYERS)}},
    }
