"""What a child process of the build asks of the kernel: to die with its parent.

Used by the build's workers and fork server and by the slicer the print report runs, so
that a build killed at any moment leaves no process behind.
"""

from __future__ import annotations

import ctypes
import os
import signal

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int | None = None) -> bool:
    """Ask the kernel for SIGKILL when this process's parent ends; exit at once when it has
    already ended. ``parent`` is the pid the parent must have (the fork server knows its
    build's, which is 1 when the build runs as a container's first process); without it,
    the parent now, which must not be init (pid 1: the real parent has gone). Returns
    False where the kernel cannot do it (not Linux)."""
    expected = os.getppid() if parent is None else parent
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        done = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        done = False
    if (parent is None and expected == 1) or os.getppid() != expected:  # it ended before the request took effect
        os._exit(1)
    return done
