"""The command line, run as a user runs it: exit codes, one-line errors, nothing half-written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from stratstone_cad.registry import FACTS


def run(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stratstone_cad", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def test_help_everywhere():
    for args in ([], ["build"], ["list"], ["play"], ["check-log"]):
        r = run(*args, "--help")
        assert r.returncode == 0 and "usage: stratstone-cad" in r.stdout, args


def test_list_shows_parameters_defaults_units_and_printers():
    r = run("list")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for game in ("stratstone:", "sage-stones:", "terrain:"):
        assert f"\n{game}" in "\n" + out, game
    assert "sage-stones.gem.per_colour = 10" in out and "terrain.board.seed = 1" in out
    assert "terrain.piece.per_kind = 2" in out and "mesh.angular_tolerance_deg = 2.5" in out
    assert 'terrain.board.heightmap = ""' in out and 'a text ("" for none)' in out and "a number\n" not in out
    assert "stratstone.stone.height_mm = 7.4" in out
    assert "a number from 3 to 25" in out
    assert "stratstone.board.cells = 4" in out
    assert "prusa-mini" in out and "180 x 180 mm bed" in out and "(default)" in out
    assert "piece    layer 0.15 mm, first layer 0.2 mm" in out
    r = run("list", "--set", "stratstone.stone.height_mm=9")
    assert "stratstone.stone.height_mm = 9 (default 7.4)" in r.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["build", "--set", "stratstone.stone.height_mm=99"],
     "stratstone.stone.height_mm = 99: expected a number from 3 to 25"),
    (["build", "--set", "stratstone.stone.heigth_mm=9"], "(did you mean 'stratstone.stone.height_mm'?)"),
    (["build", "--printer", "prusa-mk5"], "printer 'prusa-mk5': unknown, expected one of"),
    (["build", "stratstonee"],
     f"game 'stratstonee': unknown, expected one of {', '.join(FACTS)}, fit-test (did you mean 'stratstone'?)"),
    (["build", "--jobs", "0"], "--jobs 0: expected a number of parallel jobs of at least 1"),
    (["build", "--jobs", "two"], "argument --jobs: expected a whole number in the digits 0-9, got 'two'"),
    (["build", "--params", "missing.toml"], "--params file missing.toml: file not found"),
    (["build", "--set", "stratstone.board.cells=9"], "stratstone.board.cells = 9: expected an integer from 2 to 8"),
    (["build", "--printer", ""], "printer '': unknown, expected one of"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path, args, message):
    out = tmp_path / "out"
    r = run(*args, "--out", str(out)) if args[0] == "build" else run(*args)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
    assert not out.exists() or not any(out.rglob("*"))


def test_empty_out_is_refused(tmp_path):
    r = run("build", "--out", "", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "argument --out: expected a path, got ''" in r.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("host", ["", "  "])
def test_empty_studio_host_is_refused(tmp_path, host):
    """An empty --host would listen on every interface: refused as an empty --out is."""
    r = subprocess.run([sys.executable, "-m", "stratstone_cad", "studio", "--host", host, "--port", "0", "--no-browser",
                        "--out", str(tmp_path / "s")], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert f"argument --host: expected an address to listen on (such as 127.0.0.1), got {host!r}" in r.stderr
    assert r.stdout == "" and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("mb", ["0", "-5"])
def test_a_studio_cache_cap_below_one_mb_is_refused(tmp_path, mb):
    r = subprocess.run([sys.executable, "-m", "stratstone_cad", "studio", "--max-cache-mb", mb, "--port", "0",
                        "--no-browser", "--out", str(tmp_path / "s")], capture_output=True, text=True, cwd=tmp_path,
                       timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert f"--max-cache-mb {mb}: expected a size in MB of at least 1 (default 2000)" in r.stderr
    assert r.stdout == "" and list(tmp_path.iterdir()) == []


def test_ctrl_c_stops_a_parallel_build_quickly_with_whole_listed_files(tmp_path):
    """SIGINT to the whole process group (as a terminal sends it) mid-build: the build
    stops within seconds, exits 130 with one line, and every file left is whole and listed."""
    import os
    import signal
    import time

    for attempt in range(3):
        out = tmp_path / f"out{attempt}"
        # started as a terminal starts it, Ctrl-C at its default: the suite itself may run
        # with Ctrl-C ignored (a non-interactive shell starts a background job so), and the
        # build would inherit that and run to the end
        p = subprocess.Popen([sys.executable, "-m", "stratstone_cad", "build", "--out", str(out), "--jobs", "2"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.monotonic() + 120
        while not any((out / "stratstone").glob("stone-*.stl")) if (out / "stratstone").exists() else True:
            assert time.monotonic() < deadline and p.poll() is None
            time.sleep(0.05)  # poll: a stone written
        os.killpg(p.pid, signal.SIGINT)
        t = time.monotonic()
        _, err = p.communicate(timeout=30)
        if p.returncode == 0 and "[43/43]" in err:
            continue  # the last stones came in a burst and the build ended before the signal: again
        break
    assert time.monotonic() - t < 10
    assert p.returncode == 130 and err.endswith("stratstone-cad: interrupted\n"), err
    assert "Traceback" not in err
    files = sorted(f.relative_to(out).as_posix() for f in out.rglob("*") if f.is_file() and not f.name.startswith("."))
    m = json.loads((out / "manifest.json").read_text())
    assert files == sorted([a["file"] for a in m["assets"]] + ["manifest.json"])
    assert 0 < len(m["assets"]) < 43


def test_unwritable_output_folder(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = run("build", "--out", str(blocker / "sub"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert f"output folder {blocker / 'sub'}: cannot be made ({blocker} is a file), expected a folder" in r.stderr
    r = run("build", "--out", str(blocker))
    assert r.returncode == 2 and f"output folder {blocker}: is a file, expected a folder" in r.stderr


def test_build_then_cached_rebuild(tmp_path):
    out = tmp_path / "out"
    two = ("--set", "stratstone.stone.per_colour=2")  # 7 parts: a board and 6 stones
    r = run("build", "stratstone", *two, "--out", str(out), "--jobs", "2")
    assert r.returncode == 0, r.stderr
    assert "7 assets" in r.stdout and "7 built" in r.stdout
    assert "[7/7]" in r.stderr  # progress, one line per part when not on a terminal
    r = run("build", "stratstone", *two, "--out", str(out), "--quiet")
    assert r.returncode == 0 and "0 built, 7 cached" in r.stdout and r.stderr == ""
    m = json.loads((out / "manifest.json").read_text())
    assert len(m["assets"]) == 7


def test_play_then_check_log(tmp_path):
    log = tmp_path / "game.jsonl"
    r = run("play", "stratstone", "--seed", "7", "--players", "greedy,random", "--out", str(log))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"wrote {log}: stratstone, ")
    r2 = run("check-log", str(log))
    assert r2.returncode == 0 and r2.stdout.startswith("ok: stratstone, ")
    # the same seed plays the same game, to standard output
    r3 = run("play", "stratstone", "--seed", "7", "--players", "greedy,random")
    assert r3.stdout == log.read_text()
    r4 = run("play", "sage-stones", "--seed", "3", "--setup", '{"variant": "two-player"}')
    header = json.loads(r4.stdout.splitlines()[0])
    assert header["players"] == ["p1", "p2"] and header["setup"]["variant"] == "two-player"


def test_an_illegal_log_names_line_ply_and_rule(tmp_path):
    log = tmp_path / "bad.jsonl"
    log.write_text('{"format": "stratstone-cad/log", "version": 1, "game": "stratstone", "rules": "stratstone/1", '
                   '"players": ["yellow", "red"], "seed": null, "setup": {}}\n'
                   '{"ply": 1, "player": "yellow", "move": "a1 NNS"}\n')
    r = run("check-log", str(log))
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "line 2, ply 1: a1 NNS" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["play", "chess"], "chess"),
    (["play", "stratstone", "--players", "random,genius"], "genius"),
    (["play", "sage-stones", "--setup", "{variant"], "--setup '{variant': not JSON"),
    (["play", "sage-stones", "--setup", "[1]"], "expected a JSON object"),
    (["check-log", "/nonexistent/log.jsonl"], "/nonexistent/log.jsonl"),
])
def test_bad_game_input_is_one_line_exit_2(args, message):
    r = run(*args)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_play_terrain_on_a_given_map_warns_when_it_is_unfair(tmp_path):
    levels = [[0] * 10 for _ in range(10)]
    for f in range(2, 8):  # Red's six start squares (c1-h1) raised: Red pays to step off them
        levels[0][f] = 2
    terrain = tmp_path / "unfair.json"
    terrain.write_text(json.dumps({"heightmap": levels}))
    log = tmp_path / "t.jsonl"
    r = run("play", "terrain", "--seed", "3", "--terrain", str(terrain), "--out", str(log))
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("stratstone-cad: warning: terrain is not fair")
    assert "red [11, 11, 11, 11, 11, 11] and blue [10, 10, 11, 11, 11, 11]" in r.stderr
    assert json.loads(log.read_text().splitlines()[0])["setup"]["heightmap"] == levels
    assert run("check-log", str(log)).returncode == 0
    levels[4][4] = 5  # e5 five above its neighbours
    terrain.write_text(json.dumps(levels))
    r = run("play", "terrain", "--terrain", str(terrain), "--out", str(tmp_path / "x.jsonl"))
    assert r.returncode == 2 and "e4 = 0 and e5 = 5 differ by 5, expected at most 2" in r.stderr
    assert not (tmp_path / "x.jsonl").exists()


def test_build_terrain_from_a_seed_or_a_heightmap_names_the_files(tmp_path):
    out = tmp_path / "out"
    r = run("build", "terrain", "--terrain-seed", "4", "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    names = sorted(p.name for p in (out / "terrain").iterdir())
    assert names[:4] == [f"board-seed-4-tile-{i}-of-4.stl" for i in range(1, 5)]
    m = json.loads((out / "manifest.json").read_text())
    boards = [a for a in m["assets"] if a["part"] == "board-tile"]
    assert {json.dumps(a["heightmap"]) for a in boards} == {'{"terrain_seed": 4}'}
    assert {a["count"] for a in m["assets"] if a["part"] != "board-tile"} == {2}
    levels = [[(f + r) % 3 for f in range(10)] for r in range(10)]
    hm = tmp_path / "map.json"
    hm.write_text(json.dumps(levels))
    r = run("build", "terrain", "--heightmap", str(hm), "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    tiles = sorted(p.name for p in (out / "terrain").glob("board-*"))
    assert len(tiles) == 4 and all(t.startswith("board-map-") for t in tiles)  # the seed's tiles are gone
    assert "4 stale removed" in r.stdout


@pytest.mark.parametrize(("content", "message"), [
    ("[[0, 0]]", "heightmap: 1 row, expected 10 (heightmap[0] is rank 1)"),
    (json.dumps([[0] * 10] * 6 + [[0, 0, 5] + [0] * 7] + [[0] * 10] * 3), "c6 = 0 and c7 = 5 differ by 5, expected at most 2"),
    (json.dumps([[0] * 10] * 9 + [[0] * 9 + [21]]), "j10 = 21 is out of range, expected 0 to 20"),
    ("not json", "not valid JSON"),
])
def test_a_bad_heightmap_is_one_line_exit_2_and_nothing_written(tmp_path, content, message):
    hm = tmp_path / "bad.json"
    hm.write_text(content)
    out = tmp_path / "out"
    r = run("build", "terrain", "--heightmap", str(hm), "--out", str(out))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and not out.exists()


def test_seed_and_heightmap_together_are_refused(tmp_path):
    r = run("build", "terrain", "--terrain-seed", "3", "--heightmap", "x.json", "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "expected one of them" in r.stderr and not (tmp_path / "o").exists()


def test_a_stop_signal_inside_an_import_or_a_callback_is_sent_again_once_outside(tmp_path, monkeypatch):
    """SIGTERM or Ctrl-C raised inside an import can land in a compiled module's own
    initialisation, which aborts the process ("terminate called after throwing an instance
    of 'nanobind::python_error'", seen when a build was stopped while it first imported
    manifold3d): inside one the handler sends the signal again a moment later; outside it
    raises at once."""
    import importlib
    import os
    import signal
    import time

    from stratstone_cad.base import processes
    from stratstone_cad.errors import Terminated

    (tmp_path / "frame_at_import.py").write_text("import sys\nFRAME = sys._getframe()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "frame_at_import", raising=False)
    inside = importlib.import_module("frame_at_import").FRAME
    sent = []
    monkeypatch.setattr(processes.os, "kill", lambda pid, sig: sent.append((pid, sig)))
    processes.stop(signal.SIGTERM, inside)
    processes.stop(signal.SIGINT, inside)
    deadline = time.monotonic() + 5
    while len(sent) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)  # poll: the signals sent
    assert sorted(sent) == sorted([(os.getpid(), signal.SIGTERM), (os.getpid(), signal.SIGINT)])

    @processes.called_back  # as VTK's observers are: a stop inside waits until it is out
    def observer():
        return sys._getframe()

    processes.stop(signal.SIGTERM, observer())
    while len(sent) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)  # poll: the signal sent
    assert sent[2:] == [(os.getpid(), signal.SIGTERM)]
    with pytest.raises(Terminated):
        processes.stop(signal.SIGTERM, sys._getframe())
    with pytest.raises(KeyboardInterrupt) as e:
        processes.stop(signal.SIGINT, sys._getframe())
    assert type(e.value) is KeyboardInterrupt


SIZE = "--size {value}: expected WIDTHxHEIGHT in pixels, each from 64 to 7680 x 4320, e.g. 1280x720"


@pytest.mark.parametrize("command", [["preview", "stratstone"], ["replay", "g.jsonl"]])
@pytest.mark.parametrize("value", ["-64x64", "-1", "-x"])
def test_a_size_that_starts_with_a_dash_gets_the_size_message(tmp_path, command, value):
    """argparse takes ``-64x64`` for a flag ("expected one argument"): it is --size's value."""
    r = run(*command, "--size", value, "--out", "x.png", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, ""), r.stderr
    assert r.stderr == f"stratstone-cad: error: {SIZE.format(value=repr(value))}\n"
    assert list(tmp_path.iterdir()) == []


def test_only_the_size_takes_a_value_with_a_dash():
    from stratstone_cad.cli import _values_with_a_dash

    assert _values_with_a_dash(["replay", "g.jsonl", "--size", "-64x64", "--fps", "-3"]) == [
        "replay", "g.jsonl", "--size=-64x64", "--fps", "-3"]
    assert _values_with_a_dash(["preview", "--size", "--out", "x.png", "--", "--size", "-1"]) == [
        "preview", "--size", "--out", "x.png", "--", "--size", "-1"]
    assert _values_with_a_dash(["preview", "--size"]) == ["preview", "--size"]


@pytest.mark.parametrize(("args", "flag", "expected"), [
    (["play", "stratstone", "--out", "x.jsonl/"], "--out", "expected a file name"),
    (["record", "stratstone", "--out", "x.jsonl/"], "--out", "expected a file name"),
    (["record", "--resume", "g.jsonl/"], "--resume", "expected a file name"),
    (["check-log", "g.jsonl/"], "FILE", "expected a file name"),
    (["replay", "g.jsonl/", "--out", "x.gif"], "LOG", "expected a file name"),
    (["preview", "stratstone", "--out", "x.png/"], "--out", "expected a file name"),
    (["preview", "stratstone", "--sheet", "x.png/."], "--sheet", "expected a file name"),
    (["list", "--params", "p.toml/"], "--params", "expected a file name"),
    (["play", "terrain", "--terrain", "map.json/"], "--terrain", "expected a file name"),
    (["replay", "g.jsonl", "--out", "x.png/"], "--out", "with a file's suffix, expected FILE.gif, FILE.mp4, FILE.png "
                                                       "or a new folder (a name without a suffix)"),
])
def test_a_folders_path_where_a_file_is_expected_is_refused(tmp_path, args, flag, expected):
    """``Path("x.png/")`` is ``x.png``: the file would be written, or read, quietly."""
    (tmp_path / "g.jsonl").write_text(run("play", "stratstone", "--seed", "1").stdout)
    (tmp_path / "p.toml").write_text("")
    (tmp_path / "map.json").write_text("[]")
    value = next(a for a in args if a.endswith(("/", "/.")))
    r = run(*args, cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and r.stdout == "", r.stderr
    assert f"argument {flag}: '{value}': a folder's path (it ends in '{value[value.rindex('/'):]}')" in r.stderr
    assert expected in r.stderr and "Traceback" not in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.jsonl", "map.json", "p.toml"]


def test_a_folder_for_replay_frames_may_end_in_a_slash():
    from stratstone_cad.cli.args import file_or_folder as _file_or_folder

    assert _file_or_folder("frames/") == _file_or_folder("frames/.") == _file_or_folder("frames")


LOG = str(Path(__file__).parent / "data" / "logs" / "sage_stones_4.jsonl")
PRINTING = [["check-log", LOG], ["check-log", "--explain", LOG], ["play", "stratstone", "--seed", "1"], ["list"],
            ["--help"]]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize("args", PRINTING, ids=lambda a: " ".join(a[:2]).replace(LOG, "LOG"))
def test_standard_output_that_cannot_be_written_is_one_line_exit_2(args):
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "stratstone_cad", *args], stdout=full, stderr=subprocess.PIPE,
                           text=True, timeout=120)
    assert (r.returncode, r.stderr) == (2, "stratstone-cad: error: standard output: cannot write (No space left on "
                                           "device), expected a terminal, a pipe or a file with room for the output\n")


@pytest.mark.parametrize("args", PRINTING, ids=lambda a: " ".join(a[:2]).replace(LOG, "LOG"))
def test_a_closed_pipe_stops_the_output_quietly_as_sigpipe_would(args):
    """``stratstone-cad ... | head -1``: the reader has gone, nothing to say and nowhere to say it."""
    read, write = os.pipe()
    os.close(read)
    try:
        r = subprocess.run([sys.executable, "-m", "stratstone_cad", *args], stdout=write, stderr=subprocess.PIPE,
                           text=True, timeout=120)
    finally:
        os.close(write)
    assert (r.returncode, r.stderr) == (128 + 13, "")


def test_every_summary_names_every_output_and_every_positional_has_help():
    """The one-line summaries of `stratstone-cad --help` name what each command writes,
    and no argument is left without help (a newcomer reads these first)."""
    import argparse

    from stratstone_cad.cli import parser as _parser

    parser = _parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    summary = {c.dest: c.help.lower() for c in sub._choices_actions}
    for word in ("stl", "3mf", "step", "glTF".lower(), "print report", "manifest"):
        assert word in summary["build"], word
    for word in ("window", "gif", "mp4", "png", "gltf", "html"):
        assert word in summary["replay"] and (word == "window" or word in summary["preview"] or word == "mp4"), word
    for name, command in sub.choices.items():
        for action in command._actions:
            assert action.help, (name, action.dest)
    assert "Try it" not in "".join(a.help or "" for c in sub.choices.values() for a in c._actions)


def test_without_a_display_replay_names_the_page_among_the_outputs(monkeypatch):
    from stratstone_cad.errors import UserError
    from stratstone_cad.viewer.preview import need_display

    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    from stratstone_cad.viewer import replay

    with pytest.raises(UserError) as e:
        replay.show_window(None, 1, 1)
    assert "FILE.html" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(UserError):
        need_display("x", "y")


def _error_classes() -> list[type[Exception]]:
    import inspect

    from stratstone_cad import errors

    return [c for _, c in inspect.getmembers(errors, inspect.isclass) if issubclass(c, Exception)]


@pytest.mark.parametrize("error", _error_classes(), ids=lambda c: c.__name__)
def test_every_error_is_one_line_exit_2_for_the_input_and_1_for_the_run(monkeypatch, capsys, error):
    """What errors.py promises: each of its errors is one line on standard error, exit code 2
    when the input is wrong (a UserError), 1 when the run failed with right input (a BuildError)."""
    import argparse

    from stratstone_cad import cli, errors

    def fail(_args):
        e = Exception.__new__(error)  # an error whose own __init__ words its message from parts (RuleViolation)
        Exception.__init__(e, "thing 'x': broken, expected whole")
        raise e

    fake = argparse.ArgumentParser()
    fake.set_defaults(run=fail)
    monkeypatch.setattr(cli, "parser", lambda: fake)
    code = cli.main([])
    assert code == (1 if issubclass(error, errors.BuildError) else 2)
    assert issubclass(error, errors.BuildError | errors.UserError)  # no third kind, exit code unsaid
    assert capsys.readouterr().err == "stratstone-cad: error: thing 'x': broken, expected whole\n"
