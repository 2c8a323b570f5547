"""The engine log: golden files, exact error messages, bad input of every kind, fuzzing."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from stratstone_cad.engine.events import Result
from stratstone_cad.errors import LogError, OutputError, UserError
from stratstone_cad.log import logfile as log
from stratstone_cad.log.commands import check_log
from stratstone_cad.registry import get_game
from tests import LOGS

VALID = {
    "stratstone_draw.jsonl": "ok: stratstone, 16 plies, draw (all stones placed)",
    "stratstone_win.jsonl": "ok: stratstone, 13 plies, winner yellow (line of four)",
    "stratstone_derived.jsonl": "ok: stratstone, 13 plies, winner yellow (line of four)",
    "stratstone_unfinished.jsonl": "ok: stratstone, unfinished after 5 plies",
    "sage_stones_4.jsonl": "ok: sage-stones, 45 plies, winner green (all 10 stones on the board)",
    "sage_stones_derived.jsonl": "ok: sage-stones, 45 plies, winner green (all 10 stones on the board)",
    "sage_stones_two_player.jsonl": "ok: sage-stones, 71 plies, winner p2 (all 10 stones on the board)",
}

INVALID = {
    "bad_steps_back.jsonl": "line 7, ply 6: b2 NNS steps straight back",
    "bad_move_text.jsonl": "line 4, ply 3: 'b9 NN' does not parse: "
    "expected a square a1-d4, a space and 1-24 steps of N/E/S/W, e.g. 'b2 NNE'",
    "bad_path_length.jsonl": "line 2, ply 1: a4 ES has 2 steps; the stack of 2 plus the new stone needs 3",
    "bad_off_board.jsonl": "line 2, ply 1: a4 NSE leaves the board at step 1",
    "bad_wrong_player.jsonl": "line 3, ply 2: player is 'yellow' but red is to move",
    "bad_ply_gap.jsonl": "line 4: ply is 4, expected 3",
    "bad_result_winner.jsonl": "line 18: result says winner red (line of four) but the moves give draw (all stones placed)",
    "bad_result_early.jsonl": "line 7: result says winner yellow (line of four) but the game is not over after 5 plies",
    "bad_after_end.jsonl": "line 15, ply 14: 'a1 NN' comes after the end of the game: winner yellow (line of four)",
    "bad_after_result.jsonl": "line 16: nothing may follow the result line (line 15)",
    "bad_dice_in_stratstone.jsonl": "line 2, ply 1: Additional properties are not allowed ('dice' was unexpected)",
    "bad_dice_range.jsonl": "line 3, ply 2: dice[1]: 4 is greater than the maximum of 3",
    "bad_dice_missing.jsonl": "line 2, ply 1: 'dice' is a required property",
    "bad_wrong_column.jsonl": "line 3, ply 2: 3-5 is not in column 5 (dice 3-1-1)",
    "bad_place_on_lost_turn.jsonl": "line 2, ply 1: 5-5 places a stone but 1-2-3 loses the turn (dice 1-3-2)",
    "bad_captured.jsonl": "line 33, ply 32: captured says [] but the moves give ['5-7', '5-8']",
    "bad_on_board.jsonl": "line 2, ply 1: on_board says {'yellow': 2, 'red': 0, 'blue': 0, 'green': 0} "
    "but the moves give {'yellow': 0, 'red': 0, 'blue': 0, 'green': 0}",
    "bad_in_hand.jsonl": "line 3, ply 2: in_hand says {'yellow': 8, 'red': 8} but the moves give {'yellow': 7, 'red': 7}",
    "bad_unknown_game.jsonl": "line 1: game: 'chess' is not one of ['stratstone', 'sage-stones', 'terrain']",
    "bad_terrain_no_heightmap.jsonl": "line 1: setup: 'heightmap' is a required property",
    "bad_rules_version.jsonl": "line 1: rules 'stratstone/2' is not supported (this engine plays 'stratstone/1')",
    "bad_header_field.jsonl": "line 1: Additional properties are not allowed ('colour' was unexpected)",
    "bad_setup.jsonl": "line 1: setup.variant: 'three-player' is not one of ['standard', 'two-player']",
    "bad_json.jsonl": "line 3: not valid JSON (Unterminated string starting at column 37)",
    "bad_nan.jsonl": "line 2: not valid JSON (NaN is not a JSON number)",
    "bad_not_object.jsonl": "line 2: expected a JSON object, got an array",
}


def test_every_fixture_is_listed():
    # terrain*.jsonl and the other bad_terrain_*.jsonl are listed in test_terrain_log.py
    names = {p.name for p in LOGS.glob("*.jsonl")}
    assert {n for n in names if not n.startswith(("terrain", "bad_terrain_")) or n in INVALID} == set(VALID) | set(INVALID)


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_golden_logs(name):
    assert check_log(LOGS / name) == VALID[name]


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_golden_logs_give_the_exact_message(name):
    with pytest.raises(LogError) as info:
        check_log(LOGS / name)
    assert str(info.value) == INVALID[name]
    assert "\n" not in str(info.value)


def test_schema_is_a_valid_draft_2020_12_schema_and_accepts_every_valid_line():
    schema = log.load_schema()
    Draft202012Validator.check_schema(schema)
    validator = log.validator_class()(schema)
    for name in VALID:
        for line in (LOGS / name).read_text().splitlines():
            validator.validate(json.loads(line))


def test_the_schemas_neutral_part_ships_inside_the_package():
    import stratstone_cad.log as log_package

    assert (Path(log_package.__file__).parent / "base-schema.json").is_file()


def test_the_schemas_games_colours_and_squares_are_the_games_facts():
    """Each game's entry in the schema is built from its facts: the games, Sage Stones'
    colours, each board's squares (every square of the board, and only those, match)."""
    import re

    from stratstone_cad.registry import FACTS

    defs = log.load_schema()["$defs"]
    assert defs["header"]["properties"]["game"]["enum"] == list(FACTS)
    sage, terrain, strat = FACTS["sage-stones"], FACTS["terrain"], FACTS["stratstone"]
    assert defs["sage_colour"]["enum"] == list(sage.COLOURS)
    assert defs["ply_stratstone"]["properties"]["player"]["enum"] == list(strat.PLAYERS)
    assert defs["terrain_side"]["enum"] == list(terrain.PLAYERS)
    boards = {"terrain_square": ([f"{f}{r}" for f in terrain.FILES for r in range(1, terrain.SIZE + 1)], defs),
              "sage_square": ([f"{c}-{r}" for c in range(sage.FIRST_COLUMN, sage.FIRST_COLUMN + sage.COLUMNS)
                               for r in range(1, sage.ROWS + 1)], defs),
              "stratstone": ([f"{f}{r}" for f in strat.FILES for r in range(1, strat.SIZE + 1)], None)}
    for name, (squares, where) in boards.items():
        pattern = where[name]["pattern"] if where else \
            defs["setup_stratstone"]["properties"]["stacks"]["propertyNames"]["pattern"]
        everything = {f"{f}{r}" for f in "abcdefghijk" for r in range(0, 12)} | {f"{c}-{r}" for c in range(11) for r in range(11)}
        assert {sq for sq in everything if re.fullmatch(pattern, sq)} == set(squares), name


def test_replay_yields_steps_with_events():
    with log.walk_log(LOGS / "sage_stones_4.jsonl") as r:
        assert r.header.game == "sage-stones" and r.header.players == ["yellow", "red", "blue", "green"]
        steps = list(r)
    assert len(steps) == 45 and steps[0].line == 2 and steps[0].ply == 1
    assert r.header.seed == 3 and r.header.setup == {"variant": "standard"}
    assert (steps[1].player, steps[1].move, steps[1].chance) == ("red", "5-7", (3, 1, 1))  # line 3 of the log
    assert steps[0].events[0].kind == "dice rolled"
    assert steps[-1].events[-1].kind == "game over"
    assert steps[-1].after.result() == r.state.result()


def test_a_replay_follows_its_steps_and_ends_on_the_last_ply():
    with log.walk_log(LOGS / "stratstone_win.jsonl") as r:
        assert r.plies == 0 and r.state is r.initial
        for step in r:
            assert r.plies == step.ply and r.state is step.after
        assert r.plies == 13 and r.state.result().text() == "winner yellow (line of four)"
    with log.walk_log(LOGS / "stratstone_win.jsonl") as r:
        assert r.run() is r.state and r.plies == 13


def test_a_replay_left_before_its_end_closes_its_file():
    def open_files() -> int:
        return len(os.listdir("/proc/self/fd"))

    before = open_files()
    with log.walk_log(LOGS / "sage_stones_4.jsonl") as r:
        next(iter(r))
        assert open_files() == before + 1  # the log
    assert open_files() == before and r.plies == 1


def test_a_replay_resumes_from_a_mark_with_the_same_steps_checked_again(tmp_path):
    """A mark is the byte after a ply's line and the state after it: a replay started from
    it yields the plies after it, as the whole replay does; a changed file is refused."""
    with log.walk_log(LOGS / "sage_stones_4.jsonl") as r:
        marks = {0: r.seek_point()}
        whole = []
        for step in r:
            whole.append((step.line, step.ply, step.move, step.chance, step.before, step.after, step.events))
            marks[step.ply] = r.seek_point()
        final = r.state
    for ply in (0, 1, 17, 44, 45):
        with log.walk_log(LOGS / "sage_stones_4.jsonl", start=marks[ply]) as r:
            assert r.state is marks[ply].state and r.plies == ply
            rest = [(s.line, s.ply, s.move, s.chance, s.before, s.after, s.events) for s in r]
            assert rest == whole[ply:] and r.state == final and r.logged_result is not None
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes((LOGS / "sage_stones_4.jsonl").read_bytes())
    with log.walk_log(copy) as r:
        for step in r:
            if step.ply == 10:
                mark = r.seek_point()
                break
    with log.walk_log(copy, start=mark) as r:
        assert next(iter(r)).ply == 11
    lines = copy.read_text().splitlines(keepends=True)
    copy.write_text("".join(lines[:11]) + lines[11].replace('"ply": 11', '"ply": 12'))
    with pytest.raises(LogError, match="copy.jsonl: changed since it was checked"):
        log.walk_log(copy, start=mark)
    with pytest.raises(TypeError):
        log.LogWalk(iter([(1, json.loads(lines[0]))])).seek_point()  # lines from memory: no byte to resume from


def test_check_log_reports_the_game_its_plies_its_result_and_its_header():
    done = log.validate(LOGS / "stratstone_win.jsonl")
    assert (done.game, done.plies, done.result.text(), done.has_result_line) == (
        "stratstone", 13, "winner yellow (line of four)", True)
    assert done.header.players == ["yellow", "red"] and done.header.seed == 4
    unfinished = log.validate(LOGS / "stratstone_unfinished.jsonl")
    assert (unfinished.plies, unfinished.result, unfinished.has_result_line) == (5, None, False)


def test_a_long_reason_of_a_wrong_result_is_cut_to_80_characters(tmp_path):
    said = "winner red (" + "x" * 150 + ")"
    cut = said[:77] + "..."
    line = json.dumps({"result": {"winner": "red", "reason": "x" * 150}})
    unfinished = (LOGS / "stratstone_unfinished.jsonl").read_text()
    assert _check(tmp_path, unfinished + line) == f"line 7: result says {cut} but the game is not over after 5 plies"
    won = (LOGS / "stratstone_win.jsonl").read_text().splitlines()[:-1]  # winner yellow (line of four)
    assert _check(tmp_path, "\n".join([*won, line])) == (
        f"line 15: result says {cut} but the moves give winner yellow (line of four)")


def _big_capture(captured: list[str]) -> str:
    """A Sage Stones log of one ply: yellow at 6-5 traps 13 stones in five directions."""
    board = {"6-6": "red", "6-7": "blue", "6-8": "red", "6-9": "yellow",  # N
             "6-4": "blue", "6-3": "red", "6-2": "blue", "6-1": "yellow",  # S
             "7-5": "red", "8-5": "blue", "9-5": "red", "3-5": "yellow",  # E, across the wrap
             "5-5": "blue", "4-5": "red",  # W, to 3-5
             "7-6": "green", "8-7": "green", "9-8": "yellow"}  # NE
    head = log.header_record(get_game("sage-stones"), ["yellow", "red", "blue", "green"], None,
                             {"variant": "standard", "board": board})
    ply = {"ply": 1, "player": "yellow", "dice": [2, 2, 2], "move": "6-5", "captured": captured}
    return log.dumps_line(head) + "\n" + log.dumps_line(ply) + "\n"


BIG_CAPTURE = ["4-5", "5-5", "6-2", "6-3", "6-4", "6-6", "6-7", "6-8", "7-5", "7-6", "8-5", "8-7", "9-5"]


def test_a_derived_list_is_compared_in_any_order_and_a_wrong_one_cut_to_80_characters(tmp_path):
    p = tmp_path / "big.jsonl"
    p.write_text(_big_capture(BIG_CAPTURE[::-1]))
    assert check_log(p) == "ok: sage-stones, unfinished after 1 ply"
    assert _check(tmp_path, _big_capture(BIG_CAPTURE[1:])) == (
        f"line 2, ply 1: captured says {str(BIG_CAPTURE[1:])[:77]}... but the moves give {str(BIG_CAPTURE)[:77]}...")


def test_a_game_of_the_format_without_its_engine_is_named(monkeypatch):
    from stratstone_cad import registry

    monkeypatch.setattr(registry, "_ENGINES", {k: v for k, v in registry._ENGINES.items() if k != "terrain"})
    monkeypatch.setattr(registry, "_FOLDER_OF", {k: v for k, v in registry._FOLDER_OF.items() if k != "terrain"})
    with pytest.raises(LogError) as e:
        check_log(LOGS / "terrain_random.jsonl")
    assert str(e.value) == "line 1: game 'terrain' has no rules engine installed yet"


# ------------------------------------------------------------------------- files and bytes


def test_one_ply_is_said_in_the_singular(tmp_path):
    one = "\n".join((LOGS / "stratstone_unfinished.jsonl").read_text().splitlines()[:2]) + "\n"
    p = tmp_path / "one.jsonl"
    p.write_text(one)
    assert check_log(p) == "ok: stratstone, unfinished after 1 ply"
    line = json.dumps({"result": {"winner": "red", "reason": "line of four"}})
    assert _check(tmp_path, one + line) == "line 3: result says winner red (line of four) but the game is not over after 1 ply"
    report = log.validate(p)
    assert log.LogReport(report.game, 1, Result("red", "line of four"), True, report.header).summary() == (
        "ok: stratstone, 1 ply, winner red (line of four)")


def _check(tmp_path: Path, content: bytes | str, name: str = "log.jsonl") -> str:
    p = tmp_path / name
    p.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(LogError) as info:
        check_log(p)
    msg = str(info.value)
    assert "\n" not in msg and len(msg) < 300
    return msg


HEADER = (LOGS / "stratstone_draw.jsonl").read_text().splitlines()[0]
PLY1 = '{"ply": 1, "player": "yellow", "move": "a4 ESW"}'


def test_missing_file(tmp_path):
    with pytest.raises(LogError) as e:
        check_log(tmp_path / "nope.jsonl")
    assert str(e.value) == f"{tmp_path / 'nope.jsonl'}: file not found, expected a log file"


def test_directory(tmp_path):
    with pytest.raises(LogError, match=r": is a folder, expected a log file$"):
        check_log(tmp_path)


def test_special_file_is_refused_without_reading_it():
    with pytest.raises(LogError, match="is a character device, expected a log file"):
        check_log(Path("/dev/zero"))


def test_a_2_gb_sparse_file_fails_fast_without_being_read(tmp_path):
    p = tmp_path / "huge.jsonl"
    with open(p, "wb") as f:
        f.truncate(2 * 1024**3)
    with pytest.raises(LogError, match=r"huge.jsonl: 2.0 GiB is larger than the 64.0 MiB limit for a log$"):
        check_log(p)


def test_a_huge_single_line_fails_at_the_line_limit(tmp_path):
    assert _check(tmp_path, HEADER + "\n" + "x" * (log.MAX_LINE_BYTES + 10)) == "line 2: longer than the 1.0 MiB limit for a line"
    assert _check(tmp_path, b"[" * (log.MAX_LINE_BYTES * 2)) == "line 1: longer than the 1.0 MiB limit for a line"


def test_stream_size_cap_even_when_stat_says_small(tmp_path, monkeypatch):
    monkeypatch.setattr(log.reading, "MAX_LOG_BYTES", 10**9)
    p = tmp_path / "log.jsonl"
    p.write_text(HEADER + "\n" + PLY1 + "\n")
    monkeypatch.setattr(log.reading, "MAX_LOG_BYTES", len(HEADER) + 5)
    real_fstat = os.fstat

    def small(fd, *args, **kwargs):
        st = real_fstat(fd, *args, **kwargs)
        return os.stat_result((*st[:6], 0, *st[7:]))

    with monkeypatch.context() as m:
        m.setattr(log.reading.os, "fstat", small)
        with pytest.raises(LogError, match=r"^line 2: the log is larger than the"):
            check_log(p)


def test_a_log_exactly_at_the_size_limit_is_read_and_one_byte_more_is_refused(tmp_path, monkeypatch):
    p = tmp_path / "log.jsonl"
    p.write_text(HEADER + "\n" + PLY1 + "\n")
    size = p.stat().st_size
    monkeypatch.setattr(log.reading, "MAX_LOG_BYTES", size)  # the file's size and the bytes streamed are both at the limit
    assert check_log(p) == "ok: stratstone, unfinished after 1 ply"
    monkeypatch.setattr(log.reading, "MAX_LOG_BYTES", size - 1)
    with pytest.raises(LogError) as e:
        check_log(p)
    assert str(e.value) == f"{p}: {size} bytes is larger than the {size - 1} bytes limit for a log"


@pytest.mark.parametrize("end", ["\n", ""])
def test_a_line_of_exactly_1_mib_is_read_and_one_byte_more_is_refused(tmp_path, end):
    """The limit counts the line without its newline, whether or not it has one."""
    p = tmp_path / "log.jsonl"
    exact = PLY1 + " " * (log.MAX_LINE_BYTES - len(PLY1))  # JSON white space after the object
    p.write_text(HEADER + "\n" + exact + end)
    assert check_log(p) == "ok: stratstone, unfinished after 1 ply"
    assert _check(tmp_path, HEADER + "\n" + exact + " " + end) == "line 2: longer than the 1.0 MiB limit for a line"


def test_a_file_that_cannot_be_read_is_named():
    """/proc/self/mem is a regular file whose first bytes cannot be read (EIO)."""
    with pytest.raises(LogError) as e:
        check_log(Path("/proc/self/mem"))
    assert str(e.value) == "/proc/self/mem: cannot read (Input/output error)"


def test_empty_file(tmp_path):
    assert _check(tmp_path, b"") == "line 1: empty log, expected the header"
    assert _check(tmp_path, b"\n\n") == "line 1: empty log, expected the header"


def test_blank_line_inside_the_log(tmp_path):
    assert _check(tmp_path, HEADER + "\n\n" + PLY1 + "\n") == "line 2: empty line, expected a JSON object"


def test_trailing_blank_lines_and_crlf_are_accepted(tmp_path):
    p = tmp_path / "log.jsonl"
    p.write_bytes((HEADER + "\r\n" + PLY1 + "\r\n\n").encode())
    assert check_log(p) == "ok: stratstone, unfinished after 1 ply"


def test_not_utf8(tmp_path):
    assert (
        _check(tmp_path, HEADER.encode() + b"\n" + b'{"ply": 1, "player": "\xff"}\n')
        == "line 2: not UTF-8 (byte 0xff at byte 23)"
    )


def test_a_utf8_bom_at_the_start_of_a_log_is_skipped_and_anywhere_else_refused(tmp_path):
    """Notepad writes one: the log is UTF-8 all the same (it was "line 1: not valid JSON")."""
    won = (LOGS / "stratstone_win.jsonl").read_bytes()
    p = tmp_path / "bom.jsonl"
    p.write_bytes(b"\xef\xbb\xbf" + won)
    assert check_log(p) == check_log(LOGS / "stratstone_win.jsonl") == "ok: stratstone, 13 plies, winner yellow (line of four)"
    head, rest = won.split(b"\n", 1)
    assert _check(tmp_path, head + b"\n\xef\xbb\xbf" + rest).startswith("line 2: not valid JSON")


def test_duplicate_keys_are_refused(tmp_path):
    msg = _check(tmp_path, HEADER + '\n{"ply": 1, "ply": 2, "player": "yellow", "move": "a4 ESW"}\n')
    assert msg == "line 2: not valid JSON (duplicate key 'ply')"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"ply": Infinity, "player": "yellow", "move": "a4 ESW"}', "line 2: not valid JSON (Infinity is not a JSON number)"),
        ('{"ply": 1e999, "player": "yellow", "move": "a4 ESW"}', "line 2: not valid JSON (1e999 is out of range)"),
        ('{"ply": 1.0, "player": "yellow", "move": "a4 ESW"}', "line 2: ply: 1.0 is not of type 'integer'"),
        ('{"ply": true, "player": "yellow", "move": "a4 ESW"}', "line 2: ply: True is not of type 'integer'"),
        (
            '{"ply": ' + "9" * 5000 + ', "player": "yellow", "move": "a4 ESW"}',
            "line 2: not valid JSON (Exceeds the limit (4300 digits) for integer string conversion",
        ),
        (
            '{"ply": ' + "9" * 400 + ', "player": "yellow", "move": "a4 ESW"}',
            "line 2: ply is 9999999999999999999999999999999999999..., expected 1",
        ),
        ('{"ply": 0, "player": "yellow", "move": "a4 ESW"}', "line 2: ply: 0 is less than the minimum of 1"),
        ('{"ply": 1, "player": "yellow"}', "line 2, ply 1: 'move' is a required property"),
        ('{"ply": 1, "player": "yellow", "move": 5}', "line 2, ply 1: move: 5 is not of type 'string'"),
        ('{"ply": 1, "player": "yellow", "move": ""}', "line 2, ply 1: move: '' should be non-empty"),
        ('{"ply": 1, "player": "blue", "move": "a4 ESW"}', "line 2, ply 1: player: 'blue' is not one of ['yellow', 'red']"),
        ('{"ply": 1, "player": "yellow", "move": "a4 ESW"} {}', "line 2: not valid JSON (extra data at column 50)"),
        ('{"ply": 1, "player": "yellow", "move": "a4 ESW"}\x0c', "line 2: not valid JSON (extra data at column 49)"),
        ("\u00a0", "line 2: not valid JSON (Expecting value at column 1)"),  # U+00A0 is no blank line
        ('"ply"', "line 2: expected a JSON object, got a string"),
        ("null", "line 2: expected a JSON object, got null"),
        ("[" * 5000 + "]" * 5000, "line 2: not valid JSON (nested too deeply)"),
        ('{"result": {"winner": "yellow"}}', "line 2: result: 'reason' is a required property"),
        ('{"result": {"winner": 3, "reason": "x"}}', "line 2: result.winner: 3 is not valid under any of the given schemas"),
        ('{"result": {"reason": "line of four", "by": "red"}}', "line 2: result: 'winner' is a required property"),
        ('{"result": {"winner": null, "reason": ""}}', "line 2: result.reason: '' should be non-empty"),
        ('{"result": {"winner": null, "reason": "' + "x" * 201 + '"}}', "line 2: result.reason: 'xxxxx"),
        ('{"result": {"winner": null, "reason": "x"}, "x": 1}', "line 2: Additional properties are not allowed ('x' was unexpected)"),
    ],
)
def test_bad_ply_lines(tmp_path, line, expected):
    msg = _check(tmp_path, HEADER + "\n" + line + "\n")
    assert msg.startswith(expected)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"format": "other/log"}, "line 1: format is 'other/log', expected 'stratstone-cad/log'"),
        ({"version": 2}, "line 1: version 2 is not supported (this reader reads version 1)"),
        ({"version": "1"}, "line 1: version: 1 was expected"),
        ({"seed": -1}, "line 1: seed: -1 is less than the minimum of 0"),
        ({"seed": 2**64}, "line 1: seed: 18446744073709551616 is greater than the maximum of 9223372036854775807"),
        ({"seed": 2**63}, "line 1: seed: 9223372036854775808 is greater than the maximum of 9223372036854775807"),
        ({"seed": 1.5}, "line 1: seed: 1.5 is not of type 'integer', 'null'"),
        ({"players": ["red", "yellow"]}, "line 1: players: ['yellow', 'red'] was expected"),
        ({"setup": {"first": "green"}}, "line 1: setup.first: 'green' is not one of ['yellow', 'red']"),
        ({"setup": {"stacks": {"a1": ["yellow"] * 9}}}, "line 1: setup.stacks: 9 yellow stones, at most 8"),
        ({"setup": []}, "line 1: setup: [] is not of type 'object'"),
        ({"setup": {"stacks": {"z9": ["tan"]}}}, "line 1: setup.stacks: 'z9' does not match"),
        ({"ply": 1}, "line 1: Additional properties are not allowed ('ply' was unexpected)"),
        # a list longer than any the schema allows is named before the schema reads its items
        ({"players": ["yellow"] * 64}, "line 1: players: 64 items, expected at most 63"),
    ],
)
def test_bad_headers(tmp_path, change, expected):
    header = {**json.loads(HEADER), **change}
    msg = _check(tmp_path, json.dumps(header) + "\n" + PLY1 + "\n")
    assert msg.startswith(expected)


def test_a_value_nested_too_deeply_for_the_schema_check_is_named_so():
    """JSON reads a list nested some hundreds deep that the schema check runs out of stack on
    (check-log then says "line 1: nested too deeply"). Asked of _schema_error itself: how deep
    a check_log reaches it depends on the stack around it."""
    deep: list = []
    for _ in range(1000):
        deep = [deep]
    assert log.schema._schema_error({**json.loads(HEADER), "players": deep}, "header") == "nested too deeply"


def test_header_must_come_first(tmp_path):
    assert _check(tmp_path, PLY1 + "\n") == "line 1: expected the header first (format, version, game, ...)"
    first = '{"result": {"winner": null, "reason": "draw agreed"}}\n'
    assert _check(tmp_path, first) == "line 1: expected the header first (format, version, game, ...)"
    no_format = {k: v for k, v in json.loads(HEADER).items() if k != "format"}
    assert _check(tmp_path, json.dumps(no_format) + "\n") == "line 1: 'format' is a required property"
    assert _check(tmp_path, "[1, 2]\n") == "line 1: expected the header object, got an array"


def test_sage_player_ids_and_setup_checked(tmp_path):
    head = json.loads((LOGS / "sage_stones_4.jsonl").read_text().splitlines()[0])
    bad = {**head, "players": ["yellow", "purple"]}
    assert (
        _check(tmp_path, json.dumps(bad))
        == "line 1: players: 'purple' is not a colour (expected yellow, red, blue, green, white, black)"
    )
    bad = {**head, "setup": {"variant": "standard", "board": {"5-5": "white"}}}
    assert _check(tmp_path, json.dumps(bad)) == "line 1: setup.board.5-5: 'white' is not one of yellow, red, blue, green"
    bad = {**head, "players": ["yellow", "red", "blue", "green", "white", "black", "pink"]}
    assert _check(tmp_path, json.dumps(bad)) == "line 1: players: ['yellow', 'red', 'blue', 'green', 'white', 'black', 'pink'] is too long"


# ------------------------------------------------------------------------- writing


def test_write_log_is_atomic_and_leaves_no_temp_file(tmp_path):
    p = tmp_path / "g.jsonl"
    log.write_log(p, [json.loads(HEADER)])
    log.write_log(p, [json.loads(HEADER), json.loads(PLY1)])
    assert p.read_text() == HEADER + "\n" + PLY1 + "\n"
    assert [x.name for x in tmp_path.iterdir()] == ["g.jsonl"]


def test_write_log_errors(tmp_path):
    with pytest.raises(OutputError, match="does not exist"):
        log.write_log(tmp_path / "no" / "g.jsonl", [])
    with pytest.raises(OutputError, match="is a directory"):
        log.write_log(tmp_path, [])


def test_write_log_refuses_a_name_too_long_and_writes_through_a_link(tmp_path):
    long = tmp_path / ("x" * 300) / "g.jsonl"  # said as it is, not as a folder that does not exist
    with pytest.raises(OutputError) as e:
        log.write_log(long, [json.loads(HEADER)])
    assert str(e.value) == f"output file {long}: cannot write (a name in it is too long (255 bytes at most))"
    target = tmp_path / "kept.jsonl"
    target.write_text("old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    log.write_log(link, [json.loads(HEADER)])
    assert link.is_symlink() and target.read_text() == HEADER + "\n"


def test_a_record_holds_its_roll_before_the_move_and_its_derived_facts_after():
    rec = log.ply_record(3, "red", "5-5", ("dice", (2, 2, 2)), {"captured": ["5-6"], "on_board": {"red": 4}})
    assert list(rec) == ["ply", "player", "dice", "move", "captured", "on_board"]
    assert rec == {"ply": 3, "player": "red", "dice": [2, 2, 2], "move": "5-5", "captured": ["5-6"], "on_board": {"red": 4}}


def test_a_line_is_written_in_ascii_and_never_with_nan():
    assert log.dumps_line({"move": "\u00e9", "n": 1.5}) == '{"move": "\\u00e9", "n": 1.5}'
    with pytest.raises(ValueError, match="not JSON compliant"):
        log.dumps_line({"n": float("nan")})


def test_write_failure_removes_the_temp_file(tmp_path, monkeypatch):
    import os

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OutputError, match="cannot write"):
        log.write_log(tmp_path / "g.jsonl", [json.loads(HEADER)])
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------------- fast paths = schema


json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.sampled_from(["yellow", "red", "p1", "5-5", "a1 NN", "-", "YELLOW", "stratstone/1"]),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=10,
)


def _almost(valid: dict) -> st.SearchStrategy:
    """Dicts near ``valid``: fields dropped, replaced by junk or by other valid-looking values, keys added."""
    keys = list(valid)
    return st.builds(
        lambda drop, repl, extra: {
            **{k: (repl[k] if k in repl else v) for k, v in valid.items() if k not in drop},
            **extra,
        },
        st.sets(st.sampled_from(keys), max_size=2),
        st.dictionaries(
            st.sampled_from(keys), json_values | st.integers(0, 4) | st.lists(st.integers(0, 4), max_size=4), max_size=2
        ),
        st.dictionaries(st.sampled_from(["x", "dice", "captured", "result"]), json_values, max_size=1),
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        _almost({"ply": 3, "player": "red", "move": "a1 NN"}).map(lambda o: ("stratstone", o)),
        _almost({"ply": 3, "player": "red", "dice": [1, 2, 3], "move": "5-5"}).map(lambda o: ("sage-stones", o)),
        _almost({"ply": 3, "player": "blue", "move": "c1-c4"}).map(lambda o: ("terrain", o)),
    )
)
def test_fast_ply_check_never_accepts_what_the_schema_rejects(case):
    game, obj = case
    if get_game(game).fast_ply(obj, frozenset({"yellow", "red", "blue", "p1"})):
        assert log.validate_line(obj, "ply", game) is None


@settings(max_examples=300, deadline=None)
@given(_almost({"result": {"winner": "red", "reason": "line of four"}}) | _almost({"result": {"winner": None, "reason": "x"}}))
def test_fast_result_check_never_accepts_what_the_schema_rejects(obj):
    if "result" in obj and log.schema._fast_result(obj):
        assert log.validate_line(obj, "result") is None


@settings(max_examples=300, deadline=None)
@given(
    _almost(json.loads(HEADER))
    | _almost(json.loads((LOGS / "sage_stones_two_player.jsonl").read_text().splitlines()[0]))
    | _almost(
        {
            **json.loads((LOGS / "sage_stones_4.jsonl").read_text().splitlines()[0]),
            "setup": {"variant": "standard", "first": "red"},
        }
    )
)
def test_fast_header_check_never_accepts_what_the_schema_rejects(obj):
    if log.schema._fast_header(obj):
        assert log.validate_line(obj, "header") is None


# ------------------------------------------------------------------------- fuzzing: only LogError


def _only_log_errors(path: Path) -> None:
    try:
        check_log(path)
    except LogError as e:
        msg = str(e)
        assert msg and "\n" not in msg and len(msg) < 400
    # any other exception fails the test


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400))
def test_fuzz_random_bytes(tmp_path, data):
    p = tmp_path / "fuzz.jsonl"
    p.write_bytes(data)
    _only_log_errors(p)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(sorted(VALID)), st.data())
def test_fuzz_mutated_valid_logs(tmp_path, name, data):
    raw = bytearray((LOGS / name).read_bytes())
    kind = data.draw(st.sampled_from(["flip", "truncate", "drop_line", "dup_line", "swap_lines", "insert"]))
    if kind == "flip":
        for _ in range(data.draw(st.integers(1, 4))):
            i = data.draw(st.integers(0, len(raw) - 1))
            raw[i] = data.draw(st.integers(0, 255))
    elif kind == "truncate":
        raw = raw[: data.draw(st.integers(0, len(raw)))]
    else:
        lines = bytes(raw).split(b"\n")
        i = data.draw(st.integers(0, len(lines) - 1))
        j = data.draw(st.integers(0, len(lines) - 1))
        if kind == "drop_line":
            del lines[i]
        elif kind == "dup_line":
            lines.insert(i, lines[j])
        elif kind == "swap_lines":
            lines[i], lines[j] = lines[j], lines[i]
        else:
            lines.insert(i, json.dumps(data.draw(json_values)).encode())
        raw = bytearray(b"\n".join(lines))
    p = tmp_path / "fuzz.jsonl"
    p.write_bytes(bytes(raw))
    _only_log_errors(p)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(sorted(VALID)), st.data())
def test_fuzz_field_values(tmp_path, name, data):
    lines = (LOGS / name).read_text().splitlines()
    i = data.draw(st.integers(0, len(lines) - 1))
    obj = json.loads(lines[i])
    path = [obj]
    target = obj
    # walk down to a random nested dict/list and replace one member with junk
    while True:
        key = (
            data.draw(st.sampled_from(list(target) if isinstance(target, dict) else list(range(len(target))))) if target else None
        )
        if key is None:
            break
        child = target[key]
        if isinstance(child, (dict, list)) and child and data.draw(st.booleans()):
            target = child
            path.append(child)
            continue
        target[key] = data.draw(json_values)
        break
    lines[i] = json.dumps(obj)
    p = tmp_path / "fuzz.jsonl"
    p.write_text("\n".join(lines) + "\n")
    _only_log_errors(p)


def test_fuzz_seeded_junk_lines(tmp_path):
    rng = random.Random(0)
    junk = ["{", "}", "[]", "{}", '{"ply"', '{"ply": 1}', "0", "-", '"\\ud800"', '{"a": "\\u0000"}', "1e400", "-0", "[" * 2000]
    for _ in range(200):
        lines = [HEADER, PLY1]
        lines.insert(rng.randrange(3), rng.choice(junk))
        p = tmp_path / "junk.jsonl"
        p.write_text("\n".join(lines))
        _only_log_errors(p)


def test_errors_are_user_errors():
    assert issubclass(LogError, UserError)


@pytest.mark.parametrize(("game", "setup", "header_fast"), [("stratstone", None, True), ("sage-stones", None, True),
                                                            ("sage-stones", {"variant": "two-player"}, True),
                                                            ("terrain", None, False)])
def test_the_fast_checks_are_really_taken_for_every_game(tmp_path, monkeypatch, game, setup, header_fast):
    """Every ply line of a played game (and the usual headers) passes the game's fast check:
    the schema is never asked about them. The property tests above only prove the fast
    checks never accept too much; this proves they run."""
    from stratstone_cad.log import commands

    path = tmp_path / "g.jsonl"
    commands.play(game, 6, None, path, setup)
    asked: list[str] = []
    real = log.validate_line

    def validate_line(value, kind, game=None):
        asked.append(kind)
        return real(value, kind, game)

    monkeypatch.setattr(log.walk, "validate_line", validate_line)
    report = log.validate(path)
    assert report.plies > 5
    assert "ply" not in asked and "result" not in asked
    assert asked == ([] if header_fast else ["header"])



@pytest.mark.parametrize(("game", "seed", "n"), [("stratstone", 0, 2), ("stratstone", 2**63 - 1, 2),
                                             ("sage-stones", 126, 2), ("sage-stones", 4242, 6)])
def test_every_header_play_writes_takes_the_fast_check(game, seed, n):
    """At both ends of play's seed range and with 2 and 6 players (the test above plays seed 6 only)."""
    from stratstone_cad.log.commands import play_records

    header = play_records(game, seed, ["random"] * n, max_plies=0)[0]
    assert header["seed"] == seed and len(header["players"]) == n
    assert log.schema._fast_header(header) is True and log.validate_line(header, "header") is None


def test_a_header_with_a_player_id_the_schema_refuses_is_left_to_the_schema():
    """Sage Stones' two-player variant takes any ids: one the schema refuses (capitals, a
    space, too long) must not pass the fast check."""
    from stratstone_cad.log.commands import play_records

    header = play_records("sage-stones", 1, ["random"] * 2, {"variant": "two-player"}, max_plies=0)[0]
    assert log.schema._fast_header(header) is True
    for bad in ("P1", "p 1", "p" * 33, "1p"):
        odd = {**header, "players": [header["players"][0], bad]}
        assert log.schema._fast_header(odd) is False, bad
        assert log.validate_line(odd, "header") is not None, bad


def test_a_ply_of_no_game_or_of_a_game_the_schema_does_not_know_is_checked_by_the_common_ply_schema():
    ply = {"ply": 2, "player": "red", "move": "c1-c4"}
    assert log.validate_line(ply, "ply") is None and log.validate_line(ply, "ply", "pile") is None
    assert log.validate_line({**ply, "ply": 0}, "ply") == f"{ {**ply, 'ply': 0} } is not valid under any of the given schemas"
    result = {"result": {"winner": None, "reason": "draw agreed"}}  # a valid line, but no ply
    assert log.validate_line(result, "ply") == f"{result} is not valid under any of the given schemas"
    assert log.validate_line(result, "result") is None


@pytest.mark.parametrize(("line", "ok"), [
    ({"ply": 1, "player": "yellow", "move": "a1 N"}, True),
    ({"ply": 7, "player": "red", "move": "x"}, True),
    ({"ply": 7, "player": "red", "move": "x" * 64}, True),
    ({"ply": 7, "player": "red", "move": "x" * 65}, False),
    ({"ply": 7, "player": "red", "move": ""}, False),
    ({"ply": 0, "player": "red", "move": "a1 N"}, False),
    ({"ply": True, "player": "red", "move": "a1 N"}, False),
    ({"ply": 1.0, "player": "red", "move": "a1 N"}, False),
    ({"ply": 1, "player": "blue", "move": "a1 N"}, False),
    ({"ply": 1, "player": "red", "move": 5}, False),
    ({"ply": 1, "player": "red", "move": "a1 N", "dice": [1]}, False),
    ({"ply": 1, "player": "red", "mov": "a1 N"}, False),
    ({"ply": 1, "move": "a1 N"}, False),
])
def test_the_fast_ply_check_of_two_fixed_sides(line, ok):
    """protocol.fast_two_sides_ply, made afresh (the engines make theirs at import): exactly
    ply >= 1, one of the sides, a move of 1-64 characters."""
    from stratstone_cad.engine.protocol import fast_two_sides_ply

    assert fast_two_sides_ply(("yellow", "red"))(line, frozenset()) is ok


def test_json_values_are_alike_exactly_when_json_schema_calls_them_equal():
    from stratstone_cad.log.logfile.schema import _canonical, _unique_items

    c = _canonical
    assert c(1) == c(1.0) and c([1, {"a": 2}]) == c([1.0, {"a": 2.0}])
    assert c({"a": 1, "b": [2]}) == c({"b": [2], "a": 1})  # keys unordered
    assert c(True) != c(1) and c(False) != c(0) and c(None) != c(False) and c("1") != c(1)
    assert c([[1]]) != c([[True]]) and c([1, 2]) != c([2, 1]) and c({"a": 1}) != c({"a": 2})
    assert c(["a", "b"]) != c("ab") and c([]) != c({}) and c({"0": 1}) != c([1])
    assert list(_unique_items(None, True, [1, True, "1", None, False, 0], {})) == []
    errors = list(_unique_items(None, True, [1, [2], 1.0], {}))
    assert [e.message for e in errors] == ["[1, [2], 1.0] has non-unique elements"]
    assert len(list(_unique_items(None, True, [{"a": 1, "b": 2}, {"b": 2, "a": 1}], {}))) == 1
    assert list(_unique_items(None, False, [1, 1], {})) == []  # uniqueItems: false
    assert list(_unique_items(None, True, {"a": 1}, {})) == []  # not an array: not this keyword's business


def test_an_overlong_list_is_named_by_its_path():
    from stratstone_cad.log.logfile.schema import _overlong

    assert _overlong([1, 2, 3], 2) == "the line: 3 items, expected at most 2"
    assert _overlong([1, 2], 2) is None and _overlong("abc", 2) is None and _overlong(7, 0) is None
    assert _overlong({"a": {"b": [1, 2, 3]}}, 2) == "a.b: 3 items, expected at most 2"
    assert _overlong({"players": [[1], [1, 2, 3]]}, 2) == "players[1]: 3 items, expected at most 2"
    assert _overlong([{"x": [1]}, {"y": [1, 2, 3]}], 2) == "[1].y: 3 items, expected at most 2"


@pytest.mark.parametrize(("text", "message"), [
    ('{"a": ', "Expecting value at column 6"),
    ('   {"a": ', "Expecting value at column 9"),  # columns count from the start of the line
    ('{"a": 1,}', "Expecting property name enclosed in double quotes at column 9"),
    ("[1, 2", "Expecting ',' delimiter at column 6"),
    ('"ab', "Unterminated string starting at column 1"),
    ("[" * 5000, "nested too deeply"),
    ("1" * 5000, "Exceeds the limit (4300 digits) for integer string conversion"),
    ('{"a": 1}\x0c', "extra data at column 9"),  # a form feed is not JSON's white space
    ('{"a": 1, "b": 2, "b": 3}', "duplicate key 'b'"),
    ("[-1e999]", "-1e999 is out of range"),
    ("[" + "1" * 30 + "e999]", "1" * 24 + " is out of range"),  # the number's first 24 characters
    ('  {"a": 1}  x', "extra data at column 13"),
])
def test_a_line_that_is_not_json_is_refused_with_its_column(text, message):
    from stratstone_cad.errors import LogError
    from stratstone_cad.log.logfile.reading import _parse_json

    with pytest.raises(LogError) as e:
        _parse_json(text, 4)
    assert str(e.value) == f"line 4: not valid JSON ({message})"


def test_message_helpers_say_sizes_types_and_cut_long_text():
    from stratstone_cad.log.logfile.reading import _human_size
    from stratstone_cad.log.logfile.schema import _cut
    from stratstone_cad.log.logfile.walk import _json_type

    sizes = (1023, 1024, 1536, (1 << 20) - 52, (1 << 20) - 51, (1 << 20) - 1, 1 << 20, (1 << 30) - 1, 3 << 30, 5000 << 30)
    assert [_human_size(n) for n in sizes] == [
        "1023 bytes", "1.0 KiB", "1.5 KiB", "1023.9 KiB", "1.0 MiB", "1.0 MiB", "1.0 MiB", "1.0 GiB", "3.0 GiB",
        "5000.0 GiB"]
    assert [_json_type(v) for v in (True, None, [], "", 1, 1.5, {})] == [
        "a boolean", "null", "an array", "a string", "a number", "a number", "a value"]
    assert _cut("a  b\n c", 10) == "a b c" and _cut("x" * 10, 10) == "x" * 10
    assert _cut("x" * 11, 10) == "x" * 7 + "..."


@pytest.mark.parametrize(("log_name", "result", "message"), [
    ("stratstone_unfinished.jsonl", {"winner": "red", "reason": "draw agreed"},
     "line 7: result says winner red (draw agreed): a draw agreed has no winner, expected winner null"),
    ("stratstone_unfinished.jsonl", {"winner": None, "reason": "resignation"},
     "line 7: result says draw (resignation): a resignation names its winner, expected winner yellow or red"),
    ("sage_stones_4.jsonl", {"winner": "red", "reason": "resignation"},
     "line 3: result says winner red (resignation): a resignation ends only a two-player game, this one has 4 "
     "players; expected a draw agreed or the game played on"),
    ("stratstone_unfinished.jsonl", {"winner": None, "reason": "out of time"},
     "line 7: result says draw (out of time): a loss on time names its winner, expected winner yellow or red"),
    ("sage_stones_4.jsonl", {"winner": "red", "reason": "out of time"},
     "line 3: result says winner red (out of time): a loss on time ends only a two-player game, this one has 4 "
     "players; expected a draw agreed or the game played on"),
])
def test_an_agreed_end_written_wrong_is_named_for_what_it_breaks(tmp_path, log_name, result, message):
    """Not "the game is not over after N plies": the line says the game ended by agreement."""
    lines = (LOGS / log_name).read_text().splitlines()
    kept = lines if log_name == "stratstone_unfinished.jsonl" else lines[:2]
    assert _check(tmp_path, "\n".join([*kept, json.dumps({"result": result})]) + "\n") == message
