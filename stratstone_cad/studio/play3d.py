"""The Play room's 3D view made clickable: where each square is in the table's 3D scene (the
replay page's: metres, Y up), so the page finds the square under a click from the point its
ray meets (the player's ``pick``), and a selected piece's reach drawn over the scene as the
replay draws a ply's (each reached square lit with its cost, stars on special moves, the
exit's arrow beyond the edge, the selected square framed). The reach is the 2D view's, the
table's own (:meth:`~stratstone_cad.studio.tables.Table.reach`): no rule here."""

from __future__ import annotations

from typing import Any

import numpy as np

from stratstone_cad.studio.tables import Table

__all__ = ["reach_drawing", "squares"]


def _xyz(point: Any) -> list[float]:
    from stratstone_cad.viewer.gltf import to_gltf

    return [round(float(v), 6) + 0.0 for v in to_gltf(np.array([point], np.float64))[0]]


def squares(rep: Any) -> dict[str, Any]:
    """``pitch`` (metres) and ``squares``: each square's middle on the board's surface
    (metres, Y up) in the scene of the table's 3D view (``rep``: the loaded log)."""
    from stratstone_cad.viewer.overlays.plan import Plan

    plan = Plan(rep)
    return {"pitch": plan.pitch / 1000, "squares": {sq: _xyz(plan.at(sq)) for sq in rep.table.seats}}


def _options(table: Table, square: str, seats: Any, reach: list[dict[str, Any]]) -> list[Any]:
    """The table's ``reach`` from ``square`` as the replay's options: a square's cheapest move
    (its cost as the rules word it), an exit at the square it leaves the board from."""
    from stratstone_cad.viewer.overlays.plan import Option

    best: dict[str, Any] = {}
    for m in reach:
        to = m["to"]
        if to == "exit":
            events = table.state.apply(m["move"])[1]
            to = next((e.square for e in events if e.kind == "exited"), square)
        if to not in seats:
            continue
        cost = "" if m.get("cost") is None else str(m["cost"])
        kind = m.get("kind", "move")
        key = f"{to}/{kind == 'exit'}"
        if key not in best or (cost and best[key].cost and int(cost) < int(best[key].cost)):
            best[key] = Option(to, cost, kind)
    return list(best.values())


def reach_drawing(rep: Any, table: Table, square: str, lit: list[str] | None = None) -> dict[str, Any]:
    """What the 3D view draws when the piece on ``square`` is selected: ``draw`` (the
    replay's drawings' form: ``lit``, ``stars``, ``costs``, ``edges`` the selected square's
    frame), ``targets``: each lit place ``[x, y, z, to]`` (``to`` a square, or ``exit``)
    where a click chooses the moves ending there, and ``moves``: the reach itself, as
    ``GET .../reach/{square}`` answers it (the page's one request for a click in the 3D view).
    ``lit``: the squares the page lit itself (Sage Stones' column: the table's legal moves
    there), drawn in place of the reach (``moves`` then empty)."""
    from stratstone_cad.viewer.gltf import drawing_extras
    from stratstone_cad.viewer.overlays import shapes
    from stratstone_cad.viewer.overlays.plan import Drawing, Option, Plan
    from stratstone_cad.viewer.overlays.style import LIFT_MM

    seats = rep.table.seats
    reach = table.reach(square) if lit is None and square in seats else []
    if square not in seats:
        return {"square": square, "draw": {}, "targets": [], "moves": reach}
    plan = Plan(rep)
    moves = _options(table, square, seats, reach) if lit is None else [Option(q, "", "move") for q in lit if q in seats]
    lit, stars, costs = plan.lights(moves)
    x, y, z = plan.at(square, LIFT_MM)
    half = plan.pitch / 2
    frame = tuple(shapes.outline(x - half, y - half, x + half, y + half, z + 0.05, 0.08 * plan.pitch))
    draw = drawing_extras(Drawing(edges=frame, lit=lit, stars=stars, costs=costs))
    targets = [[*_xyz(plan.target(o)), "exit" if o.kind == "exit" else o.square] for o in moves]
    return {"square": square, "draw": draw, "targets": targets, "moves": reach}
