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

from stratstone_cad.base.params import load_profiles
from stratstone_cad.build.pipeline import build
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
