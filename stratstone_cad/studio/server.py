"""``stratstone-cad studio``: the app served by uvicorn on a socket of its own (``--port 0``
takes a free port, known before the one line is printed), the build's workers started
once, and everything stopped on Ctrl-C, SIGTERM or SIGHUP (the terminal closed) within seconds: uvicorn's graceful stop
(open requests get :data:`STOP_WAIT_S`), then the queued parts cancelled and the workers'
fork server killed (the workers and any slicer die with it and with this process)."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from stratstone_cad.base.fileio import ensure_writable_dir
from stratstone_cad.errors import UserError

#: How long a stop waits for open requests before it cancels them (seconds).
STOP_WAIT_S = 2
#: Where the studio works when ``--out`` is not given: in the user's cache folder.
DEFAULT_FOLDER = "studio"


class QuietStop(logging.Filter):
    """uvicorn's own words for a stop that cancels the requests still open (an error line,
    and a traceback for each): the stop is said once, in the command's one line."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage().endswith("timeout graceful shutdown exceeded"):
            return False
        return not (record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError))


def hangup_as_sigterm(server: Any) -> contextlib.AbstractContextManager[None]:
    """While uvicorn serves: SIGHUP (unless ignored) stops ``server`` as the SIGTERM it
    handles does (uvicorn handles only SIGINT and SIGTERM), so its graceful stop runs."""

    @contextlib.contextmanager
    def hooked() -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGHUP) is signal.SIG_IGN:
            yield
            return
        previous = signal.signal(signal.SIGHUP, lambda signum, frame: server.handle_exit(signal.SIGTERM, frame))
        try:
            yield
        finally:
            signal.signal(signal.SIGHUP, previous)

    return hooked()


def default_out() -> Path:
    from stratstone_cad.base.memo import cache_root

    root = cache_root()
    return (root if root is not None else Path(".stratstone-cad-cache")) / DEFAULT_FOLDER


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (0: a free port); UserError in one line when it cannot be had.

    Raises:
        UserError: the studio cannot listen on that host and port.
    """
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except (OSError, OverflowError) as e:
        raise UserError(f"--host {host[:60]} --port {port}: cannot listen there ({e.strerror or e}); expected a free "
                        "port of an address of this machine (--port 0 takes any free port)") from None
    return sock


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/"


def serve(game: str | None, host: str, port: int, browser: bool, out: Path | None, printer: str | None,
          jobs: int, max_cache_mb: int = 2000, puzzles: tuple[Path, ...] = ()) -> int:
    """Serve the studio until Ctrl-C, SIGTERM or SIGHUP (which the caller turns into KeyboardInterrupt)."""
    import uvicorn

    from stratstone_cad.base.printers import get_printer
    from stratstone_cad.pipeline.build import run_job
    from stratstone_cad.pipeline.scheduler import kill_fork_server, start_fork_server, worker_pool
    from stratstone_cad.registry import get_parts
    from stratstone_cad.studio.app import Studio, app
    from stratstone_cad.studio.limits import GuardedH11, Server, max_connections
    from stratstone_cad.studio.part_making import PartMaker
    from stratstone_cad.studio.set_builds import SetBuilds

    if game is not None:
        get_parts([game])
    get_printer(printer)
    out = ensure_writable_dir(Path(out) if out is not None else default_out(), "--out folder")
    # every file the build's code writes goes under --out: its memo of checks included
    os.environ["XDG_CACHE_HOME"] = str(out.resolve() / "cache")
    sock = listen(host, port)
    start_fork_server()  # here, in the main thread: the server dies with the thread that started it
    maker = PartMaker(out, worker_pool(jobs), run_job, new_pool=lambda: worker_pool(jobs))
    studio = Studio(out, maker, SetBuilds(out, jobs), printer, game, max_cache_mb)
    studio.host_names = (host,)  # the address as given: a name is accepted in the Host header too
    studio.puzzle_files = puzzles  # studio --puzzles: the Training page's own
    GuardedH11.cap = max_connections()  # slow clients timed out, connections capped: studio/limits.py
    config = uvicorn.Config(app(studio), log_level="warning", timeout_graceful_shutdown=STOP_WAIT_S, lifespan="off",
                            access_log=False, http=GuardedH11, loop="asyncio")
    logging.getLogger("uvicorn.error").addFilter(QuietStop())  # after the Config: it sets uvicorn's logging up
    if not is_loopback(sock.getsockname()[0]):
        print(f"studio: listening on {url_of(sock)}: anyone on the network can use this studio and make it build",
              file=sys.stderr)
    print(f"studio: {url_of(sock)} (Ctrl-C stops)", flush=True)
    if browser:
        import webbrowser

        webbrowser.open(url_of(sock) + (f"?game={game}" if game else ""))
    try:
        server = Server(config)
        with hangup_as_sigterm(server):
            server.run(sockets=[sock])
    finally:
        maker.cancel_all()
        studio.set_jobs.stop_all()
        maker.pool.shutdown(wait=False, cancel_futures=True)
        kill_fork_server()
        sock.close()
    return 0
