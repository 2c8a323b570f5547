"""The engines' board tables (rays, steps, walk counts, lines, neighbours), built again
here and checked against hand-counted squares and a brute-force walk.

The engines build these once, at import; every rule test then reads the tables. Calling
the builders here also lets the mutation tests reach them (mutmut switches a mutant on
only in functions called after import: docs/testing.md)."""

from __future__ import annotations

import functools

import pytest

from stratstone_cad.games.sage_stones import rules as sage
from stratstone_cad.games.stratstone import rules as strat
from stratstone_cad.games.terrain import rules as terrain


def _sage(square: str) -> int:
    c, r = sage.parse_square(square)
    return c * sage.ROWS + r


def _sages(text: str) -> tuple[int, ...]:
    return tuple(_sage(s) for s in text.split())


def test_sage_rays_wrap_round_the_columns_and_stop_at_the_rows_ends():
    rays = sage._build_rays()
    assert rays == sage.RAYS
    corner = rays[_sage("3-1")]
    # E, W, N, NE, NW (the three rays going down are empty and left out)
    assert corner == (_sages("4-1 5-1 6-1 7-1 8-1 9-1"), _sages("9-1 8-1 7-1 6-1 5-1 4-1"),
                      _sages("3-2 3-3 3-4 3-5 3-6 3-7 3-8 3-9"), _sages("4-2 5-3 6-4 7-5 8-6 9-7 3-8 4-9"),
                      _sages("9-2 8-3 7-4 6-5 5-6 4-7 3-8 9-9"))
    middle = rays[_sage("6-5")]
    assert len(middle) == 8 and [len(r) for r in middle] == [6, 6, 4, 4, 4, 4, 4, 4]
    assert middle[5] == _sages("7-4 8-3 9-2 3-1")  # SE wraps from column 9 to column 3
    assert middle[7] == _sages("5-4 4-3 3-2 9-1")  # SW wraps from column 3 to column 9
    top = rays[_sage("9-9")]
    assert [len(r) for r in top] == [6, 6, 8, 8, 8]  # E, W, S, SE, SW
    assert top[0][0] == _sage("3-9") and top[3][:2] == _sages("3-8 4-7")
    for sq, per in enumerate(rays):
        for ray in per:
            assert sq not in ray and len(set(ray)) == len(ray)


def test_stratstone_steps_are_the_board_neighbours_n_e_s_w():
    steps = strat._build_steps()
    assert steps == strat.STEP
    sq = {name: i for i, name in enumerate(strat.SQUARES)}
    assert steps[sq["a1"]] == (sq["a2"], sq["b1"], -1, -1)
    assert steps[sq["b2"]] == (sq["b3"], sq["c2"], sq["b1"], sq["a2"])
    assert steps[sq["d4"]] == (-1, -1, sq["d3"], sq["c4"])
    assert steps[sq["a4"]] == (-1, sq["b4"], sq["a3"], -1)
    assert steps[sq["d1"]] == (sq["d2"], -1, -1, sq["c1"])


@functools.cache
def _walks(sq: int, last: int, n: int) -> int:
    """Paths of n steps from sq, never straight back, counted by walking them (each
    count once: memoised)."""
    if n == 0:
        return 1
    f, r = sq % 4, sq // 4
    total = 0
    for d, (df, dr) in enumerate(((0, 1), (1, 0), (0, -1), (-1, 0))):
        if last != 4 and d == (last + 2) % 4:
            continue
        if 0 <= f + df < 4 and 0 <= r + dr < 4:
            total += _walks(sq + df + 4 * dr, d, n - 1)
    return total


def test_stratstone_walk_counts_are_the_paths_that_never_step_straight_back():
    walks = strat._build_walk_counts()
    assert walks == strat.WALKS
    assert walks[0][4][:3] == (1, 2, 4)  # a1, no previous step: 1 way to stay, N or E, then 2 more each
    assert walks[5][4][1] == 4 and walks[5][0][1] == 3  # b2: four ways out; after N, not back S
    for sq in range(16):
        for last in range(5):
            assert list(walks[sq][last]) == [_walks(sq, last, n) for n in range(strat.MAX_STONES + 1)], (sq, last)


def test_stratstone_lines_are_the_four_ranks_four_files_and_two_diagonals():
    lines = strat._build_lines()
    assert lines == strat.LINES
    sq = {name: i for i, name in enumerate(strat.SQUARES)}
    expected = {tuple(sq[f"{f}{r}"] for f in "abcd") for r in "1234"}
    expected |= {tuple(sq[f"{f}{r}"] for r in "1234") for f in "abcd"}
    expected |= {tuple(sq[s] for s in ("a1", "b2", "c3", "d4")), tuple(sq[s] for s in ("d1", "c2", "b3", "a4"))}
    assert len(lines) == 10 and set(lines) == expected


@pytest.mark.parametrize(("square", "expected"), [
    ("a1", "a2 b1"), ("j10", "j9 i10"), ("e5", "e6 f5 e4 d5"), ("a10", "b10 a9"), ("j1", "j2 i1"),
    ("c1", "c2 d1 b1"), ("a5", "a6 b5 a4"), ("i9", "i10 j9 i8 h9"),
])
def test_terrain_neighbours_are_orthogonal_in_the_order_n_e_s_w(square, expected):
    p = terrain.SQUARES.index(square)
    assert terrain._neighbours(p) == tuple(terrain.SQUARES.index(s) for s in expected.split())
    assert terrain.NEIGHBOURS[p] == terrain._neighbours(p)


@pytest.mark.parametrize(("square", "diagonals", "jumps"), [
    ("a1", "b2", "a2:a3 b1:c1"),
    ("e5", "f6 f4 d4 d6", "e6:e7 f5:g5 e4:e3 d5:c5"),
    ("j10", "i9", "j9:j8 i10:h10"),
    ("b9", "c10 c8 a8 a10", "c9:d9 b8:b7"),
    ("i2", "j3 j1 h1 h3", "i3:i4 h2:g2"),
    ("h8", "i9 i7 g7 g9", "h9:h10 i8:j8 h7:h6 g8:f8"),
    ("c3", "d4 d2 b2 b4", "c4:c5 d3:e3 c2:c1 b3:a3"),
])
def test_terrain_runner_diagonals_ne_se_sw_nw_and_jumps_over_the_next_square(square, diagonals, jumps):
    p = terrain.SQUARES.index(square)
    idx = terrain.SQUARES.index
    assert terrain._diagonals(p) == tuple(idx(s) for s in diagonals.split())
    assert terrain._jumps(p) == tuple((idx(a), idx(b)) for a, b in (j.split(":") for j in jumps.split()))
    assert terrain.DIAGONALS[p] == terrain._diagonals(p) and terrain.JUMPS[p] == terrain._jumps(p)


def test_a_move_that_does_not_parse_says_its_ply_text_and_what_was_expected():
    from stratstone_cad.errors import MoveTextError, SquareError

    with pytest.raises(MoveTextError) as e:
        strat.StratstoneState.start().parse_move("z9 N")
    assert (e.value.text, e.value.ply) == ("z9 N", 1) and e.value.expected.startswith("a square a1-d4")
    assert str(e.value) == f"ply 1: 'z9 N' does not parse: expected {e.value.expected}"
    with pytest.raises(SquareError) as e2:
        strat.parse_square(["a1"])  # type: ignore[arg-type]
    assert str(e2.value).startswith("['a1'] is not a square (expected ")


def test_the_presets_print_each_game_as_its_facts_say():
    """The print parameters whose defaults are facts of the game (the board's cells, the
    sets' colours and counts) may be changed to print a variant, but their defaults are the
    game's: a preset that drifted from facts.py would print a set the rules cannot play."""
    from stratstone_cad.games.sage_stones import facts as sage
    from stratstone_cad.games.stratstone import facts as strat_facts
    from stratstone_cad.registry import load_params

    ps = load_params()
    s = ps.params_of("stratstone")
    assert (s.board.cells, s.stone.colours, s.stone.per_colour) == (strat_facts.SIZE, list(strat_facts.SETS),
                                                                    strat_facts.STONES_PER_PLAYER)
    assert strat_facts.TAN_STONES == strat_facts.STONES_PER_PLAYER  # one per_colour for the three sets
    g = ps.params_of("sage-stones")
    assert (g.gem.colours, g.gem.per_colour) == (list(sage.COLOURS), sage.STONES)
