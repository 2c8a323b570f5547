"""The output folder's lock: one build at a time in a folder."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from stratstone_cad.base.fileio import describe_os_error, kind_of, open_regular_fd
from stratstone_cad.errors import OutputError

LOCK = ".stratstone-cad.lock"


@contextlib.contextmanager
def folder_lock(out_dir: Path) -> Iterator[None]:
    """One build at a time in a folder: a second one would mix its files into the first's.

    Raises:
        OutputError: the lock file is a symbolic link.
    """
    if (out_dir / LOCK).is_symlink():
        raise OutputError(f"output folder {out_dir}: {LOCK} is a symbolic link, expected the build's lock file")
    fd, _ = open_regular_fd(
        out_dir / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK,
        lambda e: OutputError(f"output folder {out_dir}: cannot lock {LOCK} ({describe_os_error(e)})"),
        lambda mode: OutputError(f"output folder {out_dir}: {LOCK} is {kind_of(mode)}, expected the build's lock file"),
        lock=fcntl.LOCK_EX,
        busy=lambda: OutputError(f"output folder {out_dir}: another stratstone-cad build is writing to it; "
                                 "wait for it or use another --out"))
    try:
        yield
    finally:
        os.close(fd)
