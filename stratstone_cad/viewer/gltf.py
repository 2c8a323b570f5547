"""Replays as animated glTF 2.0 binary (GLB): a game anyone can open, orbit and step
through in a glTF viewer or a browser, with nothing of ours installed.

The file is the replay's scene: the board as the viewer shows it (the terrain from the
log's heightmap) and one node per physical piece, in the print meshes the viewer renders
(each of Stratstone's 24 pebbles its own mesh; gems and terrain pieces share one mesh a
part), each mesh in its print colour. glTF wants metres with Y up: the board's
millimetres, Z up, become metres, Y up (``(x, y, z)`` mm is ``(x, z, -y) / 1000``: a
rotation, so the triangles keep their winding).

The motion is the MP4's: the :class:`~stratstone_cad.viewer.replay.Timeline` keyframes of
every ply, ply ``k`` from ``(k - 1) * seconds`` to ``k * seconds``. A piece moves by its
node's ``translation`` (linear between keyframes, as the viewer samples them) and is
hidden (a captured piece, a gem not yet placed) by a ``scale`` of 0, stepped. The scene's
``extras`` hold the log's header, the cells' size and, per ply, its number, player, move,
dice, its words (:meth:`~stratstone_cad.engine.protocol.Game.explain`), the facts after it,
the squares it starts and ends on, and its start and end time: the ply markers a player
steps by; and its drawings (:class:`~stratstone_cad.viewer.overlays.plan.Drawing`: the path and
its costs, an attack's halos and sums, Sage Stones' column and traps, Stratstone's sowing
and winning line, the reach), which the page draws as the window does, with their look
and the legend of levels in the scene's ``overlay`` and ``levels``. With a review
(``replay --review``), each ply's class, best move and expected scores, the best move as a
ghost where the one played was a mistake or a blunder, and the evaluation strip's columns
in the scene's ``review``. The writer is plain Python and numpy: the format is a JSON
chunk and a binary chunk (glTF 2.0, section 4.4), and the viewer already has the meshes.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from stratstone_cad.base.colours import rgb
from stratstone_cad.errors import ParameterError
from stratstone_cad.printing.checks import Mesh

__all__ = ["SETTLE", "GlbBuilder", "as_set", "drawing_extras", "overlay_style", "replay_bytes", "replay_glb", "set_glb",
           "to_gltf", "track", "write_replay"]

Point = tuple[float, float, float]
SETTLE = 0.02
"""The share of a ply's time at its end when nothing moves: its keyframes are laid over
the first 98 %, so a piece is at rest at the ply's end exactly, and two keyframes that
stand for one instant (a jump: glTF's key times must increase strictly) are kept apart
within the ply."""
_FLOAT, _UINT16, _UINT32 = 5126, 5123, 5125
_ARRAY_BUFFER, _ELEMENT_ARRAY_BUFFER = 34962, 34963


def to_gltf(points: np.ndarray) -> np.ndarray:
    """Millimetres, Z up (n, 3) -> metres, Y up: ``(x, z, -y) / 1000``."""
    p = np.asarray(points, dtype=np.float64)
    return np.stack([p[:, 0], p[:, 2], -p[:, 1]], axis=1) / 1000.0


def _linear(srgb: str) -> list[float]:
    """``#RRGGBB`` (sRGB) as glTF's linear ``baseColorFactor`` (alpha 1)."""
    out = []
    for channel in rgb(srgb):
        c = channel / 255.0
        out.append(round(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4, 6))
    return [*out, 1.0]


class GlbBuilder:
    """The parts of a glTF document and its binary buffer, added to in order; :meth:`glb`
    writes the file. Meshes and materials are shared by name."""

    def __init__(self) -> None:
        self.doc: dict[str, Any] = {"asset": {"version": "2.0", "generator": "stratstone-cad"},
                                    "buffers": [], "bufferViews": [], "accessors": [], "materials": [], "meshes": [],
                                    "nodes": [], "scenes": [{"nodes": []}], "scene": 0}
        self.data = bytearray()
        self.mesh_index: dict[str, int] = {}
        self.material_index: dict[str, int] = {}

    def view(self, raw: bytes, target: int | None = None) -> int:
        """A buffer view of ``raw``, started on a 4-byte boundary (accessors of floats need it)."""
        self.data += b"\0" * (-len(self.data) % 4)
        v: dict[str, Any] = {"buffer": 0, "byteOffset": len(self.data), "byteLength": len(raw)}
        if target is not None:
            v["target"] = target
        self.data += raw
        self.doc["bufferViews"].append(v)
        return len(self.doc["bufferViews"]) - 1

    def accessor(self, array: np.ndarray, kind: str, target: int | None = None, bounds: bool = False) -> int:
        """An accessor of ``array`` (float32, uint16 or uint32; ``kind``: SCALAR, VEC3...),
        with its ``min`` and ``max`` when ``bounds`` (positions and key times must have them)."""
        component = {np.dtype(np.float32): _FLOAT, np.dtype(np.uint16): _UINT16, np.dtype(np.uint32): _UINT32}[array.dtype]
        a: dict[str, Any] = {"bufferView": self.view(array.tobytes(), target), "componentType": component,
                             "count": int(array.shape[0]), "type": kind}
        if bounds:
            flat = array.reshape(array.shape[0], -1)
            a["min"] = [float(x) for x in flat.min(axis=0)]
            a["max"] = [float(x) for x in flat.max(axis=0)]
        self.doc["accessors"].append(a)
        return len(self.doc["accessors"]) - 1

    def material(self, colour: str) -> int:
        if colour not in self.material_index:
            self.doc["materials"].append({"name": colour, "pbrMetallicRoughness": {
                "baseColorFactor": _linear(colour), "metallicFactor": 0.0, "roughnessFactor": 0.6}})
            self.material_index[colour] = len(self.doc["materials"]) - 1
        return self.material_index[colour]

    def mesh(self, name: str, mesh: Mesh, colour: str) -> int:
        """The mesh ``name`` (added once): ``mesh`` (millimetres, Z up) in metres, Y up, in
        ``colour`` (``#RRGGBB``)."""
        if name in self.mesh_index:
            return self.mesh_index[name]
        positions = to_gltf(mesh.vertices).astype(np.float32)
        index_type = np.uint16 if len(positions) < 65536 else np.uint32
        attributes = {"POSITION": self.accessor(positions, "VEC3", _ARRAY_BUFFER, bounds=True)}
        primitive = {"attributes": attributes,
                     "indices": self.accessor(mesh.triangles.reshape(-1).astype(index_type), "SCALAR",
                                              _ELEMENT_ARRAY_BUFFER),
                     "material": self.material(colour)}
        self.doc["meshes"].append({"name": name, "primitives": [primitive]})
        self.mesh_index[name] = len(self.doc["meshes"]) - 1
        return self.mesh_index[name]

    def node(self, node: dict[str, Any]) -> int:
        """A node at the scene's root."""
        self.doc["nodes"].append(node)
        self.doc["scenes"][0]["nodes"].append(len(self.doc["nodes"]) - 1)
        return len(self.doc["nodes"]) - 1

    def glb(self) -> bytes:
        """The GLB file: header, JSON chunk (padded with spaces), BIN chunk (padded with zeros)."""
        self.data += b"\0" * (-len(self.data) % 4)
        doc = dict(self.doc)
        doc["buffers"] = [{"byteLength": len(self.data)}]
        doc = {k: v for k, v in doc.items() if v != []}
        return _pack(doc, struct.pack("<I4s", len(self.data), b"BIN\0") + bytes(self.data))


def _pack(doc: Mapping[str, Any], chunks: bytes) -> bytes:
    """A GLB file: its header, ``doc`` as the JSON chunk (padded with spaces to 4 bytes),
    then ``chunks`` (the BIN chunk, header and all), as they are."""
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()
    text += b" " * (-len(text) % 4)
    return struct.pack("<4sII", b"glTF", 2, 12 + 8 + len(text) + len(chunks)) + struct.pack("<I4s", len(text), b"JSON") \
        + text + chunks


def track(keys: Sequence[tuple[float, Point | None]], apart: float) -> tuple[list[tuple[float, Point]],
                                                                             list[tuple[float, float]]]:
    """A piece's keyframes over the whole game (time in seconds, place or ``None`` when
    hidden), as the viewer samples them (:func:`~stratstone_cad.viewer.replay.timeline._sample`:
    linear between two places, held while either end is hidden), turned into glTF's two
    channels: the translation's keys (linear) and the scale's (stepped: 1 shown, 0 hidden).

    Times must not decrease; two keys at one time (a jump) are kept ``apart`` seconds.
    Hidden, a piece keeps its last place until the key that hides it, then travels unseen
    to where it next appears."""
    moves: list[tuple[float, Point]] = []
    shows: list[tuple[float, float]] = []
    last_t = -1.0
    seen: Point | None = None
    for t, pos in keys:
        t = max(t, last_t + apart) if last_t >= 0 else t
        if pos is None:
            if seen is not None:
                moves.append((t, seen))  # held to the moment it goes
        else:
            moves.append((t, pos))
            seen = pos
        shown = 0.0 if pos is None else 1.0
        if not shows or shows[-1][1] != shown:
            shows.append((t, shown))
        last_t = t
    return moves, shows


def level_mesh(b: GlbBuilder, name: str, rep: Any, mesh: Mesh, base: str) -> int | None:
    """A board of levels coloured by level as the replay window colours it
    (:func:`~stratstone_cad.viewer.replay.level_colours`), exact to the cells' edges
    whatever the triangles: a texture of one texel a cell in its level's colour, a border of
    texels in the board's print colour ``base`` for the rest (the rim, its labels), sampled
    without interpolation; each triangle's corners look it up a little behind the
    triangle's normal, so a side takes the colour of the cell it faces away from (the
    triangles get corners of their own: 3 a triangle). ``None`` for a board without levels."""
    from stratstone_cad.viewer.replay import Cells, level_colours
    from stratstone_cad.viewer.writer import png

    table = rep.table
    if not table.levels:
        return None
    palette = level_colours(table.levels.values())
    cells = Cells(table)
    cols, rows = cells.index.shape
    # a power of two a side, as glTF viewers like textures (the validator notes any other size)
    side = 1 << (max(cols, rows) + 1).bit_length()
    image = np.empty((side, side, 3), np.uint8)
    image[:] = rgb(base)
    for c in range(cols):
        for r in range(rows):
            k = cells.index[c, r]
            if k >= 0:
                shade = palette[table.levels[cells.squares[k]]]
                image[r + 1, c + 1] = rgb(shade)  # the image's first row: v = 0
    corners = mesh.vertices[mesh.triangles]  # (m, 3, 3)
    normal = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    normal /= np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-12)
    points = corners.reshape(-1, 3)
    xy = points[:, :2] - 0.02 * cells.pitch * np.repeat(normal[:, :2], 3, axis=0)
    origin = cells.origin - 1.5 * cells.pitch  # the lower left corner of the border's first texel
    uv = ((xy - origin) / (side * cells.pitch)).astype(np.float32)
    positions = to_gltf(points).astype(np.float32)
    doc = b.doc
    doc.setdefault("images", []).append({"bufferView": b.view(png(image)), "mimeType": "image/png"})
    doc.setdefault("samplers", []).append({"magFilter": 9728, "minFilter": 9728, "wrapS": 33071, "wrapT": 33071})
    doc.setdefault("textures", []).append({"sampler": len(doc["samplers"]) - 1, "source": len(doc["images"]) - 1})
    doc["materials"].append({"name": f"{name} by level", "pbrMetallicRoughness": {
        "baseColorTexture": {"index": len(doc["textures"]) - 1}, "metallicFactor": 0.0, "roughnessFactor": 0.6}})
    index_type = np.uint16 if len(positions) < 65536 else np.uint32
    doc["meshes"].append({"name": name, "primitives": [{
        "attributes": {"POSITION": b.accessor(positions, "VEC3", _ARRAY_BUFFER, bounds=True),
                       "TEXCOORD_0": b.accessor(uv, "VEC2", _ARRAY_BUFFER)},
        "indices": b.accessor(np.arange(len(positions), dtype=index_type), "SCALAR", _ELEMENT_ARRAY_BUFFER),
        "material": len(doc["materials"]) - 1}]})
    b.mesh_index[name] = len(doc["meshes"]) - 1
    return b.mesh_index[name]


def _xyz(point: Any) -> list[float]:
    """A point (mm, Z up) as glTF's (metres, Y up), to the micrometre."""
    return [round(float(v), 6) + 0.0 for v in to_gltf(np.array([point], np.float64))[0]]


def _chips(chips: Sequence[tuple[Any, str]]) -> list[list[Any]]:
    return [[*_xyz(at), text] for at, text in chips]


def _polygons(polygons: Sequence[np.ndarray]) -> list[list[float]]:
    """Polygons as flat lists of glTF points: ``[x0, y0, z0, x1, ...]``."""
    return [[v for q in poly for v in _xyz(q)] for poly in polygons]


def drawing_extras(d: Any) -> dict[str, Any]:
    """A ply's :class:`~stratstone_cad.viewer.overlays.plan.Drawing` as the extras the page
    draws from (metres, Y up; what it has none of left out)."""
    out: dict[str, Any] = {
        "tubes": _polygons(d.tubes), "steps": _chips(d.steps), "band": _polygons(d.band), "edges": _polygons(d.edges),
        "rings": [_xyz(c) for c in d.rings], "cells": _polygons(d.cells), "lit": _polygons(d.lit),
        "stars": _polygons(d.stars), "costs": _chips(d.costs)}
    if any(h is not None for h in d.halos):
        out["halos"] = [None if h is None else _xyz(h) for h in d.halos]
        out["sums"] = [{"side": side, "chips": _chips(chips)} for chips, side in d.sums]
    return {k: v for k, v in out.items() if v}


def overlay_style(pitch_mm: float) -> dict[str, Any]:
    """How the page draws the drawings: the window's colours, opacities and sizes (metres)."""
    from stratstone_cad.viewer.overlays import style as O

    pitch = pitch_mm / 1000
    return {"path": O.PATH_COLOUR, "mark": O.MARK_COLOUR, "reach": O.REACH_COLOUR, "bandOpacity": O.BAND_OPACITY,
            "reachOpacity": O.REACH_OPACITY, "tube": round(O.TUBE * pitch, 6), "ring": round(O.RING * pitch, 6),
            "ringTube": round(O.RING_TUBE * pitch, 6), "halo": round(O.HALO * pitch, 6),
            "haloTube": round(O.HALO_TUBE * pitch, 6)}


def replay_glb(rep: Any, seconds_per_ply: float = 1.0, header: Mapping[str, Any] | None = None,
               words: Sequence[str] | None = None, colours: str = "levels", reach: bool = True) -> bytes:
    """The replay ``rep`` (a :class:`~stratstone_cad.viewer.replay.GameOnTable`) as an
    animated GLB: ``seconds_per_ply`` a ply, ``header`` (the log's) and each ply's
    ``words`` and drawings in the scene's extras; ``colours``: ``"levels"`` colours a board
    of levels by level as the window does, ``"print"`` keeps its print colour; ``reach``:
    whether the page opens with the reach shown (its squares are in the extras either way)."""
    from stratstone_cad.viewer.meshes import asset_mesh
    from stratstone_cad.viewer.overlays.plan import Plan
    from stratstone_cad.viewer.overlays.style import GHOST_COLOUR, GHOST_OPACITY, GHOST_PIECE_OPACITY
    from stratstone_cad.viewer.replay import level_colours
    from stratstone_cad.viewer.replay.loading import start_lines
    from stratstone_cad.viewer.review_strip import page_review

    b = GlbBuilder()
    board = rep.assets[rep.table.board]
    shape = asset_mesh(board)
    levelled = level_mesh(b, rep.table.board, rep, shape, board.colour) if colours == "levels" else None
    b.node({"name": "board", "mesh": b.mesh(rep.table.board, shape, board.colour) if levelled is None else levelled})
    _animated_pieces(b, rep, seconds_per_ply)
    dice = _dice_nodes(b, rep)
    plies = _ply_extras(rep, seconds_per_ply, words)
    b.doc["scenes"][0]["name"] = rep.title
    extras: dict[str, Any] = {"kind": "replay", "title": rep.title, "game": rep.game, "header": dict(header or {}),
                              "start": [*start_lines(rep), *filter(None, [Plan(rep).key(None)])],
                              "secondsPerPly": seconds_per_ply, "pitch": rep.table.pitch_mm / 1000,
                              "overlay": {**overlay_style(rep.table.pitch_mm), "showReach": reach}}
    if dice:  # the dice's nodes and their turns, each ply's roll face up (the ply's "dice")
        extras["dice"] = dice
    if getattr(rep, "puzzle", ()):  # a puzzle's position (the last ply's): its task, and its answer on request
        extras["puzzle"] = list(rep.puzzle)
    if rep.review:  # the evaluation strip along the timeline
        extras["review"] = page_review(rep.review, rep.players)
    if rep.review or getattr(rep, "answer", None):  # how the ghost is drawn
        extras["overlay"].update(ghost=GHOST_COLOUR, ghostOpacity=GHOST_OPACITY, ghostPieceOpacity=GHOST_PIECE_OPACITY)
    if levelled is not None:  # the legend: each level's colour, the highest first
        palette = level_colours(rep.table.levels.values())
        extras["levels"] = [[level, palette[level]] for level in sorted(palette, reverse=True)]
    b.doc["scenes"][0]["extras"] = {**extras, "plies": plies, "result": rep.result}
    return b.glb()


def _dice_nodes(b: GlbBuilder, rep: Any) -> dict[str, Any] | None:
    """A node for each of the game's dice (:mod:`~stratstone_cad.viewer.replay.dice`), the
    set's die mesh centred on the node, standing on its place as before a roll; the page
    turns them to each ply's roll. None for a game without dice."""
    from stratstone_cad.viewer.meshes import asset_mesh
    from stratstone_cad.viewer.replay import dice

    extras = dice.page_dice(rep)
    if extras is None:
        return None
    asset = rep.assets[rep.table.die]
    shape = asset_mesh(asset)
    centred = Mesh(np.asarray(shape.vertices, np.float64) - dice.die_centre(rep), shape.triangles)
    for name, place, turns in zip(extras["nodes"], dice.places(rep), extras["turns"], strict=True):
        b.node({"name": name, "mesh": b.mesh("die-centred", centred, asset.colour),
                "translation": _place(tuple(place), np.zeros(3)), "rotation": turns["unrolled"]})
    return extras


def _piece_tracks(rep: Any, seconds_per_ply: float) -> dict[str, list[tuple[float, Point | None]]]:
    """Each piece's keyframes over the whole game, (seconds, position or None when off the
    table), in order: where it starts, then each ply's moves of it from where that ply found it."""
    moving = seconds_per_ply * (1 - SETTLE)
    tracks: dict[str, list[tuple[float, Point | None]]] = {pid: [(0.0, rep.initial.get(pid))] for pid in rep.pieces}
    for k in range(1, rep.count + 1):
        ply, start = rep.plies[k - 1], rep.rest(k - 1)
        t0 = (k - 1) * seconds_per_ply
        for pid, keys in ply.keys.items():
            tracks[pid].append((t0, start.get(pid)))
            tracks[pid] += [(t0 + u * moving, pos) for u, pos in keys]
    return tracks


def _animated_pieces(b: GlbBuilder, rep: Any, seconds_per_ply: float) -> None:
    """A node for each piece of ``rep``, where it first stands (scaled to nothing while off
    the table), and the game's animation of them: a translation and a scale channel each."""
    from stratstone_cad.viewer.meshes import asset_mesh

    total = rep.count * seconds_per_ply
    # float32 key times: apart by more than their rounding at the game's end
    apart = max(seconds_per_ply * SETTLE / 20, total * 4e-7)
    tracks = _piece_tracks(rep, seconds_per_ply)
    samplers: list[dict[str, Any]] = []
    channels: list[dict[str, Any]] = []
    for pid in rep.pieces:
        name = rep.table.assets[pid]
        asset = rep.assets[name]
        anchor = np.asarray(rep.anchors[pid], np.float64)
        moves, shows = track(_compact(tracks[pid], apart), apart)
        first = moves[0][1] if moves else tuple(anchor)
        node: dict[str, Any] = {"name": pid, "mesh": b.mesh(name, asset_mesh(asset), asset.colour),
                                "translation": _place(first, anchor)}
        if shows[0][1] == 0.0:
            node["scale"] = [0.0, 0.0, 0.0]
        index = b.node(node)
        if len(moves) > 1:
            if moves[-1][0] < total:
                moves.append((total, moves[-1][1]))  # every channel lasts the whole game
            _channel(b, samplers, channels, index, "translation", [t for t, _ in moves],
                     np.array([_place(p, anchor) for _, p in moves], np.float32), "LINEAR")
        if len(shows) > 1:
            if shows[-1][0] < total:
                shows.append((total, shows[-1][1]))
            _channel(b, samplers, channels, index, "scale", [t for t, _ in shows],
                     np.array([[s, s, s] for _, s in shows], np.float32), "STEP")
    if channels:
        b.doc["animations"] = [{"name": "game", "samplers": samplers, "channels": channels}]


def _ply_extras(rep: Any, seconds_per_ply: float, words: Sequence[str] | None) -> list[dict[str, Any]]:
    """Each ply's entry in the scene's extras: who played what, when (seconds), its dice,
    ``words`` and facts, the squares it starts and ends on, its drawings and its review."""
    from stratstone_cad.viewer.overlays.plan import Plan
    from stratstone_cad.viewer.review_strip import ply_review

    plies = []
    plan = Plan(rep, reach=True)
    for k in range(1, rep.count + 1):
        p = rep.plies[k - 1]
        entry: dict[str, Any] = {"ply": p.number, "player": p.player, "move": p.move,
                                 "start": round((k - 1) * seconds_per_ply, 6), "end": round(k * seconds_per_ply, 6)}
        if p.dice:
            entry["dice"] = list(p.dice)
        if words is not None:
            entry["words"] = words[k - 1]
        entry["facts"] = p.facts
        # the squares the move starts and ends on, as the window frames them: their surface
        entry["marks"] = [_place((x, y, rep.table.tops.get(sq, z)), np.zeros(3))
                          for sq in p.squares for x, y, z in [rep.table.seats[sq]]]
        drawn = drawing_extras(plan.draw(p))
        key = plan.key(p)
        if key:  # what each mark means, the caption's last line
            entry["key"] = key
        if rep.review:  # the ply's review and, for a mistake or a blunder, the best move as a ghost
            entry["review"] = ply_review(rep.review[k - 1])
        if rep.review or getattr(rep, "answer", None):  # the ghost: the best move, or a puzzle's answer
            tubes, outlines = plan.ghost(p)
            drawn.update({k: v for k, v in (("ghost", _polygons(tubes)), ("ghostSquare", _polygons(outlines))) if v})
            piece = plan.ghost_piece(p)
            if piece is not None:  # the piece itself, see-through, where the best move would rest it
                drawn["ghostPiece"] = {"node": piece[0], "at": _place(piece[1], rep.anchors[piece[0]])}
        if drawn:
            entry["draw"] = drawn
        plies.append(entry)
    return plies


def set_glb(assets: Sequence[Any]) -> bytes:
    """Parts to orbit (``preview ASSET... --out set.glb``), static: each asset once, laid out
    as the preview still lays them out (:func:`~stratstone_cad.viewer.preview.layout`), in
    its print colour; the scene's extras name them (``kind``: ``"set"``)."""
    from stratstone_cad.viewer.preview import layout

    b = GlbBuilder()
    for placed in layout(assets):
        a = placed.asset
        b.node({"name": a.name, "mesh": b.mesh(a.name, Mesh(placed.vertices, placed.triangles), a.colour)})
    games = sorted({a.game for a in assets})
    title = f"{', '.join(games)}: {len(assets)} part{'s' * (len(assets) != 1)}"
    b.doc["scenes"][0]["name"] = title
    b.doc["scenes"][0]["extras"] = {"kind": "set", "title": title, "parts": [a.name for a in assets]}
    return b.glb()


def as_set(glb: bytes, title: str, parts: Sequence[str]) -> bytes:
    """A GLB written elsewhere (a build's ``set.glb``, by OpenCascade) with the scene's
    extras the page's player reads from a set: its title and the parts it holds."""
    n = int.from_bytes(glb[12:16], "little")
    doc = json.loads(glb[20:20 + n])
    scene = doc["scenes"][doc.get("scene", 0)]
    scene["name"], scene["extras"] = title, {"kind": "set", "title": title, "parts": list(parts)}
    return _pack(doc, glb[20 + n:])


SHARED_PLIES = 20_000
"""The most plies a shared replay (FILE.glb, FILE.html) holds: every ply's animation is built
in memory and written into the one file (about 300 bytes a ply in the file and 2 kB a ply
while it is made: a million plies wrote 307 MB using 1.9 GB in 110 s). The longest games
played by the rules take a few hundred."""


def check_plies(rep: Any, out: Path) -> None:
    """Refuse, in one line, a shared replay of more than :data:`SHARED_PLIES` plies.

    Raises:
        ParameterError: the log has more plies than one file can animate.
    """
    if rep.count > SHARED_PLIES:
        raise ParameterError(f"--out {out}: the log has {rep.count} plies, expected at most {SHARED_PLIES} in one "
                             f"{out.suffix.lower().lstrip('.').upper() or 'shared'} file (each ply's animation is held "
                             f"whole in it, about {rep.count * 300 / 1e6:.0f} MB); write FILE.mp4 or a folder of "
                             "frames instead, which stream, with --plies FIRST-LAST for a part")


def replay_bytes(rep: Any, log: Path, seconds_per_ply: float = 1.0, colours: str = "levels", reach: bool = True) -> bytes:
    """The GLB of the log ``log`` (loaded as ``rep``), with the log's header and each ply's
    words, from the log replayed again (as fast as check-log: milliseconds a hundred plies)."""
    from stratstone_cad.log.logfile import walk_log

    with walk_log(log) as r:
        header = {"game": r.header.game, "rules": r.header.rules, "players": r.header.players, "seed": r.header.seed,
                  "setup": r.header.setup}
        words = [r.game.explain(st.before, st.after, st.events) for st in r]
    return replay_glb(rep, seconds_per_ply, header, words, colours, reach)


def write_replay(rep: Any, log: Path, out: Path, seconds_per_ply: float = 1.0, colours: str = "levels",
                 reach: bool = True) -> int:
    """Write the replay of the log ``log`` (loaded as ``rep``) to ``out`` as a GLB, whole or
    not at all; returns its size."""
    from stratstone_cad.base.fileio import atomic_write

    check_plies(rep, out)
    data = replay_bytes(rep, log, seconds_per_ply, colours, reach)
    atomic_write(out, data, follow_symlinks=True, sweep=True)
    return len(data)


def _compact(keys: list[tuple[float, Point | None]], apart: float) -> list[tuple[float, Point | None]]:
    """``keys`` without a key that repeats the one before it at the same time."""
    out: list[tuple[float, Point | None]] = []
    for t, pos in keys:
        if out and out[-1][1] == pos and t <= out[-1][0] + apart:
            continue
        out.append((t, pos))
    return out


def _place(pos: Point, anchor: np.ndarray) -> list[float]:
    """A node's translation (metres, Y up) that puts its mesh's anchor on ``pos`` (mm, Z up)."""
    return [float(x) for x in to_gltf(np.array([np.asarray(pos, np.float64) - anchor]))[0]]


def _channel(b: GlbBuilder, samplers: list[dict[str, Any]], channels: list[dict[str, Any]], node: int, path: str,
             times: list[float], values: np.ndarray, interpolation: str) -> None:
    samplers.append({"input": b.accessor(np.array(times, np.float32), "SCALAR", bounds=True),
                     "output": b.accessor(values, "VEC3"), "interpolation": interpolation})
    channels.append({"sampler": len(samplers) - 1, "target": {"node": node, "path": path}})
