"""The command line with a gate in it, for the tests that kill a build at a given moment.

``python -m tests.gated GATE module:name N [PATTERN] -- ARGS...`` runs ``stratstone-cad
ARGS`` as ``python -m stratstone_cad`` does, but the Nth call of the function ``name``
(``module:Class.method`` too) whose positional arguments' text matches ``PATTERN`` (any
call without one) stops before it runs: it writes the file ``GATE`` and waits until
``GATE.release`` exists, then runs on. A test waits for ``GATE`` and kills the process
(or lets it go): the kill lands at that moment on any machine, never after the build
finished. Only the gated process waits; its workers run on. A gate nobody releases gives
up after :data:`WAIT_S` seconds, so a test that failed leaves no process behind for long.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

WAIT_S = 120.0


def gated(func: Any, gate: Path, n: int, pattern: str | None) -> Any:
    """``func``, which stops at its ``n``th call matching ``pattern`` until the gate opens."""
    calls = [0]

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if pattern is None or any(re.search(pattern, str(a)) for a in args):
            calls[0] += 1
            if calls[0] == n:
                wait(gate)
        return func(*args, **kwargs)

    return wrapper


def wait(gate: Path) -> None:
    """Say the gate is reached (its file), then wait for its release file."""
    gate.write_text(str(os.getpid()))
    release, end = gate.with_name(gate.name + ".release"), time.monotonic() + WAIT_S
    while not release.exists():
        if time.monotonic() > end:
            os._exit(3)  # the test is gone: leave nothing running
        time.sleep(0.01)  # poll: the gate released


def install(target: str, gate: Path, n: int, pattern: str | None) -> None:
    """Put the gate in ``target`` (``package.module:name`` or ``package.module:Class.method``)."""
    module, _, name = target.partition(":")
    owner: Any = importlib.import_module(module)
    *path, attr = name.split(".")
    for part in path:
        owner = getattr(owner, part)
    setattr(owner, attr, gated(getattr(owner, attr), gate, n, pattern))


def release(gate: Path) -> None:
    """Let the process waiting at ``gate`` run on."""
    gate.with_name(gate.name + ".release").write_text("")


def reached(gate: Path, process: Any, timeout_s: float = 120.0) -> None:
    """Wait until ``process`` (a Popen running this module) stands at ``gate``; fails, with
    its standard error, when it ended or took longer than ``timeout_s``."""
    end = time.monotonic() + timeout_s
    while not gate.exists():
        if process.poll() is not None:
            raise AssertionError(f"ended (exit {process.returncode}) before the gate: {process.stderr.read()!r}")
        if time.monotonic() > end:
            raise AssertionError(f"not at the gate after {timeout_s} s")
        time.sleep(0.01)  # poll: the process at its gate


def command(gate: Path, target: str, n: int = 1, pattern: str | None = None) -> list[str]:
    """The command that runs ``stratstone-cad`` gated (the CLI's arguments follow it)."""
    return [sys.executable, "-m", "tests.gated", str(gate), target, str(n), *([pattern] if pattern else []), "--"]


def main(argv: list[str]) -> int:
    split = argv.index("--")
    gate, target, n, *pattern = argv[:split]
    install(target, Path(gate), int(n), pattern[0] if pattern else None)
    from stratstone_cad.cli import main as cli_main

    return cli_main(argv[split + 1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
