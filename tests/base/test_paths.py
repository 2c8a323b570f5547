"""Paths and files a user gives: special files, symbolic links, OS errors, nesting, control
characters, non-JSON whitespace, strict numbers: one line, exit 2, nothing replaced."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

LOG_HEADER = ('{"format": "stratstone-cad/log", "version": 1, "game": "stratstone", "rules": "stratstone/1", '
              '"players": ["yellow", "red"], "seed": null, "setup": {}}')


def run(*args: str, cwd=None, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stratstone_cad", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)


def one_line(r: subprocess.CompletedProcess, message: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_play_out_refuses_a_fifo_and_a_device_and_leaves_them(tmp_path):
    fifo = tmp_path / "game.jsonl"
    os.mkfifo(fifo)
    r = run("play", "stratstone", "--seed", "1", "--out", str(fifo))
    one_line(r, f"output file {fifo}: is a FIFO, expected a regular file (or none)")
    assert fifo.is_fifo()
    r = run("play", "stratstone", "--seed", "1", "--out", "/dev/null")
    one_line(r, "output file /dev/null: is a character device, expected a regular file (or none)")
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")


def test_play_out_writes_through_a_symbolic_link(tmp_path):
    target = tmp_path / "real.jsonl"
    target.write_text("old")
    link = tmp_path / "game.jsonl"
    link.symlink_to(target)
    r = run("play", "stratstone", "--seed", "1", "--out", str(link))
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and target.read_text().startswith('{"format": "stratstone-cad/log"')
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop)
    one_line(run("play", "stratstone", "--seed", "1", "--out", str(loop)), "a loop of symbolic links")


def test_build_refuses_special_files_where_its_own_files_go(tmp_path):
    out = tmp_path / "out"
    (out / "terrain").mkdir(parents=True)
    os.mkfifo(out / "terrain" / "runner-red.stl")
    r = run("build", "terrain", "--out", str(out), "--jobs", "1")
    one_line(r, "runner-red.stl: is a FIFO, expected a regular file (or none)")
    assert (out / "terrain" / "runner-red.stl").is_fifo()
    outside = tmp_path / "precious.json"
    outside.write_text("keep")
    out2 = tmp_path / "out2"
    out2.mkdir()
    (out2 / "manifest.json").symlink_to(outside)
    r = run("build", "terrain", "--out", str(out2), "--jobs", "1")
    one_line(r, "manifest.json: is a symbolic link, expected a regular file (or none) of this build")
    assert not (out2 / "terrain").exists()
    assert outside.read_text() == "keep"
    out3 = tmp_path / "out3"
    out3.mkdir()
    (out3 / ".stratstone-cad.lock").symlink_to(outside)
    one_line(run("build", "terrain", "--out", str(out3)), ".stratstone-cad.lock is a symbolic link")


@pytest.mark.parametrize("make", ["fifo", "zero", "loop", "long", "folder", "empty"])
def test_params_file_special_cases_are_one_line_and_never_hang(tmp_path, make):
    p = tmp_path / "p.toml"
    expected = {"fifo": "is a FIFO, expected a TOML file", "zero": "is a character device, expected a TOML file",
                "loop": "cannot read (a loop of symbolic links), expected a TOML file",
                "long": "cannot read (a name in it is too long (255 bytes at most)), expected a TOML file",
                "folder": "is a folder, expected a TOML file", "empty": "argument --params: expected a path, got ''"}[make]
    if make == "fifo":
        os.mkfifo(p)
    elif make == "zero":
        p = "/dev/zero"
    elif make == "loop":
        p.symlink_to(p)
    elif make == "long":
        p = tmp_path / ("x" * 300 + ".toml")
    elif make == "folder":
        p = tmp_path
    else:
        p = ""
    t = time.monotonic()
    r = run("list", "--params", str(p), timeout=30)
    assert time.monotonic() - t < 20
    one_line(r, expected)


def test_params_file_over_the_size_cap(tmp_path):
    p = tmp_path / "big.toml"
    p.write_text("# " + "x" * (1 << 20) + "\n")
    one_line(run("list", "--params", str(p)), "is larger than the 1048576 byte limit, expected a TOML file")


@pytest.mark.parametrize(("args", "message"), [
    (["list", "--params", "{deep}"], "invalid TOML (nested too deeply)"),
    (["play", "sage-stones", "--setup", "[" * 60_000], "not JSON (nested too deeply)"),
])
def test_deep_nesting_is_one_line(tmp_path, args, message):
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[\n" * 5000 + "]\n" * 5000)  # arrays may span lines: short lines, deep nesting
    one_line(run(*[str(deep) if a == "{deep}" else a for a in args]), message)


def test_control_characters_in_a_log_are_printed_escaped(tmp_path):
    log = tmp_path / "g.jsonl"
    lines = [LOG_HEADER, '{"ply": 1, "player": "yellow", "move": "a1 NN\\u001b[2J"}']
    log.write_text("\n".join(lines) + "\n")
    r = run("check-log", str(log))
    assert r.returncode == 2 and "\x1b" not in r.stderr and "\\x1b[2J" in r.stderr, r.stderr
    r = run("play", "stratstone", "--players", "random,\x1b[31mgenius")
    assert r.returncode == 2 and "\x1b" not in r.stderr and "\\x1b[31m" in r.stderr, r.stderr
    # the lines that say what was written name paths as typed: escaped too
    r = run("play", "stratstone", "--out", str(tmp_path / "a\x1b[2Jb.jsonl"))
    assert r.returncode == 0 and r.stdout.startswith(f"wrote {tmp_path}/a\\x1b[2Jb.jsonl: stratstone"), r.stdout
    r = run("build", "terrain", "--jobs", "1", "--out", str(tmp_path / "o\x1b]0;title\x07"))
    assert r.returncode == 0 and "\x1b" not in r.stdout + r.stderr and "o\\x1b]0;title\\x07:" in r.stdout, r.stdout


@pytest.mark.parametrize("tail", ["\u00a0", "\u2028", "\x0b", "\x0c", "\x1c", "\u0085", "\u3000"])
def test_only_json_whitespace_may_surround_a_line(tmp_path, tail):
    log = tmp_path / "g.jsonl"
    log.write_text(LOG_HEADER + "\n" + '{"ply": 1, "player": "yellow", "move": "a4 ESE"}' + tail + "\n", "utf-8")
    r = run("check-log", str(log))
    one_line(r, "line 2: not valid JSON")
    log.write_text(LOG_HEADER + "\n" + ' \t{"ply": 1, "player": "yellow", "move": "a4 ESE"}\t \r\n', "utf-8")
    assert run("check-log", str(log)).returncode == 0


@pytest.mark.parametrize(("args", "message"), [
    (["play", "stratstone", "--seed", "1_0"], "argument --seed: expected a whole number in the digits 0-9, got '1_0'"),
    (["play", "stratstone", "--seed", "\u0663"], "argument --seed: expected a whole number in the digits 0-9"),
    (["play", "stratstone", "--players", ""], "--players '': expected player kinds separated by commas"),
    (["play", "stratstone", "--players", "random,"], "--players 'random,': expected player kinds"),
    (["play", "sage-stones", "--setup", '{"first": "red", "first": "yellow"}'], "not JSON (duplicate key 'first')"),
    (["build", "--set", "stratstone.stone.colours=a,,b"], "expected names separated by commas, with none empty"),
    (["build", "--jobs", "1_0"], "argument --jobs: expected a whole number in the digits 0-9"),
])
def test_silent_surprises_are_refused(tmp_path, args, message):
    r = run(*args, "--out", str(tmp_path / "o.jsonl" if args[0] == "play" else tmp_path / "o"))
    one_line(r, message)
    assert not any(tmp_path.iterdir())


def test_a_repeated_set_takes_the_last_value():
    from stratstone_cad.base.overrides import parse_set
    from stratstone_cad.registry import load_params

    ps = load_params(sets=parse_set(["stratstone.stone.height_mm=8", "stratstone.stone.height_mm=9"]))
    assert ps.params_of("stratstone").stone.height_mm == 9.0
    r = run("list", "--set", "stratstone.stone.height_mm=8", "--set", "stratstone.stone.height_mm=9")
    assert "stratstone.stone.height_mm = 9 (default 7.4)" in r.stdout


def test_check_log_on_an_unreadable_proc_file_is_one_line():
    path = "/proc/1/environ" if os.getuid() != 0 else "/proc/self/mem"
    r = run("check-log", path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    json.dumps(r.stderr)


@pytest.mark.parametrize("field", ["players", "captured"])
def test_a_mebibyte_line_of_objects_is_checked_in_linear_time(tmp_path, field):
    """N distinct objects in a header's players or a ply's captured: checking took 68 s at
    N = 8,000 (every pair compared); a line near the 1 MiB cap must take about a second."""
    from stratstone_cad.errors import UserError
    from stratstone_cad.log import commands

    header = {"format": "stratstone-cad/log", "version": 1, "game": "sage-stones", "rules": "sage-stones/1",
              "players": ["yellow", "red", "blue", "green"], "seed": None, "setup": {}}
    ply = {"ply": 1, "player": "yellow", "dice": [1, 2, 2], "move": "5-1"}
    many = [{"a": i, "b": [i, str(i)]} for i in range(29_000)]
    if field == "players":
        header["players"] = many
    else:
        ply["captured"] = many
    log = tmp_path / "big.jsonl"
    log.write_text(json.dumps(header) + "\n" + json.dumps(ply) + "\n")
    assert 0.8 * (1 << 20) < log.stat().st_size < (1 << 20) + 4096
    t = time.monotonic()
    with pytest.raises(UserError, match=f"{field}: 29000 items, expected at most 63"):
        commands.check_log(log)
    assert time.monotonic() - t < 5.0
    # the most items the schema allows, each unique but large: still quick, and the duplicate is found
    wide = [{f"k{j}": j for j in range(1000)} for _ in range(63)]
    header["players"] = ["yellow", "red", "blue", "green"]
    ply["captured"] = wide
    log.write_text(json.dumps(header) + "\n" + json.dumps(ply) + "\n")
    t = time.monotonic()
    with pytest.raises(UserError, match="has non-unique elements"):
        commands.check_log(log)
    assert time.monotonic() - t < 5.0


@pytest.mark.parametrize(("toml", "message"), [
    ("a" + ".a" * 30_000 + " = 1\n", "line 1 is 60005 bytes long, expected at most 4096"),  # tomllib: minutes
    ("a" + ".a" * 2000 + " = 1\n", "unknown parameter 'a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.'... (4001 characters)"),
    ("[stratstone.stone]\nheight_mm = 1" + "0" * 400 + "\n",
     "stratstone.stone.height_mm = a whole number of about 401 digits: expected a number"),
    ("[stratstone.stone]\nheight_mm = [\n" + "1,\n" * 3000 + "]\n", "height_mm = [1, 1, 1, 1, 1, 1, 1, 1, ... (3000 items)]"),
    ("[stratstone.stone]\ncolours = ['" + "x" * 3000 + "']\n", "... (3000 characters)"),
])
def test_crafted_parameter_files_are_one_short_line_at_once(tmp_path, toml, message):
    p = tmp_path / "p.toml"
    p.write_text(toml)
    t = time.monotonic()
    r = run("list", "--params", str(p))
    one_line(r, message)
    assert len(r.stderr) < 400 and time.monotonic() - t < 10


@pytest.mark.parametrize(("command", "value", "shown"), [
    (["list"], r"map\u0000.json", r"'map\x00.json'"),  # os.open raised ValueError: embedded null byte
    (["build", "terrain"], r"map\n.json", r"'map\n.json'"),
    (["list"], r"\u001b[2Jmap.json", r"'\x1b[2Jmap.json'"),
])
def test_a_control_character_in_a_path_in_a_params_file_is_one_line(tmp_path, command, value, shown):
    p = tmp_path / "p.toml"
    p.write_text(f'[terrain.board]\nheightmap = "{value}"\n')
    out = tmp_path / "out"
    r = run(*command, "--params", str(p), *(["--out", str(out)] if command[0] == "build" else []))
    one_line(r, f"terrain.board.heightmap = {shown}: expected a text without control characters")
    assert not out.exists() and r.stdout == ""


def test_a_path_with_a_nul_byte_is_refused_by_the_reader_in_one_line():
    from stratstone_cad.base.fileio import read_user_file
    from stratstone_cad.errors import UserError

    with pytest.raises(UserError, match=r"^heightmap 'a\\x00b': a path with a NUL byte in it, expected a path "
                                        "to a JSON file$"):
        read_user_file("a\0b", "heightmap", 100, "a JSON file")


@pytest.mark.parametrize("kind", ["long", "loop"])
def test_a_name_too_long_or_a_link_loop_is_one_line_for_every_path(tmp_path, kind):
    if kind == "long":
        bad = tmp_path / ("x" * 300)
        why = "a name in it is too long (255 bytes at most)"
    else:
        bad = tmp_path / "loop"
        bad.symlink_to(bad)
        why = "a loop of symbolic links"
    cases = [
        (["build", "terrain", "--jobs", "2", "--out", str(bad)], why),
        (["play", "stratstone", "--out", f"{bad}.jsonl" if kind == "long" else str(bad)], why),
        (["check-log", str(bad)], why),
        (["list", "--params", str(bad)], why),
        (["build", "terrain", "--out", str(tmp_path / "o"), "--set", f"terrain.board.heightmap={bad}"], why),
        (["play", "terrain", "--terrain", str(bad), "--out", str(tmp_path / "g.jsonl")], why),
    ]
    for args, message in cases:
        one_line(run(*args), message)
    assert sorted(p.name for p in tmp_path.iterdir()) == ([] if kind == "long" else ["loop"])


def test_build_out_that_is_not_a_folder_is_one_line(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "file").write_text("x")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    for name, why in [("fifo", "is a FIFO"), ("file", "is a file"), ("dangling", "is a symbolic link to nothing")]:
        one_line(run("build", "terrain", "--out", str(tmp_path / name)), f"output folder {tmp_path / name}: {why}, "
                 "expected a folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling", "fifo", "file"]


def test_build_out_nested_a_thousand_deep_is_made(tmp_path):
    """``mkdir -p`` of 1000 names: Path.mkdir(parents=True) recurses once per name."""
    from stratstone_cad.base.fileio import ensure_writable_dir

    deep = tmp_path.joinpath(*["d"] * 1000)
    assert ensure_writable_dir(deep) == deep and deep.is_dir()
    while deep != tmp_path:  # removed here: shutil.rmtree (pytest's clean-up) recurses once per name
        deep.rmdir()
        deep = deep.parent


def test_a_path_too_long_for_the_files_under_it_is_refused_before_any_folder_is_made(tmp_path):
    room = 4095 - len(os.fsencode(str(tmp_path))) - 40  # fits the folder, not stratstone/stone-yellow-01.stl
    names = ["n" * 200] * (room // 201) + ["m" * (room % 201 or 1)]
    out = tmp_path.joinpath(*names)
    assert len(os.fsencode(str(out))) <= 4095
    r = run("build", "stratstone", "--out", str(out))
    one_line(r, "cannot be made (the path is too long (4095 bytes at most)), expected a folder")
    assert list(tmp_path.iterdir()) == []
    r = run("play", "stratstone", "--out", str(out / ("x" * 200)))
    one_line(r, "cannot write (the path is too long (4095 bytes at most))")


def test_a_message_quoting_a_huge_input_is_cut_short():
    r = run("build", "x" * 100_000)
    one_line(r, "game 'xxxxxxxxxx")
    assert "(100000 characters)" in r.stderr and len(r.stderr) < 200
    from stratstone_cad.cli import error_line  # the last guard, for a message that quotes too much

    line = error_line("y" * 100_000)
    assert len(line) < 1100 and "characters left out" in line and line.endswith("y" * 300)
    r = run("play", "stratstone", "--setup", json.dumps({"first": "y" * 100_000}))
    one_line(r, "setup.first: 'yyyyyyyyyy")
    assert len(r.stderr) < 200


def test_output_reaches_a_terminal_that_cannot_show_it(tmp_path):
    """stderr escapes what its encoding lacks by default; stdout must too (it names --out)."""
    out = tmp_path / "caf\u00e9.jsonl"
    r = subprocess.run([sys.executable, "-m", "stratstone_cad", "play", "stratstone", "--seed", "1", "--out", str(out)],
                       capture_output=True, env={**os.environ, "PYTHONIOENCODING": "ascii:strict"}, timeout=60)
    assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr
    assert b"caf\\xe9.jsonl" in r.stdout, r.stdout
    assert out.is_file()


REAL_LIMIT = "the name is too long, expected at most 241 bytes (the output is written as .NAME.XXXXXXXX.tmp first)"


@pytest.mark.parametrize("n", [242, 255])
def test_every_writer_states_the_real_limit_of_a_files_name(tmp_path, n):
    """A file is written as .NAME.XXXXXXXX.tmp first, so its name has 14 bytes fewer than
    the system's 255: play, record, replay and preview say so in one message, before they
    write anything (a name of 241 bytes is written)."""
    log = tmp_path / "g.jsonl"
    assert run("play", "stratstone", "--seed", "1", "--out", str(log)).returncode == 0
    said = {}
    for args, flag, suffix in ((["play", "stratstone"], "output file", ".jsonl"),
                               (["record", "stratstone"], "output file", ".jsonl"),
                               (["replay", str(log)], "--out", ".png"), (["preview", "stratstone"], "--out", ".png")):
        out = tmp_path / ("x" * (n - len(suffix)) + suffix)
        r = run(*args, "--out", str(out))
        one_line(r, f"{flag} {out}: ")
        said[args[0]] = r.stderr.split(f"{out}: ", 1)[1]
        assert sorted(p.name for p in tmp_path.iterdir()) == ["g.jsonl"], args
    assert set(said.values()) == {REAL_LIMIT + "\n"}, said
    out = tmp_path / ("x" * 235 + ".jsonl")
    assert run("play", "stratstone", "--out", str(out)).returncode == 0 and out.is_file()


def test_a_path_with_no_room_for_the_temporary_states_the_real_limit(tmp_path):
    """The temporary's path is 14 bytes longer too: a file whose path is 4082 to 4095
    bytes is refused as too long for 4081, not as over the 4095 it is under."""
    room = 4090 - len(os.fsencode(str(tmp_path)))
    folder = tmp_path.joinpath(*["f" * 200] * ((room - 20) // 201))
    folder.mkdir(parents=True)
    out = folder / ("x" * (4090 - len(os.fsencode(str(folder))) - 7) + ".jsonl")
    assert len(os.fsencode(str(out))) == 4090
    for command in ("play", "record"):
        r = run(command, "stratstone", "--out", str(out))
        one_line(r, "output file ")  # the path itself is cut short in the message
        assert r.stderr.endswith(".jsonl: the path is too long, expected at most 4081 bytes (the output is written as "
                                 ".NAME.XXXXXXXX.tmp first)\n"), r.stderr
    assert list(folder.iterdir()) == []
