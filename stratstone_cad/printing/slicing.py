"""What PrusaSlicer says of a print plate: its print time, filament and layers, read from
the G-code its command line writes (``build --plates``, for ``print-report.md``).

The plate is sliced as a user would open it: PrusaSlicer's own defaults (a 0.4 mm nozzle)
for everything the plate does not say, the plate's settings (layer heights, ironing,
variable layer profiles, filament density for the grams), the chosen printer's bed, and
the parts where the plate puts them (``--dont-arrange``). The numbers are PrusaSlicer's
estimate (its "normal mode" time), not a measurement.

Each slice has a key (:func:`slice_key`): the sha256 of everything its figures come from,
what the 3MF PrusaSlicer is given is made of, the command line's options and the program
(its identity and version). Slices of one key are one piece of work for PrusaSlicer, so a
build runs each key once (:func:`stratstone_cad.printing.plating.slice_inputs` tells what
PrusaSlicer sees of a plate: its meshes, placements and settings, not its colours or names). Two runs of
one file differ by a few seconds of print time all the same: at most 4 s with the plates'
rear seam (``plates.seam``), up to 21 s with the aligned one (the nearest one too looks
for hidden places), for which PrusaSlicer 2.5's seam placer picks its visibility samples
at random (seen: 5072 to 5080 s for one plate in 8 runs, pinned to one core or not).

:func:`slice_all` runs several PrusaSlicer processes at once, each started from the
calling thread and asked to die with it
(:func:`~stratstone_cad.base.processes.die_with_parent`): a build killed, even by SIGKILL,
leaves no slicer running, and one stopped (Ctrl-C, SIGTERM) or failing kills its slicers
before the error goes on.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from stratstone_cad.base.printers import Printer
from stratstone_cad.base.processes import die_with_parent
from stratstone_cad.errors import BuildError

__all__ = ["Slice", "SliceStats", "find_prusaslicer", "slice_all", "slice_key", "slice_options", "slice_plate",
           "slicer_identity", "slicer_version"]

TIMEOUT_S = 900  # the largest board plate takes about 10 s on 2 cores


@dataclass(frozen=True)
class SliceStats:
    """PrusaSlicer's figures for one plate."""

    time_s: int
    filament_mm: float
    filament_g: float
    layers: int
    ironed: bool

    def as_dict(self) -> dict[str, float | int | bool]:
        return {"time_s": self.time_s, "filament_m": round(self.filament_mm / 1000, 3),
                "filament_g": round(self.filament_g, 2), "layers": self.layers, "ironed": self.ironed}


def find_prusaslicer() -> str | None:
    """The PrusaSlicer command line (``$STRATSTONE_PRUSA_SLICER`` or ``prusa-slicer`` on the PATH)."""
    return os.environ.get("STRATSTONE_PRUSA_SLICER") or shutil.which("prusa-slicer")


def _run(exe: str, args: list[str], what: str) -> str:
    env = {**os.environ, "HOME": os.environ.get("HOME", tempfile.gettempdir())}
    try:
        r = subprocess.run([exe, *args], capture_output=True, text=True, timeout=TIMEOUT_S, env=env,
                           stdin=subprocess.DEVNULL, errors="replace",
                           preexec_fn=die_with_parent)  # the kernel kills the slicer when the build goes
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BuildError(f"{what}: PrusaSlicer ({exe}) did not run ({type(e).__name__}: {e})"[:300]) from None
    if r.returncode != 0:
        tail = " ".join((r.stderr or r.stdout).split()[-30:])
        raise BuildError(f"{what}: PrusaSlicer ({exe}) failed with exit code {r.returncode}: {tail}"[:400])
    return r.stdout


def slicer_identity(exe: str) -> str:
    """Which slicer program ``exe`` is, without running it: its resolved path, size and
    modification time (running ``--help`` for its version takes a tenth of a second)."""
    try:
        path = os.path.realpath(exe)
        st = os.stat(path)
    except OSError:
        return exe
    return f"{path}:{st.st_size}:{st.st_mtime_ns}"


def slicer_version(exe: str) -> str:
    """``PrusaSlicer-2.5.0+UNKNOWN``: what the figures came from."""
    out = _run(exe, ["--help"], "prusa-slicer --help")
    m = re.search(r"^(PrusaSlicer-\S+)", out, re.M)
    return m[1] if m else "PrusaSlicer"


_TIME = re.compile(r"^; estimated printing time \(normal mode\) = (.+)$", re.M)


def parse_time(text: str) -> int:
    """Seconds of PrusaSlicer's ``1d 2h 3m 4s`` (any of the parts)."""
    units = {"d": 86400, "h": 3600, "m": 60, "s": 1}
    return sum(int(n) * units[u] for n, u in re.findall(r"(\d+)([dhms])", text))


def gcode_stats(text: str, what: str) -> SliceStats:
    """The figures in PrusaSlicer's G-code (the summary comments it writes after the moves).

    Raises:
        BuildError: the G-code has no print time or filament estimate.
    """
    t = _TIME.search(text)
    mm = re.search(r"^; filament used \[mm\] = ([0-9.]+)", text, re.M)
    g = re.search(r"^; filament used \[g\] = ([0-9.]+)", text, re.M)
    if not (t and mm and g):
        raise BuildError(f"{what}: PrusaSlicer's G-code has no print time or filament estimate")
    layers = len(set(re.findall(r"^;LAYER_CHANGE\n;Z:([0-9.]+)", text, re.M)))
    return SliceStats(parse_time(t[1]), float(mm[1]), float(g[1]), layers, ";TYPE:Ironing" in text)


def slice_options(printer: Printer) -> list[str]:
    """The command line's options of every slice on ``printer``'s bed (the files aside)."""
    bed = f"0x0,{printer.bed_x_mm:g}x0,{printer.bed_x_mm:g}x{printer.bed_y_mm:g},0x{printer.bed_y_mm:g}"
    return ["--export-gcode", "--dont-arrange", "--bed-shape", bed]


def slice_key(inputs: Mapping[str, Any], printer: Printer, slicer_id: str, slicer: str) -> str:
    """sha256 of everything the figures of a slice come from: what the 3MF PrusaSlicer is
    given is made of (``inputs``, JSON-able: every mesh, placement and setting PrusaSlicer
    reads, :func:`stratstone_cad.printing.plating.slice_inputs`), the command line's options
    (the bed), and the program: its identity (:func:`slicer_identity`) and version
    (:func:`slicer_version`)."""
    what = {"inputs": inputs, "options": slice_options(printer), "slicer_id": slicer_id, "slicer": slicer}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class Slice:
    """One run of PrusaSlicer: the 3MF bytes it is given, what messages call it, its key."""

    key: str
    data: bytes
    what: str  # "plate sage-stones/gems-red.3mf without ironing"
    cost: float = 0.0  # a guess at its time: of the slices waiting, the costliest starts first


#: How often the running slicers are looked at (seconds): a finished one is replaced at once.
POLL_S = 0.02


class _Running:
    """A PrusaSlicer process at work in a temporary folder of its own."""

    def __init__(self, exe: str, s: Slice, printer: Printer, started: list[_Running], cpu: int | None) -> None:
        self.slice, self.exe, self.started, self.cpu = s, exe, time.monotonic(), cpu
        self.folder = Path(tempfile.mkdtemp(prefix="stratstone-slice-"))
        self.proc: subprocess.Popen[bytes] | None = None
        started.append(self)  # known before its process is: cleaned up whatever comes
        self.gcode = self.folder / "plate.gcode"
        plate = self.folder / "plate.3mf"
        plate.write_bytes(s.data)
        env = {**os.environ, "HOME": os.environ.get("HOME", tempfile.gettempdir())}
        with open(self.folder / "out.txt", "wb") as out, open(self.folder / "err.txt", "wb") as err:
            self.proc = _popen([exe, *slice_options(printer), "--output", str(self.gcode), str(plate)], out, err, env,
                               s.what, exe, cpu)

    def stats(self) -> SliceStats:
        """The figures of the finished slice (BuildError if PrusaSlicer failed)."""
        assert self.proc is not None
        code = self.proc.returncode
        if code != 0:
            log = (self.folder / "err.txt").read_text("utf-8", errors="replace") or \
                (self.folder / "out.txt").read_text("utf-8", errors="replace")
            tail = " ".join(log.split()[-30:])
            raise BuildError(f"{self.slice.what}: PrusaSlicer ({self.exe}) failed with exit code {code}: {tail}"[:400])
        try:
            text = self.gcode.read_text("utf-8", errors="replace")
        except OSError as e:
            raise BuildError(f"{self.slice.what}: PrusaSlicer wrote no G-code ({e.strerror})") from None
        return gcode_stats(text, self.slice.what)

    def end(self) -> None:
        """Kill the slicer if it still runs, wait for it, remove its folder (safe to run again)."""
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def _popen(args: list[str], out: IO[bytes], err: IO[bytes], env: dict[str, str], what: str, exe: str,
           cpu: int | None) -> subprocess.Popen[bytes]:
    def start() -> None:  # in the child, before PrusaSlicer runs
        if cpu is not None:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, {cpu})
        die_with_parent()  # the kernel kills the slicer when the build goes

    try:
        return subprocess.Popen(args, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env, preexec_fn=start)
    except OSError as e:
        raise BuildError(f"{what}: PrusaSlicer ({exe}) did not run ({type(e).__name__}: {e})"[:300]) from None


def slice_all(exe: str, slices: Sequence[Slice], printer: Printer, workers: int,
              done: Callable[[Slice, SliceStats], None], feed: Iterator[list[Slice]] | None = None,
              at_work: Callable[[Slice, bool, int], None] | None = None) -> None:
    """Slice each of ``slices`` on ``printer``'s bed, ``workers`` PrusaSlicer processes at a time, the costliest waiting
    slice first (the first given of equal cost); ``done(slice, figures)`` as each finishes (here, in this thread).
    With ``feed``, more slices come as they are made: whenever no slicer has finished (none may be running yet), the
    next step of ``feed`` runs here (writing a plate, say) and the slices it yields join those waiting. The slicers
    are started from this thread, each asked to die with it: a SIGKILL of the build ends them too. A failing slice
    (BuildError naming it) or a stop that comes meanwhile (Ctrl-C, SIGTERM, or one raised by ``done`` or ``feed``)
    kills the slicers still running, then goes on. ``at_work(slice, started, running)``, here, as each slicer starts
    (``started``) and as its figures are read (before ``done``): ``running`` slicers are at work after it.

    Raises:
        BuildError: PrusaSlicer does not finish a slice within the time limit.
    """
    pending = list(slices)
    workers = max(1, workers if feed is not None else min(workers, len(pending)))
    # Several slicers at once, each on a core of its own. PrusaSlicer runs its threads (TBB) on
    # every core it may use: two of them unpinned on 2 cores each run two threads, which wait
    # for each other's cores; pinned, each slices on one core (measured: 5-15 % faster).
    try:
        cpus = sorted(os.sched_getaffinity(0)) if workers > 1 else []
    except (AttributeError, OSError):
        cpus = []
    pin = len(cpus) >= workers > 1
    started: list[_Running] = []  # every slicer whose folder is not removed yet, running or finished
    try:
        while pending or started or feed is not None:
            # a finished slicer is replaced before its G-code is read: the cores stay busy
            busy = [r for r in started if r.proc is None or r.proc.poll() is None]
            for _ in range(min(len(pending), workers - len(busy))):
                cpu = next(c for c in cpus if c not in {r.cpu for r in busy}) if pin else None
                costliest = max(range(len(pending)), key=lambda i: (pending[i].cost, -i))
                busy.append(_Running(exe, pending.pop(costliest), printer, started, cpu))
                if at_work is not None:
                    at_work(busy[-1].slice, True, len(busy))
            r = next((r for r in started if r.proc is not None and r.proc.poll() is not None), None)
            if r is None:
                late = next((r for r in started if time.monotonic() - r.started > TIMEOUT_S), None)
                if late is not None:
                    raise BuildError(f"{late.slice.what}: PrusaSlicer ({exe}) did not finish within {TIMEOUT_S} s")
                if feed is not None:
                    try:
                        pending += next(feed)
                    except StopIteration:
                        feed = None
                else:
                    time.sleep(POLL_S)
                continue
            try:
                figures = r.stats()
            finally:
                r.end()
                started.remove(r)
            if at_work is not None:
                at_work(r.slice, False, sum(x.proc is not None and x.proc.poll() is None for x in started))
            done(r.slice, figures)
    finally:
        for r in started:
            r.end()


def slice_plate(exe: str, data: bytes, printer: Printer, what: str) -> SliceStats:
    """Slice the 3MF bytes ``data`` on ``printer``'s bed; the figures from the G-code."""
    got: list[SliceStats] = []
    slice_all(exe, [Slice("", data, what)], printer, 1, lambda _s, stats: got.append(stats))
    return got[0]
