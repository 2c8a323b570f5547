"""``stratstone-cad replay``: an engine log as an animated 3D scene.

The package follows what a replay does: :mod:`.loading` checks the log and rebuilds its
plies on demand, :mod:`.timeline` turns a ply's events into keyframes, :mod:`.scene` is the
printed set on the table with its overlay, :mod:`.export` writes stills, GIFs and MP4s,
and :mod:`.window` is the interactive window. The names the rest of the package uses are
re-exported here.
"""

from stratstone_cad.viewer.replay.export import HOLD_S, OUT_KINDS, SHARED, check_out, export, frames
from stratstone_cad.viewer.replay.loading import GameOnTable, Plies, Ply, load
from stratstone_cad.viewer.replay.scene import COLOUR_MODES, Cells, Scene, level_colours
from stratstone_cad.viewer.replay.timeline import Timeline
from stratstone_cad.viewer.replay.window import bind, show_window

__all__ = ["COLOUR_MODES", "HOLD_S", "OUT_KINDS", "SHARED", "Cells", "GameOnTable", "Plies", "Ply", "Scene", "Timeline",
           "bind", "check_out", "export", "frames", "level_colours", "load", "show_window"]
