"""The order of the print report's slices and the plates' writing, watched with a stand-in
slicer (a shell script that logs when it starts and writes a G-code of a few lines): the
costliest waiting slice starts first, slices that come while others run (``slice_all``'s
feed) are sliced too, and a build writes its plates while the slicers work. What real
PrusaSlicer runs do is tests/pipeline/test_plate_slicing.py's."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import numpy as np
import pytest

from stratstone_cad.base.printers import get_printer, load_profiles
from stratstone_cad.errors import BuildError
from stratstone_cad.pipeline import build as B
from stratstone_cad.pipeline import plate_phase
from stratstone_cad.printing import slicing
from stratstone_cad.printing.checks import Mesh
from stratstone_cad.printing.plates import Part, Placement, Plate
from stratstone_cad.printing.plating import PlateJob, slice_cost
from stratstone_cad.printing.slicing import Slice, slice_all
from stratstone_cad.printing.stl import stl_bytes
from tests.procs import descendants

#: Logs each run's start (its output's name, a clock reading) to $LOG, sleeps $PAUSE, writes a G-code.
STAND_IN = """#!/bin/sh
if [ "$1" = --help ]; then echo PrusaSlicer-9.9.9-stand-in; exit 0; fi
out=""
plate=""
while [ $# -gt 0 ]; do
  if [ "$1" = --output ]; then out=$2; shift; else plate=$1; fi
  shift
done
echo "$(date +%s.%N) $(wc -c < "$plate")" >> "$LOG"
sleep "${PAUSE:-0}"
printf ';LAYER_CHANGE\\n;Z:0.2\\n; estimated printing time (normal mode) = 1m 2s\\n' > "$out"
printf '; filament used [mm] = 10.0\\n; filament used [g] = 1.0\\n' >> "$out"
"""


@pytest.fixture
def stand_in(tmp_path, monkeypatch) -> Path:
    """The stand-in slicer, set as the build's PrusaSlicer; returns its log."""
    exe = tmp_path / "prusa-slicer"
    exe.write_text(STAND_IN)
    exe.chmod(0o755)
    log = tmp_path / "slicer.log"
    monkeypatch.setenv("STRATSTONE_PRUSA_SLICER", str(exe))
    monkeypatch.setenv("LOG", str(log))
    return log


def _started(log: Path) -> list[tuple[float, int]]:
    """Each run's start (clock, the size of the 3MF it was given), in the order they started."""
    return sorted((float(t), int(n)) for t, n in (line.split() for line in log.read_text().splitlines()))


def test_the_costliest_waiting_slice_starts_first_and_a_feeds_slices_are_sliced_too(stand_in, monkeypatch):
    monkeypatch.setenv("PAUSE", "0.2")  # the feed's two steps come while the first slice runs
    exe, printer = str(stand_in.parent / "prusa-slicer"), get_printer(None)
    # sizes tell the runs apart in the log: slice i is given i + 1 bytes
    given = [Slice(f"k{i}", b"x" * (i + 1), f"slice {i}", cost) for i, cost in enumerate([1.0, 3.0, 2.0, 3.0])]
    fed = [Slice("k4", b"x" * 5, "slice 4", 9.0)]
    steps = []

    def feed():
        steps.append("first")
        yield []
        steps.append("second")
        yield fed

    done: list[str] = []
    slice_all(exe, given, printer, 1, lambda s, stats: done.append(s.what), feed())
    assert steps == ["first", "second"]
    # one at a time: one of cost 3 (the first given of the two), the fed one of cost 9 (it
    # came while the first ran), the other of cost 3, then 2, then 1
    assert [n for _, n in _started(stand_in)] == [2, 5, 4, 3, 1], done
    assert sorted(done) == [f"slice {i}" for i in range(5)]


def test_a_stop_from_the_feed_kills_the_slicers_still_running(stand_in, monkeypatch):
    monkeypatch.setenv("PAUSE", "30")
    exe, printer = str(stand_in.parent / "prusa-slicer"), get_printer(None)
    running = []

    def feed():
        while not stand_in.exists():
            time.sleep(0.01)  # poll: the stand-in slicer written
            yield []
        running.append(len(_stand_ins_running()))
        raise KeyboardInterrupt

    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        slice_all(exe, [Slice("k", b"x", "slice")], printer, 2, lambda s, stats: None, feed())
    assert time.monotonic() - start < 10 and running == [1] and not _stand_ins_running()


def _stand_ins_running() -> list[int]:
    """The stand-in slicers at work below this process (not zombies)."""
    out = []
    for pid in descendants(os.getpid()):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if b"prusa-slicer" in cmd and state not in ("Z", "X"):
            out.append(pid)
    return out


def test_a_build_writes_its_plates_while_the_slicers_work_costliest_first(stand_in, tmp_path, monkeypatch):
    """terrain: its six plates (two of pieces, four of the board's tiles) are written and
    sliced in the order of their estimated cost (the outlines of all their layers:
    ``slice_cost``, the costliest first), and the first slicer starts before the last plate
    is written."""
    from stratstone_cad.printing import plating

    monkeypatch.setenv("PAUSE", "0.3")
    events: list[str] = []  # in the order the build did them
    real_write, real_popen = plate_phase.atomic_write, slicing._popen

    def write(path, data, *a, **k):
        real_write(path, data, *a, **k)
        if str(path).endswith(".3mf"):
            events.append(Path(path).name)

    def popen(*a, **k):
        events.append("slicer")
        return real_popen(*a, **k)

    monkeypatch.setattr(plate_phase, "atomic_write", write)
    monkeypatch.setattr(slicing, "_popen", popen)
    costs: dict[str, float] = {}
    real_cost = plating.slice_cost

    def cost(pj, out_dir):
        costs[Path(pj.file).name] = real_cost(pj, out_dir)
        return costs[Path(pj.file).name]

    monkeypatch.setattr(plating, "slice_cost", cost)
    out = tmp_path / "out"
    B.build(["terrain"], None, out, jobs=2, progress=None, plates=True)
    written = [e for e in events if e != "slicer"]
    assert len(written) == 6 and {"pieces-red.3mf", "pieces-blue.3mf"} <= set(written)
    assert [costs[f] for f in written] == sorted((costs[f] for f in written), reverse=True), costs
    starts = _started(stand_in)
    assert len(starts) == events.count("slicer") == 6 + 2, "each plate as set, the pieces' without ironing too"
    assert events.index("slicer") < events.index(written[-1]), "the first slicer started after the last plate"
    # the first run: the costliest plate (the first written), not another
    sizes = {f: (out / "terrain" / f).stat().st_size for f in written}
    assert abs(starts[0][1] - sizes[written[0]]) < 1000 < min(abs(starts[0][1] - n) for f, n in sizes.items()
                                                               if costs[f] < costs[written[0]]), (starts, sizes)
    plates = json.loads((out / "manifest.json").read_text())["plates"]
    assert all(e["print"]["time_s"] == 62 for e in plates)


def _cube(size: float) -> Mesh:
    v = np.array([[x, y, z] for x in (0, size) for y in (0, size) for z in (0, size)], dtype=float)
    faces = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1), (2, 3, 7), (2, 7, 6), (0, 2, 6),
             (0, 6, 4), (1, 5, 7), (1, 7, 3)]
    return Mesh(v, np.array(faces))


def test_a_plates_slice_cost_is_the_length_of_its_layers_outlines(tmp_path):
    """Two 10 mm cubes and one 20 mm cube at 0.15 mm layers: 4 sides of 10 x 10 mm over
    0.15 mm, twice, and of 20 x 20 mm once (the tops and bottoms have no outline)."""
    profile = load_profiles()["piece"]
    inputs, parts = {}, []
    for name, size, copies in (("small", 10.0, 2), ("large", 20.0, 1)):
        data = stl_bytes(_cube(size), name)
        (tmp_path / f"{name}.stl").write_bytes(data)
        inputs[f"{name}.stl"] = hashlib.sha256(data).hexdigest()
        parts += [Placement(Part(name, f"{name}.stl", (size, size), (0.0, 0.0), copies), c, (30.0 * c, 0.0))
                  for c in range(1, copies + 1)]
    pj = PlateJob("g/cubes.3mf", "g", "cubes", None, None, Plate(tuple(parts)), profile, "none", "rear", frozenset(),
                  (("red", "#FF0000"),), {f: "red" for f in inputs}, inputs, "mk4", (250.0, 210.0, 210.0))
    h = profile.layer_height_mm
    assert slice_cost(pj, tmp_path) == pytest.approx(2 * 4 * 10 * 10 / h + 4 * 20 * 20 / h)


@pytest.mark.parametrize("fails", ["--help", "a slice"])
def test_a_slicer_that_fails_or_does_not_run_leaves_every_plate_written(stand_in, tmp_path, fails):
    """The report stops with the slicer's failure; every plate is on disk and listed (those
    not written yet when it failed are written before the error goes on)."""
    exe = stand_in.parent / "prusa-slicer"
    if fails == "--help":
        exe.write_text("#!/bin/sh\necho 'error while loading shared libraries: libfuse.so.2' >&2\nexit 127\n")
    else:
        exe.write_text(STAND_IN.replace('echo "$(date', 'echo broken >&2; exit 3\necho "$(date'))
    out = tmp_path / "out"
    with pytest.raises(BuildError, match=r"PrusaSlicer \(.*\) failed with exit code (127|3)"):
        B.build(["terrain"], None, out, jobs=2, progress=None, plates=True)
    plates = json.loads((out / "manifest.json").read_text())["plates"]
    assert len(plates) == 6 and all(hashlib.sha256((out / e["file"]).read_bytes()).hexdigest() == e["sha256"]
                                    and "print" not in e for e in plates)


def test_the_reports_note_names_the_slicer_that_sliced_this_build(stand_in, tmp_path):
    """A game built again with another slicer: the note names it, not the one whose figures
    another game's plates (listed first) still carry."""
    exe, out = stand_in.parent / "prusa-slicer", tmp_path / "out"
    B.build(["sage-stones"], None, out, jobs=2, progress=None, plates=True, sets={"sage-stones.gem.per_colour": "1"})
    exe.write_text(STAND_IN.replace("9.9.9-stand-in", "10.0.0-stand-in"))
    B.build(["terrain"], None, out, jobs=2, progress=None, plates=True)
    plates = {e["file"]: e for e in json.loads((out / "manifest.json").read_text())["plates"]}
    assert plates["sage-stones/board.3mf"]["print"]["slicer"] == "PrusaSlicer-9.9.9-stand-in"
    assert plates["terrain/pieces-red.3mf"]["print"]["slicer"] == "PrusaSlicer-10.0.0-stand-in"
    assert "are PrusaSlicer-10.0.0-stand-in's estimates" in (out / "print-report.md").read_text()
