"""The terrain kit at the table: the setup of a game on a kit map, every map as JSON, and the
picture of how to lay the tiles (``stratstone-cad kit setup``), drawn with Pillow.

What the command line asks of the kit through the registry (``ASSETS.kit``,
:class:`~stratstone_cad.assets.game_assets.KitHooks`); the kit itself is
:mod:`stratstone_cad.games.terrain.kit`.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from stratstone_cad.base.fileio import atomic_write
from stratstone_cad.games.terrain import kit
from stratstone_cad.games.terrain.facts import FILES, SIZE

#: A level's colour in the picture: low ground green, high ground brown to white.
LEVEL_COLOURS = ((70, 120, 70), (110, 150, 80), (160, 175, 95), (200, 190, 120), (190, 150, 100), (160, 120, 90),
                 (225, 220, 215))
#: Each quadrant's outline colour: the two designs' tiles in two colours, their copies alike.
QUADRANT_COLOURS = {"sw": (200, 40, 40), "ne": (200, 40, 40), "se": (40, 70, 200), "nw": (40, 70, 200)}


def play_setup(p: Any) -> dict[str, Any]:
    """The setup of a game on a map of the kit of ``p.kit`` (the engine picks the map from the game's seed)."""
    return {"kit": {"seed": p.kit.seed, "band": p.kit.band, "designs": p.kit.designs}}


def all_maps(p: Any) -> list[dict[str, Any]]:
    """Every distinct map the kit of ``p.kit`` lays: ``{"heightmap": ..., "kit": ...}`` as a log's setup holds them."""
    k = p.kit.kit()
    return [{"heightmap": levels, "kit": kit.setup_field(k, placed)} for levels, placed in kit.maps(k)]


def draw(setup: Mapping[str, Any], path: Path, size: int = 900) -> None:
    """A PNG of the board seen from above, Red's side (rank 1) at the bottom: each square
    coloured by its level with the level written in it, each quadrant outlined with its
    tile's design letter and the arrow as the tile's engraved arrow must point."""
    from PIL import Image, ImageDraw, ImageFont  # only where a picture is drawn

    kit.check_setup_field(setup["kit"], setup["heightmap"])
    levels = setup["heightmap"]
    tiles = setup["kit"]["tiles"]
    margin = size // 14
    cell = (size - 2 * margin) / SIZE
    img = Image.new("RGB", (size, size + margin), "white")
    d = ImageDraw.Draw(img)
    small = ImageFont.load_default(size=max(10, int(cell * 0.3)))
    big = ImageFont.load_default(size=int(cell * 1.3))

    def xy(f: float, r: float) -> tuple[float, float]:  # file, rank index (0 at the bottom) -> pixels
        return margin + f * cell, margin + (SIZE - r) * cell

    for r in range(SIZE):
        for f in range(SIZE):
            level = levels[r][f]
            (x0, y1), (x1, y0) = xy(f, r), xy(f + 1, r + 1)
            d.rectangle((x0, y0, x1, y1), fill=LEVEL_COLOURS[min(level, len(LEVEL_COLOURS) - 1)], outline=(90, 90, 90))
            d.text((x0 + cell * 0.08, y0 + cell * 0.05), str(level), fill=(30, 30, 30), font=small)
    for f in range(SIZE):
        x, y = xy(f + 0.5, 0)
        d.text((x, y + margin * 0.45), FILES[f], fill="black", font=small, anchor="mm")
    for r in range(SIZE):
        x, y = xy(0, r + 0.5)
        d.text((x - margin * 0.45, y), str(r + 1), fill="black", font=small, anchor="mm")
    half = SIZE // 2
    for q in kit.QUADRANTS:
        f0, r0 = kit.ORIGIN[q]
        (x0, y1), (x1, y0) = xy(f0, r0), xy(f0 + half, r0 + half)
        colour = QUADRANT_COLOURS[q]
        d.rectangle((x0 + 3, y0 + 3, x1 - 3, y1 - 3), outline=colour, width=max(3, size // 150))
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        mark, turn = tiles[q]["design"], tiles[q]["turn"]
        d.text((cx - cell * 0.9, cy), mark, fill=colour, font=big, anchor="mm", stroke_width=2, stroke_fill="white")
        _arrow(d, (cx + cell * 0.9, cy), cell * 0.9, turn, colour)
    caption = "  ".join(f"{q.upper()}: {tiles[q]['design']} arrow {kit.TURN_WORDS[tiles[q]['turn']]}" for q in kit.QUADRANTS)
    d.text((size / 2, size + margin * 0.35), caption, fill="black", font=small, anchor="mm")
    d.text((size / 2, size + margin * 0.75), "Red sits at the bottom (rank 1)", fill="black", font=small, anchor="mm")
    buf = io.BytesIO()
    img.save(buf, "PNG")
    atomic_write(path, buf.getvalue())


def _arrow(d: Any, centre: tuple[float, float], length: float, turn: int, colour: tuple[int, int, int]) -> None:
    """An arrow of ``length`` pixels about ``centre`` pointing north turned ``turn`` quarter turns counterclockwise."""
    dx, dy = ((0, -1), (-1, 0), (0, 1), (1, 0))[turn]  # screen y points down
    cx, cy = centre
    tip = (cx + dx * length / 2, cy + dy * length / 2)
    tail = (cx - dx * length / 2, cy - dy * length / 2)
    w = max(4, int(length / 8))
    d.line((tail, tip), fill="white", width=w + 4)
    d.line((tail, tip), fill=colour, width=w)
    side = (-dy, dx)
    head = [tip, (tip[0] - dx * length / 3 + side[0] * length / 4, tip[1] - dy * length / 3 + side[1] * length / 4),
            (tip[0] - dx * length / 3 - side[0] * length / 4, tip[1] - dy * length / 3 - side[1] * length / 4)]
    d.polygon(head, fill=colour, outline="white")
