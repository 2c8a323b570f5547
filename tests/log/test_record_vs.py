"""``record GAME --vs PLAYER [--as SIDE]``: a person plays against the engine at the table.
The engine's replies are said and logged; the log is an ordinary one (check-log and record
--resume read it); undo takes back the engine's reply with the move it answered."""

from __future__ import annotations

import json
import re

import pytest

from stratstone_cad.games.terrain.terrain_map import generate
from stratstone_cad.log.logfile import validate
from tests.log.test_record import cli, lines


def test_the_engine_replies_to_each_move_and_logs_it(tmp_path):
    log = tmp_path / "vs.jsonl"
    r = cli("stratstone", "--out", str(log), "--vs", "search:20", stdin="a1 NNE\nd4 SSW\nquit\n")
    assert r.returncode == 0, r.stderr
    replies = [line for line in r.stdout.splitlines() if "(the engine) plays" in line]
    records = lines(log)
    assert [p["player"] for p in records[1:]] == ["yellow", "red", "yellow", "red"]
    assert [p["move"] for p in records[1::2][:2]] == ["a1 NNE", "d4 SSW"]
    assert replies == [f"red (the engine) plays {p['move']}: make it on the board" for p in records[2::2]]
    assert validate(log).plies == 4
    again = tmp_path / "again.jsonl"
    cli("stratstone", "--out", str(again), "--vs", "search:20", stdin="a1 NNE\nd4 SSW\nquit\n")
    assert lines(again) == records  # the same position, the same reply


def test_as_second_side_the_engine_moves_first_and_resume_goes_on(tmp_path):
    log = tmp_path / "vs.jsonl"
    r = cli("terrain", "--terrain-seed", "3", "--out", str(log), "--vs", "greedy", "--as", "blue", stdin="quit\n")
    assert r.returncode == 0, r.stderr
    records = lines(log)
    assert [p["player"] for p in records[1:]] == ["red"]  # the engine's first move, then the person's prompt
    assert any(m.startswith("blue to move>") for m in r.stdout.splitlines())
    r = cli("--resume", str(log), "--vs", "greedy", "--as", "blue", stdin="undo\nquit\n")
    assert r.returncode == 0 and "took back ply 1" in r.stdout, r.stdout
    assert [p["player"] for p in lines(log)[1:]] == ["red"]  # taken back, the engine plays it again


def test_against_the_engine_without_a_map_one_is_picked_and_its_seed_said(tmp_path):
    log = tmp_path / "vs.jsonl"
    r = cli("terrain", "--out", str(log), "--vs", "greedy", stdin="quit\n")
    assert r.returncode == 0, r.stderr
    said = next(line for line in r.stdout.splitlines() if line.startswith("no map given"))
    seed = int(re.search(r"--terrain-seed (\d+) \(build --terrain-seed \1 prints", said)[1])
    header = lines(log)[0]["setup"]
    assert header["terrain_seed"] == seed and header["heightmap"] == generate(seed)  # the map the seed builds
    assert validate(log).plies == 0


def test_undo_takes_back_the_reply_and_the_move(tmp_path):
    log = tmp_path / "vs.jsonl"
    r = cli("stratstone", "--out", str(log), "--vs", "greedy", stdin="a1 NNE\nundo\nd1 NNW\nquit\n")
    assert r.returncode == 0, r.stderr
    assert "took back ply 2" in r.stdout and "took back ply 1" in r.stdout
    assert lines(log)[1]["move"] == "d1 NNW"


@pytest.mark.parametrize(("args", "message"), [
    (["--vs", "deep"], "unknown player kind 'deep'"),
    (["--vs", "search:0"], "0 simulations is out of range"),
    (["--vs", "search:nan"], "budget 'nan' is not"),
    (["--vs", "greedy", "--as", "green"], "--as 'green': expected one of the sides yellow, red"),
    (["--as", "red"], "--as 'red' without --vs"),
])
def test_bad_opponents_are_one_line_errors(tmp_path, args, message):
    log = tmp_path / "vs.jsonl"
    r = cli("stratstone", "--out", str(log), *args, stdin="quit\n")
    assert r.returncode == 2 and message in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert not log.exists() or json.loads(log.read_text().splitlines()[0])["game"] == "stratstone"
