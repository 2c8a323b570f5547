"""The README's quickstart, run as a reader runs it: every command of its ```console blocks
(a line ``$ COMMAND``, then what it prints) and every ```python block, in the README's order,
in one empty temporary folder, with the package's ``stratstone-cad`` and ``python`` first on
the PATH. What a command prints (standard output and standard error, as a terminal shows
them) must be what the README shows, where ``...`` stands for any text (the build's progress
lines, a time, a file's size); a command must succeed. A python block must run and print
nothing.

The quickstart is chosen to be real and quick (about 30 s on 2 cores): one game's parts and
print plates (``build terrain --plates --no-slice``: the whole set with PrusaSlicer's timing,
``make build``, takes minutes and is what tests/build and tests/printing test), a played and
checked game, a recorded one, a still, a GIF and the page of a 13-ply replay, a preview
still, and a stone made and written as STEP through the model API (``build --step`` takes
about 20 s a game: tests/occ tests it). The commands that open a window wait for a person
and are named in the README's text, not in its blocks. The viewer's mesh cache is the test
process's own (the folder the viewer tests use: the meshes they made are reused, and the
cache checks what it reads), never the user's.
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import ROOT

README = ROOT / "README.md"
FLAGS = doctest.ELLIPSIS | doctest.DONT_ACCEPT_TRUE_FOR_1


@dataclass(frozen=True)
class Step:
    """One thing the quickstart runs: a console command and what it prints, or a python block."""

    line: int  # in the README, from 1
    kind: str  # "console" or "python"
    source: str
    want: str


def steps(text: str) -> list[Step]:
    """The quickstart's commands and python blocks in the README's order."""
    out: list[Step] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.fullmatch(r"```(console|python)\s*", lines[i])
        i += 1
        if not m:
            continue
        start = i
        while lines[i].rstrip() != "```":
            i += 1
        body = lines[start:i]
        i += 1
        if m[1] == "python":
            out.append(Step(start, "python", "\n".join(body) + "\n", ""))
            continue
        if not body or not body[0].startswith("$ "):
            raise AssertionError(f"README.md line {start + 1}: a console block begins with '$ COMMAND'")
        for n, row in enumerate(body):
            if row.startswith("$ "):
                out.append(Step(start + n + 1, "console", row[2:], ""))
            else:
                last = out[-1]
                out[-1] = Step(last.line, last.kind, last.source, last.want + row + "\n")
    return out


@pytest.fixture
def environment(tmp_path_factory) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["XDG_CACHE_HOME"] = str(tmp_path_factory.getbasetemp() / "viewer-cache")  # as tests/viewer/conftest.py
    env["PYTHONUNBUFFERED"] = "1"  # standard output and error in the order they were written, as on a terminal
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):  # a command that opened a window would fail, not wait
        env.pop(name, None)
    return env


def run(step: Step, folder: Path, env: dict[str, str], index: int) -> str:
    """What the step prints; a failure names the README's line."""
    if step.kind == "python":
        script = folder / f"quickstart-{index}.py"
        script.write_text(step.source)
        args = ["python", script.name]
    else:
        args = ["bash", "-o", "pipefail", "-c", step.source]
    r = subprocess.run(args, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=300)
    assert r.returncode == 0, (f"README.md line {step.line}: {step.source.strip()!r} exited with {r.returncode}:\n"
                               f"{r.stdout}")
    return r.stdout


def test_the_quickstart_runs_as_shown(tmp_path, environment):
    checker = doctest.OutputChecker()
    for index, step in enumerate(steps(README.read_text(encoding="utf-8"))):
        got = run(step, tmp_path, environment, index)
        if not checker.check_output(step.want, got, FLAGS):
            diff = checker.output_difference(doctest.Example(step.source, step.want), got, FLAGS)
            pytest.fail(f"README.md line {step.line}: the README shows another output than the command prints "
                        f"(correct the README, or the code):\n{diff}", pytrace=False)


def test_the_quickstart_covers_the_main_jobs():
    """Each main job has a command in a block the test runs (a ```sh block is not run)."""
    run_ = [s.source for s in steps(README.read_text(encoding="utf-8"))]
    text = "\n".join(run_)
    for job in (r"stratstone-cad build \S+ --plates", r"stratstone-cad preview .* --out \S+\.png",
                r"stratstone-cad play ", r"stratstone-cad check-log ", r"stratstone-cad record ",
                r"stratstone-cad replay .*--out \S+\.png", r"stratstone-cad replay .*--out \S+\.gif",
                r"stratstone-cad replay .*--out \S+\.html", r"models\.part\(", r"\.step"):
        assert re.search(job, text), f"no quickstart block of README.md runs {job!r}"


def test_the_two_commands_stay():
    """CI runs the README's test command (.ci/run: make test), and a newcomer the build's."""
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", text, re.S)
    assert block, "README.md: no ```sh block with the two commands"
    assert re.search(r"^make build\b", block[1], re.M) and re.search(r"^make test\b", block[1], re.M), block[1]
    assert re.search(r"^\s*make test$", (ROOT / ".ci" / "run").read_text(), re.M)
