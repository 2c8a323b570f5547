"""The terrain game in logs and commands: golden logs, check-log messages, play, playouts, greedy.

The golden logs in tests/data/logs/terrain*.jsonl and bad_terrain_*.jsonl are made by this
file: ``.venv/bin/python tests/games/test_terrain_log.py`` rewrites them; the tests below pin
the exact summary or message of each.
"""

from __future__ import annotations

import copy
import json
import math
import random
import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stratstone_cad.engine.events import Captured, Exited, GameOver
from stratstone_cad.engine.players import get_player, greedy
from stratstone_cad.errors import LogError, UserError
from stratstone_cad.games.terrain.rules import STRENGTH, TerrainState
from stratstone_cad.games.terrain.terrain_map import TerrainError, generate
from stratstone_cad.log import commands
from stratstone_cad.log import logfile as log
from stratstone_cad.log.commands import GameWarning, play_records
from stratstone_cad.registry import get_game
from tests import LOGS


def hmap(default: int = 0, **levels: int) -> list[list[int]]:
    rows = [[default] * 10 for _ in range(10)]
    for sq, v in levels.items():
        rows[int(sq[1:]) - 1][ord(sq[0]) - ord("a")] = v
    return rows


UNFAIR = hmap(**{f"{f}1": 2 for f in "cdefgh"})
BLOCKED = {"a1": "red guardian", "a2": "blue guardian", "b1": "blue guardian", "b2": "blue lancer", "j10": "blue runner"}

VALID = {
    "terrain_random.jsonl": "ok: terrain, 174 plies, winner blue (guardian exited first)",
    "terrain_greedy.jsonl": "ok: terrain, 24 plies, winner blue (second exit)",
    "terrain_derived.jsonl": "ok: terrain, 24 plies, winner blue (second exit)",
    "terrain_unfinished.jsonl": "ok: terrain, unfinished after 12 plies",
    "terrain_given_map.jsonl": "ok: terrain, 11 plies, winner red (second exit)",
    "terrain_passes.jsonl": "ok: terrain, 8 plies, draw (threefold repetition)",
}

INVALID = {
    "bad_terrain_cost.jsonl": "line 13, ply 12: c3-c7 costs 6, the Lancer has 4",
    "bad_terrain_heightmap.jsonl": "line 1: setup.heightmap: c4 = 7 and c5 = 3 differ by 4, expected at most 2",
    "bad_terrain_size.jsonl": "line 1: setup.heightmap: 9 rows, expected 10 (heightmap[0] is rank 1)",
    "bad_terrain_level.jsonl": "line 1: setup.heightmap: c4 = 1.5 is not an integer level",
    "bad_terrain_players.jsonl": "line 1: players: ['red', 'blue'] was expected",
    "bad_terrain_move_text.jsonl": "line 2, ply 1: 'c1-c11' does not parse: expected 'c1-c4' (move), 'c1xc5' (attack), "
    "'e7-exit' (exit) or 'pass', with squares a1-j10",
    "bad_terrain_weak.jsonl": "line 2, ply 1: c4xc5 is too weak: 2 (Guardian 3, -1 from lower ground) against 3 (Guardian 3); "
    "an attack needs at least the defender's strength",
    "bad_terrain_exit.jsonl": "line 2, ply 1: c7-exit needs 1 point left on rank 10: the cheapest path there costs 3, "
    "the Guardian has 3",
    "bad_terrain_pass.jsonl": "line 2, ply 1: pass is only allowed without a legal move, and red has c1-a1",
    "bad_terrain_wrong_player.jsonl": "line 2, ply 1: player is 'blue' but red is to move",
    "bad_terrain_result.jsonl": "line 26: result says winner red (second exit) but the moves give winner blue (second exit)",
    "bad_terrain_score.jsonl": "line 3, ply 2: score says {'red': 1, 'blue': 0} but the moves give {'red': 0, 'blue': 0}",
    "bad_terrain_after_end.jsonl": "line 3, ply 2: 'j10-j9' comes after the end of the game: winner red (guardian exited first)",
    "bad_terrain_setup.jsonl": "line 1: setup: Additional properties are not allowed ('colour' was unexpected)",
}


# ------------------------------------------------------------------------- fixtures


def _hand_made(setup: dict[str, Any], moves: list[str], first: str = "red") -> list[dict[str, Any]]:
    """A log from a hand-made setup and moves (players alternate from ``first``; moves are not checked here)."""
    header = log.header_record(get_game("terrain"), ["red", "blue"], None, {"terrain_seed": None, **setup})
    out = [header]
    side = first
    for i, move in enumerate(moves, 1):
        out.append(log.ply_record(i, side, move))
        side = "blue" if side == "red" else "red"
    return out


def _with_derived(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    engine = get_game("terrain")
    state = engine.initial_state(records[0]["players"], records[0]["setup"])
    out = [records[0]]
    for rec in records[1:]:
        if "result" in rec:
            out.append(rec)
            continue
        before = state
        state, events = state.apply(rec["move"])
        out.append({**rec, **engine.derived(before, state, events)})
    return out


def _cone_at_c4() -> list[list[int]]:
    rows = [[max(0, 7 - 2 * (abs(f - 2) + abs(r - 3))) for f in range(10)] for r in range(10)]
    rows[4][2] = 3
    return rows


def make_fixtures() -> dict[str, list[Any]]:
    """Every terrain fixture, by file name (records, or raw lines as strings)."""
    rand = play_records("terrain", 1, ["random", "random"])
    gre = play_records("terrain", 3, ["greedy", "greedy"])
    given_map = play_records("terrain", 2, ["greedy", "random"], {"heightmap": UNFAIR})
    files: dict[str, list[Any]] = {
        "terrain_random.jsonl": rand,
        "terrain_greedy.jsonl": gre,
        "terrain_derived.jsonl": _with_derived(gre),
        "terrain_unfinished.jsonl": rand[:13],
        "terrain_given_map.jsonl": given_map,
        "terrain_passes.jsonl": [
            *_hand_made(
                {"heightmap": hmap(), "pieces": BLOCKED, "first": "blue"}, ["j10-j9", "pass", "j9-j10", "pass"] * 2, "blue"
            ),
            {"result": {"winner": None, "reason": "threefold repetition"}},
        ],
    }
    # c3 -> c7 costs 6 on this map (c5 at 1: c4 1, c5 2, c6 2, c7 1; or round by b3-b7 for 6 too)
    blue_moves = [f"j{10 - i}-j{9 - i}" for i in range(6)]  # j10-j9 ... j5-j4
    red_moves = [f"a{i + 1}-a{i + 2}" for i in range(5)] + ["c3-c7"]  # a1-a2 ... a5-a6, then ply 12
    files["bad_terrain_cost.jsonl"] = _hand_made(
        {"heightmap": hmap(c5=1), "pieces": {"c3": "red lancer", "a1": "red guardian", "j10": "blue guardian"}, "first": "blue"},
        [m for pair in zip(blue_moves, red_moves, strict=True) for m in pair],
        "blue",
    )
    head = copy.deepcopy(rand[0])
    files["bad_terrain_heightmap.jsonl"] = [{**head, "setup": {"terrain_seed": None, "heightmap": _cone_at_c4()}}]
    files["bad_terrain_size.jsonl"] = [{**head, "setup": {"terrain_seed": None, "heightmap": hmap()[:9]}}]
    bad_level = hmap()
    bad_level[3][2] = 1.5  # type: ignore[call-overload]
    files["bad_terrain_level.jsonl"] = [{**head, "setup": {"terrain_seed": None, "heightmap": bad_level}}]
    files["bad_terrain_players.jsonl"] = [{**head, "players": ["yellow", "red"]}, *rand[1:3]]
    files["bad_terrain_move_text.jsonl"] = [head, {"ply": 1, "player": "red", "move": "c1-c11"}]
    files["bad_terrain_weak.jsonl"] = _hand_made(
        {
            "heightmap": hmap(c5=1),
            "pieces": {"c4": "red guardian", "c5": "blue guardian", "a1": "red runner", "j10": "blue runner"},
        },
        ["c4xc5"],
    )
    files["bad_terrain_exit.jsonl"] = _hand_made(
        {"heightmap": hmap(), "pieces": {"c7": "red guardian", "j10": "blue runner"}}, ["c7-exit"]
    )
    files["bad_terrain_pass.jsonl"] = [head, {"ply": 1, "player": "red", "move": "pass"}]
    files["bad_terrain_wrong_player.jsonl"] = [head, {**rand[1], "player": "blue"}]
    files["bad_terrain_result.jsonl"] = [*gre[:-1], {"result": {"winner": "red", "reason": "second exit"}}]
    derived = _with_derived(gre)
    files["bad_terrain_score.jsonl"] = [derived[0], derived[1], {**derived[2], "score": {"red": 1, "blue": 0}}]
    files["bad_terrain_after_end.jsonl"] = _hand_made(
        {"heightmap": hmap(), "pieces": {"c10": "red guardian", "a1": "red runner", "j10": "blue runner"}}, ["c10-exit", "j10-j9"]
    )
    files["bad_terrain_setup.jsonl"] = [{**head, "setup": {**head["setup"], "colour": "green"}}]
    return files


def write_fixtures() -> None:
    for name, records in make_fixtures().items():
        lines = [r if isinstance(r, str) else log.dumps_line(r) for r in records]
        (LOGS / name).write_text("".join(line + "\n" for line in lines), encoding="utf-8")


# ------------------------------------------------------------------------- golden logs


def test_every_terrain_fixture_is_listed_and_up_to_date():
    on_disk = {p.name for p in LOGS.glob("*.jsonl") if p.name.startswith(("terrain", "bad_terrain_"))}
    assert on_disk - {"bad_terrain_no_heightmap.jsonl"} == set(VALID) | set(INVALID)
    for name, records in make_fixtures().items():
        lines = (LOGS / name).read_text().splitlines()
        assert lines == [r if isinstance(r, str) else log.dumps_line(r) for r in records], name


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_terrain_logs(name):
    assert commands.check_log(LOGS / name) == VALID[name]


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_terrain_logs_give_the_exact_message(name):
    with pytest.raises(LogError) as info:
        commands.check_log(LOGS / name)
    assert str(info.value) == INVALID[name]


def test_schema_accepts_every_valid_terrain_line():
    validator = log.validator_class()(log.load_schema())
    for name in VALID:
        for line in (LOGS / name).read_text().splitlines():
            validator.validate(json.loads(line))


def test_the_header_holds_the_heightmap_and_the_terrain_seed():
    head = json.loads((LOGS / "terrain_random.jsonl").read_text().splitlines()[0])
    assert head["players"] == ["red", "blue"] and head["rules"] == "terrain/1" and head["seed"] == 1
    assert head["setup"] == {"terrain_seed": 1, "heightmap": generate(1)}
    given = json.loads((LOGS / "terrain_given_map.jsonl").read_text().splitlines()[0])
    assert given["setup"] == {"terrain_seed": None, "heightmap": UNFAIR}


def test_a_replay_does_not_depend_on_the_generator(monkeypatch, tmp_path):
    from stratstone_cad.games.terrain import rules as terrain
    from stratstone_cad.games.terrain import terrain_map

    def broken(seed: int) -> list[list[int]]:
        raise AssertionError("the generator was called")

    monkeypatch.setattr(terrain_map, "generate", broken)
    monkeypatch.setattr(terrain, "generate", broken)
    assert commands.check_log(LOGS / "terrain_random.jsonl") == VALID["terrain_random.jsonl"]


def test_replay_yields_terrain_events():
    with log.walk_log(LOGS / "terrain_greedy.jsonl") as r:
        steps = list(r)
    kinds = {e.kind for s in steps for e in s.events}
    assert {"moved", "exited", "game over"} <= kinds
    exits = [e for s in steps for e in s.events if isinstance(e, Exited)]
    assert len(exits) == 2 and steps[-1].after.result().reason == "second exit"


# ------------------------------------------------------------------------- commands.play


def test_play_terrain_seed_makes_the_map_and_the_players_seeds():
    lines = commands.play("terrain", 7, None, None).split("\n")
    head = json.loads(lines[0])
    assert head["game"] == "terrain" and head["seed"] == 7 and head["players"] == ["red", "blue"]
    assert head["setup"] == {"terrain_seed": 7, "heightmap": generate(7)}
    assert json.loads(lines[1])["player"] == "red"
    assert commands.play("terrain", 7, None, None) == "\n".join(lines)


def test_play_terrain_with_a_terrain_seed_in_the_setup():
    head = json.loads(commands.play("terrain", 7, None, None, {"terrain_seed": 9}).split("\n")[0])
    assert head["seed"] == 7 and head["setup"] == {"terrain_seed": 9, "heightmap": generate(9)}


def test_play_terrain_file_and_check_log(tmp_path):
    terrain = tmp_path / "map.json"
    terrain.write_text(json.dumps({"heightmap": generate(5)}))
    out = tmp_path / "g.jsonl"
    seen: list[str] = []
    summary = commands.play("terrain", 3, ["greedy", "greedy"], out, map_file=terrain, on_warning=seen.append)
    assert summary.startswith(f"wrote {out}: terrain, ") and seen == []
    head = json.loads(out.read_text().split("\n")[0])
    assert head["setup"] == {"terrain_seed": None, "heightmap": generate(5)}
    assert commands.check_log(out) == "ok: " + summary.split(": ", 1)[1]


def test_an_unfair_terrain_file_is_played_with_a_warning_naming_both_costs(tmp_path):
    terrain = tmp_path / "unfair.json"
    terrain.write_text(json.dumps(UNFAIR))
    seen: list[str] = []
    text = commands.play("terrain", 3, None, None, map_file=terrain, on_warning=seen.append)
    assert json.loads(text.split("\n")[0])["setup"]["heightmap"] == UNFAIR
    assert seen == [
        "terrain is not fair: the cheapest crossing costs from the six start squares are "
        "red [11, 11, 11, 11, 11, 11] and blue [10, 10, 11, 11, 11, 11] (sum 66 and 64); playing it anyway"
    ]
    with pytest.warns(GameWarning, match=r"red \[11, 11, 11, 11, 11, 11\] and blue \[10, 10, 11, 11, 11, 11\]") as caught:
        commands.play("terrain", 3, None, None, map_file=terrain)
    assert [w.filename for w in caught] != [commands.__file__]  # it points at play's caller, not inside play
    with pytest.warns(GameWarning, match="not fair"):
        commands.play("terrain", 3, None, None, {"heightmap": UNFAIR})


def test_a_fair_map_gives_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        commands.play("terrain", 3, None, None)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (json.dumps(_cone_at_c4()), "heightmap: c4 = 7 and c5 = 3 differ by 4, expected at most 2"),
        (json.dumps(hmap()[:9]), "heightmap: 9 rows, expected 10"),
        (json.dumps(hmap(c4=1.5)), "heightmap: c4 = 1.5 is not an integer level"),  # type: ignore[arg-type]
    ],
)
def test_a_bad_terrain_file_is_one_user_error_naming_the_square(tmp_path, content, message):
    terrain = tmp_path / "bad.json"
    terrain.write_text(content)
    with pytest.raises(UserError) as info:
        commands.play("terrain", 1, None, None, map_file=terrain)
    assert str(info.value) == f"{terrain}: {message}" or str(info.value).startswith(f"{terrain}: {message}")
    assert isinstance(info.value, TerrainError) and "\n" not in str(info.value)


def test_play_terrain_argument_errors(tmp_path):
    terrain = tmp_path / "map.json"
    terrain.write_text(json.dumps(generate(1)))
    with pytest.raises(UserError, match="only the terrain game is played on a heightmap"):
        commands.play("stratstone", 1, None, None, map_file=terrain)
    with pytest.raises(UserError, match="the setup gives a heightmap too"):
        commands.play("terrain", 1, None, None, {"heightmap": generate(1)}, map_file=terrain)
    with pytest.raises(UserError, match="terrain needs 2 players, got 3"):
        commands.play("terrain", 1, ["random"] * 3, None)
    with pytest.raises(UserError, match=r"setup.terrain_seed: 'x' is not an integer"):
        commands.play("terrain", 1, None, None, {"terrain_seed": "x"})
    with pytest.raises(UserError, match=r"setup.heightmap: c3 = 0 and c4 = 7 differ by 7"):
        commands.play("terrain", 1, None, None, {"heightmap": hmap(c4=7)})
    with pytest.raises(TerrainError, match="file not found"):
        commands.play("terrain", 1, None, None, map_file=tmp_path / "nope.json")


def test_the_registry_knows_the_terrain_game():
    game = get_game("terrain")
    assert game.rules == "terrain/1" and game.chance_field is None


# ------------------------------------------------------------------------- greedy


def _pos(pieces: dict[str, str], **setup: Any) -> TerrainState:
    return TerrainState.from_setup({"heightmap": hmap(), "pieces": pieces, **setup})


def test_greedy_takes_a_win():
    s = _pos({"c10": "red guardian", "c7": "red runner", "c5": "red lancer", "c6": "blue runner", "j1": "blue lancer"})
    for seed in range(5):
        assert str(greedy(s, random.Random(seed))) == "c10-exit"


def test_greedy_exits_the_strongest_piece_but_not_into_a_loss():
    s = _pos({"c10": "red lancer", "d10": "red runner", "e5": "red guardian", "e6": "blue runner", "j1": "blue lancer"})
    assert str(greedy(s, random.Random(0))) == "c10-exit"
    # blue has scored 2: red's Lancer exit draws (2-2) and the Runner's loses (1-2), so neither is a win;
    # the draw is not a loss, so it is taken
    s = _pos(
        {"c10": "red lancer", "d10": "red runner", "e5": "red guardian", "j1": "blue lancer"},
        exits=1,
        score={"red": 0, "blue": 2},
    )
    assert str(greedy(s, random.Random(0))) == "c10-exit"


def test_greedy_captures_the_strongest_piece():
    s = _pos({"e5": "red guardian", "e6": "blue lancer", "d5": "blue runner", "j10": "blue runner", "a1": "red runner"})
    assert str(greedy(s, random.Random(0))) == "e5xe6"


def test_greedy_otherwise_advances_most():
    s = _pos({"a1": "red runner", "j10": "blue runner"})
    for seed in range(5):
        assert str(greedy(s, random.Random(seed))) == "a1-a6"
    blue = _pos({"a1": "red runner", "j10": "blue lancer"}, first="blue")
    assert str(greedy(blue, random.Random(0))) == "j10-j6"


def test_greedy_is_deterministic_for_a_seed():
    assert play_records("terrain", 8, ["greedy", "greedy"]) == play_records("terrain", 8, ["greedy", "greedy"])


# ------------------------------------------------------------------------- the search's prior


def _prior(state: TerrainState) -> dict[str, float]:
    prior = state.move_prior()
    assert prior is not None and abs(sum(prior) - 1) < 1e-9 and min(prior) > 0
    return dict(zip((str(m) for m in state.legal_moves()), prior, strict=True))


def test_the_prior_puts_a_win_first_then_exits_and_captures_by_strength_then_advances():
    win = _prior(_pos({"c10": "red guardian", "c7": "red runner", "c5": "red lancer", "c6": "blue runner",
                       "j1": "blue lancer"}))
    assert max(win, key=win.get) == "c10-exit" and win["c10-exit"] > 0.9
    exits = _prior(_pos({"c10": "red lancer", "d10": "red runner", "e5": "red guardian", "e6": "blue runner",
                         "j1": "blue lancer"}))
    assert exits["c10-exit"] / exits["d10-exit"] == pytest.approx(math.e)  # a Lancer (2) against a Runner (1)
    assert exits["d10-exit"] / exits["e5xe6"] == pytest.approx(math.e)  # an exit of 1 against a capture of 1
    captures = _prior(_pos({"e5": "red guardian", "e6": "blue lancer", "d5": "blue runner", "j10": "blue runner",
                            "a1": "red runner"}))
    assert captures["e5xe6"] / captures["e5xd5"] == pytest.approx(math.e)
    advances = _prior(_pos({"a1": "red runner", "j10": "blue runner"}))
    assert max(advances, key=advances.get) == "a1-a6"
    assert advances["a1-a6"] / advances["a1-a2"] == pytest.approx(math.exp(0.5 * 4))


def test_a_move_that_loses_at_once_is_the_least_likely():
    # blue has scored 2: the Runner's exit loses (1-2); the Lancer's draws; a plain move is neither
    s = _pos({"c10": "red lancer", "d10": "red runner", "e5": "red guardian", "j1": "blue lancer"},
             exits=1, score={"red": 0, "blue": 2})
    prior = _prior(s)
    assert min(prior, key=prior.get) == "d10-exit" and prior["d10-exit"] < min(p for m, p in prior.items() if m != "d10-exit")


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32))
def test_on_the_positions_of_games_the_prior_ranks_wins_first_and_losses_last(seed):
    rng = random.Random(seed)
    state = TerrainState.start(generate(seed % 1000))
    while not state.is_terminal():
        moves = list(state.legal_moves())
        prior = state.move_prior()
        if prior is None:
            assert len(moves) == 1
        else:
            assert len(prior) == len(moves) and abs(sum(prior) - 1) < 1e-9
            me = state.to_move()
            ends = [state.apply(m)[0].result() for m in moves]
            wins = [p for p, r in zip(prior, ends, strict=True) if r is not None and r.winner == me]
            losses = [p for p, r in zip(prior, ends, strict=True) if r is not None and r.winner not in (me, None)]
            others = [p for p, r in zip(prior, ends, strict=True) if r is None or r.winner is None]
            if wins:
                assert min(wins) == max(prior)
            if losses and others:
                assert max(losses) < min(others)
        state = state.apply(greedy(state, rng) if rng.random() < 0.7 else state.random_move(rng))[0]


# ------------------------------------------------------------------------- playouts


def _snapshot(state: TerrainState) -> tuple[Any, ...]:
    return tuple(getattr(state, name) for name in type(state).__slots__)


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32), st.lists(st.sampled_from(["random", "greedy"]), min_size=2, max_size=2))
def test_random_playouts_revalidate_through_check_log(tmp_path_factory, seed, kinds):
    records = play_records("terrain", seed, kinds)
    path = tmp_path_factory.mktemp("t") / "g.jsonl"
    log.write_log(path, _with_derived(records))
    report = log.validate(path)
    assert report.plies == len(records) - 1 - ("result" in records[-1]) <= 200
    with log.walk_log(path) as r:
        for step in r:
            before, after = step.before, step.after
            assert isinstance(after, TerrainState)
            on_board = [sum(1 for v in after.board if v and (v - 1) // 3 == side) for side in (0, 1)]
            assert on_board == [len(after.pieces[0]), len(after.pieces[1])]
            gone = sum(1 for e in step.events if isinstance(e, (Captured, Exited)))
            assert sum(on_board) == len(before.pieces[0]) + len(before.pieces[1]) - gone
            assert after.is_terminal() == any(isinstance(e, GameOver) for e in step.events)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32))
def test_apply_never_mutates_the_old_state(seed):
    rng = random.Random(seed)
    state = TerrainState.start(generate(seed % 1000))
    while not state.is_terminal():
        snap = _snapshot(state)
        moves = list(state.legal_moves())
        move = get_player(rng.choice(["random", "greedy"]))(state, rng)
        assert move in moves
        nxt, events = state.apply(move)
        assert _snapshot(state) == snap
        assert list(state.legal_moves()) == moves
        exited = [e for e in events if isinstance(e, Exited)]
        if exited and nxt.result() is None:
            assert nxt.scores[state.turn] == state.scores[state.turn] + STRENGTH[(state.board[move.frm] - 1) % 3]
        state = nxt


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(sorted(VALID)), st.data())
def test_fuzz_mutated_terrain_logs_give_only_log_errors(tmp_path, name, data):
    lines = (LOGS / name).read_text().splitlines()
    i = data.draw(st.integers(0, len(lines) - 1))
    obj = json.loads(lines[i])
    target = obj
    while True:
        keys = list(target) if isinstance(target, dict) else list(range(len(target)))
        if not keys:
            break
        key = data.draw(st.sampled_from(keys))
        child = target[key]
        if isinstance(child, (dict, list)) and child and data.draw(st.booleans()):
            target = child
            continue
        target[key] = data.draw(
            st.one_of(
                st.none(),
                st.booleans(),
                st.integers(-3, 25),
                st.floats(allow_nan=False, allow_infinity=False),
                st.text(max_size=6),
                st.sampled_from(["c1-c4", "c1xc5", "e7-exit", "pass", "red", "blue", "red runner"]),
                st.lists(st.integers(0, 4), max_size=11),
                st.dictionaries(st.sampled_from(["a1", "red", "blue"]), st.integers(0, 3), max_size=2),
            )
        )
        break
    lines[i] = json.dumps(obj)
    p = tmp_path / "fuzz.jsonl"
    p.write_text("\n".join(lines) + "\n")
    try:
        log.validate(p)
    except LogError as e:
        assert str(e) and "\n" not in str(e)


if __name__ == "__main__":
    write_fixtures()
