"""The layers are a contract: import-linter checks the imports against pyproject.toml's
[tool.importlinter] (docs/architecture.md), and every game folder is registered once."""

from __future__ import annotations

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
