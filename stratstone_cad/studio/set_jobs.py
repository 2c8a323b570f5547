"""The studio's whole builds as jobs: shared, bounded and stopped when nobody waits.

A whole build (the set's zip, a plate's print figures, a STEP file) is the CLI's own
``build`` in a process of its own (:func:`run_build`), so that it can be stopped whole: its
workers and PrusaSlicer die with it. Requests that want the same thing share one job;
when the last of them goes away (its client disconnected) the job is stopped, the build
process included, within :data:`STOP_GRACE_S` seconds (SIGTERM: the build stops its
workers and slicer and sweeps its temporary folder; SIGKILL if it has not ended by then).
At most :data:`MAX_SET_JOBS` jobs are queued or running (a stopping one counts until it
has ended); a request for another gets :class:`~stratstone_cad.errors.StudioBusy` (503)."""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Hashable
from typing import Any

from stratstone_cad.errors import BuildError, StudioBusy, UserError

#: Whole builds queued or running at once (each a game's build: minutes the first time).
MAX_SET_JOBS = 4
#: How long a stopped build has after its SIGTERM before it is killed (the build itself
#: gives its running parts 3 s, then kills its workers).
STOP_GRACE_S = 10.0
#: How often a build's thread looks whether its job was stopped (seconds).
POLL_S = 0.2


class _Stopped(Exception):
    """A job stopped because nobody waits for it any more (never seen by a client)."""


def acquired(lock: threading.Lock, stop: threading.Event) -> None:
    """``lock`` acquired, unless ``stop`` is set meanwhile (then the job ends here, the lock
    left to the next, even when it came free as the job was stopped)."""
    while not lock.acquire(timeout=POLL_S):
        if stop.is_set():
            raise _Stopped
    if stop.is_set():
        lock.release()
        raise _Stopped


class Job:
    """One whole build and the requests waiting for it (``waiting``)."""

    def __init__(self) -> None:
        self.future: cf.Future = cf.Future()
        self.waiting = 0
        self.stop = threading.Event()


class SetJobs:
    """The jobs by what they make (a hashable key); at most ``limit`` at once."""

    def __init__(self, limit: int = MAX_SET_JOBS) -> None:
        self.limit = limit
        self.lock = threading.Lock()
        self.jobs: dict[Hashable, Job] = {}  # the jobs requests may still join
        self.stopping: set[Job] = set()  # the jobs nobody waits for, until their thread has ended

    def active(self) -> int:
        with self.lock:
            return len(self.jobs) + len(self.stopping)

    async def run(self, key: Hashable, fn: Callable[..., Any], *args: Any,
                  joined: Callable[[Job], None] | None = None) -> Any:
        """``fn(*args, stop)`` in a thread of its own, shared by every request for ``key``;
        ``stop`` (a threading.Event) is set when the last request waiting for it is cancelled.
        ``joined(job)`` is told the job this request waits for.

        Raises:
            StudioBusy: as many whole builds as the studio takes are queued or running already.
        """
        with self.lock:
            job = self.jobs.get(key)
            if job is None:
                if len(self.jobs) + len(self.stopping) >= self.limit:
                    raise StudioBusy(f"the studio is making {self.limit} whole sets or plates already, the most it "
                                     "queues: ask again once one is done")
                job = self.jobs[key] = Job()
                threading.Thread(target=self._run, args=(key, job, fn, args), daemon=True).start()
            job.waiting += 1
            if joined is not None:
                joined(job)
        waited = asyncio.wrap_future(job.future)
        try:
            return await asyncio.shield(waited)
        finally:
            waited.add_done_callback(_retrieved)  # left before the end: its outcome (_Stopped) is nobody's
            with self.lock:
                job.waiting -= 1
                if job.waiting == 0 and not job.future.done():  # nobody waits: stop it
                    job.stop.set()
                    if self.jobs.get(key) is job:
                        del self.jobs[key]
                    self.stopping.add(job)

    def _run(self, key: Hashable, job: Job, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        try:
            result = fn(*args, job.stop)
        except BaseException as e:  # handed to the waiting requests as it is
            job.future.set_exception(e)
        else:
            job.future.set_result(result)
        finally:
            with self.lock:
                if self.jobs.get(key) is job:
                    del self.jobs[key]
                self.stopping.discard(job)

    def stop_all(self) -> None:
        """Stop every job (the studio stops)."""
        with self.lock:
            for job in [*self.jobs.values(), *self.stopping]:
                job.stop.set()


def _retrieved(future: asyncio.Future) -> None:
    if not future.cancelled():
        future.exception()


def run_build(args: list[str], stop: threading.Event, on_line: Callable[[str], None] | None = None) -> None:
    """``stratstone-cad build ARGS`` in a process of its own, at this thread's priority,
    until it ends or ``stop`` is set (then SIGTERM, and SIGKILL after :data:`STOP_GRACE_S`).
    Each line of its standard error (its progress, one line a step: ``[3/8] sliced ...``)
    is handed to ``on_line`` as it comes. Raises ``_Stopped`` when stopped.

    Raises:
        UserError: the build refused its input (exit 2); the message is the build's last line.
        BuildError: the build failed otherwise; the message names its last line.
    """
    from stratstone_cad.base.processes import die_with_parent

    parent = os.getpid()
    p = subprocess.Popen([sys.executable, "-m", "stratstone_cad", "build", *args],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         process_group=0,  # the terminal's Ctrl-C is the studio's to handle
                         preexec_fn=lambda: die_with_parent(parent))  # the studio gone: killed, as its workers
    last = [""]
    reader = threading.Thread(target=_read_lines, args=(p, last, on_line), daemon=True)
    reader.start()
    try:
        while p.poll() is None:
            if stop.wait(POLL_S):
                _end(p)
                raise _Stopped
    finally:
        if p.poll() is None:  # the thread is leaving for another reason: the build goes with it
            _end(p)
    reader.join(5)
    line = last[0].removeprefix("stratstone-cad: error: ")
    if p.returncode == 2:
        raise UserError(line)
    if p.returncode != 0:
        raise BuildError(f"the whole build failed ({line or f'exit code {p.returncode}'}): ask again")


def _read_lines(p: subprocess.Popen, last: list[str], on_line: Callable[[str], None] | None) -> None:
    """The build's standard error read line by line: each handed to ``on_line``, the last kept in ``last``."""
    for raw in p.stderr:  # type: ignore[union-attr]
        line = raw.decode("utf-8", "replace").strip()
        if line:
            last[0] = line
            if on_line is not None:
                on_line(line)


def _end(p: subprocess.Popen) -> None:
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
