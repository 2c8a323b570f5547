"""The package installs anywhere: a wheel built from the checkout, installed (not editable)
and run from a folder outside it, lists, builds, plays and checks a log.

The wheel goes in with ``--no-deps`` into a target folder put first on the path of this
venv's Python (whose dependencies are the wheel's), so nothing of the checkout is on the
path: a preset, schema or puzzle set the wheel does not carry fails here, as it would for ``pipx
install``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests import ROOT


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                    str(work / "dist"), str(ROOT)], check=True, capture_output=True, timeout=300)
    (wheel,) = (work / "dist").glob("stratstone_cad-*.whl")
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-compile", "-q", "--target",
                    str(work / "site"), str(wheel)], check=True, capture_output=True, timeout=300)
    return work


def _run(installed: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(installed / "site")
    env["XDG_CACHE_HOME"] = str(installed / "cache")
    return subprocess.run([sys.executable, "-m", "stratstone_cad", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def test_the_wheel_carries_the_presets_and_the_schema(installed):
    (wheel,) = (installed / "dist").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("stratstone_cad/log/schema.json", "stratstone_cad/base/presets/printers.toml",
                   "stratstone_cad/base/presets/profiles.toml", "stratstone_cad/base/presets/colours.toml",
                   "stratstone_cad/games/stratstone/preset.toml", "stratstone_cad/games/sage_stones/preset.toml",
                   "stratstone_cad/games/terrain/preset.toml", "stratstone_cad/games/stratstone/puzzles.jsonl",
                   "stratstone_cad/games/sage_stones/puzzles.jsonl", "stratstone_cad/games/terrain/puzzles.jsonl"):
        assert needed in names, needed
    assert not any(n.startswith("tests/") for n in names)


def test_the_wheels_schema_is_the_one_the_package_assembles_from_its_games(installed):
    """The log schema the wheel publishes (built by hatch_build.py) is the package's own,
    every registered game in it."""
    from stratstone_cad.log.logfile import load_schema
    from stratstone_cad.registry import FACTS

    (wheel,) = (installed / "dist").glob("*.whl")
    published = json.loads(zipfile.ZipFile(wheel).read("stratstone_cad/log/schema.json"))
    assert published == load_schema()
    assert published["$defs"]["header"]["properties"]["game"]["enum"] == list(FACTS)


def test_building_the_wheel_writes_nothing_into_the_checkout(tmp_path):
    """The build backend builds out of the tree: a copy of the checkout's files is the same
    files after `pip wheel` (setuptools left build/ and stratstone_cad.egg-info/ there, and
    failed on a read-only checkout)."""
    import shutil

    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    src = tmp_path / "checkout"
    for name in tracked.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    before = sorted(p.relative_to(src).as_posix() for p in src.rglob("*"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(src)],
                   check=True, capture_output=True, timeout=300)
    assert sorted(p.relative_to(src).as_posix() for p in src.rglob("*")) == before
    (wheel,) = (tmp_path / "dist").glob("stratstone_cad-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    package = sorted(n for n in names if not n.startswith("stratstone_cad-"))
    # the package's files as git holds them, no more (no caches), no fewer (its data files too),
    # and the log schema the build assembles (hatch_build.py)
    assert package == sorted([*(n for n in tracked.decode().split("\0") if n.startswith("stratstone_cad/")),
                              "stratstone_cad/log/schema.json"])


def test_the_installed_package_is_not_the_checkout(installed, tmp_path):
    done = _run(installed, "--version", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    code = "import stratstone_cad, sys; print(stratstone_cad.__file__)"
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PYTHONPATH": str(installed / "site")}
    where = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    assert Path(where.stdout.strip()).is_relative_to(installed / "site")


def test_the_installed_command_lists_builds_plays_and_checks(installed, tmp_path):
    listed = _run(installed, "list", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "stratstone.stone.height_mm = 7.4" in listed.stdout and "printers (--printer NAME):" in listed.stdout
    built = _run(installed, "build", "stratstone", "--set", "stratstone.stone.per_colour=1", "--out", "out", "--jobs",
                 "1", "--quiet", cwd=tmp_path)  # the board and a stone of each colour (each mark): not 24 stones
    assert built.returncode == 0, built.stderr
    manifest = json.loads((tmp_path / "out/manifest.json").read_text())
    files = {a["file"] for a in manifest["assets"]}
    assert "stratstone/board.stl" in files and len(files) == 4
    played = _run(installed, "play", "sage-stones", "--seed", "3", "--out", "game.jsonl", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    checked = _run(installed, "check-log", "game.jsonl", cwd=tmp_path)
    assert checked.returncode == 0 and checked.stdout.startswith("ok: sage-stones"), checked.stdout + checked.stderr
