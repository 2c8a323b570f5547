"""The two commands the CLI calls: play and check_log; the players; the registry; imports."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from stratstone_cad.engine.players import greedy
from stratstone_cad.errors import LogError, OutputError, PlayerKindError, UnknownGameError, UserError
from stratstone_cad.games.sage_stones.rules import SageStonesState
from stratstone_cad.games.stratstone.rules import StratstoneState
from stratstone_cad.log import commands
from stratstone_cad.registry import game_names, get_game
from tests import LOGS, ROOT


def test_play_returns_the_log_text_without_the_final_newline():
    text = commands.play("stratstone", 1, None, None)
    lines = text.split("\n")
    assert json.loads(lines[0])["game"] == "stratstone"
    assert json.loads(lines[-1]) == {"result": {"winner": None, "reason": "all stones placed"}}
    assert not text.endswith("\n")


def test_play_writes_a_file_and_check_log_agrees(tmp_path):
    out = tmp_path / "g.jsonl"
    summary = commands.play("stratstone", 4, ["greedy", "random"], out)
    assert summary == f"wrote {out}: stratstone, 13 plies, winner yellow (line of four)"
    assert commands.check_log(out) == "ok: stratstone, 13 plies, winner yellow (line of four)"
    assert out.read_text() == commands.play("stratstone", 4, ["greedy", "random"], None) + "\n"


def test_play_out_sweeps_what_a_killed_write_of_its_log_left_but_not_a_running_ones(tmp_path):
    """A killed ``play --out`` leaves its temporary file beside the log; the next write of
    that log removes it, as every export does, but not one another write holds (locked),
    nor one of another name."""
    import fcntl

    out = tmp_path / "game.jsonl"
    dead, held, other = (tmp_path / f".{name}.{tail}.tmp" for name, tail in
                         (("game.jsonl", "ab12cd_9"), ("game.jsonl", "zz99yy00"), ("other.jsonl", "ab12cd_9")))
    for f in (dead, held, other):
        f.write_text('{"format"')
    with open(held) as running:
        fcntl.flock(running.fileno(), fcntl.LOCK_EX)
        commands.play("stratstone", 4, None, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([out.name, held.name, other.name])


def test_play_sage_stones_defaults_to_four_random_colours(tmp_path):
    head = json.loads(commands.play("sage-stones", 3, None, None).split("\n")[0])
    assert head["players"] == ["yellow", "red", "blue", "green"]
    assert head["setup"] == {"variant": "standard"} and head["seed"] == 3


def test_play_sage_stones_player_count_sets_the_colours():
    head = json.loads(commands.play("sage-stones", 3, ["random"] * 6, None).split("\n")[0])
    assert head["players"] == ["yellow", "red", "blue", "green", "white", "black"]


def test_play_two_player_variant(tmp_path):
    out = tmp_path / "v.jsonl"
    commands.play("sage-stones", 5, ["greedy", "random"], out, {"variant": "two-player"})
    head = json.loads(out.read_text().split("\n")[0])
    assert head["players"] == ["p1", "p2"]
    assert head["setup"] == {"variant": "two-player", "colours": ["yellow", "red", "blue", "green"]}
    assert commands.check_log(out).startswith("ok: sage-stones")


def test_play_without_a_seed_records_the_seed_it_drew(monkeypatch):
    head = json.loads(commands.play("stratstone", None, None, None).split("\n")[0])
    assert isinstance(head["seed"], int) and head["seed"] >= 0
    asked = []

    class System:
        def randrange(self, n: int) -> int:
            asked.append(n)
            return 4242

    monkeypatch.setattr(commands.random, "SystemRandom", System)
    head = json.loads(commands.play("stratstone", None, None, None).split("\n")[0])
    assert asked == [2**32] and head["seed"] == 4242  # a 32-bit seed, easy to type back


@pytest.mark.parametrize("seed", [0, 2**63 - 1])
def test_play_takes_every_seed_of_its_range(seed):
    head = json.loads(commands.play("stratstone", seed, None, None).split("\n")[0])
    assert head["seed"] == seed


def test_play_records_stops_at_its_ply_limit_without_a_result():
    records = commands.play_records("stratstone", 1, ["random", "random"], None, max_plies=3)
    assert [r.get("ply") for r in records[1:]] == [1, 2, 3] and "result" not in records[-1]


def test_play_records_draws_the_terrain_map_seed_from_the_dice_stream_when_the_setup_gives_none():
    import random

    head = commands.play_records("terrain", 9, ["random", "random"], {"terrain_seed": None}, max_plies=0)[0]
    assert head["seed"] == 9 and head["setup"]["terrain_seed"] == random.Random(9).randrange(2**32)


def test_play_first_player_via_setup():
    lines = commands.play("stratstone", 2, None, None, {"first": "red"}).split("\n")
    assert json.loads(lines[1])["player"] == "red"


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        (("chess", 1, None), UnknownGameError, "unknown game 'chess': expected one of sage-stones, stratstone"),
        (("stratstone", 1, ["random", "smart"]), PlayerKindError, "unknown player kind 'smart': expected one of greedy, random"),
        (("stratstone", 1, ["random"] * 3), UserError, "stratstone needs 2 players, got 3"),
        (("sage-stones", 1, ["random"] * 7), UserError, "sage-stones needs 2 to 6 players, got 7"),
        (("sage-stones", 1, ["random"]), UserError, "sage-stones needs 2 to 6 players, got 1"),
        (("stratstone", -1, None), UserError, "seed: -1 is not an integer from 0 to 9223372036854775807"),
        (("stratstone", 2**64, None), UserError, "seed: 18446744073709551616 is not an integer"),
        (("stratstone", 2**63, None), UserError, "seed: 9223372036854775808 is not an integer"),
    ],
)
def test_play_bad_arguments(args, error, message):
    with pytest.raises(error) as info:
        commands.play(*args, None)
    assert str(info.value).startswith(message)
    assert isinstance(info.value, UserError)


def test_play_bad_setup_and_variant_player_count():
    with pytest.raises(UserError) as e:
        commands.play("stratstone", 1, None, None, [1])  # type: ignore[arg-type]
    assert str(e.value) == "setup: expected an object, got list"
    with pytest.raises(UserError, match="two-player variant needs 2 players, got 3"):
        commands.play("sage-stones", 1, ["random"] * 3, None, {"variant": "two-player"})
    with pytest.raises(UserError, match="setup.first: 'green' is not a player"):
        commands.play("stratstone", 1, None, None, {"first": "green"})
    with pytest.raises(UserError, match="setup.variant: 'x' is not a variant"):
        commands.play("sage-stones", 1, None, None, {"variant": "x"})


def test_play_output_errors(tmp_path):
    with pytest.raises(OutputError, match="does not exist"):
        commands.play("stratstone", 1, None, tmp_path / "missing" / "g.jsonl")


def test_check_log_missing_file_is_a_log_error(tmp_path):
    with pytest.raises(LogError, match="file not found, expected a log file"):
        commands.check_log(tmp_path / "x.jsonl")


@pytest.mark.parametrize("error", [RecursionError, MemoryError])
def test_check_log_turns_running_out_of_stack_or_memory_into_one_log_error(tmp_path, monkeypatch, error):
    def exhausted(path):
        raise error()

    monkeypatch.setattr(commands._log, "validate", exhausted)
    with pytest.raises(LogError) as e:
        commands.check_log(tmp_path / "x.jsonl")
    assert str(e.value) == f"{tmp_path / 'x.jsonl'}: cannot check this log ({error.__name__})"


def test_registry_lists_the_engines_and_accepts_plugins():
    from stratstone_cad.registry import FACTS

    assert game_names() == sorted(FACTS) and len(FACTS) >= 3  # each game's engine beside its facts, once
    assert get_game("stratstone").rules == "stratstone/1"
    assert get_game("sage-stones").rules == "sage-stones/1"


def test_greedy_takes_a_win():
    s = StratstoneState.from_setup(
        {
            "stacks": {
                "a1": ["yellow"],
                "b1": ["yellow"],
                "c1": ["yellow"],
                "d3": ["tan"],
                "a4": ["red"],
                "b4": ["red"],
                "c3": ["red"],
            }
        }
    )
    import random

    move = greedy(s, random.Random(0))
    assert s.apply(move)[0].result().winner == "yellow"


def test_greedy_takes_the_biggest_capture():
    import random

    s = SageStonesState.from_setup(
        ["yellow", "red", "blue", "green"],
        {"board": {"5-5": "red", "6-5": "yellow", "5-2": "red", "5-3": "blue", "6-2": "yellow"}},
    )
    s, _ = s.apply_chance((1, 1, 2))
    move = greedy(s, random.Random(0))
    assert str(move) in {"4-2", "4-4", "4-5"}  # each traps one stone: a tie, broken at random
    s2 = SageStonesState.from_setup(
        ["yellow", "red", "blue", "green"],
        {"board": {"5-5": "red", "6-5": "yellow", "5-2": "red", "6-2": "blue", "7-2": "yellow"}},
    )
    s2, _ = s2.apply_chance((1, 1, 2))
    assert str(greedy(s2, random.Random(0))) == "4-2"  # traps two stones


def test_games_import_no_cad_or_vtk():
    code = (
        "import sys; import stratstone_cad.log.commands, stratstone_cad.log.logfile;"
        "heavy = ('cadquery', 'OCP', 'vtk', 'vtkmodules', 'pyvista', 'trimesh', 'numpy');"
        "bad = [m for m in sys.modules if m.split('.')[0] in heavy];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    root = ROOT
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_plugged_in_engine_is_found_next_to_the_built_in_ones(monkeypatch):
    from stratstone_cad import registry

    monkeypatch.setattr(registry, "_ENGINES", dict(registry._ENGINES))

    class Dummy:
        name = "dummy"
        rules = "dummy/1"
        chance_field = None

    before = game_names()
    registry.register(Dummy())
    assert game_names() == sorted(["dummy", *before])
    assert get_game("dummy").rules == "dummy/1"


def test_a_count_in_a_message_agrees_with_its_noun():
    from stratstone_cad.errors import counted

    assert [counted(n, "frame") for n in (0, 1, 2)] == ["0 frames", "1 frame", "2 frames"]
    assert [counted(n, "ply", "plies") for n in (0, 1, 2)] == ["0 plies", "1 ply", "2 plies"]


def test_a_logged_result_with_the_right_winner_and_a_wrong_reason_is_refused(tmp_path):
    lines = (LOGS / "stratstone_win.jsonl").read_text().splitlines()
    assert json.loads(lines[-1]) == {"result": {"winner": "yellow", "reason": "line of four"}}
    lines[-1] = json.dumps({"result": {"winner": "yellow", "reason": "all stones placed"}})
    log = tmp_path / "g.jsonl"
    log.write_text("\n".join(lines) + "\n")
    with pytest.raises(UserError, match=r"result says winner yellow \(all stones placed\) but the moves give winner "
                                        r"yellow \(line of four\)"):
        commands.check_log(log)


@pytest.mark.parametrize("die", [0, 1, 2])
@pytest.mark.parametrize("value", [0, 4])
def test_the_fast_sage_check_refuses_each_die_out_of_range(die, value, tmp_path):
    """The fast check must accept strictly less than the schema: a die of 0 or 4 in any of
    the three places is left to the schema, whose message names the die."""
    dice = [1, 2, 3]
    dice[die] = value
    ply = {"ply": 1, "player": "yellow", "dice": dice, "move": "5-1"}
    assert not get_game("sage-stones").fast_ply(ply, frozenset({"yellow", "red"}))
    lines = (LOGS / "sage_stones_4.jsonl").read_text().splitlines()[:1] + [json.dumps(ply)]
    log = tmp_path / "g.jsonl"
    log.write_text("\n".join(lines) + "\n")
    with pytest.raises(UserError, match=rf"line 2, ply 1: dice\[{die}\]: {value} is (less|greater) than"):
        commands.check_log(log)


@pytest.mark.parametrize(("mask", "mode"), [(0o077, 0o600), (0o022, 0o644)])
def test_a_new_log_follows_the_umask(tmp_path, mask, mode):
    """play --out (and record, through the same writer) creates its log as every export
    does: 0666 less the umask, not a fixed 0644."""
    code = ("import os, sys; os.umask(int(sys.argv[1])); from stratstone_cad.cli import main; "
            "sys.exit(main(['play', 'stratstone', '--seed', '1', '--out', sys.argv[2]]))")
    out = tmp_path / "g.jsonl"
    done = subprocess.run([sys.executable, "-c", code, str(mask), str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert out.stat().st_mode & 0o777 == mode


def test_play_never_writes_its_log_over_the_map_it_reads(tmp_path):
    """``play terrain --terrain m.json --out m.json`` would replace the heightmap with the
    log: one line, exit 2, the map untouched."""
    from stratstone_cad.games.terrain import facts

    flag = facts.MAP_FLAGS["file"]
    heightmap = tmp_path / "m.json"
    heightmap.write_text("[[1]]")
    r = subprocess.run([sys.executable, "-m", "stratstone_cad", "play", "terrain", flag, str(heightmap), "--out",
                        str(heightmap)], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert f"--out {heightmap}: the same file as the {flag} file {heightmap} it reads" in r.stderr
    assert heightmap.read_text() == "[[1]]"


def test_every_registered_game_has_a_golden_log_that_check_log_accepts():
    """The suites that run for every game take its golden log: a game without one, or with
    one the engine refuses, fails here rather than leaving the suites silently short of it."""
    from stratstone_cad.registry import FACTS
    from tests import golden_logs

    logs = golden_logs()
    assert list(logs) == list(FACTS)
    for game, log in logs.items():
        assert commands.check_log(log).startswith(f"ok: {game}, "), game
