"""Running a build's jobs: in this process with one job; with more, the CadQuery parts in
worker processes forked from a fork server that imports CadQuery once
(:func:`worker_pool`, :func:`start_fork_server`) and the parts made without CadQuery here
meanwhile (:func:`run_all`). And how a stop (Ctrl-C, SIGTERM) is seen through: the parts
not started are cancelled, the running ones finish and are listed (:func:`drain`,
:func:`despite_stops`).

The pools' modules (concurrent.futures, multiprocessing) are imported where a pool is
made, never at the top: an unchanged rebuild has none.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stratstone_cad.assets.jobs import Job
from stratstone_cad.base.params import MeshParams, Profile
from stratstone_cad.base.processes import TERMINATING, thread_nice
from stratstone_cad.base.progress import ProgressBar
from stratstone_cad.errors import BuildError, UserError
from stratstone_cad.pipeline.keys import WRITER_MODULES, _kernel_free
from stratstone_cad.registry import ASSETS

if TYPE_CHECKING:  # the pools' modules are imported where a pool is made: an unchanged rebuild has none
    import concurrent.futures as cf

#: What makes one job's parts and returns their manifest entries: :func:`stratstone_cad.pipeline.build.run_job`.
RunJob = Callable[[Job, MeshParams, dict[str, Profile], str, str], list[dict[str, Any]]]


def run_all(todo: list[tuple[Job, str]], mesh: MeshParams, profiles: dict[str, Profile],
            out_dir: Path, jobs: int, bar: ProgressBar, run: RunJob) -> Iterator[list[dict[str, Any]]]:
    """Run the jobs with ``run``, yielding each one's manifest entries as it finishes.

    With more than one job, the CadQuery parts go to worker processes; the parts built
    without CadQuery (boards, terrain pieces) run here meanwhile, while the workers' fork
    server is still loading CadQuery, so that second of loading is not a second lost.
    On a failing part or Ctrl-C, parts not started are cancelled, parts already running
    finish (their files are whole and still reported), then the error is raised.
    """
    todo = sorted(todo, key=lambda jk: -jk[0].cost)  # longest first keeps both cores busy to the end
    here = [jk for jk in todo if jobs > 1 and _kernel_free(jk[0])]
    cad = [jk for jk in todo if jk not in here]
    if (jobs == 1 or len(cad) <= 1) and not any(job.in_worker for job, _ in cad):
        for job, key in here + cad:
            result = run(job, mesh, profiles, str(out_dir), key)
            bar.step(job.id, len(job.outputs))
            yield result
        return
    start_fork_server()
    yield from _Run(run, mesh, profiles, out_dir, bar, worker_pool(max(1, min(jobs, len(cad))))).results(here, cad)


STOP_WAIT_S = 3.0
"""How long a stop (Ctrl-C, SIGTERM) waits for the parts running in the workers to finish
(and be listed) before it abandons them: their workers are killed, their files never
written or, if caught in the renames, removed as unlisted (``pipeline._settle``)."""
SAY_AFTER_S = 0.5
"""A stop says what it waits for once it has waited this long (a plain part finishes sooner)."""


class _Run:
    """One run with workers: the pool, the parts submitted to it so far, the ones already
    reported, and the error or stop that ends the run early."""

    def __init__(self, run: RunJob, mesh: MeshParams, profiles: dict[str, Profile], out_dir: Path,
                 bar: ProgressBar, pool: cf.ProcessPoolExecutor) -> None:
        self.run, self.mesh, self.profiles, self.out_dir, self.bar, self.pool = run, mesh, profiles, out_dir, bar, pool
        self.futures: dict[cf.Future, Job] = {}  # filled by the submitter thread, read here after join
        self.reported: set[cf.Future] = set()
        self.error: BaseException | None = None
        self.stopping = threading.Event()
        self.submit_failed: list[BaseException] = []
        self.stop_at: float | None = None  # when a stop came (time.monotonic)
        self.said = False  # whether the stop has said what it waits for

    def results(self, here: list[tuple[Job, str]], cad: list[tuple[Job, str]]) -> Iterator[list[dict[str, Any]]]:
        """Each part's entries as it finishes: ``here`` made in this process, ``cad`` by the workers."""
        import concurrent.futures as cf  # a pool's module: only where a pool is made

        submitter = self.submitter = threading.Thread(target=self.submit_all, args=(cad,), daemon=True)
        try:
            start_undisturbed(submitter)
            yield from self._made_here(here)
            submitter.join()
            if self.submit_failed:
                self.stop(self.submit_failed[0])
            yield from self._taken(cf.as_completed(list(self.futures)))
        except KeyboardInterrupt as e:
            self.error = e
            self.stopping.set()
            self.join_submitter()  # the futures it made are all known before they are waited on
            self.cancel_pending()
            self.abandon_running()  # parts already running finish, for STOP_WAIT_S at most
            yield from self._taken(list(self.futures))  # those that finished are listed too
        finally:
            # Seen through to the end whatever further Ctrl-C or SIGTERM comes: cut short, the
            # running parts would be written after the manifest, listed nowhere, and the
            # interpreter would wait for ever at exit on a worker left holding the pool's lock.
            late = despite_stops(self.shut_down)  # run first: `error or ...` would skip it after a stop
            self.error = self.error or late
        if self.error is not None:
            raise self.error

    def _made_here(self, here: list[tuple[Job, str]]) -> Iterator[list[dict[str, Any]]]:
        """The CadQuery-free parts, made in this process while the workers make theirs."""
        for job, key in here:
            if self.stopping.is_set():  # a worker's part failed
                return
            try:
                result = self.run(job, self.mesh, self.profiles, str(self.out_dir), key)
            except Exception as e:
                self.stopping.set()
                self.submitter.join()
                self.stop(e)
                return
            self.bar.step(job.id, len(job.outputs))
            yield result
            # The workers' parts finished meanwhile join the manifest now, not once this
            # process has made all of its own: what a kill leaves unlisted stays at the
            # parts being finished at that moment.
            yield from self._taken([f for f in list(self.futures) if f.done()])

    def _taken(self, futures: Iterable[cf.Future]) -> Iterator[list[dict[str, Any]]]:
        """The entries of each of ``futures`` not taken before, in their order."""
        for fut in futures:
            if (taken := self.take(fut)) is not None:
                yield taken

    def stop(self, e: BaseException) -> None:
        """End the run for ``e`` (the first error is the one raised): no part is submitted or started after it."""
        if self.error is None:
            self.error = _worker_failure(e)
        self.stopping.set()
        self.cancel_pending()

    def cancel_pending(self) -> None:
        # Each pending future is cancelled itself: the pool then reports them to
        # as_completed as it skips them (shutdown(cancel_futures=True) would cancel them
        # behind as_completed's back and leave it waiting forever), and a later
        # shutdown(wait=True) still waits for the running ones (after shutdown(wait=False)
        # it no longer does: a second stop then left workers writing unlisted parts).
        for f in list(self.futures):
            f.cancel()

    def submit_all(self, cad: list[tuple[Job, str]]) -> None:
        # Submitting waits until the fork server has loaded CadQuery; a thread does it so
        # that this process makes the CadQuery-free parts meanwhile, and the workers start
        # as soon as the server is ready. Each future is recorded as it is made, so a
        # failure part-way (the server killed) leaves exactly the submitted ones known.
        try:
            for job, key in cad:
                if self.stopping.is_set():
                    return
                self.futures[self.pool.submit(self.run, job, self.mesh, self.profiles, str(self.out_dir), key)] = job
        except BaseException as e:  # re-raised by the main thread
            self.submit_failed.append(e)

    def take(self, fut: cf.Future) -> list[dict[str, Any]] | None:
        """A finished worker part's entries, once (None: cancelled, failed or taken)."""
        import concurrent.futures as cf  # a pool's module: only where a pool is made

        if fut in self.reported:
            return None
        try:
            result = fut.result()
        except cf.CancelledError:
            return None
        except BaseException as e:
            self.stop(e)
            return None
        self.reported.add(fut)
        job = self.futures[fut]
        self.bar.step(job.id, len(job.outputs))
        return result

    def join_submitter(self) -> None:
        """After a stop: wait for the submitter thread until :data:`STOP_WAIT_S` after the
        stop. It waits in a submit until the fork server has imported CadQuery (a second
        or two, fifteen on a loaded machine): if it is still waiting then, the server is
        killed (it holds no part), which ends the submit with an error, and the workers it
        would have started never start."""
        if self.stop_at is None:
            self.stop_at = time.monotonic()
        self.submitter.join(timeout=max(0.0, self.stop_at + STOP_WAIT_S - time.monotonic()))
        if self.submitter.is_alive():
            kill_fork_server()
            self.submitter.join()

    def abandon_running(self) -> None:
        """After a stop: wait for the parts running in the workers until :data:`STOP_WAIT_S`
        after the stop, saying what it waits for once it has waited :data:`SAY_AFTER_S`,
        then kill the workers of those still running (their parts fail and are not listed).
        Safe to run again: the time is counted from the first call."""
        import concurrent.futures as cf  # a pool's module: only where a pool is made

        if self.stop_at is None:
            self.stop_at = time.monotonic()
        running = [f for f in list(self.futures) if not f.done()]
        if not running:
            return
        cf.wait(running, timeout=max(0.0, self.stop_at + SAY_AFTER_S - time.monotonic()))
        running = [f for f in running if not f.done()]
        if running and not self.said:
            self.said = True
            self.say(f"stopping: waiting up to {STOP_WAIT_S:g} s for {self._named(running)} to finish")
        cf.wait(running, timeout=max(0.0, self.stop_at + STOP_WAIT_S - time.monotonic()))
        running = [f for f in running if not f.done()]
        if running:
            self.say(f"stopping: {self._named(running)} abandoned (made again by the next build)")
            for process in list((getattr(self.pool, "_processes", None) or {}).values()):
                with contextlib.suppress(OSError, ValueError):
                    process.kill()
            cf.wait(running, timeout=30)  # the pool notices its workers gone: each fails, none is listed

    def _named(self, futures: list[cf.Future]) -> str:
        names = [self.futures[f].id for f in futures]
        return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")

    def say(self, text: str) -> None:
        """A line on the progress bar's stream, or on stderr when there is no bar (--quiet)."""
        stream = self.bar.stream or sys.stderr
        with contextlib.suppress(OSError, ValueError):
            stream.write(("\n" if self.bar.tty else "") + f"{text}\n")  # off the bar's line
            stream.flush()

    def shut_down(self) -> None:
        """The pool shut down once its running parts are done or, after a stop, abandoned
        (safe to run again: :func:`despite_stops`)."""
        self.stopping.set()
        if isinstance(self.error, KeyboardInterrupt):
            self.join_submitter()
        elif self.submitter.is_alive():
            self.submitter.join()
        if isinstance(self.error, KeyboardInterrupt):
            self.abandon_running()
            # every part is finished, listed or abandoned: the fork server goes now, and the
            # workers with it (a worker still starting waits for the server's CadQuery
            # import, fifteen seconds on a loaded machine, and the pool's shutdown with it)
            kill_fork_server()
        self.pool.shutdown(wait=True, cancel_futures=True)


def drain(runner: Iterator[list[dict[str, Any]]], record: Callable[[list[dict[str, Any]]], None]) -> None:
    """Hand every result of ``runner`` to ``record``. A Ctrl-C or SIGTERM that lands while
    ``record`` writes the manifest is passed into the runner (once), which stops as it
    would have had the signal reached it: the parts still running finish, and those are
    recorded too (left to the generator's closing, they would be written but unlisted)."""
    interrupt: BaseException | None = None
    thrown = False
    while True:
        try:
            if interrupt is not None and not thrown:
                thrown = True
                item = runner.throw(interrupt)
            else:
                item = next(runner)
        except StopIteration:
            break
        try:
            record(item)
        except KeyboardInterrupt as e:
            interrupt = interrupt or e
            record(item)  # its entries and the manifest, once more: the signal may have cut them short
    if interrupt is not None:
        raise interrupt


def start_undisturbed(thread: threading.Thread) -> None:
    """Start ``thread`` with Ctrl-C and SIGTERM held back until it runs. ``Thread.start``
    waits for the new thread to say it runs: a stop raised in that wait left a thread that
    runs but cannot be joined yet (``join`` raised "cannot join thread before it is
    started", and the build ended in a traceback instead of its one line). Held back, the
    stop comes right after, with the thread joinable; the thread keeps the two held (Python
    handles signals in the main thread only)."""
    held = {signal.SIGINT, *TERMINATING}  # SIGHUP stops a build as SIGTERM does
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no signal masks
        thread.start()
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        thread.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def despite_stops(action: Callable[[], None]) -> KeyboardInterrupt | None:
    """Run ``action`` to its end through any Ctrl-C or SIGTERM that comes meanwhile (each
    starts it again, so it must be safe to run again); returns the first such stop, for
    the caller to raise once what must be done is done."""
    stop: KeyboardInterrupt | None = None
    while True:
        try:
            action()
            return stop
        except KeyboardInterrupt as e:
            stop = stop or e


def _worker_failure(e: BaseException) -> BaseException:
    """The error to raise for a failure in the worker pool: the part's own error (a
    ``UserError`` from a worker is the user's to fix) as it is, a dead worker or fork
    server as one line that says so, instead of a traceback from the pool's internals."""
    from concurrent.futures.process import BrokenProcessPool  # a pool's module: only where a pool is made

    if isinstance(e, (UserError, KeyboardInterrupt)):
        return e
    if isinstance(e, (BrokenProcessPool, EOFError, ConnectionError)) or (
            isinstance(e, RuntimeError) and "shutdown" in str(e)):
        return BuildError("build: a worker process died before its parts were made (killed, or out of "
                          "memory?); the parts written so far are kept and listed: run the build again "
                          "to make the rest")
    return e


def worker_pool(workers: int) -> cf.ProcessPoolExecutor:
    """Worker processes forked from a fork server that has imported CadQuery, the makers'
    modules and the mesh writers once. Why a fork server and not plain fork: a process
    whose OpenCascade has run a boolean holds TBB worker threads, and a child forked from
    it hangs in its next boolean; the fork server is a fresh process that never builds
    anything. Why not spawn: each spawned worker would import CadQuery again (~1.5 s).
    The workers run at the nice value of the thread that makes the pool
    (:func:`~stratstone_cad.pipeline.workers.worker_init`)."""
    import multiprocessing  # the pool's modules: only where a pool is made

    from stratstone_cad.pipeline.workers import worker_init

    ctx = multiprocessing.get_context("forkserver")
    return pool_class()(max_workers=workers, mp_context=ctx, initializer=worker_init, initargs=(thread_nice(),))


@functools.cache
def pool_class() -> type[cf.ProcessPoolExecutor]:
    """``ProcessPoolExecutor``; on Python 3.11, a subclass whose manager thread drops the
    cancelled parts when the workers die (they are killed after a stop) before it marks
    the parts still queued failed. Python 3.11's marks a cancelled part's future failed
    too, which raises InvalidStateError in that thread: a traceback on the terminal at a
    stop ("Exception in thread ..."), and the rest of the pool's clean-up skipped. Later
    Pythons ignore a cancelled future there (CPython's ``terminate_broken``). A build
    cancels its parts before it kills the workers, so none is cancelled meanwhile."""
    import concurrent.futures.process as cfp  # the pool's modules: only where a pool is made

    if sys.version_info >= (3, 12):
        return cfp.ProcessPoolExecutor

    class ManagerThread(cfp._ExecutorManagerThread):  # type: ignore[name-defined,misc]
        def terminate_broken(self, cause: Any) -> None:
            for work_id, item in list(self.pending_work_items.items()):
                if item.future.cancelled():
                    del self.pending_work_items[work_id]
            super().terminate_broken(cause)

    class Pool(cfp.ProcessPoolExecutor):
        def _start_executor_manager_thread(self) -> None:  # Python 3.11's, with the thread above
            if self._executor_manager_thread is None:  # type: ignore[has-type]
                if not self._safe_to_dynamically_spawn_children:  # type: ignore[attr-defined]
                    self._launch_processes()  # type: ignore[attr-defined]
                self._executor_manager_thread = ManagerThread(self)
                self._executor_manager_thread.start()
                cfp._threads_wakeups[self._executor_manager_thread] = self._executor_manager_thread_wakeup  # type: ignore[attr-defined]

    return Pool


_QUIET_TRACKER = "ignore::UserWarning:multiprocessing.resource_tracker"


def kill_fork_server() -> None:
    """Kill the workers' fork server, if one was started (and so every worker forked from it:
    :func:`~stratstone_cad.pipeline.workers.worker_init`). multiprocessing keeps its pid in a
    private attribute: without it (another Python), nothing is killed and a stop waits for
    the server as before."""
    from multiprocessing import forkserver  # only where workers were wanted

    pid = getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None)
    if pid:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def start_fork_server() -> None:
    """Start the workers' fork server now, without waiting for it: it imports CadQuery, the
    CAD modules and the mesh writers in the background while the build plans and makes its
    CadQuery-free parts. (It ends with this process.)"""
    import multiprocessing  # only where workers are wanted: an unchanged rebuild has none
    from multiprocessing import forkserver

    from stratstone_cad.pipeline.workers import PARENT_ENV

    cad_modules = {g.cad.module for g in ASSETS.values()}
    multiprocessing.get_context("forkserver").set_forkserver_preload(
        ["stratstone_cad.pipeline.forkserver_start", *sorted({"cadquery", "manifold3d", *cad_modules, *WRITER_MODULES})])
    # The server (only it) dies with this process. So does the resource tracker started
    # beside it, which then frees the killed build's semaphores: it does so without the
    # two-line "leaked semaphore objects" warning, which would only alarm the user.
    saved = {k: os.environ.get(k) for k in (PARENT_ENV, "PYTHONWARNINGS")}
    os.environ[PARENT_ENV] = str(os.getpid())
    os.environ["PYTHONWARNINGS"] = ",".join(filter(None, [saved["PYTHONWARNINGS"], _QUIET_TRACKER]))
    # The server is started with Ctrl-C ignored, as it would set itself only once its
    # imports are done: a Ctrl-C to the terminal's process group during those seconds
    # printed its KeyboardInterrupt traceback. (The workers ignore it too: worker_init.)
    quiet = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if quiet else None
    try:
        forkserver.ensure_running()
    finally:
        if quiet:
            signal.signal(signal.SIGINT, previous)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
