"""Terrain maps for the terrain game: the heightmap rule, the fairness measure, the generator.

Standalone: imports nothing from the rules engine (only :mod:`stratstone_cad.errors`), so a
CAD model can take its heightmap from a seed (:func:`generate`) without loading the game.

A heightmap is 10 rows of 10 integer levels; ``heightmap[0]`` is rank 1 and
``heightmap[0][0]`` is ``a1`` (``heightmap[rank - 1][file]``, files ``a``-``j`` = 0-9).
The terrain rule: every level is an integer from :data:`LEVEL_MIN` to :data:`LEVEL_MAX`
and orthogonal neighbours differ by at most :data:`MAX_STEP` (2).

A step between orthogonal neighbours costs ``|height difference| + 1`` movement points
(1 on level ground). Fairness is measured from where the pieces really start: for each
side, the cheapest crossing cost from each of its six start squares (files c-h of its
start row) to its exit row, ignoring pieces, as a sorted list. A map is fair when Red's
and Blue's lists are equal (:func:`crossing_costs`, :func:`is_fair`).

:func:`generate` is fair by design: random hills on Red's half, copied onto Blue's half
turned by 180 degrees (``level(f, r) = level(9 - f, 9 - r)``), then flattened just enough
to satisfy the neighbour rule (the largest 2-Lipschitz map below it, which keeps the
symmetry); the result is checked with the real measure. Reasons in docs/rules.md.
"""

from __future__ import annotations

import codecs
import json
import math
import os
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from stratstone_cad.base.fileio import describe_os_error, open_regular, read_user_file
from stratstone_cad.errors import UserError, counted
from stratstone_cad.games.terrain.facts import FILES, SIZE, START_FILES

__all__ = [
    "GEN_LEVEL_MAX",
    "LEVEL_MAX",
    "LEVEL_MIN",
    "MAX_STEP",
    "SIZE",
    "START_FILES",
    "Heightmap",
    "TerrainError",
    "check_heightmap",
    "crossing_costs",
    "fairness_warning",
    "generate",
    "heightmap_from_log",
    "is_fair",
    "load_heightmap_file",
    "parse_heightmap_file",
    "parse_log_header",
    "parse_map_file",
    "square_name",
    "step_cost",
]

MAX_STEP = 2
"""Largest allowed level difference between orthogonal neighbours."""
LEVEL_MIN = 0
LEVEL_MAX = 20
"""Levels a given heightmap may use (a printed board needs a floor and a bounded height)."""
GEN_LEVEL_MAX = 6
"""The generator's levels are 0 to this."""
MAX_FILE_BYTES = 1 << 20

Heightmap = tuple[tuple[int, ...], ...]
"""10 rows (rank 1 first) of 10 levels (file a first)."""


class TerrainError(UserError, ValueError):
    """A heightmap that breaks the terrain rule, or a terrain file that cannot be read.

    The message names the square and the values, e.g.
    ``heightmap: c4 = 7 and c5 = 3 differ by 4, expected at most 2``.
    """


def square_name(file: int, rank_index: int) -> str:
    """``a1`` for ``(0, 0)``, ``j10`` for ``(9, 9)`` (0-based file and rank index)."""
    return f"{FILES[file]}{rank_index + 1}"


def step_cost(a: int, b: int) -> int:
    """Movement points of one orthogonal step between levels ``a`` and ``b``: ``|a - b| + 1``."""
    return abs(a - b) + 1


# --------------------------------------------------------------------------- the rule


def check_heightmap(value: Any, where: str = "heightmap") -> Heightmap:
    """Check the terrain rule; returns the heightmap as a tuple of tuples.

    Raises :class:`TerrainError` with a one-line message naming ``where``, the square
    and the values: the wrong number of rows or levels, a non-integer level (``true`` and
    ``1.0`` are not integers), a level out of 0-20, or neighbours more than 2 apart.

    Raises:
        TerrainError: the map is not 10 rows of 10 integer levels in range, or two neighbours differ too much.
    """
    if not isinstance(value, (list, tuple)):
        raise TerrainError(f"{where}: expected 10 rows of 10 levels (rank 1 first), got {_kind(value)}")
    if len(value) != SIZE:
        raise TerrainError(f"{where}: {counted(len(value), 'row')}, expected 10 (heightmap[0] is rank 1)")
    rows = []
    for r, row in enumerate(value):
        if not isinstance(row, (list, tuple)):
            raise TerrainError(f"{where}[{r}] (rank {r + 1}): expected a row of 10 levels, got {_kind(row)}")
        if len(row) != SIZE:
            raise TerrainError(f"{where}[{r}] (rank {r + 1}): {counted(len(row), 'level')}, expected 10 (files a-j)")
        for f, level in enumerate(row):
            if type(level) is not int:
                raise TerrainError(f"{where}: {square_name(f, r)} = {_show(level)} is not an integer level")
            if not LEVEL_MIN <= level <= LEVEL_MAX:
                raise TerrainError(f"{where}: {square_name(f, r)} = {_show(level)} is out of range, "
                                   f"expected {LEVEL_MIN} to {LEVEL_MAX}")
        rows.append(tuple(row))
    for r in range(SIZE):
        for f in range(SIZE):
            here = rows[r][f]
            for df, dr in ((1, 0), (0, 1)):
                nf, nr = f + df, r + dr
                if nf < SIZE and nr < SIZE:
                    there = rows[nr][nf]
                    if abs(here - there) > MAX_STEP:
                        raise TerrainError(
                            f"{where}: {square_name(f, r)} = {here} and {square_name(nf, nr)} = {there} "
                            f"differ by {abs(here - there)}, expected at most {MAX_STEP}"
                        )
    return tuple(rows)


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return {dict: "an object", str: "a string", int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def _show(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int) and abs(value) >= 10**18:  # repr() of a 5000-digit int raises
        return f"a whole number of about {int(abs(value).bit_length() * math.log10(2)) + 1} digits"
    r = repr(value)
    return r if len(r) <= 20 else r[:17] + "..."


# --------------------------------------------------------------------------- fairness


def _exit_costs(levels: Sequence[int], exit_rank: int) -> list[int]:
    """Cheapest cost from every square (index file + 10 * rank) to any square of ``exit_rank``.

    One Dijkstra from the whole exit row (step costs are symmetric), with a bucket queue.
    """
    n = SIZE * SIZE
    inf = 1 << 30
    dist = [inf] * n
    buckets: list[list[int]] = [[]]
    for f in range(SIZE):
        q = f + SIZE * exit_rank
        dist[q] = 0
        buckets[0].append(q)
    c = 0
    while c < len(buckets):
        for p in buckets[c]:
            if dist[p] != c:
                continue
            hp = levels[p]
            f, r = p % SIZE, p // SIZE
            for q in (p - 1 if f else -1, p + 1 if f < SIZE - 1 else -1, p - SIZE if r else -1, p + SIZE if r < SIZE - 1 else -1):
                if q < 0:
                    continue
                nc = c + abs(hp - levels[q]) + 1
                if nc < dist[q]:
                    dist[q] = nc
                    while len(buckets) <= nc:
                        buckets.append([])
                    buckets[nc].append(q)
        c += 1
    return dist


def crossing_costs(heightmap: Sequence[Sequence[int]]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(red, blue)``: the cheapest crossing cost from each start square to the exit row, sorted.

    Red starts on c1-h1 and exits past rank 10; Blue starts on c10-h10 and exits past
    rank 1. Costs are movement points (``|height difference| + 1`` per step) to reach a
    square of the exit row, ignoring pieces. ``heightmap`` must satisfy the terrain rule.
    """
    levels = [heightmap[r][f] for r in range(SIZE) for f in range(SIZE)]
    red = _exit_costs(levels, SIZE - 1)
    blue = _exit_costs(levels, 0)
    return (
        tuple(sorted(red[f] for f in START_FILES)),
        tuple(sorted(blue[f + SIZE * (SIZE - 1)] for f in START_FILES)),
    )


def is_fair(heightmap: Sequence[Sequence[int]]) -> bool:
    """True when Red's and Blue's sorted crossing-cost lists are equal."""
    red, blue = crossing_costs(heightmap)
    return red == blue


def fairness_warning(heightmap: Sequence[Sequence[int]]) -> str | None:
    """``None`` for a fair map, else a one-line warning naming both crossing-cost lists."""
    red, blue = crossing_costs(heightmap)
    if red == blue:
        return None
    return (
        f"terrain is not fair: the cheapest crossing costs from the six start squares are "
        f"red {list(red)} and blue {list(blue)} (sum {sum(red)} and {sum(blue)}); playing it anyway"
    )


# --------------------------------------------------------------------------- the generator


def _lipschitz_envelope(levels: list[int]) -> None:
    """Lower ``levels`` in place to the largest map below them whose neighbours differ by <= 2.

    That map is ``min over q of levels[q] + 2 * manhattan(p, q)``; two raster passes compute
    it exactly. It commutes with the 180-degree turn, so a symmetric map stays symmetric.
    """
    for r in range(SIZE):
        for f in range(SIZE):
            p = f + SIZE * r
            v = levels[p]
            if f and levels[p - 1] + MAX_STEP < v:
                v = levels[p - 1] + MAX_STEP
            if r and levels[p - SIZE] + MAX_STEP < v:
                v = levels[p - SIZE] + MAX_STEP
            levels[p] = v
    for r in range(SIZE - 1, -1, -1):
        for f in range(SIZE - 1, -1, -1):
            p = f + SIZE * r
            v = levels[p]
            if f < SIZE - 1 and levels[p + 1] + MAX_STEP < v:
                v = levels[p + 1] + MAX_STEP
            if r < SIZE - 1 and levels[p + SIZE] + MAX_STEP < v:
                v = levels[p + SIZE] + MAX_STEP
            levels[p] = v


def _candidate(rng: random.Random) -> list[int]:
    """A point-symmetric map from random hills and valleys (levels 0-6, neighbour rule held)."""
    base = rng.uniform(1.5, 4.5)
    bumps = []
    for _ in range(rng.randint(6, 10)):
        x = rng.uniform(-1.0, 10.0)
        y = rng.uniform(-1.0, 10.0)
        height = rng.uniform(-5.0, 6.0)
        radius = rng.uniform(1.2, 3.0)
        bumps.append((x, y, height, 1.0 / (radius * radius)))
    n = SIZE * SIZE
    levels = [0] * n
    half = n // 2  # ranks 1-5; ranks 6-10 are their 180-degree image
    for p in range(half):
        f, r = p % SIZE, p // SIZE
        # The map is a sum of hills over the whole board, folded: a hill near j8 on
        # Blue's side shows up near a3 on Red's side, and so on.
        z = base
        for x, y, height, inv in bumps:
            for bx, by in ((x, y), (9.0 - x, 9.0 - y)):
                d2 = ((f - bx) ** 2 + (r - by) ** 2) * inv
                if d2 < 1.0:
                    z += height * (1.0 - d2) ** 2
        v = math.floor(z + 0.5)
        v = GEN_LEVEL_MAX if v > GEN_LEVEL_MAX else (0 if v < 0 else v)
        levels[p] = v
        levels[n - 1 - p] = v
    _lipschitz_envelope(levels)
    return levels


def generate(seed: int) -> list[list[int]]:
    """The fair heightmap of ``seed`` (``heightmap[rank - 1][file]``, levels 0-6).

    Deterministic: ``random.Random(seed)`` draws the hills, so the same seed gives the
    same map on every machine and Python version with the same ``random`` algorithm.
    The map is checked against the terrain rule and the fairness measure before it is
    returned; a candidate that failed would be redrawn (by construction none does).

    Raises:
        TerrainError: the seed is not an integer.
    """
    if type(seed) is not int:
        raise TerrainError(f"terrain seed: {_show(seed)} is not an integer")
    rng = random.Random(seed)
    while True:
        levels = _candidate(rng)
        rows = [levels[r * SIZE : (r + 1) * SIZE] for r in range(SIZE)]
        check_heightmap(rows)
        if is_fair(rows):
            return rows


# --------------------------------------------------------------------------- files


#: What a map file may be, for messages: ``play --terrain``, ``build --heightmap`` and
#: ``terrain.board.heightmap`` take the same files.
MAP_FILE = "a JSON heightmap or a terrain-game log"


def load_heightmap_file(path: str | os.PathLike[str]) -> list[list[int]]:
    """Read and check a terrain file: a JSON 10 x 10 list of lists, ``{"heightmap": [...]}``,
    or a terrain-game log (the heightmap of its header), as :func:`parse_map_file` reads it.

    Raises :class:`TerrainError` naming the file (missing, unreadable, not a regular
    file, not JSON, wrong shape) or the square and the values (the terrain rule).
    Fairness is not required here: see :func:`fairness_warning`.
    """
    data = read_user_file(path, "", MAX_FILE_BYTES, MAP_FILE, TerrainError)
    return parse_map_file(data, Path(path))


def parse_map_file(data: bytes, p: Path) -> list[list[int]]:
    """The checked heightmap in the bytes of a map file named ``p``: a terrain-game log's
    when its first line is a JSON object naming a game, else a heightmap file's. A UTF-8
    byte order mark at the start is skipped (Notepad writes one)."""
    data = data.removeprefix(codecs.BOM_UTF8)
    first = data.split(b"\n", 1)[0]
    return parse_log_header(first, p) if _looks_like_log(first) else parse_heightmap_file(data, p)


def _looks_like_log(first: bytes) -> bool:
    """Whether a file's first line is a JSON object naming a game (a log's header)."""
    try:
        header = json.loads(first.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return False  # parse_heightmap_file names what is wrong with the file
    return isinstance(header, dict) and "game" in header


def parse_heightmap_file(data: bytes, p: Path) -> list[list[int]]:
    """The checked heightmap in the bytes of a terrain file named ``p`` (see
    :func:`load_heightmap_file`).

    Raises:
        TerrainError: the file is not UTF-8 JSON holding a 10 x 10 heightmap.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise TerrainError(f"{p}: not UTF-8 text") from None
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as e:
        raise TerrainError(f"{p}: not valid JSON ({str(e).split(':')[0][:60]})") from None
    if isinstance(value, dict):
        extra = sorted(set(value) - {"heightmap"})
        if extra:
            raise TerrainError(f'{p}: unknown field {_show(extra[0])}, expected {{"heightmap": [...]}} '
                               "or a bare 10 x 10 list")
        if "heightmap" not in value:
            raise TerrainError(f'{p}: expected a 10 x 10 list of levels or {{"heightmap": [...]}}, got an object without it')
        value = value["heightmap"]
    rows = check_heightmap(value, f"{p}: heightmap")
    return [list(row) for row in rows]


def heightmap_from_log(path: str | os.PathLike[str]) -> list[list[int]]:
    """The heightmap recorded in a terrain-game log's header (line 1), checked against T1.

    Reads only the first line (at most 1 MiB, its newline not counted) of a regular file;
    does not replay the moves (use ``stratstone-cad check-log`` for that). Raises
    :class:`TerrainError` naming the file.

    Raises:
        TerrainError: the log cannot be read, or its header line is too long.
    """
    with open_regular(path, "", "a terrain-game log", TerrainError) as f:
        try:
            first = f.readline(MAX_FILE_BYTES + 1).removeprefix(codecs.BOM_UTF8)
        except OSError as e:
            raise TerrainError(f"{path}: cannot read ({describe_os_error(e)})") from None
    if len(first) > MAX_FILE_BYTES and not first.endswith(b"\n"):
        raise TerrainError(f"{path}: line 1: longer than the {MAX_FILE_BYTES >> 20} MiB limit for a log header")
    return parse_log_header(first, Path(path))


def parse_log_header(first: bytes, p: Path) -> list[list[int]]:
    """The checked heightmap in line 1 (``first``) of a terrain-game log named ``p``.

    Raises:
        TerrainError: line 1 is not the JSON header of a terrain-game log with its heightmap, or
            its kit arrangement (``setup.kit``) does not lay that heightmap.
    """
    try:
        header = json.loads(first.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise TerrainError(f"{p}: line 1 is not a JSON log header") from None
    if not isinstance(header, dict) or header.get("game") != "terrain" or not isinstance(header.get("setup"), dict):
        raise TerrainError(f"{p}: not a terrain-game log (line 1 should be its header with game 'terrain')")
    if "heightmap" not in header["setup"]:
        raise TerrainError(f"{p}: line 1: setup.heightmap is missing")
    rows = check_heightmap(header["setup"]["heightmap"], f"{p}: line 1: setup.heightmap")
    if "kit" in header["setup"]:  # a kit's log: its tiles must lay this map, as check-log says
        from stratstone_cad.games.terrain.kit import KitError, check_setup_field  # pure Python, the kit's own words

        try:
            check_setup_field(header["setup"]["kit"], rows)
        except KitError as e:
            raise TerrainError(f"{p}: line 1: {e}") from None
    return [list(row) for row in rows]


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")
