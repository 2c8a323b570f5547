"""The print report's slicing, watched through real PrusaSlicer runs (their processes, seen
in /proc): plates PrusaSlicer sees as the same are sliced once and share their figures,
``--jobs 2`` runs two slicers at once, a rebuild slices only what the slicer has not seen,
and a stop, a failure or a kill of the build ends every slicer."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from stratstone_cad.base.printers import get_printer
from stratstone_cad.errors import BuildError
from stratstone_cad.pipeline import build as B
from stratstone_cad.printing.slicing import Slice, find_prusaslicer, slice_all
from tests import ROOT
from tests.procs import descendants

pytestmark = pytest.mark.slicer

#: The Sage Stones set, its gems without their colours' marks: six gem plates of one
#: geometry in six colours (one gem each, to slice quickly), and the board, solid: what is
#: tested is which plates are sliced and when, whatever the board (PrusaSlicer takes 4.6 s on
#: the solid board's plate, 26 s on the shell's, which tests/printing/test_slicer_plates.py slices),
#: and the board's plate still slices longest (the stop test below wants it at work after a gem's).
ALIKE = {"sage-stones.gem.mark": "false", "sage-stones.gem.per_colour": "1", "sage-stones.board.shell": "false"}
GEM_PLATES = [f"sage-stones/gems-{c}.3mf" for c in ("black", "blue", "green", "red", "white", "yellow")]


@pytest.fixture(scope="module", autouse=True)
def _need_slicer():
    if find_prusaslicer() is None:
        if os.environ.get("STRATSTONE_REQUIRE_SLICER") == "1":
            pytest.fail("prusa-slicer is not installed but STRATSTONE_REQUIRE_SLICER=1 (apt-get install prusa-slicer)")
        pytest.skip("prusa-slicer is not installed (apt-get install prusa-slicer)")


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _slicing(pid: int) -> bool:
    """Whether ``pid`` is a PrusaSlicer at work on a slice (alive, not a zombie)."""
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    st = _stat(pid)
    return b"--export-gcode" in cmd and st is not None and st[0] not in ("Z", "X")


class SlicerWatch:
    """The slicers at work below a process, looked at every few milliseconds in a thread:
    every one seen (by pid) and the most seen at once."""

    def __init__(self, root: int) -> None:
        self.root, self.seen, self.most, self.now = root, set[int](), 0, set[int]()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.now = {p for p in descendants(self.root) if _slicing(p)}
            self.seen |= self.now
            self.most = max(self.most, len(self.now))
            time.sleep(0.01)  # poll: the slicers running, watched

    def __enter__(self) -> SlicerWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _cli(out: Path, *more: str, jobs: int = 2, sets: dict[str, str] = ALIKE) -> list[str]:
    return [sys.executable, "-m", "stratstone_cad", "build", "sage-stones", "--plates", "--out", str(out), "--jobs",
            str(jobs), *(a for k, v in sets.items() for a in ("--set", f"{k}={v}")), *more]


@pytest.fixture(scope="module")
def sliced(tmp_path_factory) -> tuple[Path, SlicerWatch, str]:
    """A cold ``build --plates --jobs 2`` of :data:`ALIKE` on the command line, its slicers watched."""
    out = tmp_path_factory.mktemp("sliced") / "out"
    p = subprocess.Popen(_cli(out), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    with SlicerWatch(p.pid) as watch:
        _, err = p.communicate(timeout=600)
    assert p.returncode == 0, err[-2000:]
    return out, watch, err


def _manifest(out: Path) -> dict[str, dict]:
    return {e["file"]: e for e in json.loads((out / "manifest.json").read_text())["plates"]}


def test_plates_prusaslicer_sees_as_the_same_are_sliced_once_two_at_a_time_and_share_their_figures(sliced):
    out, watch, err = sliced
    # the board, the dice as set and without ironing, and the gems as set, without ironing and at
    # flat layers: once for the six plates
    assert len(watch.seen) == 6 and watch.most == 2, (len(watch.seen), watch.most)
    # the progress bar counts slices and says what the build waits for: the slicers running
    assert len(re.findall(r"^\[[1-6]/6\] slicing: [0-2] running in PrusaSlicer, sliced plate ", err, re.M)) == 6, err
    started = re.findall(r"^\[[0-5]/6\] slicing: ([12]) running in PrusaSlicer, started plate ", err, re.M)
    assert len(started) == 6 and "2" in started, err
    plates = _manifest(out)
    prints = [{k: v for k, v in plates[f]["print"].items() if k != "plate_sha256"} for f in GEM_PLATES]
    assert all(p == prints[0] for p in prints) and set(prints[0]["slices"]) == {"as_set", "no_ironing", "flat"}
    assert prints[0]["ironing_time_s"] > 0 and prints[0]["flat_layers"] > 0
    assert set(plates["sage-stones/board.3mf"]["print"]["slices"].values()).isdisjoint(prints[0]["slices"].values())
    report = (out / "print-report.md").read_text()
    assert f"- {', '.join(GEM_PLATES)}: as set, without ironing, at flat layers\n" in report
    assert report.count("\n- ") == 1, "the board shares nothing"


def test_a_rebuild_slices_only_what_prusaslicer_has_not_seen(sliced, tmp_path):
    src, _, _ = sliced
    out = tmp_path / "out"
    shutil.copytree(src, out)
    before = _manifest(out)
    report = (out / "print-report.md").read_text()
    # unchanged: no slicer runs
    with SlicerWatch(os.getpid()) as watch:
        r = B.build(["sage-stones"], None, out, jobs=2, progress=None, sets=ALIKE, plates=True)
    assert not watch.seen and not r.sliced and (out / "print-report.md").read_text() == report
    # a plate whose figures are lost gets them back from the plates PrusaSlicer sees as the same, unsliced
    m = json.loads((out / "manifest.json").read_text())
    for e in m["plates"]:
        if e["file"] == "sage-stones/gems-red.3mf":
            del e["print"]
    (out / "manifest.json").write_text(json.dumps(m))
    with SlicerWatch(os.getpid()) as watch:
        r = B.build(["sage-stones"], None, out, jobs=2, progress=None, sets=ALIKE, plates=True)
    assert not watch.seen and r.sliced == ["sage-stones/gems-red.3mf"]
    assert _manifest(out) == before and (out / "print-report.md").read_text() == report
    # one setting changed (the pieces' ironing): the gems' slices with it are sliced again, once for
    # the six plates, and the dice's as set; without ironing they are the same plates as before,
    # and the board is unchanged
    sets = {**ALIKE, "plates.piece_ironing": "top"}
    with SlicerWatch(os.getpid()) as watch:
        r = B.build(["sage-stones"], None, out, jobs=2, progress=None, sets=sets, plates=True)
    assert len(watch.seen) == 3 and sorted(r.sliced) == sorted([*GEM_PLATES, "sage-stones/dice.3mf"])
    after = _manifest(out)
    for f in GEM_PLATES:
        old, new = before[f]["print"]["slices"], after[f]["print"]["slices"]
        assert new["no_ironing"] == old["no_ironing"] and new["as_set"] != old["as_set"] and new["flat"] != old["flat"]
    assert after["sage-stones/board.3mf"]["print"] == before["sage-stones/board.3mf"]["print"]


def _children_slicing() -> list[int]:
    return [p for p in descendants(os.getpid()) if _slicing(p)]


def test_a_stop_or_a_failing_slice_kills_the_slicers_still_running(sliced, tmp_path, monkeypatch):
    """Ctrl-C (here raised as the first slice's figures are taken) or a slice that fails:
    the slicer still at work on the board is killed before the error goes on, and every
    slicer's temporary folder is removed."""
    out, _, _ = sliced
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    exe, printer = find_prusaslicer(), get_printer(None)
    board = Slice("board", (out / "sage-stones/board.3mf").read_bytes(), "plate sage-stones/board.3mf")
    gem = Slice("gem", (out / "sage-stones/gems-red.3mf").read_bytes(), "plate sage-stones/gems-red.3mf")
    running: list[list[int]] = []

    def stop(s, _stats):
        running.append(_children_slicing())
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        slice_all(exe, [board, gem], printer, 2, stop)
    assert len(running) == 1 and len(running[0]) == 1, "the board was being sliced when the gem was done"
    assert not _children_slicing() and not list(tmp_path.iterdir())
    broken = Slice("broken", b"not a 3MF file", "plate sage-stones/broken.3mf")
    with pytest.raises(BuildError, match=r"^plate sage-stones/broken\.3mf: PrusaSlicer \(.*\) failed with exit code"):
        slice_all(exe, [board, broken], printer, 2, lambda s, stats: None)
    assert not _children_slicing() and not list(tmp_path.iterdir())


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_build_killed_while_it_slices_leaves_no_slicer_running(tmp_path, sig):
    out = tmp_path / "out"
    p = subprocess.Popen(_cli(out), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                         start_new_session=True)
    try:
        with SlicerWatch(p.pid) as watch:
            deadline = time.monotonic() + 300
            while len(watch.now) < 2 and p.poll() is None and time.monotonic() < deadline:
                time.sleep(0.01)  # poll: two slicers running
            slicers = set(watch.now)
        assert len(slicers) == 2, "the build sliced two plates at once"
        os.kill(p.pid, sig)  # the build only, as `kill PID` does: not its process group
        _, err = p.communicate(timeout=60)
        deadline = time.monotonic() + 1.0
        while any(_slicing(q) for q in slicers) and time.monotonic() < deadline:
            time.sleep(0.01)  # poll: the slicers gone
        assert not [q for q in slicers if _slicing(q)], "a slicer outlived the build by a second"
        if sig == signal.SIGTERM:
            assert p.returncode == 143 and err.endswith("stratstone-cad: terminated\n") and "Traceback" not in err, err
        m = json.loads((out / "manifest.json").read_text())
        for e in [*m["assets"], *m.get("plates", [])]:
            assert hashlib.sha256((out / e["file"]).read_bytes()).hexdigest() == e["sha256"], e["file"]
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
