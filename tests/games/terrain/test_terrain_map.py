"""Terrain maps: the heightmap rule, the fairness measure, the generator, terrain files."""

from __future__ import annotations

import heapq
import json
import subprocess
import sys
from pathlib import Path

import pytest

from stratstone_cad.errors import UserError
from stratstone_cad.games.terrain import terrain_map as tm
from stratstone_cad.games.terrain.terrain_map import (
    TerrainError,
    check_heightmap,
    crossing_costs,
    fairness_warning,
    generate,
    heightmap_from_log,
    is_fair,
    load_heightmap_file,
)
from stratstone_cad.registry import get_game
from tests import LOGS, ROOT


def hmap(default: int = 0, **levels: int) -> list[list[int]]:
    rows = [[default] * 10 for _ in range(10)]
    for sq, v in levels.items():
        rows[int(sq[1:]) - 1][ord(sq[0]) - ord("a")] = v
    return rows


def reference_crossing(heightmap: list[list[int]]) -> tuple[list[int], list[int]]:
    """Crossing costs of the start squares c-h, from :func:`reference_exit_costs` (a step
    costs the same both ways, so a square's cost to a rank is the rank's cost to it)."""
    to_rank_10, to_rank_1 = reference_exit_costs(heightmap, 9), reference_exit_costs(heightmap, 0)
    red = sorted(to_rank_10[f] for f in range(2, 8))
    blue = sorted(to_rank_1[90 + f] for f in range(2, 8))
    return red, blue


# A plateau of 2 under Red's start squares c1-h1: Red pays 3 for its first step, while Blue
# can finish on a1, b1, i1 or j1 at level 0 (c10 and h10 are one file from them).
UNFAIR = hmap(**{f"{f}1": 2 for f in "cdefgh"})


# ------------------------------------------------------------------------- the measure


def test_crossing_costs_on_a_flat_map_are_nine_steps():
    assert crossing_costs(hmap()) == ((9,) * 6, (9,) * 6)
    assert crossing_costs(hmap(5)) == ((9,) * 6, (9,) * 6)


def test_crossing_costs_count_up_and_down():
    ridge = hmap(**{f"{f}5": 2 for f in "abcdefghij"})  # 7 level steps, 2 steps of 3
    assert crossing_costs(ridge) == ((13,) * 6, (13,) * 6)


def test_crossing_costs_of_an_unfair_map():
    assert crossing_costs(UNFAIR) == ((11,) * 6, (10, 10, 11, 11, 11, 11))
    assert not is_fair(UNFAIR)
    assert fairness_warning(UNFAIR) == (
        "terrain is not fair: the cheapest crossing costs from the six start squares are "
        "red [11, 11, 11, 11, 11, 11] and blue [10, 10, 11, 11, 11, 11] (sum 66 and 64); playing it anyway"
    )
    assert fairness_warning(hmap()) is None


def test_comparing_whole_rows_would_prove_nothing():
    # from all of rank 1 to rank 10 and back costs the same on every map, fair or not
    levels = [UNFAIR[r][f] for r in range(10) for f in range(10)]
    up = tm._exit_costs(levels, 9)
    down = tm._exit_costs(levels, 0)
    assert min(up[f] for f in range(10)) == min(down[f + 90] for f in range(10))


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 99])
def test_crossing_costs_agree_with_a_reference_dijkstra(seed):
    m = generate(seed)
    red, blue = reference_crossing(m)
    assert crossing_costs(m) == (tuple(red), tuple(blue))
    red, blue = reference_crossing(UNFAIR)
    assert crossing_costs(UNFAIR) == (tuple(red), tuple(blue))


def reference_exit_costs(heightmap: list[list[int]], exit_rank: int) -> list[int]:
    """Every square's cheapest cost to any square of ``exit_rank`` (index file + 10 * rank),
    with heapq from the whole row (independent of terrain_map)."""
    dist = {(f, exit_rank): 0 for f in range(10)}
    heap = [(0, f, exit_rank) for f in range(10)]
    while heap:
        d, f, r = heapq.heappop(heap)
        if d > dist[(f, r)]:
            continue
        for nf, nr in ((f + 1, r), (f - 1, r), (f, r + 1), (f, r - 1)):
            if 0 <= nf < 10 and 0 <= nr < 10:
                nd = d + abs(heightmap[r][f] - heightmap[nr][nf]) + 1
                if nd < dist.get((nf, nr), 1 << 30):
                    dist[(nf, nr)] = nd
                    heapq.heappush(heap, (nd, nf, nr))
    return [dist[(p % 10, p // 10)] for p in range(100)]


# Ranks alternating between levels 0 and 2 (3 points a step up or down) on files a-d, and
# a flat 1 on e-j (or the other way round): the cheap way from a washboard square runs
# sideways first, to the flat files.
WASHBOARD_LEFT = [[2 * (r % 2) if f < 4 else 1 for f in range(10)] for r in range(10)]
WASHBOARD_RIGHT = [row[::-1] for row in WASHBOARD_LEFT]


@pytest.mark.parametrize("heightmap", [hmap(), UNFAIR, WASHBOARD_LEFT, WASHBOARD_RIGHT, generate(0)])
def test_the_exit_cost_of_every_square_agrees_with_a_reference_dijkstra(heightmap):
    """Not only the start squares: a1 and the files a and j at the board's sides, each way."""
    check_heightmap(heightmap)
    levels = [heightmap[r][f] for r in range(10) for f in range(10)]
    for exit_rank in (9, 0):
        assert tm._exit_costs(levels, exit_rank) == reference_exit_costs(heightmap, exit_rank)


def test_washboard_exit_costs_counted_by_hand():
    up = tm._exit_costs([v for row in WASHBOARD_LEFT for v in row], 9)
    # b1: sideways to d1 (1 + 1), onto the flat e1 (2), up the e file (9)
    assert (up[1], up[0], up[4]) == (13, 14, 9)
    up = tm._exit_costs([v for row in WASHBOARD_RIGHT for v in row], 9)
    assert (up[9], up[9 + 10 * 8]) == (14, 3)  # j1 as b1 above; j9 one step of 3 from j10


# ------------------------------------------------------------------------- the generator


def test_1000_seeds_satisfy_the_neighbour_rule_and_are_fair():
    for seed in range(1000):
        m = generate(seed)
        check_heightmap(m)  # raises on a broken map
        assert all(0 <= v <= tm.GEN_LEVEL_MAX for row in m for v in row)
        red, blue = crossing_costs(m)
        assert red == blue, seed


def test_generated_maps_are_point_symmetric():
    for seed in range(50):
        m = generate(seed)
        assert all(m[r][f] == m[9 - r][9 - f] for r in range(10) for f in range(10))


def test_the_same_seed_gives_the_same_map_and_seeds_differ():
    assert generate(0) == [
        [4, 2, 2, 4, 4, 3, 2, 4, 6, 6],
        [4, 2, 2, 4, 4, 2, 1, 3, 5, 6],
        [4, 4, 4, 4, 3, 2, 2, 3, 5, 5],
        [4, 4, 4, 2, 1, 0, 0, 1, 3, 5],
        [4, 4, 2, 0, 0, 0, 0, 1, 3, 4],
        [4, 3, 1, 0, 0, 0, 0, 2, 4, 4],
        [5, 3, 1, 0, 0, 1, 2, 4, 4, 4],
        [5, 5, 3, 2, 2, 3, 4, 4, 4, 4],
        [6, 5, 3, 1, 2, 4, 4, 2, 2, 4],
        [6, 6, 4, 2, 3, 4, 4, 2, 2, 4],
    ]
    assert generate(12345) == generate(12345)
    maps = {json.dumps(generate(s)) for s in range(100)}
    assert len(maps) == 100


def test_seed_5_gives_the_map_it_always_gave():
    """The draw of how many hills (6 to 10) is part of a seed's sequence: seed 5's first
    draw is retried, and a wider range would take it and give another map."""
    assert generate(5) == [
        [4, 6, 6, 5, 3, 3, 5, 6, 5, 3],
        [3, 5, 5, 4, 3, 3, 3, 5, 5, 3],
        [3, 3, 4, 3, 2, 3, 3, 3, 3, 3],
        [5, 4, 3, 2, 0, 2, 3, 3, 3, 4],
        [6, 5, 3, 2, 0, 1, 3, 3, 4, 6],
        [6, 4, 3, 3, 1, 0, 2, 3, 5, 6],
        [4, 3, 3, 3, 2, 0, 2, 3, 4, 5],
        [3, 3, 3, 3, 3, 2, 3, 4, 3, 3],
        [3, 5, 5, 3, 3, 3, 4, 5, 5, 3],
        [3, 5, 6, 5, 3, 3, 5, 6, 6, 4],
    ]


def test_generated_maps_have_relief():
    reliefs = [max(map(max, m)) - min(map(min, m)) for m in (generate(s) for s in range(200))]
    assert sum(reliefs) / len(reliefs) >= 4
    assert max(reliefs) == tm.GEN_LEVEL_MAX


def test_generate_refuses_a_non_integer_seed():
    with pytest.raises(TerrainError, match="terrain seed: '7' is not an integer"):
        generate("7")  # type: ignore[arg-type]


def test_terrain_map_imports_without_the_engine():
    code = (
        "import sys; from stratstone_cad.games.terrain.terrain_map import generate; generate(1);"
        "bad = [m for m in sys.modules if m in ('stratstone_cad.games.terrain.rules', 'stratstone_cad.log.logfile', 'jsonschema')"
        " or m.split('.')[0] in ('cadquery', 'OCP', 'vtk', 'pyvista', 'numpy')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    root = ROOT
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


# ------------------------------------------------------------------------- the rule


def _bump_at_c4() -> list[list[int]]:
    # a cone of 7 on c4 falling by 2 per step, then c5 dug down to 3 (4 below c4)
    rows = [[max(0, 7 - 2 * (abs(f - 2) + abs(r - 3))) for f in range(10)] for r in range(10)]
    rows[4][2] = 3
    return rows


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (_bump_at_c4(), "heightmap: c4 = 7 and c5 = 3 differ by 4, expected at most 2"),
        (hmap(**{f"{f}{r}": 3 for f in "abcdefghij" for r in range(5, 11)}), "heightmap: a4 = 0 and a5 = 3 differ by 3"),
        (hmap(j10=3), "heightmap: j9 = 0 and j10 = 3 differ by 3, expected at most 2"),
        (hmap()[:9], "heightmap: 9 rows, expected 10 (heightmap[0] is rank 1)"),
        ([*hmap(), [0] * 10], "heightmap: 11 rows, expected 10"),
        ([[0] * 10] * 3 + [[0] * 9] + [[0] * 10] * 6, "heightmap[3] (rank 4): 9 levels, expected 10 (files a-j)"),
        ([[0] * 10] * 9 + [5], "heightmap[9] (rank 10): expected a row of 10 levels, got a number"),
        (hmap(c4=1.5), "heightmap: c4 = 1.5 is not an integer level"),  # type: ignore[arg-type]
        (hmap(c4=True), "heightmap: c4 = true is not an integer level"),
        (hmap(c4="1"), "heightmap: c4 = '1' is not an integer level"),  # type: ignore[arg-type]
        (hmap(c4=None), "heightmap: c4 = null is not an integer level"),  # type: ignore[arg-type]
        (hmap(c4=-1), "heightmap: c4 = -1 is out of range, expected 0 to 20"),
        (hmap(21), "heightmap: a1 = 21 is out of range, expected 0 to 20"),
        ({"heightmap": hmap()}, "heightmap: expected 10 rows of 10 levels (rank 1 first), got an object"),
        ("flat", "heightmap: expected 10 rows of 10 levels (rank 1 first), got a string"),
        (True, "heightmap: expected 10 rows of 10 levels (rank 1 first), got a boolean"),
        (1.5, "heightmap: expected 10 rows of 10 levels (rank 1 first), got a number"),
        (b"[[0]]", "heightmap: expected 10 rows of 10 levels (rank 1 first), got bytes"),  # no JSON kind: its type
        ([[0] * 10], "heightmap: 1 row, expected 10 (heightmap[0] is rank 1)"),
    ],
)
def test_bad_heightmaps(value, message):
    with pytest.raises(TerrainError) as info:
        check_heightmap(value)
    assert str(info.value).startswith(message)
    assert isinstance(info.value, UserError) and "\n" not in str(info.value)


def test_a_valid_heightmap_comes_back_as_tuples():
    m = hmap(20, a1=18)
    assert check_heightmap(m)[0][:2] == (18, 20)


# ------------------------------------------------------------------------- files


def test_terrain_files_bare_list_or_object(tmp_path):
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(generate(4)))
    assert load_heightmap_file(bare) == generate(4)
    obj = tmp_path / "obj.json"
    obj.write_text(json.dumps({"heightmap": UNFAIR}))
    assert load_heightmap_file(obj) == UNFAIR


def test_a_map_file_may_be_a_log_and_may_start_with_a_byte_order_mark(tmp_path):
    """play --terrain reads what build --heightmap reads (a log was "not valid JSON (Extra data)"),
    and a UTF-8 BOM (Notepad's) is skipped in either kind of file and in a log's header."""
    log = (LOGS / "terrain_random.jsonl").read_bytes()
    bom = b"\xef\xbb\xbf"
    for name, data in (("log.jsonl", log), ("bom-log.jsonl", bom + log),
                       ("bom.json", bom + json.dumps(generate(1)).encode())):
        p = tmp_path / name
        p.write_bytes(data)
        assert load_heightmap_file(p) == generate(1), name
        assert get_game("terrain").load_map(p) == generate(1), name  # play --terrain, record --terrain
    assert heightmap_from_log(tmp_path / "bom-log.jsonl") == generate(1)
    with pytest.raises(TerrainError, match="not a terrain-game log"):
        load_heightmap_file(LOGS / "stratstone_win.jsonl")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "file not found, expected a JSON heightmap or a terrain-game log"),
        ("[[0, 1", "not valid JSON (Expecting ',' delimiter)"),
        ("[" * 100_000, "not valid JSON (maximum recursion depth exceeded while decoding a JSON array)"),
        ("NaN", "not valid JSON (NaN is not a JSON number)"),
        ("{}", 'expected a 10 x 10 list of levels or {"heightmap": [...]}, got an object without it'),
        ('{"heightmap": [], "seed": 1}', "unknown field 'seed', expected {\"heightmap\": [...]} or a bare 10 x 10 list"),
        (json.dumps(_bump_at_c4()), "heightmap: c4 = 7 and c5 = 3 differ by 4, expected at most 2"),
        (b"\xff\xfe", "not UTF-8 text"),
    ],
)
def test_bad_terrain_files(tmp_path, content, message):
    p = tmp_path / "t.json"
    if isinstance(content, bytes):
        p.write_bytes(content)
    elif content is not None:
        p.write_text(content)
    with pytest.raises(TerrainError) as info:
        load_heightmap_file(p)
    assert str(info.value) == f"{p}: {message}"  # whole: a JSON error cut at its first colon, then to 60 characters


def test_a_directory_is_not_a_terrain_file(tmp_path):
    with pytest.raises(TerrainError, match="is a folder, expected a JSON heightmap or a terrain-game log"):
        load_heightmap_file(tmp_path)


def test_the_heightmap_of_a_log(tmp_path):
    logs = LOGS
    assert heightmap_from_log(logs / "terrain_random.jsonl") == generate(1)
    with pytest.raises(TerrainError, match="not a terrain-game log"):
        heightmap_from_log(logs / "stratstone_win.jsonl")
    with pytest.raises(TerrainError, match="line 1: setup.heightmap: c4 = 7 and c5 = 3 differ by 4"):
        heightmap_from_log(logs / "bad_terrain_heightmap.jsonl")
    with pytest.raises(TerrainError, match="file not found, expected a terrain-game log"):
        heightmap_from_log(tmp_path / "nope.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{")
    with pytest.raises(TerrainError, match="line 1 is not a JSON log header"):
        heightmap_from_log(bad)


def test_a_logs_messages_name_the_file_whole(tmp_path):
    logs = LOGS
    with pytest.raises(TerrainError) as info:
        heightmap_from_log(logs / "stratstone_win.jsonl")
    assert str(info.value) == (f"{logs / 'stratstone_win.jsonl'}: not a terrain-game log "
                               "(line 1 should be its header with game 'terrain')")
    with pytest.raises(TerrainError) as info:
        heightmap_from_log(tmp_path / "nope.jsonl")
    assert str(info.value) == f"{tmp_path / 'nope.jsonl'}: file not found, expected a terrain-game log"


def test_a_read_error_in_a_log_is_one_line_naming_the_file(tmp_path, monkeypatch):
    import contextlib
    import errno

    class Failing:
        def readline(self, limit):
            raise OSError(errno.EIO, "Input/output error")

    @contextlib.contextmanager
    def failing(*args):
        yield Failing()

    monkeypatch.setattr(tm, "open_regular", failing)
    with pytest.raises(TerrainError) as info:
        heightmap_from_log(tmp_path / "t.jsonl")
    assert str(info.value) == f"{tmp_path / 't.jsonl'}: cannot read (Input/output error)"


def test_a_log_header_is_read_up_to_1_mib(tmp_path):
    """Line 1 is read up to 1 MiB and its newline: a header padded to exactly 1 MiB is
    read, one a byte longer is refused for its size (it was read whole and accepted)."""
    header = json.dumps({"game": "terrain", "setup": {"heightmap": generate(2)}})

    def log(size: int) -> Path:
        p = tmp_path / f"{size}.jsonl"
        p.write_text(header[:-1] + " " * (size - len(header)) + "}\n" + '{"ply": 1}\n')
        return p

    assert heightmap_from_log(log(tm.MAX_FILE_BYTES)) == generate(2)
    alone = tmp_path / "alone.jsonl"  # exactly 1 MiB and no newline: the whole file is its header
    alone.write_text(header[:-1] + " " * (tm.MAX_FILE_BYTES - len(header)) + "}")
    assert heightmap_from_log(alone) == generate(2)
    for size in (tm.MAX_FILE_BYTES + 1, tm.MAX_FILE_BYTES + 2):
        with pytest.raises(TerrainError) as info:
            heightmap_from_log(log(size))
        assert str(info.value) == f"{tmp_path / f'{size}.jsonl'}: line 1: longer than the 1 MiB limit for a log header"


def test_a_log_header_without_a_heightmap_or_with_nan():
    from stratstone_cad.games.terrain.terrain_map import parse_log_header

    p = Path("t.jsonl")
    with pytest.raises(TerrainError) as info:
        parse_log_header(b'{"game": "terrain", "setup": {"terrain_seed": 1}}\n', p)
    assert str(info.value) == "t.jsonl: line 1: setup.heightmap is missing"
    good = json.dumps({"game": "terrain", "setup": {"heightmap": generate(2)}})
    assert parse_log_header(good.encode(), p) == generate(2)
    with pytest.raises(TerrainError) as info:
        parse_log_header(good[:-1].encode() + b', "seed": NaN}', p)
    assert str(info.value) == "t.jsonl: line 1 is not a JSON log header"


@pytest.mark.parametrize(("value", "shown"), [
    (True, "true"), (False, "false"), (None, "null"), (3, "3"), ("abc", "'abc'"), ([1, 2], "[1, 2]"),
    ("x" * 18, "'" + "x" * 18 + "'"), ("x" * 19, "'" + "x" * 16 + "..."),
    (10**18 - 1, "999999999999999999"), (10**18, "a whole number of about 19 digits"),
    (-(10**40), "a whole number of about 41 digits"),
])
def test_a_heightmap_value_is_shown_short_in_a_message(value, shown):
    from stratstone_cad.games.terrain.terrain_map import _show

    assert _show(value) == shown


def test_a_step_costs_one_point_and_one_more_per_level_of_change():
    from stratstone_cad.games.terrain.terrain_map import step_cost

    assert [step_cost(0, 0), step_cost(0, 2), step_cost(3, 1), step_cost(-1, 1)] == [1, 3, 3, 3]


def test_two_boards_of_the_same_levels_are_one_terrain():
    from stratstone_cad.games.terrain.rules import Terrain

    a, b, other = Terrain(generate(4), 4), Terrain(generate(4), None), Terrain(generate(5), 5)
    assert a == b and hash(a) == hash(b) and a != other and a != generate(4)
    assert len({a, b, other}) == 2
