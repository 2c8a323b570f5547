"""What the build's worker processes and their fork server run when they start.

Imported by the fork server as one of its preloaded modules (see
:func:`stratstone_cad.build._start_fork_server`): when the build that started the server
names itself in :data:`PARENT_ENV`, the server asks the kernel to kill it the moment that
build goes (SIGKILL included), and every worker asks the same of the server, so no
process of a killed build lives on to write into its folder.
"""

from __future__ import annotations

import ctypes
import os
import signal

PARENT_ENV = "STRATSTONE_CAD_BUILD_PID"
_PR_SET_PDEATHSIG = 1


def die_with_parent() -> bool:
    """Ask the kernel for SIGKILL when this process's parent ends; exit at once when it has
    already ended. Returns False where the kernel cannot do it (not Linux)."""
    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        done = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        done = False
    if parent == 1 or os.getppid() != parent:  # the parent ended before the request took effect
        os._exit(1)
    return done


def worker_init() -> None:
    """In each worker: die with the fork server (and so with the build); leave Ctrl-C and
    SIGTERM to the build, which stops itself and lets running parts finish."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent()


# In the fork server: the build put its pid in the environment just for this process.
if os.environ.get(PARENT_ENV) == str(os.getppid()):
    del os.environ[PARENT_ENV]
    die_with_parent()
