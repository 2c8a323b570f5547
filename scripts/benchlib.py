"""What every benchmark script reports with its figures: the machine and its load."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path


def machine() -> dict[str, str]:
    """uname, core count, CPU model and Python version of this machine."""
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    uname = subprocess.run(["uname", "-a"], capture_output=True, text=True).stdout.strip()
    return {"uname": uname, "nproc": str(os.cpu_count()), "cpu": cpu, "python": platform.python_version()}


def machine_line() -> str:
    m = machine()
    return f"{m['cpu']}, {m['nproc']} cores, Python {m['python']}, {platform.system()} {platform.release()}"


def machine_block(load_before: str) -> list[str]:
    """The Markdown lines a benchmark's report ends with: the machine and its load
    before and after the runs."""
    m = machine()
    return [
        "Machine:",
        "",
        f"- `uname -a`: `{m['uname']}`",
        f"- `nproc`: {m['nproc']}",
        f"- CPU: {m['cpu']}",
        f"- Python {m['python']}",
        f"- 1-minute load average before / after the runs: {load_before} / {loadavg()}"
        " (the machine is shared; a load above 1 means another process competed for the cores)",
        "",
    ]


def rate(seconds: float, one_round: Callable[[], int]) -> float:
    """Units per second: ``one_round()`` (returning how many units it did) run again and
    again until ``seconds`` have passed, the last round finished."""
    done = 0
    start = time.perf_counter()
    end = start + seconds
    while True:
        done += one_round()
        now = time.perf_counter()
        if now >= end:
            return done / (now - start)


def loadavg() -> str:
    """The 1-minute load average (other work on the machine skews the figures)."""
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "unknown"


def pin_cpu(cpu: int | None) -> str:
    """Run this process on one CPU (``cpu``, or the last one allowed); says what it did."""
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned"
    chosen = cpu if cpu is not None else sorted(os.sched_getaffinity(0))[-1]
    os.sched_setaffinity(0, {chosen})
    return f"pinned to CPU {chosen}"


def timed(args: list[str], env: dict[str, str] | None = None) -> float:
    """Seconds the real command line (``python -m stratstone_cad ARGS``) takes, as a user
    runs it; ``env`` is added to this process's environment."""
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "stratstone_cad", *args], check=True, capture_output=True,
                   env={**os.environ, **(env or {})})
    return time.perf_counter() - t
