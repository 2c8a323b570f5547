"""The terrain kit: a new map every game from a few printed quadrant tiles.

Every fair map the engine generates is turned by 180 degrees onto itself
(``level(f, r) = level(9 - f, 9 - r)``), so a map is two 5 x 5 quadrants, each used twice. The
kit has K *designs* of a 5 x 5 quadrant, each printed twice. A map from the kit: the south-west
quadrant (files a-e, ranks 1-5) holds one design in one of its four turns, the south-east
quadrant (files f-j, ranks 1-5) another design in one of its turns, and the north-east and
north-west quadrants hold their second copies turned by 180 degrees. Every one of the 16
border squares of a design keeps to a band of levels no wider than the neighbour rule's
step (levels 2-4 by default), so any design fits beside any other in any turn: every map the
kit forms keeps the terrain rule, and it is fair by symmetry (Red's and Blue's crossing costs
are each other's turned by 180 degrees). K designs give 16 K (K - 1) maps, 192 for K = 4.

Pure Python (no CAD, no engine): the rules check a logged arrangement with it, the command
line counts and draws the maps, the build makes the tiles. A design's levels are
``design[row][col]`` with row 0 its south edge in its own frame (turn 0); a turn is a quarter
turn counterclockwise, seen from above, so the arrow engraved on a tile (pointing to its own
north) points north, west, south or east for turns 0, 1, 2 and 3.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from stratstone_cad.errors import UserError
from stratstone_cad.games.terrain.facts import FILES, KIT_QUADRANTS, SIZE

HALF = SIZE // 2
"""Squares per side of a quadrant (5)."""
QUADRANTS = KIT_QUADRANTS
"""The quadrants in the order the log and the pictures list them."""
ORIGIN = {"sw": (0, 0), "se": (HALF, 0), "ne": (HALF, HALF), "nw": (0, HALF)}
"""(file, rank index) of each quadrant's south-west square."""
TWIN = {"sw": "ne", "se": "nw", "ne": "sw", "nw": "se"}
"""Each quadrant's 180-degree partner: it holds the same design's second copy turned by two."""
TURN_WORDS = ("north", "west", "south", "east")
"""Where a tile's arrow points when it lies in each turn (0-3)."""
DESIGNS_MAX = 12
"""The most designs a kit may have (design letters A-L)."""
LEVELS = (0, 6)
"""The kit's levels (the generator's: 0 to GEN_LEVEL_MAX)."""
MAX_STEP = 2
"""The terrain rule's largest step between neighbours (terrain_map.MAX_STEP, not imported:
this module stays free of the map generator)."""

Design = tuple[tuple[int, ...], ...]
"""5 rows (its own south first) of 5 levels."""
Placement = tuple[str, int]
"""(design letter, turn 0-3) of one quadrant."""


class KitError(UserError, ValueError):
    """A kit that cannot form a map, or a logged arrangement the kit does not give."""


def letter(index: int) -> str:
    """The mark of design ``index`` (0-based): ``A``, ``B``, ..."""
    return chr(ord("A") + index)


def parse_band(text: str, where: str = "terrain.kit.band") -> tuple[int, int]:
    """``"2-4"`` -> ``(2, 4)``; a :class:`KitError` naming ``where`` for a band that cannot
    form a map: not two levels, out of the kit's levels, empty or wider than a step.

    Raises:
        KitError: the band is not two levels LOW-HIGH in range, at most a step apart.
    """
    parts = text.strip().split("-")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise KitError(f"{where} = {text!r}: expected two levels LOW-HIGH such as 2-4")
    lo, hi = (int(p) for p in parts)
    if not LEVELS[0] <= lo <= hi <= LEVELS[1]:
        raise KitError(f"{where} = {text!r}: expected LOW <= HIGH, both levels from {LEVELS[0]} to {LEVELS[1]}")
    if hi - lo > MAX_STEP:
        raise KitError(f"{where} = {text!r}: expected at most {MAX_STEP} levels between LOW and HIGH, so the border "
                       "squares of any two tiles side by side keep the neighbour rule")
    return lo, hi


@dataclass(frozen=True)
class Kit:
    """A kit's designs (``designs[i]`` is marked :func:`letter` ``(i)``), from its seed and band."""

    seed: int
    band: tuple[int, int]
    designs: tuple[Design, ...]

    def design(self, mark: str) -> Design:
        return self.designs[ord(mark) - ord("A")]

    def marks(self) -> list[str]:
        return [letter(i) for i in range(len(self.designs))]

    def key(self) -> dict[str, Any]:
        """What names the kit in a log: its seed, band and number of designs."""
        return {"seed": self.seed, "band": f"{self.band[0]}-{self.band[1]}", "designs": len(self.designs)}


def make_kit(seed: int, designs: int, band: str) -> Kit:
    """The kit of ``designs`` designs from ``seed`` whose border squares keep to ``band``.

    The designs differ from each other in every turn and none is the same in two turns, so
    the kit's 16 K (K - 1) arrangements are 16 K (K - 1) distinct maps. Raises
    :class:`KitError` for fewer than two designs (a map needs two), more than
    :data:`DESIGNS_MAX`, or a band that cannot form a map.

    Raises:
        KitError: the seed or the number of designs is out of range, or the band cannot form a map.
    """
    if type(seed) is not int or not 0 <= seed <= 2**31 - 1:
        raise KitError(f"terrain.kit.seed = {seed!r}: expected an integer from 0 to {2**31 - 1}")
    if type(designs) is not int or not 2 <= designs <= DESIGNS_MAX:
        raise KitError(f"terrain.kit.designs = {designs!r}: expected an integer from 2 to {DESIGNS_MAX} (a map holds "
                       "two different designs)")
    lo, hi = parse_band(band)
    rng = random.Random(f"terrain kit {seed}")
    out: list[Design] = []
    seen: set[Design] = set()
    for _ in range(200 * designs):
        d = _design(rng, lo, hi)
        turns = {turned(d, t) for t in range(4)}
        if len(turns) == 4 and not turns & seen:
            out.append(d)
            seen |= turns
            if len(out) == designs:
                return Kit(seed, (lo, hi), tuple(out))
    raise KitError(f"terrain.kit.band = {band!r}: too narrow to make {designs} different designs; expected a wider "
                   "band or fewer designs")


def _design(rng: random.Random, lo: int, hi: int) -> Design:
    """One quadrant: random hills, each square the nearest level to them that keeps the
    neighbour rule with the squares placed before it (raster order) and keeps the border in
    ``lo``-``hi``. Feasible at every square: the three ranges (from the west and south
    neighbours and the border band) meet pairwise, so they meet."""
    base = rng.uniform(lo - 0.5, hi + 0.5)
    bumps = [(rng.uniform(-1, 5), rng.uniform(-1, 5), rng.uniform(-6, 6), 1 / rng.uniform(1.2, 2.8) ** 2)
             for _ in range(rng.randint(3, 5))]
    rows: list[list[int]] = []
    for r in range(HALF):
        row: list[int] = []
        for c in range(HALF):
            z = base + sum(h * (1 - d2) ** 2 for x, y, h, inv in bumps
                           if (d2 := ((c - x) ** 2 + (r - y) ** 2) * inv) < 1)
            ring = min(c, r, HALF - 1 - c, HALF - 1 - r)  # 0 on the border, 1 next to it, 2 the centre
            low, high = max(LEVELS[0], lo - MAX_STEP * ring), min(LEVELS[1], hi + MAX_STEP * ring)
            if c:
                low, high = max(low, row[c - 1] - MAX_STEP), min(high, row[c - 1] + MAX_STEP)
            if r:
                low, high = max(low, rows[r - 1][c] - MAX_STEP), min(high, rows[r - 1][c] + MAX_STEP)
            row.append(min(high, max(low, math.floor(z + 0.5))))
        rows.append(row)
    return tuple(tuple(row) for row in rows)


def turned(design: Design, turn: int) -> Design:
    """``design`` turned ``turn`` quarter turns counterclockwise (seen from above)."""
    d = [list(row) for row in design]
    for _ in range(turn % 4):  # (col, row) -> (HALF - 1 - row, col)
        d = [[d[HALF - 1 - c][r] for c in range(HALF)] for r in range(HALF)]
    return tuple(tuple(row) for row in d)


def arrangement(sw: Placement, se: Placement) -> dict[str, Placement]:
    """The four quadrants of the map with ``sw`` and ``se``: the opposite quadrants hold
    the designs' second copies turned by 180 degrees."""
    return {"sw": sw, "se": se, "ne": (sw[0], (sw[1] + 2) % 4), "nw": (se[0], (se[1] + 2) % 4)}


def heightmap(kit: Kit, placed: Mapping[str, Placement]) -> list[list[int]]:
    """The heightmap (``heightmap[rank][file]``) the tiles laid as ``placed`` make."""
    levels = [[0] * SIZE for _ in range(SIZE)]
    for quadrant, (mark, turn) in placed.items():
        f0, r0 = ORIGIN[quadrant]
        for r, row in enumerate(turned(kit.design(mark), turn)):
            for c, level in enumerate(row):
                levels[r0 + r][f0 + c] = level
    return levels


def arrangements(kit: Kit) -> list[dict[str, Placement]]:
    """Every arrangement the kit can lay: two different designs in the south-west and
    south-east quadrants, each in one of its four turns (16 K (K - 1))."""
    marks = kit.marks()
    return [arrangement((a, ta), (b, tb)) for a in marks for b in marks if a != b for ta in range(4) for tb in range(4)]


def maps(kit: Kit) -> list[tuple[list[list[int]], dict[str, Placement]]]:
    """Every distinct map the kit forms, with the first arrangement that lays it, in
    :func:`arrangements`' order."""
    out, seen = [], set()
    for placed in arrangements(kit):
        levels = heightmap(kit, placed)
        key = tuple(map(tuple, levels))
        if key not in seen:
            seen.add(key)
            out.append((levels, placed))
    return out


def pick(kit: Kit, seed: int) -> dict[str, Placement]:
    """The arrangement of game ``seed``: one of :func:`arrangements`, drawn by ``random.Random(seed)``."""
    return random.Random(seed).choice(arrangements(kit))


# --------------------------------------------------------------------------- the log's field


def setup_field(kit: Kit, placed: Mapping[str, Placement]) -> dict[str, Any]:
    """The log setup's ``kit`` field: the kit (seed, band, designs) and each quadrant's
    design and turn."""
    return {**kit.key(), "tiles": {q: {"design": placed[q][0], "turn": placed[q][1]} for q in QUADRANTS}}


def check_setup_field(value: Any, levels: Any) -> None:
    """Refuse a log setup's ``kit`` field that does not lay the setup's heightmap ``levels``
    (a checked heightmap), or that uses a design more than twice, in one line.

    Raises:
        KitError: the field is not a kit's arrangement, or it does not lay the heightmap.
    """
    if not isinstance(value, Mapping) or set(value) != {"seed", "band", "designs", "tiles"}:
        raise KitError("setup.kit: expected an object with seed, band, designs and tiles")
    if not isinstance(value["band"], str):
        raise KitError(f"setup.kit.band: {value['band']!r} is not a band of levels such as '2-4'")
    kit = make_kit(value["seed"], value["designs"], value["band"])
    tiles = value["tiles"]
    if not isinstance(tiles, Mapping) or set(tiles) != set(QUADRANTS):
        raise KitError(f"setup.kit.tiles: expected the quadrants {', '.join(QUADRANTS)}")
    placed: dict[str, Placement] = {}
    for q in QUADRANTS:
        t = tiles[q]
        if (not isinstance(t, Mapping) or t.get("design") not in kit.marks() or type(t.get("turn")) is not int
                or not 0 <= t["turn"] <= 3):
            raise KitError(f"setup.kit.tiles.{q}: {t!r} is not a design {kit.marks()[0]}-{kit.marks()[-1]} with a turn 0-3")
        placed[q] = (t["design"], t["turn"])
    used = [mark for mark, _ in placed.values()]
    for mark in set(used):
        if used.count(mark) > 2:
            raise KitError(f"setup.kit.tiles: design {mark} in {used.count(mark)} quadrants, the kit has two tiles of it")
    laid = heightmap(kit, placed)
    for r in range(SIZE):
        for f in range(SIZE):
            if laid[r][f] != levels[r][f]:
                raise KitError(f"setup.kit: the tiles give {FILES[f]}{r + 1} level {laid[r][f]}, the heightmap "
                               f"{levels[r][f]}: the arrangement does not lay this map")


def placements(value: Mapping[str, Any]) -> tuple[Kit, dict[str, Placement]]:
    """The kit and the arrangement of a checked setup ``kit`` field."""
    kit = make_kit(value["seed"], value["designs"], value["band"])
    return kit, {q: (value["tiles"][q]["design"], value["tiles"][q]["turn"]) for q in QUADRANTS}
