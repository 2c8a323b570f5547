"""Processes and their stops: a child of the build dies with its parent; a command stops
on SIGTERM or Ctrl-C as on a KeyboardInterrupt, but never inside an import or inside a
callback that a compiled library makes (:func:`called_back`).

:func:`die_with_parent` is used by the build's workers and fork server and by the slicer
the print report runs, so that a build killed at any moment leaves no process behind;
:func:`stop_signals` by the command line around every command.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import CodeType
from typing import Any, TypeVar

from stratstone_cad.errors import Terminated

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


#: The signals that stop a command as SIGTERM does: SIGHUP's default would end the process
#: at once, leaving the build's temporary folder and multiprocessing's ``pymp-*`` folder.
TERMINATING = (signal.SIGTERM, signal.SIGHUP)


#: How long a stop signal that came during an import waits before it is sent again.
RESEND_S = 0.05


_CALLBACKS: set[CodeType] = set()
"""The code of the functions marked by :func:`called_back`."""

F = TypeVar("F", bound=Callable[..., Any])


def called_back(fn: F) -> F:
    """Mark ``fn`` as one a compiled library calls back, where :func:`stop` must not raise:
    VTK ends the whole process when an observer raises KeyboardInterrupt (it prints "Caught
    a Ctrl-C within python, exiting program." and exits with status 1), so no ``finally``
    runs and an export's temporary file stays. A stop that lands inside ``fn`` (or what it
    calls) is sent again a moment later, as one inside an import is."""
    _CALLBACKS.add(fn.__code__)
    return fn


def _held(frame: Any) -> bool:
    """Whether ``frame`` runs inside an import (a frame of importlib's bootstrap below it)
    or inside a function marked by :func:`called_back`."""
    while frame is not None:
        code = frame.f_code
        if code in _CALLBACKS or code.co_filename.startswith("<frozen importlib._bootstrap"):
            return True
        frame = frame.f_back
    return False


def stop(signum: int, frame: Any) -> None:
    """SIGTERM and Ctrl-C: stop by raising :class:`Terminated` or KeyboardInterrupt, but
    not inside an import. An exception raised there can land in a compiled module's own
    initialisation (manifold3d's, when the build's first board is meshed), which then
    aborts the whole process with a C++ "terminate called" message instead of stopping
    the build. There, and inside a compiled library's callback (:func:`called_back`), the
    signal is sent again a moment later, until the import or the callback is done."""
    if _held(frame):
        threading.Timer(RESEND_S, os.kill, (os.getpid(), signum)).start()
        return
    raise Terminated if signum in TERMINATING else KeyboardInterrupt


@contextlib.contextmanager
def stop_signals() -> Iterator[None]:
    """SIGTERM, SIGHUP unless it is ignored (``nohup``), and Ctrl-C unless it is ignored (a
    background job) or the caller's own, handled by :func:`stop` while the block runs; the
    handlers before it put back after it."""
    previous = signal.signal(signal.SIGTERM, stop)
    hangup = signal.getsignal(signal.SIGHUP)
    if hangup is not signal.SIG_IGN:
        signal.signal(signal.SIGHUP, stop)
    interrupt = signal.getsignal(signal.SIGINT)
    if interrupt is signal.default_int_handler:
        signal.signal(signal.SIGINT, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        if hangup is not signal.SIG_IGN:
            signal.signal(signal.SIGHUP, hangup)
        if interrupt is signal.default_int_handler:
            signal.signal(signal.SIGINT, interrupt)


def thread_nice() -> int:
    """The nice value of the calling thread (on Linux a nice value is a thread's, and what
    it starts, threads and processes, inherits it); elsewhere the process's, or 0."""
    with contextlib.suppress(AttributeError, OSError):
        return os.getpriority(os.PRIO_PROCESS, 0)
    return 0


def lower_thread_priority(nice: int) -> None:
    """Raise the calling thread's nice value to at least ``nice`` (a lower priority: the
    kernel gives the cores to everything else first). Linux only, where it is the thread's
    alone: elsewhere it would be the whole process's, and nothing is done. Never raised back."""
    if sys.platform.startswith("linux") and thread_nice() < nice:
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, 0, nice)
