"""The fuzzing that found the hardening issues, kept as property tests: mutated valid logs
and random parameter sets never crash, never hang and never print more than one line."""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stratstone_cad.errors import UserError, printable
from stratstone_cad.log import commands
from stratstone_cad.registry import SCHEMA, load_params
from tests import LOGS

VALID = sorted(p for p in LOGS.glob("*.jsonl") if not p.name.startswith("bad_"))
NAMES = sorted(f"{prefix}.{name}" for prefix, cls in SCHEMA.items() for name in cls.__dataclass_fields__)

JUNK = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["\x1b[2J", "\u2028", "\u00a0", "\x00", "NaN", "1e999", "-0", "[" * 3000, "{}", "null", "true",
                     "\"\"", "9" * 5000, "\ud800".encode("utf-8", "surrogatepass").decode("utf-8", "replace")]),
    st.integers(-10**30, 10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


@st.composite
def mutated_log(draw) -> bytes:
    data = draw(st.sampled_from(VALID)).read_bytes()
    lines = data.split(b"\n")
    for _ in range(draw(st.integers(1, 4))):
        how = draw(st.sampled_from(["flip", "cut", "drop", "dup", "swap", "insert", "truncate"]))
        i = draw(st.integers(0, max(0, len(lines) - 1)))
        line = lines[i]
        if how == "flip" and line:
            j = draw(st.integers(0, len(line) - 1))
            line = line[:j] + bytes([draw(st.integers(0, 255))]) + line[j + 1:]
        elif how == "cut" and line:
            j = draw(st.integers(0, len(line)))
            line = line[:j]
        elif how == "drop" and len(lines) > 1:
            del lines[i]
            continue
        elif how == "dup":
            lines.insert(i, line)
        elif how == "swap" and len(lines) > 1:
            k = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[k] = lines[k], lines[i]
            continue
        elif how == "insert" and line:
            j = draw(st.integers(0, len(line)))
            line = line[:j] + draw(JUNK).encode("utf-8", "replace") + line[j:]
        elif how == "truncate":
            lines = lines[: i + 1]
        lines[i if i < len(lines) else -1] = line
    return b"\n".join(lines)


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=mutated_log())
def test_a_mutated_log_is_accepted_or_refused_in_one_line(data, tmp_path_factory):
    log = tmp_path_factory.mktemp("fuzz") / "g.jsonl"
    log.write_bytes(data)
    t = time.monotonic()
    try:
        text = commands.check_log(log)
        assert text.startswith("ok: ")
    except UserError as e:
        assert str(e) and "\n" not in str(e), str(e)
    assert time.monotonic() - t < 5


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(sets=st.dictionaries(st.sampled_from(NAMES), JUNK, max_size=3))
def test_random_parameter_sets_are_accepted_or_refused_in_one_line(sets):
    t = time.monotonic()
    try:
        load_params(sets=sets)
    except UserError as e:
        assert str(e) and "\n" not in str(e), str(e)
        assert "\x1b" not in printable(str(e))
    assert time.monotonic() - t < 5


# -- record's standard input, and the values it writes into a header ------------------------------------------

RECORD_GAMES = [
    ["stratstone"],
    ["sage-stones"],
    ["sage-stones", "--setup", '{"variant": "two-player"}', "--roll", "--seed", "7"],
    ["terrain", "--terrain-seed", "1"],
]
COMMAND = st.sampled_from(["undo", "show", "moves", "moves a1", "moves 5-5", "moves c1", "moves zz", "help", "?",
                           "resign nobody", "resign red blue", "undo now", "quit now", "draw please", "UNDO", "Show"])
MOVE = st.sampled_from(["2 3 3", "1 2 3", "3 3 3", "1 1 1", "2 2 2 5-5", "1,2,3", "4 4 4", "a1 NNE", "d1 NNW", "d4 SSS",
                        "b2 N", "a1 NNNNNNNNNNNNNNNNNNNNNNNNN", "8-4", "5-5", "9-1", "3-9", "-", "c1-c2", "c1xc5",
                        "e7-exit", "pass", "h1-h2", "c1-c3"])
ODD = st.sampled_from(["", " ", "\t", "\r", "\x1b[2J", "\u2028", "\x00", "\udcff", "9" * 2000, "x" * 1001])
ANSWER = st.one_of(COMMAND, MOVE, ODD, st.text(max_size=40), JUNK)
END = st.sampled_from(["", "", "quit", "draw", "resign", "resign red", "resign yellow", "resign p2"])
"""How a session ends: at the end of input, or a command that ends it (the others come anywhere)."""


def _record(args: list[str], stdin: str) -> tuple[int, str, str]:
    """``stratstone-cad record ARGS`` in this process, reading ``stdin``; a hang is a failure."""
    import contextlib
    import io
    import signal
    import sys

    from stratstone_cad.cli import main

    def hung(signum, frame):
        raise TimeoutError("record hung")

    out, err = io.StringIO(), io.StringIO()
    saved, before = sys.stdin, signal.signal(signal.SIGALRM, hung)
    sys.stdin = io.StringIO(stdin)
    signal.setitimer(signal.ITIMER_REAL, 20)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["record", *args])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
        sys.stdin = saved
    return code, out.getvalue(), err.getvalue()


def _check_session(code: int, said: str, error: str, folder) -> None:
    """One line at most on stderr, no traceback, what the terminal shows escaped, and the
    log left (if any) one check-log reads, with nothing beside it."""
    assert code in (0, 2), (code, error)
    assert "Traceback" not in said + error and "\x1b" not in said + error
    assert (code == 0) == (error == "") and error.count("\n") == (code == 2), error
    logs = [p.name for p in folder.iterdir()]
    assert logs in ([], ["g.jsonl"]), logs  # no lock file, no temporary file
    if logs:
        commands.check_log(folder / "g.jsonl")


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(game=st.sampled_from(RECORD_GAMES), answers=st.lists(ANSWER, max_size=30), end=END,
       more=st.none() | st.lists(ANSWER, max_size=10))
def test_random_answers_to_record_never_crash_hang_or_write_a_log_check_log_refuses(game, answers, end, more,
                                                                                     tmp_path_factory):
    folder = tmp_path_factory.mktemp("record")
    log = str(folder / "g.jsonl")
    t = time.monotonic()
    _check_session(*_record([*game, "--out", log], "\n".join([*answers, end]) + "\n"), folder)
    if more is not None and (folder / "g.jsonl").exists():  # and resumed, with or without the program's dice
        _check_session(*_record(["--resume", log, *(["--roll"] if "--roll" in game else [])], "\n".join(more)), folder)
    assert time.monotonic() - t < 10


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(players=st.none() | st.lists(st.one_of(st.sampled_from(["red", "blue", "yellow", "green", "p1", "a-1", "z_"]),
                                              st.text(min_size=1, max_size=40)), min_size=1, max_size=7),
       seed=st.none() | st.integers(-2**64, 2**64), two=st.booleans())
def test_the_values_record_writes_into_a_header_are_refused_up_front_or_read_back(players, seed, two,
                                                                                  tmp_path_factory):
    """Whatever --players and --seed say, record refuses them in one line before writing
    anything, or writes a log check-log reads."""
    folder = tmp_path_factory.mktemp("header")
    args = ["sage-stones", "--out", str(folder / "g.jsonl"), "--roll"]
    if two:
        args += ["--setup", '{"variant": "two-player"}']
    if players is not None:
        args += [f"--players={','.join(players)}"]
    if seed is not None:
        args += [f"--seed={seed}"]
    code, said, error = _record(args, "quit\n")
    _check_session(code, said, error, folder)
    assert (code == 0) == (folder / "g.jsonl").exists()
