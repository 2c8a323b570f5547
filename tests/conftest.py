"""Shared fixtures: real builds (every game, with and without its plates; the Stratstone set),
each made once per test session and read by every test that needs it (tests copy them to change them)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

# The persistent memo of checks and tile plans (stratstone_cad.base.memo) stays off in the
# tests and in every process they start: each check a test reaches is computed, also
# under mutation testing, where every mutant runs the same source files. tests/test_memo.py
# turns it on in its own folders.
os.environ["STRATSTONE_MEMO"] = "off"

from stratstone_cad.base.printers import load_profiles
from stratstone_cad.pipeline.build import build
from stratstone_cad.pipeline.manifest import read_manifest, write_manifest
from stratstone_cad.registry import load_params


@pytest.fixture(scope="session")
def params():
    return load_params()


@pytest.fixture(scope="session")
def profiles():
    return load_profiles()


def shared(factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """The folder ``name`` made by ``make`` once for the whole session: under pytest-xdist
    in the folder all workers share (the first worker to ask makes it, another waits for it
    on a lock, then reads it), a cold build a session instead of one in each worker."""
    root = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # pytest-N, above each worker's popen-gwK
    out, done = root / name, root / f"{name}.done"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():  # made by no worker yet (or a make that failed: made again)
            with contextlib.suppress(FileNotFoundError):
                shutil.rmtree(out)
            out.mkdir()
            make(out)
            done.touch()
    return out


@pytest.fixture(scope="session")
def built_all(tmp_path_factory) -> Path:
    """output folder of a cold build of every game's assets (2 parallel jobs)."""
    return shared(tmp_path_factory, "build-all", lambda out: build(None, None, out, jobs=2, progress=None))


@pytest.fixture(scope="session")
def built(built_all, tmp_path_factory) -> Path:
    """output folder of the Stratstone set alone: its files of ``built_all``'s cold build
    (2 parallel jobs; a cold build of 24 stones less) and the manifest that a build of
    Stratstone alone writes for them, every part of it cached."""

    def make(out: Path) -> None:
        shutil.copytree(built_all / "stratstone", out / "stratstone")
        write_manifest(out, {f: e for f, e in read_manifest(built_all).items() if e["game"] == "stratstone"})
        r = build(["stratstone"], None, out, jobs=2, progress=None)
        assert r.built == [] and len(r.cached) == 25, r.summary()

    return shared(tmp_path_factory, "build", make)


@pytest.fixture(scope="session")
def manifest(built) -> dict:
    return json.loads((built / "manifest.json").read_text())


@pytest.fixture(scope="session")
def plated(tmp_path_factory) -> Path:
    """output folder of a cold build of every game with its print plates (build --plates)."""
    return shared(tmp_path_factory, "plated",
                  lambda out: build(None, None, out, jobs=2, progress=None, plates=True, slice_plates=False))


#: The test files that take longest (a few minutes each on 2 cores; measured with
#: --durations), longest first. pytest-xdist hands out whole files (``--dist loadfile``),
#: by default the files of most tests first, so these long files of few tests came last
#: and ran alone at the end of ``make test`` while the other core idled (15 min with
#: 20.5 min of CPU on 2 cores). The Makefile keeps the collection order
#: (``--no-loadscope-reorder``): these first, the rest in their order. The first two
#: start together, one on each worker: test_build asks for ``built_all`` (made for both
#: workers, :func:`shared`), test_faults' own builds come first and its plates' tests
#: find it made (2026-12-07: 12 and 13 minutes each at a load of 17 on 2 cores, 69 tests
#: in 14.5 minutes side by side). The studio's whole builds and the Play room in Chromium
#: (about 2 minutes each on a quiet machine) come last of them, not at the suite's end.
LONG_FILES = (
    "tests/pipeline/test_build.py",
    "tests/pipeline/test_faults.py",
    "tests/printing/test_slicer.py",
    "tests/games/test_solids.py",
    "tests/printing/test_plates.py",
    "tests/pipeline/test_cache.py",
    "tests/printing/test_slicer_plates.py",
    "tests/viewer/test_replay.py",
    "tests/games/stratstone/test_models.py",
    "tests/pipeline/test_plate_slicing.py",
    "tests/studio/test_whole_builds.py",
    "tests/studio/test_play_page.py",
    "tests/games/terrain/test_kit_print.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = Path(__file__).resolve().parent.parent
    rank = {f: i for i, f in enumerate(LONG_FILES)}

    def order(item: pytest.Item) -> int:
        try:
            return rank.get(Path(item.path).resolve().relative_to(root).as_posix(), len(rank))
        except ValueError:
            return len(rank)

    items.sort(key=order)  # stable: a file's tests keep their order
