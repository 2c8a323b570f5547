"""PrusaSlicer's command line for the tests that slice our files (tests/printing/test_slicer*.py).

A test module takes ``need_slicer`` into its namespace: skipped when prusa-slicer is not
installed, unless STRATSTONE_REQUIRE_SLICER=1 (as in CI), which turns the skip into a failure.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import shutil
import subprocess
from collections.abc import Sequence
from typing import Any

import pytest

SLICER = shutil.which("prusa-slicer")


@pytest.fixture(scope="module", autouse=True)
def need_slicer():
    if SLICER is None:
        if os.environ.get("STRATSTONE_REQUIRE_SLICER") == "1":
            pytest.fail("prusa-slicer is not installed but STRATSTONE_REQUIRE_SLICER=1 (apt-get install prusa-slicer)")
        pytest.skip("prusa-slicer is not installed (apt-get install prusa-slicer)")


def bed_shape(printer: Any) -> str:
    """``--bed-shape`` of ``printer``'s bed: its four corners, mm."""
    return f"0x0,{printer.bed_x_mm:g}x0,{printer.bed_x_mm:g}x{printer.bed_y_mm:g},0x{printer.bed_y_mm:g}"


def slicer(*args: str) -> str:
    """PrusaSlicer's standard output for ``args`` (it must succeed)."""
    env = {**os.environ, "HOME": os.environ.get("HOME", "/tmp")}
    r = subprocess.run([SLICER, *args], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return r.stdout


def slice_each(runs: Sequence[Sequence[str]]) -> list[str]:
    """:func:`slicer` of each of ``runs``, two at a time (the files are many, and a slicer
    leaves a core idle for much of its run), in their order."""
    with cf.ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(lambda args: slicer(*args), runs))
