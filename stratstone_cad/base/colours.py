"""The display colours of parts (``base/presets/colours.toml``): a colour name's sRGB, as
the plates' 3MF materials, the viewer and the studio show it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from stratstone_cad.base.params import show_value
from stratstone_cad.base.preset_files import PRESETS_DIR, load_toml
from stratstone_cad.errors import ParameterError


@dataclass(frozen=True)
class Colour:
    """A colour name's display colour in a plate (a 3MF base material), sRGB ``#RRGGBB``."""

    name: str
    srgb: str


def rgb(srgb: str) -> tuple[int, int, int]:
    """``#RRGGBB`` as its red, green and blue, each 0-255."""
    return int(srgb[1:3], 16), int(srgb[3:5], 16), int(srgb[5:7], 16)


BOARD_COLOUR = "board"  # the colours.toml entry of a part without a colour


def display_colour(colours: dict[str, Colour], name: str | None) -> str:
    """The ``#RRGGBB`` of colour ``name``: a part without a colour, or of one colours.toml
    does not name, shows as the board colour."""
    return (colours.get(name or BOARD_COLOUR) or colours[BOARD_COLOUR]).srgb


def load_colours(presets_dir: Path = PRESETS_DIR) -> dict[str, Colour]:
    """The display colours of ``presets/colours.toml``, by name.

    Raises:
        ParameterError: the file has no [colour] table with a board colour, or a colour is not "#RRGGBB".
    """
    path = presets_dir / "colours.toml"
    table = load_toml(path, "colours").get("colour")
    if not isinstance(table, dict) or BOARD_COLOUR not in table:
        raise ParameterError(f"colours {path}: expected a [colour] table with a \"board\" colour (for parts without one)")
    out = {}
    for name, value in table.items():
        if not isinstance(value, str) or not re.fullmatch(r"#[0-9A-Fa-f]{6}", value):
            raise ParameterError(f"colours {presets_dir / 'colours.toml'}: colour.{name} = {show_value(value)}: "
                                 "expected a colour as \"#RRGGBB\"")
        out[name] = Colour(name, value.upper())
    return out
