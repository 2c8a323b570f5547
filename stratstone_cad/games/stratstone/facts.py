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

SQUARE = f"[{FILES[0]}-{FILES[-1]}][1-{SIZE}]"
"""A square's grammar, a regular expression: the rules' and the log schema's."""


def log_schema() -> dict[str, object]:
    """The game's entry in the log format (JSON Schema): what its header's players must be,
    the definitions of its setup and of its ply lines (stratstone_cad/log assembles the
    published schema from every game's)."""
    return {
        "players": {"const": list(PLAYERS)},
        "setup": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "first": {"description": "Who plays ply 1.", "enum": list(PLAYERS)},
                "stacks": {
                    "description": "Optional start position: square -> stack, bottom stone first. Absent: two tan "
                                   "stones on each corner.",
                    "type": "object",
                    "propertyNames": {"pattern": f"^{SQUARE}$"},
                    "additionalProperties": {"type": "array", "maxItems": 2 * STONES_PER_PLAYER + TAN_STONES,
                                             "items": {"enum": [NEUTRAL, *PLAYERS]}},
                },
            },
        },
        "ply": {
            "player": {"enum": list(PLAYERS)},
            "properties": {
                "in_hand": {
                    "description": "Optional derived fact, checked: stones each player still holds after the ply.",
                    "type": "object",
                    "required": list(PLAYERS),
                    "additionalProperties": False,
                    "properties": {p: {"type": "integer", "minimum": 0, "maximum": STONES_PER_PLAYER} for p in PLAYERS},
                },
            },
        },
        "defs": {},
    }
