"""What every benchmark script reports with its figures: the machine and its load."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
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
