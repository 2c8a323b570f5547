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

SQUARE = f"[{FIRST_COLUMN}-{FIRST_COLUMN + COLUMNS - 1}]-[1-{ROWS}]"
"""A square's grammar, a regular expression: the log schema's."""
DICE = 3
"""Dice rolled a ply, each with faces 1-3."""


def log_schema() -> dict[str, object]:
    """The game's entry in the log format (JSON Schema): the definitions of its setup and
    of its ply lines, and its colours and squares (stratstone_cad/log assembles the
    published schema from every game's)."""
    return {
        "players": None,  # the colours at the table, or two ids in the two-player variant: the engine checks
        "setup": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "variant": {"enum": ["standard", "two-player"]},
                "colours": {
                    "description": "Two-player variant only: the 4 colours in turn order; colour i belongs to "
                                   "players[i % 2].",
                    "type": "array", "items": {"$ref": "#/$defs/sage_colour"}, "minItems": 4, "maxItems": 4,
                    "uniqueItems": True,
                },
                "board": {
                    "description": "Optional start position: square -> colour. Absent: an empty board.",
                    "type": "object",
                    "propertyNames": {"$ref": "#/$defs/sage_square"},
                    "additionalProperties": {"$ref": "#/$defs/sage_colour"},
                },
                "first": {"description": "The colour that rolls first.", "$ref": "#/$defs/sage_colour"},
            },
        },
        "ply": {
            "player": {"$ref": "#/$defs/id"},
            "required": ["dice"],
            "properties": {
                "dice": {
                    "description": "The three dice of this ply, in the order rolled.",
                    "type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 3}, "minItems": DICE,
                    "maxItems": DICE,
                },
                "captured": {
                    "description": "Optional derived fact, checked: squares emptied by traps on this ply.",
                    "type": "array",
                    "items": {"$ref": "#/$defs/sage_square"},
                    "maxItems": COLUMNS * ROWS,
                    "uniqueItems": True,
                },
                "on_board": {
                    "description": "Optional derived fact, checked: stones of each colour on the board after the ply.",
                    "type": "object",
                    "propertyNames": {"$ref": "#/$defs/sage_colour"},
                    "additionalProperties": {"type": "integer", "minimum": 0, "maximum": STONES},
                },
            },
        },
        "defs": {"sage_colour": {"enum": list(COLOURS)}, "sage_square": {"type": "string", "pattern": f"^{SQUARE}$"}},
    }
