"""The layers are a contract: import-linter checks the imports against pyproject.toml's
[tool.importlinter] (docs/architecture.md), and every game folder is registered once."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import stratstone_cad
from stratstone_cad import registry

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint), "--config", str(ROOT / "pyproject.toml"), "--no-cache"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def test_every_game_folder_is_registered_and_each_once():
    games = Path(stratstone_cad.__file__).parent / "games"
    folders = sorted(p.name for p in games.iterdir() if (p / "__init__.py").is_file())
    assert sorted(registry.FOLDERS) == folders
    assert len(set(registry.FOLDERS)) == len(registry.FOLDERS)
    for folder in folders:
        for needed in ("facts.py", "rules.py", "parts.py", "cad.py", "preset.toml"):
            assert (games / folder / needed).is_file(), (folder, needed)


def test_the_package_root_holds_only_the_cli_the_errors_the_registry_and_the_model_api():
    """``stratstone_cad.models`` is the public API CadQuery users import (``models.part``),
    so it stands at the root, named as they type it."""
    root = Path(stratstone_cad.__file__).parent
    modules = sorted(p.name for p in root.glob("*.py"))
    assert modules == ["__init__.py", "__main__.py", "errors.py", "models.py", "registry.py"]
    assert (root / "cli" / "__init__.py").is_file()  # the command line, a package of its commands


def test_a_cad_function_the_game_does_not_define_is_refused_at_registration():
    import pytest

    from stratstone_cad.printing.jobs import CadFunctions

    cad = CadFunctions("stratstone_cad.games.stratstone.cad", ("make_board", "make_boards"))
    with pytest.raises(LookupError, match=r"no function make_boards\(\) at its top level"):
        cad.check()
    with pytest.raises(AttributeError, match="declares no CAD function 'make_tile'"):
        _ = cad.make_tile
    for g in registry.PARTS.values():  # and the real ones are there, callable
        import importlib

        module = importlib.import_module(g.cad.module)
        assert all(callable(getattr(module, n)) for n in g.cad.names)


#: A sleep in a test: the time module's, asyncio's, or a Playwright page's wait_for_timeout (in ms).
_SLEEP = re.compile(r"\b(?:time\.sleep|asyncio\.sleep|wait_for_timeout)\b")
_SECONDS = re.compile(r"\b(sleep|wait_for_timeout)\(\s*([0-9][0-9_]*(?:\.[0-9]*)?|\.[0-9]+)\s*[,)]")
_SAID = re.compile(r"#\s*(poll|not a wait):\s*\S")
#: The longest a poll sleeps between two looks at what it waits for.
POLL_UNDER_S = 0.3


def sleeps_that_wait(text: str) -> list[tuple[int, str]]:
    """The lines of a test module (number, why refused) that sleep as a wait: a test waits on
    an event, or polls a condition with a deadline (``# poll: <what>``, under
    :data:`POLL_UNDER_S` a look); a sleep that is no wait (work simulated, a pause inside a
    callback, a while in which nothing may happen) says so: ``# not a wait: <why>``."""
    refused = []
    for n, line in enumerate(text.splitlines(), 1):
        if not _SLEEP.search(line):
            continue
        said, seconds = _SAID.search(line), _SECONDS.search(line)
        if said is None:
            refused.append((n, "a sleep as a wait: wait on an event, or say '# poll: <what>' or '# not a wait: <why>'"))
        elif said[1] == "poll" and seconds is None:
            refused.append((n, "a poll whose interval is not a number written here"))
        elif said[1] == "poll" and float(seconds[2]) / (1000 if seconds[1] == "wait_for_timeout" else 1) >= POLL_UNDER_S:
            refused.append((n, f"a poll of {seconds[2]} ({seconds[1]}): a fixed wait of {POLL_UNDER_S} s or more"))
    return refused


def test_no_test_waits_by_sleeping():
    found = {p.relative_to(ROOT).as_posix(): sleeps_that_wait(p.read_text(encoding="utf-8"))
             for p in sorted((ROOT / "tests").rglob("*.py")) if p != Path(__file__).resolve()}  # here: the calls named, not made
    assert {f: r for f, r in found.items() if r} == {}


def test_a_sleep_that_waits_is_found():
    sleep = "time.sleep"
    assert sleeps_that_wait(f"x = 1\n    {sleep}(1.5)\n") == [(2, sleeps_that_wait(f"{sleep}(1)")[0][1])]
    assert [n for n, _ in sleeps_that_wait(f"{sleep}(0.3)  # poll: the file\n{sleep}(0.05)  # poll: the file\n")] == [1]
    assert [n for n, _ in sleeps_that_wait("page.wait_for_timeout(500)  # poll: a frame\n")] == [1]
    assert sleeps_that_wait(f"{sleep}(0.6)  # not a wait: a while in which nothing may be drawn\n") == []
    assert [n for n, _ in sleeps_that_wait("await asyncio.sleep(0.05)\n")] == [1]
