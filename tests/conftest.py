"""Shared fixtures: one real build of the Stratstone set, made once per test session."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

# The persistent memo of checks and tile plans (stratstone_cad.base.memo) stays off in the
# tests and in every process they start: each check a test reaches is computed, also
# under mutation testing, where every mutant runs the same source files. tests/test_memo.py
# turns it on in its own folders.
os.environ["STRATSTONE_MEMO"] = "off"

from stratstone_cad.base.printers import load_profiles
from stratstone_cad.pipeline.build import build
from stratstone_cad.registry import load_params


@pytest.fixture(scope="session")
def params():
    return load_params()


@pytest.fixture(scope="session")
def profiles():
    return load_profiles()


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> Path:
    """output folder of a cold build of the Stratstone set (2 parallel jobs)."""
    out = tmp_path_factory.mktemp("build")
    build(["stratstone"], None, out, jobs=2, progress=None)
    return out


@pytest.fixture(scope="session")
def manifest(built) -> dict:
    return json.loads((built / "manifest.json").read_text())


@pytest.fixture(scope="session")
def built_all(tmp_path_factory) -> Path:
    """output folder of a cold build of every game's assets (2 parallel jobs)."""
    out = tmp_path_factory.mktemp("build-all")
    build(None, None, out, jobs=2, progress=None)
    return out


@pytest.fixture(scope="session")
def plated(tmp_path_factory) -> Path:
    """output folder of a cold build of every game with its print plates (build --plates)."""
    out = tmp_path_factory.mktemp("plated")
    build(None, None, out, jobs=2, progress=None, plates=True, slice_plates=False)
    return out


#: The test files that take longest (a few minutes each on 2 cores; measured with
#: --durations), longest first. pytest-xdist hands out whole files (``--dist loadfile``),
#: by default the files of most tests first, so these long files of few tests came last
#: and ran alone at the end of ``make test`` while the other core idled (15 min with
#: 20.5 min of CPU on 2 cores). The Makefile keeps the collection order
#: (``--no-loadscope-reorder``): these first, the rest in their order.
LONG_FILES = (
    "tests/pipeline/test_build.py",
    "tests/pipeline/test_faults.py",
    "tests/printing/test_slicer.py",
    "tests/games/test_solids.py",
    "tests/printing/test_plates.py",
    "tests/pipeline/test_cache.py",
    "tests/printing/test_slicer_plates.py",
    "tests/games/terrain/test_kit_print.py",
    "tests/viewer/test_replay.py",
    "tests/games/stratstone/test_models.py",
    "tests/pipeline/test_plate_slicing.py",
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
