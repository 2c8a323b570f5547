"""The overlays' colours, opacities and sizes, shared by the replay window and the shared
page (see :mod:`stratstone_cad.viewer.overlays` for why these colours)."""

from __future__ import annotations

from stratstone_cad.base.colours import rgb

PATH_COLOUR = "#e6007e"  # magenta: the move's path, the sowing, a trap, the attacker
MARK_COLOUR = "#00c4ee"  # cyan: the defender, the allowed column, the winning line, a special move
REACH_COLOUR = "#ffffff"  # white: a square within reach, lit
BAND_OPACITY = 0.35  # the allowed column's fill
REACH_OPACITY = 0.55  # a reachable square's light
GHOST_COLOUR = "#7cff3a"  # green: the best move, where the review classes the played one a mistake or a blunder
GHOST_OPACITY = 0.6
GHOST_PIECE_OPACITY = 0.5  # the ghost's piece: the piece itself, in its own colour, see-through, where it would rest
GHOSTED = ("mistake", "blunder")  # the classes whose ply shows the best move as a ghost
PANEL_OPACITY = 0.72  # the caption's white panel
TUBE = 0.07  # a path's radius, in cell pitches
RING = 0.47  # a winning stack's ring's radius, in cell pitches: round a stone as wide as its recess
RING_TUBE = 0.04  # its thickness (the tube's radius), in cell pitches
HALO = 0.3  # the radius of the ring over an attacker's or a defender's head, in cell pitches
HALO_TUBE = 0.045  # its thickness, in cell pitches
LIFT_MM = 0.4  # how far a drawing keeps above the surface it is drawn on
END = 0.42  # how far a trap's line stops short of the centres of the gems at its ends, in cell pitches


def unit_rgb(colour: str) -> tuple[float, float, float]:
    """``colour`` (``#rrggbb``) as red, green and blue from 0 to 1."""
    r, g, b = rgb(colour)
    return r / 255, g / 255, b / 255
