"""The fuzzing that found the hardening issues, kept as property tests: mutated valid logs
and random parameter sets never crash, never hang and never print more than one line."""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stratstone_cad.cli import printable
from stratstone_cad.errors import UserError
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
