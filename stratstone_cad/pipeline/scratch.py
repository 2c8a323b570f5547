"""The build's own temporary folder: where its processes put their temporary files
(PrusaSlicer's ``stratstone-slice-*`` folders, multiprocessing's ``pymp-*`` folder of the
fork server's socket), so that what a killed build leaves there is found and swept.

Each build process makes one folder, ``<cache>/tmp/build-XXXXXXXX`` (under
:func:`stratstone_cad.base.memo.cache_root`), and holds a lock on its ``lock`` file for as
long as it lives (the kernel releases it when the process goes, SIGKILL included: its fork
server, workers and slicer die with it). A build sweeps every such folder whose lock it
can take, so never one a running build owns. The folder is set as the temporary folder
(``tempfile.tempdir`` and ``TMPDIR``, which the fork server and the slicer inherit) for
the time of a build, and removed when the process exits.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from stratstone_cad.base.fileio import kind_of, open_regular_fd
from stratstone_cad.base.memo import cache_root

LOCK = "lock"
_NAME = re.compile(r"build-[a-z0-9_]{8}")
#: The longest folder usable: the fork server's socket goes in ``pymp-XXXXXXXX/listener-XXXXXXXX``
#: inside it, and a socket's path is at most 107 bytes.
_MAX_PATH = 70
#: A folder without its lock file (a build killed in the instant between making it and
#: locking it) is swept once it is this old.
_UNLOCKED_AGE_S = 60.0

_own: tuple[Path, int, int] | None = None  # (folder, owner pid, lock fd)


def scratch_root() -> Path | None:
    """The folder of the builds' temporary folders, or None when there is no cache folder."""
    root = cache_root()
    return None if root is None else root / "tmp"


def sweep_scratch(root: Path | None = None) -> list[Path]:
    """Remove the temporary folders of builds that are gone (their lock free); returns those removed."""
    root = scratch_root() if root is None else root
    if root is None:
        return []
    try:
        found = sorted(p for p in root.iterdir() if _NAME.fullmatch(p.name))
    except OSError:
        return []
    mine = _own[0] if _own is not None and _own[1] == os.getpid() else None
    swept = []
    for folder in found:
        if folder == mine or folder.is_symlink() or not folder.is_dir():
            continue
        try:  # its lock taken: its build is gone
            fd, _ = open_regular_fd(folder / LOCK, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK, _same, _not_regular,
                                    lock=fcntl.LOCK_EX)
        except FileNotFoundError:
            with contextlib.suppress(OSError):
                if time.time() - folder.stat().st_mtime > _UNLOCKED_AGE_S:
                    shutil.rmtree(folder, ignore_errors=True)
                    swept.append(folder)
            continue
        except OSError:
            continue  # its build is running (or its lock is no regular file): left as it is
        try:
            shutil.rmtree(folder, ignore_errors=True)  # with its lock held: no other build sweeps it meanwhile
            swept.append(folder)
        finally:
            os.close(fd)
    return swept


def _same(e: OSError) -> OSError:
    """An error opening a lock file, raised as it is (the caller leaves that folder)."""
    return e


def _not_regular(mode: int) -> OSError:
    """A lock file that is not a regular file, as an error the caller handles as any other."""
    return OSError(f"{LOCK} is {kind_of(mode)}, expected a file")


def own_scratch() -> Path | None:
    """This process's temporary folder, made and locked at the first call (None: no cache
    folder, or one too long for a socket in it, or none can be made there)."""
    global _own
    if _own is not None and _own[1] == os.getpid():
        return _own[0]
    root = scratch_root()
    if root is None or len(os.fsencode(str(root))) + len("/build-XXXXXXXX") > _MAX_PATH:
        return None
    try:
        root.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix="build-", dir=root))
    except OSError:
        return None
    try:
        fd, _ = open_regular_fd(folder / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, _same, _not_regular,
                                create_mode=0o600, lock=fcntl.LOCK_EX)
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        return None
    _own = (folder, os.getpid(), fd)
    atexit.register(_remove_own)
    return folder


def _remove_own() -> None:
    """At exit: this process's folder goes, after multiprocessing has removed its own
    ``pymp-*`` folder in it (a finalizer of priority -100: removed before, that one's
    removal would print a traceback)."""
    if _own is None or _own[1] != os.getpid():
        return
    mp_util = sys.modules.get("multiprocessing.util")
    if mp_util is not None and not getattr(mp_util, "_exiting", True):
        mp_util.Finalize(None, _rmtree_own, exitpriority=-101)
    else:
        _rmtree_own()


def _rmtree_own() -> None:
    if _own is not None and _own[1] == os.getpid():
        shutil.rmtree(_own[0], ignore_errors=True)


@contextlib.contextmanager
def build_scratch() -> Iterator[Path | None]:
    """For the time of a build: the temporary folders of builds gone are swept, and this
    process's own is the temporary folder of the build and of the processes it starts."""
    sweep_scratch()
    folder = own_scratch()
    if folder is None:
        yield None
        return
    saved_dir, saved_env = tempfile.tempdir, os.environ.get("TMPDIR")
    tempfile.tempdir = str(folder)
    os.environ["TMPDIR"] = str(folder)
    try:
        yield folder
    finally:
        tempfile.tempdir = saved_dir
        if saved_env is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = saved_env
