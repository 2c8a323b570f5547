"""The lock that keeps a log to one ``record`` session: ``.NAME.lock`` beside the log,
locked while a session records it."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from stratstone_cad.base.fileio import describe_os_error, kind_of, open_regular_fd
from stratstone_cad.errors import OutputError, RecordError

__all__ = ["busy", "held", "lock_file", "recording"]


@contextlib.contextmanager
def recording(log: Path, where: str) -> Iterator[None]:
    """The log is this session's while it runs: an exclusive lock on ``.NAME.lock`` beside
    it (a write of the whole log replaces the file, and a lock on the log would go with the
    file it replaces), held until the session ends however it ends, and the lock file removed then
    (a killed session leaves it, unlocked: the next one takes it). A second session on the
    same log is refused in one line, before it writes anything."""
    lock = lock_file(log)

    def failed(e: OSError) -> OutputError:
        if isinstance(e, FileNotFoundError):  # as writing the log would say
            return OutputError(f"{where}: its folder {log.parent} does not exist, expected a file in a folder that "
                               "does")
        return OutputError(f"{where}: cannot write ({describe_os_error(e)})")

    while True:
        fd, st = open_regular_fd(
            lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, failed,
            lambda mode: RecordError(f"{where}: its lock file {lock.name} is {kind_of(mode)}, expected a file"),
            lock=fcntl.LOCK_EX, busy=lambda: busy(where))
        try:  # the lock file taken is the one there: the session that held it may have just removed it
            now = os.lstat(lock)
        except FileNotFoundError:
            now = None
        except BaseException:
            os.close(fd)
            raise
        if now is not None and (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino):
            break
        os.close(fd)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(lock)  # while locked: a session waiting on this file sees it gone and makes its own
        os.close(fd)


def lock_file(log: Path) -> Path:
    real = Path(os.path.realpath(log))  # a link is written through: locked where it lands
    return real.parent / f".{real.name}.lock"


def held(log: Path) -> bool:
    """Whether a session is recording ``log`` now (its lock file is there and locked)."""
    try:
        fd, _ = open_regular_fd(lock_file(log), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, lambda e: e,
                                lambda mode: OSError(f"is {kind_of(mode)}"))
    except OSError:  # no lock file (or none a session takes): no session
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def busy(where: str) -> RecordError:
    return RecordError(f"{where}: another stratstone-cad session is recording it, expected a log no other session "
                       "is recording (quit that one first)")
