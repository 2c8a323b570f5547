"""Every path a user gives goes through here: checked reads and atomic, checked writes.

A file is written to a temporary name in the same folder and renamed over the target, so
a reader (or a crash) never sees half a file: an interrupted write leaves the old file
(or no file) and removes its temporary file. :class:`Staged` is that temporary, the one
every writer of the package uses (the build's files and logs here, the viewer's images,
videos and mesh cache, the memo), and :func:`sweep_temporary` the one sweep of what a
killed write left. A write never replaces what is not a regular
file: a FIFO, a device or a folder at the path is refused; a symbolic link is written
through (its target is replaced, the link stays) or, for the build's own files, refused.

A read takes only a regular file under a size cap (a FIFO would block, ``/dev/zero``
never end), and every OS error (a symlink loop, a name over 255 bytes, no permission)
becomes one line naming the path.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from stratstone_cad.errors import OutputError, UserError

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"), (stat.S_ISLNK, "a symbolic link"))


NAME_MAX = 255  # bytes in one name of a path (Linux, macOS)
PATH_MAX = 4095  # bytes in a whole path (Linux: 4096 with the closing NUL)
TMP_EXTRA = 14
"""How much longer a temporary file's name is than its target's: a file is written as
``.NAME.XXXXXXXX.tmp`` beside it first, so the name it can have is this much shorter."""


def describe_os_error(e: OSError) -> str:
    """A short reason for an OS error, in the words a user knows."""
    if e.errno == errno.ELOOP:
        return "a loop of symbolic links"
    if e.errno == errno.ENAMETOOLONG:
        return path_too_long(e.filename) or f"a name in it is too long ({NAME_MAX} bytes at most)"
    return e.strerror or str(e)


def path_too_long(path: object) -> str:
    """Why ``path`` is too long for the system, or '' when it is not."""
    if not isinstance(path, str | bytes | os.PathLike):
        return ""
    raw = os.fsencode(path)
    if any(len(name) > NAME_MAX for name in raw.split(b"/")):
        return f"a name in it is too long ({NAME_MAX} bytes at most)"
    if len(os.fsencode(os.path.abspath(raw))) > PATH_MAX:
        return f"the path is too long ({PATH_MAX} bytes at most)"
    return ""


def too_long_to_write(path: object) -> str:
    """Why a file cannot be written at ``path`` through its temporary beside it, or ''
    when it can: :func:`path_too_long`, then the limits the temporary's longer name
    leaves (:data:`TMP_EXTRA` bytes fewer for the name and for the whole path). The
    one rule, and message, of every writer."""
    why = path_too_long(path)
    if why or not isinstance(path, str | bytes | os.PathLike):
        return why
    raw = os.fsencode(path)
    first = "(the output is written as .NAME.XXXXXXXX.tmp first)"
    if len(os.path.basename(raw.rstrip(b"/"))) > NAME_MAX - TMP_EXTRA:
        return f"the name is too long, expected at most {NAME_MAX - TMP_EXTRA} bytes {first}"
    if len(os.fsencode(os.path.abspath(raw))) > PATH_MAX - TMP_EXTRA:
        return f"the path is too long, expected at most {PATH_MAX - TMP_EXTRA} bytes {first}"
    return ""


def umask() -> int:
    """The process's umask (a new file gets 0o666 & ~umask, a new folder 0o777 & ~umask)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def new_file_mode() -> int:
    """The permissions a new file gets: 0o666 less the umask, as every export follows."""
    return 0o666 & ~umask()


def mode_for(target: Path) -> int:
    """The permissions a file written over ``target`` gets: those of the file it replaces
    (a 0600 log stays private), else :func:`new_file_mode`."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        return new_file_mode()


class Staged:
    """A write of ``target`` in the making: a new temporary file (or folder, ``folder``)
    beside it, ``.NAME.XXXXXXXX.tmp``, held under an exclusive lock (so no
    :func:`sweep_temporary` takes it) until :meth:`publish` renames it over the target or
    :meth:`discard` removes it. Made at once, so a folder that cannot be written is found
    before anything is made; raises OSError (each writer says it in its own words)."""

    def __init__(self, target: Path, folder: bool = False) -> None:
        self.target = Path(target)
        prefix, where = f".{self.target.name}.", self.target.parent
        if folder:
            self.path = Path(tempfile.mkdtemp(prefix=prefix, suffix=".tmp", dir=where))
            self.fd = -1
            try:
                self.fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
            except BaseException:
                self.discard()
                raise
        else:
            self.fd, name = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=where)
            self.path = Path(name)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX)  # a new file: nobody else holds it
        except BaseException:
            self.discard()
            raise

    def write(self, data: bytes) -> None:
        """``data`` as the temporary file's content."""
        with os.fdopen(self.fd, "wb", closefd=False) as fh:
            fh.write(data)

    def publish(self, mode: int | None = None, sync: bool = True, replace_folder: bool = False) -> None:
        """Renamed over the target, with ``mode`` (None: a folder's as it is, a file's from
        :func:`mode_for`), its data on disk first (``sync``: a crash cannot leave an empty
        file under the target's name), a folder at the target moved aside and removed first
        (``replace_folder``: a rename cannot replace a folder); then unlocked."""
        folder = stat.S_ISDIR(os.fstat(self.fd).st_mode)
        if sync and not folder:
            os.fsync(self.fd)
        if mode is not None or not folder:
            os.chmod(self.path, mode_for(self.target) if mode is None else mode)
        if replace_folder and os.path.isdir(self.target) and not os.path.islink(self.target):
            aside = tempfile.mkdtemp(prefix=f".{self.target.name}.", suffix=".old", dir=self.target.parent)
            os.replace(self.target, aside)
            shutil.rmtree(aside, ignore_errors=True)
        os.replace(self.path, self.target)
        self.close()

    def discard(self) -> None:
        """Gone, whatever it holds (after a failure; never raises), and unlocked."""
        with contextlib.suppress(OSError):
            if self.path.is_dir() and not self.path.is_symlink():
                shutil.rmtree(self.path, ignore_errors=True)
            else:
                self.path.unlink()
        self.close()

    def close(self) -> None:
        """Unlocked (the lock goes with the descriptor); the file stays where it is."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def kind_of(mode: int) -> str:
    """'a FIFO', 'a folder', ... for a file mode that is not a regular file's."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_regular_fd(path: Path | str, flags: int, failed: Callable[[OSError], BaseException],
                    refused: Callable[[int], BaseException], *, create_mode: int = 0o644, lock: int = 0,
                    busy: Callable[[], BaseException] | None = None) -> tuple[int, os.stat_result]:
    """Open ``path`` with ``flags`` (``os.O_*``; close-on-exec added), check once it is open
    that it is a regular file, and with ``lock`` (``fcntl.LOCK_EX`` or ``LOCK_SH``) lock it
    without waiting: the descriptor and its ``fstat``. With ``O_NONBLOCK`` a FIFO (or one
    put in the path's place after a check) cannot hang the open; with ``O_NOFOLLOW`` a
    symbolic link is refused.

    Every failure raises what the caller makes of it, the descriptor closed: ``failed(e)``
    for the ``OSError`` of the open or of ``fstat``, ``refused(st_mode)`` for a file that is
    not a regular one, ``busy()`` (or the ``BlockingIOError`` itself, without ``busy``) for
    a lock another descriptor holds; any other error of ``flock`` is raised as it is.
    """
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), create_mode)
    except OSError as e:
        raise failed(e) from None
    try:
        try:
            st = os.fstat(fd)
        except OSError as e:
            raise failed(e) from None
        if not stat.S_ISREG(st.st_mode):
            raise refused(st.st_mode)
        if lock:
            try:
                fcntl.flock(fd, lock | fcntl.LOCK_NB)
            except BlockingIOError:
                if busy is None:
                    raise
                raise busy() from None
    except BaseException:
        os.close(fd)
        raise
    return fd, st


@contextlib.contextmanager
def open_regular(path: Path | str, what: str, expected: str,
                 error: type[UserError] = UserError) -> Iterator[BinaryIO]:
    """A regular file opened for reading in binary, or ``error`` with one line
    ``<what> <path>: <why>, expected <expected>``.

    The file is opened without blocking and checked once open (:func:`open_regular_fd`), so
    a FIFO (or one put in its place after a check) cannot hang the read, and a device cannot
    be read forever.
    """
    text = str(path)
    where = f"{what} {text}" if what else text
    if not text.strip():
        raise error(f"{what or 'path'} {text!r}: expected a path to {expected}")
    if "\0" in text:  # os.open would raise ValueError ("embedded null byte")
        raise error(f"{what or 'path'} {text!r}: a path with a NUL byte in it, expected a path to {expected}")

    def failed(e: OSError) -> UserError:
        if isinstance(e, FileNotFoundError):
            return error(f"{where}: file not found, expected {expected}")
        if isinstance(e, IsADirectoryError):
            return error(f"{where}: is a folder, expected {expected}")
        return error(f"{where}: cannot read ({describe_os_error(e)}), expected {expected}")

    fd, _ = open_regular_fd(text, os.O_RDONLY | os.O_NONBLOCK, failed,
                            lambda mode: error(f"{where}: is {kind_of(mode)}, expected {expected}"))
    with os.fdopen(fd, "rb") as f:
        yield f


def read_user_file(path: Path | str, what: str, limit: int, expected: str,
                   error: type[UserError] = UserError) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, or ``error`` with one line
    ``<what> <path>: <why>, expected <expected>`` (see :func:`open_regular`)."""
    where = f"{what} {path}" if what else str(path)
    with open_regular(path, what, expected, error) as f:
        try:
            size = os.fstat(f.fileno()).st_size
            if size > limit:
                raise error(f"{where}: {size} bytes is larger than the {limit} byte limit, expected {expected}")
            data = f.read(limit + 1)  # a file that grows while read, or whose size the kernel does not know
        except OSError as e:
            raise error(f"{where}: cannot read ({describe_os_error(e)}), expected {expected}") from None
    if len(data) > limit:
        raise error(f"{where}: larger than the {limit} byte limit, expected {expected}")
    return data


def ensure_writable_dir(path: Path, what: str = "output folder", room: int = 0) -> Path:
    """Create ``path`` (and its parents) if needed and prove it is writable; raises
    OutputError with one line. ``room`` is how many bytes the longest path written under
    it adds, so a path that cannot hold its files is refused before any folder is made.

    Raises:
        OutputError: the folder cannot be made or used, is not a folder, or is not writable.
    """
    path = Path(path)
    where = f"{what} {path}"
    why = path_too_long(path) or (path_too_long(os.path.join(os.path.abspath(path), "x" * room)) if room else "")
    if why:
        raise OutputError(f"{where}: cannot be made ({why}), expected a folder")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.lexists(path):
            raise OutputError(f"{where}: is a symbolic link to nothing, expected a folder") from None
        _make_dirs(path, where)
    except NotADirectoryError:
        blocker = next((a for a in Path(os.path.abspath(path)).parents if os.path.lexists(a) and not os.path.isdir(a)),
                       None)
        raise OutputError(f"{where}: cannot be made ({blocker or 'a name in it'} is a file), expected a folder") from None
    except OSError as e:
        raise OutputError(f"{where}: cannot be used ({describe_os_error(e)}), expected a folder") from None
    else:
        if not stat.S_ISDIR(st.st_mode):
            kind = "a file" if stat.S_ISREG(st.st_mode) else kind_of(st.st_mode)
            raise OutputError(f"{where}: is {kind}, expected a folder")
    try:
        fd, probe = tempfile.mkstemp(prefix=".probe-", dir=path)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise OutputError(f"{where}: not writable ({describe_os_error(e)})") from None
    return path


def _make_dirs(path: Path, where: str) -> None:
    """``mkdir -p`` without recursion (a path of thousands of names is fine), each
    failure one line."""
    missing = []
    head = Path(os.path.abspath(path))
    while not os.path.lexists(head) and head != head.parent:
        missing.append(head)
        head = head.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder)
        except FileExistsError:
            if not os.path.isdir(folder):
                raise OutputError(f"{where}: {folder} is not a folder, expected a folder there") from None
        except OSError as e:
            raise OutputError(f"{where}: cannot be made ({describe_os_error(e)})") from None


def write_target(path: Path, follow_symlinks: bool) -> Path:
    """Where a write to ``path`` lands: the path itself, or a symbolic link's target
    (``follow_symlinks``). Raises OutputError for anything at the path (or the link's
    target) that is not a regular file, and for a link when links are not followed.

    Raises:
        OutputError: the path is not a regular file (or a link when links are not followed), or cannot be written.
    """
    path = Path(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return path
    except OSError as e:
        raise OutputError(f"output file {path}: cannot write ({describe_os_error(e)})") from None
    if stat.S_ISLNK(st.st_mode):
        if not follow_symlinks:
            raise OutputError(f"output file {path}: is a symbolic link, expected a regular file (or none) of this build")
        try:
            target = Path(os.path.realpath(path, strict=False))
            st = os.stat(path)
        except FileNotFoundError:
            return target  # a dangling link: its target is created
        except OSError as e:
            raise OutputError(f"output file {path}: cannot write ({describe_os_error(e)})") from None
        if not stat.S_ISREG(st.st_mode):
            raise OutputError(f"output file {path}: links to {kind_of(st.st_mode)}, expected a regular file (or none)")
        return target
    if not stat.S_ISREG(st.st_mode):
        raise OutputError(f"output file {path}: is {kind_of(st.st_mode)}, expected a regular file (or none)")
    return path


def atomic_write(path: Path, data: bytes, follow_symlinks: bool = False, sweep: bool = False) -> None:
    """Write ``data`` to ``path`` atomically (temp file in the same folder + rename), with
    the permissions of the file it replaces (0644 for a new one).

    Never replaces what is not a regular file (see :func:`write_target`); with
    ``follow_symlinks`` a link at ``path`` is written through, else refused. With ``sweep``
    the temporary files killed writes of the same name left beside it go too
    (:func:`sweep_temporary`; a user's export, where no build's sweep passes).
    """
    staged = _stage(path, data, follow_symlinks)
    try:
        if sweep:
            sweep_temporary(staged.target.parent, re.escape(staged.target.name))  # this write's own is locked: kept
        os.replace(staged.path, staged.target)
    except BaseException as e:
        raise _failed(e, staged.target, [staged.path]) from None
    finally:
        staged.close()


def atomic_write_all(files: list[tuple[Path, bytes]]) -> None:
    """Write several new files as one, all or none: each is written to its temporary
    file first (as :func:`atomic_write` does) and only then are they renamed into place,
    one after another, so a kill at any moment but during the renames (microseconds)
    leaves none of them or all. On an error or an interrupt (Ctrl-C, SIGTERM), the files
    already renamed are removed again and the temporary files go: for files that replace
    others, the old ones are gone then too (the build removes a part's outdated files
    before it makes the part). Links are refused, as by :func:`atomic_write`."""
    staged: list[Staged] = []
    renamed: list[Path] = []
    try:
        for path, data in files:
            staged.append(_stage(path, data, False))
        for one in staged:
            path = one.target
            os.replace(one.path, path)
            renamed.append(path)
    except BaseException as e:  # an OSError is a rename's: staging raises OutputError
        raise _failed(e, path, [one.path for one in staged] + renamed) from None
    finally:
        for one in staged:
            one.close()


def _stage(path: Path, data: bytes, follow_symlinks: bool) -> Staged:
    """``data`` written and synced to a temporary file beside where ``path`` lands, with
    the permissions of the file it will replace (0666 less the umask for a new one):
    :class:`Staged`, its ``target`` where it lands, open and locked (:func:`sweep_temporary`
    skips it) until the caller closes it, after the rename. Nothing is left behind on an
    error or an interrupt."""
    path = write_target(Path(path), follow_symlinks)
    if path_too_long(path):
        raise OutputError(f"output file {path}: cannot write ({path_too_long(path)})")
    if too_long_to_write(path):  # named here: the temporary's longer name would be refused instead
        raise OutputError(f"output file {path}: {too_long_to_write(path)}")
    mode = mode_for(path)  # a file replaced keeps its permissions (a 0600 log stays private)
    try:
        staged = Staged(path)
    except OSError as e:
        raise OutputError(f"output file {path}: cannot write ({describe_os_error(e)})") from None
    try:
        staged.write(data)
        os.fsync(staged.fd)
        os.chmod(staged.path, mode)
    except BaseException as e:
        staged.close()
        raise _failed(e, path, [staged.path]) from None
    return staged


def _failed(e: BaseException, path: Path, leftovers: list[Path | str]) -> BaseException:
    """What a write of ``path`` that failed with ``e`` raises, once its ``leftovers`` (its
    temporary files, files already renamed into place) are removed: an OSError as the
    OutputError that names the file, anything else (Ctrl-C, SIGTERM) as it came. A file
    that cannot be removed is left (a later build's sweep, or the user, can)."""
    for f in leftovers:
        try:
            os.unlink(f)
        except OSError:
            pass
    if isinstance(e, OSError):
        return OutputError(f"output file {path}: cannot write ({describe_os_error(e)})")
    return e


def sweep_temporary(folder: Path, names: str) -> list[Path]:
    """Remove the temporary files (and folders) killed writes left in ``folder`` for the
    targets whose names match the regular expression ``names`` (``.NAME.XXXXXXXX.tmp``, as
    :class:`Staged` names them), never one a write still holds locked; returns those
    removed. The one sweep of every writer: the build's, an export's (``play --out``,
    ``replay --out``), the mesh cache's and the memo's. A folder that cannot be listed, or
    a file that cannot be removed, is left as it is: it harms nothing."""
    pattern = re.compile(rf"\.(?:{names})\.[a-z0-9_]{{8}}\.tmp")
    try:
        found = sorted(p for p in Path(folder).iterdir() if pattern.fullmatch(p.name))
    except OSError:
        return []
    return [p for p in found if _swept(p)]


def _swept(p: Path) -> bool:
    """Whether the temporary file or folder ``p`` was removed: never a link, nor one held
    locked (a write running now)."""
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False  # a link, gone, or not ours to read
    try:
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            return False
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held: a write running now (its temporary is locked)
        if stat.S_ISDIR(mode):
            shutil.rmtree(p)
        else:
            p.unlink()
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def refuse_reading(out: Path | str, inputs: Iterable[tuple[str, Path | str | None]], flag: str = "--out") -> None:
    """Refuse, in one line, to write ``out`` when it is the very file one of ``inputs``
    (``(what, path)``, a path ``None`` when not given) names: the same path, a link to it or
    another hard link of it (``os.path.samefile``). A command never writes over a file it
    reads: ``replay same.html --out same.html`` would replace its log with the page.

    Raises:
        UserError: the output is the same file as the input it reads.
    """
    for what, path in inputs:
        if path is None:
            continue
        try:
            same = os.path.samefile(out, path)
        except (OSError, ValueError):  # either is not there (or cannot be looked at): not one file
            continue
        if same:
            raise UserError(f"{flag} {out}: the same file as the {what} {path} it reads; expected another file to "
                            "write, so the input is not overwritten")
