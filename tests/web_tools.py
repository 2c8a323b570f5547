"""The Node tools of the tests (tools/web: the glTF validator, three.js and esbuild, pinned
by its lock), installed once per checkout with ``npm ci`` under a lock, so two test
processes never install into one folder at once."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess

import pytest

from tests import ROOT

WEB = ROOT / "tools" / "web"
PACKAGES = ("gltf-validator", "three", "esbuild")


def node_tools() -> None:
    """``tools/web/node_modules`` as the lock has it; skips without node and npm (fails when
    ``STRATSTONE_REQUIRE_NODE`` is set, as in CI)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        if os.environ.get("STRATSTONE_REQUIRE_NODE"):
            pytest.fail("node and npm are required (apt-get install -y nodejs npm)")
        pytest.skip("node and npm are not installed")
    with open(WEB / "package-lock.json", "rb") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not all((WEB / "node_modules" / p / "package.json").is_file() for p in PACKAGES):
                subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--silent"], cwd=WEB, check=True, timeout=600)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
