"""The dice on the table: a game that rolls dice (Sage Stones' three, "roll 3d3") shows the
set's printed dice, their own mesh, in a row in front of the board (where its
:class:`~stratstone_cad.assets.table.Table` puts them), each ply's roll face up: the value
the log records for each die turns that die so that the face carrying the value (the
table's ``die_faces``) is on top. At the start, before the first roll, the dice stand as
printed, see-through: not rolled yet.

A die is turned about its centre; each stands a little askew (:data:`YAW`), as dice thrown
on a table do, the same way on every ply so that only a change of value moves one. The
turns are worked out here without VTK: the window's actors (:class:`DiceActors`) and the
shared page (the glTF's extras, :func:`page_dice`) take the same matrices.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

#: Each die's turn about the vertical (degrees), by its place in the row: askew, not aligned.
YAW = (9.0, -14.0, 22.0, -5.0, 17.0, -20.0, 4.0, -11.0, 13.0)
#: How opaque a die is before the first roll (1 once rolled).
UNROLLED_OPACITY = 0.35


def _axis_up(face: str) -> np.ndarray:
    """The rotation (3 x 3) that turns the outward axis ``face`` (``"+x"``) of a die to +z."""
    sign = 1.0 if face[0] == "+" else -1.0
    if face[1] == "z":
        return np.eye(3) if sign > 0 else np.diag([1.0, -1.0, -1.0])
    if face[1] == "x":  # about y, by -90 degrees for +x
        return np.array([[0.0, 0.0, -sign], [0.0, 1.0, 0.0], [sign, 0.0, 0.0]])
    return np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -sign], [0.0, sign, 0.0]])  # about x, by +90 degrees for +y


def turn(table: Any, index: int, value: int | None) -> np.ndarray:
    """Die ``index``'s rotation (3 x 3, millimetres, Z up) showing ``value`` on top (None: as
    printed, before a roll), turned askew by its :data:`YAW`."""
    up = np.eye(3) if value is None else _axis_up(table.die_faces[value])
    a = math.radians(YAW[index % len(YAW)])
    yaw = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])
    return yaw @ up


def _bounds(rep: Any) -> tuple[np.ndarray, np.ndarray]:
    """The die mesh's lower and upper corners (mm)."""
    from stratstone_cad.viewer.meshes import asset_mesh

    lo, hi = asset_mesh(rep.assets[rep.table.die]).bounds()
    return np.asarray(lo, float), np.asarray(hi, float)


def die_centre(rep: Any) -> np.ndarray:
    """The centre of the die's mesh (mm): what it is turned about."""
    lo, hi = _bounds(rep)
    return (lo + hi) / 2


def places(rep: Any) -> list[np.ndarray]:
    """Where each die's centre is (mm): its spot on the table, half a die up."""
    lo, hi = _bounds(rep)
    return [np.array([x, y, z + (hi[2] - lo[2]) / 2]) for x, y, z in rep.table.dice]


def shows_dice(rep: Any) -> bool:
    """Whether the game's table has dice (and the set a die to show them with)."""
    return bool(rep.table.dice) and rep.table.die in rep.assets


def roll(rep: Any, ply: int) -> Sequence[int] | None:
    """The dice of ``ply`` (0: the start, none rolled)."""
    return rep.plies[ply - 1].dice if ply else None


def matrix(table: Any, index: int, value: int | None, centre: np.ndarray, place: np.ndarray) -> np.ndarray:
    """Die ``index``'s 4 x 4 placement (mm): its mesh turned about its ``centre`` to show
    ``value`` and moved onto its ``place`` (:func:`places`)."""
    m = np.eye(4)
    r = turn(table, index, value)
    m[:3, :3] = r
    m[:3, 3] = place - r @ centre
    return m


class DiceActors:
    """The window's dice: one actor per die, the set's die mesh, added once; :meth:`show`
    turns them to a ply's roll."""

    def __init__(self, plotter: Any, rep: Any) -> None:
        from stratstone_cad.viewer.meshes import asset_mesh
        from stratstone_cad.viewer.preview import polydata

        self.rep = rep
        self.actors: list[Any] = []
        self.values: tuple[int | None, ...] = ()
        if not shows_dice(rep):
            return
        asset = rep.assets[rep.table.die]
        mesh = polydata(asset_mesh(asset))
        self.centre, self.places = die_centre(rep), places(rep)
        for i in range(len(rep.table.dice)):
            self.actors.append(plotter.add_mesh(mesh, color=asset.colour, smooth_shading=True, split_sharp_edges=True,
                                                specular=0.3, name=f"die-{i + 1}"))
        self.values = (0,) * len(self.actors)  # none shown yet

    def show(self, ply: int) -> None:
        """The dice as ``ply`` rolled them (0: not rolled yet: as printed, see-through)."""
        if not self.actors:
            return
        from vtkmodules.vtkCommonMath import vtkMatrix4x4

        rolled = roll(self.rep, ply)
        values = tuple(rolled[i] if rolled and i < len(rolled) else None for i in range(len(self.actors)))
        if values == self.values:
            return
        for i, (actor, value) in enumerate(zip(self.actors, values, strict=True)):
            m = vtkMatrix4x4()
            for r, row in enumerate(matrix(self.rep.table, i, value, self.centre, self.places[i])):
                for c, v in enumerate(row):
                    m.SetElement(r, c, float(v))
            actor.SetUserMatrix(m)
            actor.GetProperty().SetOpacity(1.0 if value is not None else UNROLLED_OPACITY)
        self.values = values


def page_dice(rep: Any) -> dict[str, Any] | None:
    """The page's dice (the glTF's extras): each die's node, and for each die the rotation
    (a quaternion x, y, z, w in the glTF's Y-up frame) before a roll and showing 1, 2, 3...;
    each die's node is centred on the die's centre (:func:`gltf_die_mesh`), so a turn of the
    node turns it about its centre."""
    if not shows_dice(rep):
        return None
    values = sorted(rep.table.die_faces)
    turns = []
    for i in range(len(rep.table.dice)):
        turns.append({"unrolled": _quaternion(_to_gltf(turn(rep.table, i, None))),
                      **{str(v): _quaternion(_to_gltf(turn(rep.table, i, v))) for v in values}})
    return {"nodes": [f"die-{i + 1}" for i in range(len(rep.table.dice))], "turns": turns,
            "unrolledOpacity": UNROLLED_OPACITY}


_C = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])  # mm Z up -> glTF Y up: (x, z, -y)


def _to_gltf(r: np.ndarray) -> np.ndarray:
    return _C @ r @ _C.T


def _quaternion(r: np.ndarray) -> list[float]:
    """The unit quaternion (x, y, z, w) of the rotation matrix ``r``."""
    w = math.sqrt(max(0.0, 1.0 + r[0, 0] + r[1, 1] + r[2, 2])) / 2
    x = math.copysign(math.sqrt(max(0.0, 1.0 + r[0, 0] - r[1, 1] - r[2, 2])) / 2, r[2, 1] - r[1, 2])
    y = math.copysign(math.sqrt(max(0.0, 1.0 - r[0, 0] + r[1, 1] - r[2, 2])) / 2, r[0, 2] - r[2, 0])
    z = math.copysign(math.sqrt(max(0.0, 1.0 - r[0, 0] - r[1, 1] + r[2, 2])) / 2, r[1, 0] - r[0, 1])
    return [round(v, 7) for v in (x, y, z, w)]
