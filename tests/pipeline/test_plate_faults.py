"""A plate is made of its parts: stopped or killed at any moment, the manifest lists a plate
only beside the very parts it holds; the next build sweeps the plates nobody lists, and
print-report.md names only listed plates. A killed build's temporary folders (the
slicer's, multiprocessing's) are swept by the next build, never a running build's."""

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
import time
from pathlib import Path

import lib3mf
import numpy as np
import pytest

from stratstone_cad.pipeline import build as B
from stratstone_cad.pipeline import plate_phase
from stratstone_cad.printing.stl import read_stl_mesh
from tests import ROOT, gated

TWO = {"stratstone.stone.per_colour": "2"}
TALLER = {**TWO, "stratstone.stone.height_mm": "8"}


def _plates_hold_their_parts(out: Path) -> list[str]:
    """Every plate the manifest lists is on disk with its sha256, and each of its objects has
    the shape (extent and triangles) of the part file the manifest lists beside it; returns
    the listed plates."""
    m = json.loads((out / "manifest.json").read_text())
    assets = {a["file"]: a for a in m["assets"]}
    for a in assets.values():
        assert hashlib.sha256((out / a["file"]).read_bytes()).hexdigest() == a["sha256"], a["file"]
    for plate in m.get("plates", []):
        assert hashlib.sha256((out / plate["file"]).read_bytes()).hexdigest() == plate["sha256"], plate["file"]
        by_name = {}
        for ob in plate["objects"]:
            names = [ob["name"]] if ob["copies"] == 1 else [f"{ob['name']}-{n:02d}" for n in range(1, ob["copies"] + 1)]
            by_name.update(dict.fromkeys(names, ob["file"]))
        w = lib3mf.get_wrapper()
        model = w.CreateModel()
        model.QueryReader("3mf").ReadFromFile(str(out / plate["file"]))
        objects = model.GetMeshObjects()
        while objects.MoveNext():
            o = objects.GetCurrentMeshObject()
            part = by_name[o.GetName()]
            assert part in assets, (plate["file"], part, "a plate listed without a part it holds")
            stl = read_stl_mesh((out / part).read_bytes())
            v = np.array([p.Coordinates[0:3] for p in o.GetVertices()])
            assert o.GetTriangleCount() == len(stl.triangles) and np.allclose(
                np.ptp(v, axis=0), np.ptp(stl.vertices, axis=0), atol=1e-3), (plate["file"], part)
    return [p["file"] for p in m.get("plates", [])]


def _unlisted_plates(out: Path) -> list[str]:
    listed = {p["file"] for p in json.loads((out / "manifest.json").read_text()).get("plates", [])}
    return sorted(q.relative_to(out).as_posix() for q in out.rglob("*.3mf") if q.relative_to(out).as_posix() not in listed)


def _report_names_only_listed(out: Path, listed: list[str]) -> None:
    report = out / "print-report.md"
    if report.exists():
        named = set(re.findall(r"^\| ([a-z-]+/[a-z0-9_-]+\.3mf) \|", report.read_text(), re.M))
        assert named == set(listed), sorted(named ^ set(listed))
    else:
        assert not listed


@pytest.fixture(scope="module")
def plated_two(tmp_path_factory):
    """The Stratstone set, two stones a colour, with its plates (not sliced)."""
    out = tmp_path_factory.mktemp("plated-two")
    B.build(["stratstone"], None, out, jobs=2, progress=None, sets=TWO, plates=True, slice_plates=False)
    assert _plates_hold_their_parts(out)
    return out


def test_a_build_killed_as_its_first_new_stone_appears_lists_no_plate_of_the_old_stones(plated_two, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(plated_two, out)
    args = [f"{k}={v}" for k, v in TALLER.items()]
    gate = tmp_path / "gate"  # stopped as it lists its first new part: on disk, the manifest not yet told
    p = subprocess.Popen([*gated.command(gate, "stratstone_cad.pipeline.build:ProgressBar.step", 1, "stratstone/stone-"),
                          "build", "stratstone", "--out", str(out), "--jobs", "2", "--quiet",
                          *(a for s in args for a in ("--set", s))],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, cwd=ROOT)
    try:
        gated.reached(gate, p)
        os.kill(p.pid, signal.SIGKILL)
        p.communicate(timeout=30)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
    stones = sorted((out / "stratstone").glob("stone-*.stl"))
    assert [f for f in stones if f.read_bytes() != (plated_two / "stratstone" / f.name).read_bytes()], "no new stone"
    _plates_hold_their_parts(out)
    # the next build, without --plates: the plates nobody lists are swept, the report follows
    B.build(["stratstone"], None, out, jobs=1, progress=None, sets=TALLER)
    listed = _plates_hold_their_parts(out)
    assert _unlisted_plates(out) == []
    _report_names_only_listed(out, listed)


def test_a_stop_at_the_end_of_the_parts_lists_no_plate_of_the_old_parts(plated_two, tmp_path, monkeypatch):
    """Ctrl-C as the parts are done, before the plates: exit 130 with the manifest true."""
    out = tmp_path / "out"
    shutil.copytree(plated_two, out)

    def stop(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(B, "build_plates", stop)
    with pytest.raises(KeyboardInterrupt):
        B.build(["stratstone"], None, out, jobs=2, progress=None, sets=TALLER, plates=True, slice_plates=False)
    monkeypatch.undo()
    listed = _plates_hold_their_parts(out)
    assert _unlisted_plates(out) == [] and "stratstone/board.3mf" in listed
    _report_names_only_listed(out, listed)


def test_a_stop_in_the_plates_leaves_no_outdated_plate_and_the_next_build_none_unlisted(plated_two, tmp_path,
                                                                                     monkeypatch):
    """SIGTERM (KeyboardInterrupt) as the first new plate is written, with every plate
    outdated (a new spacing): no outdated plate is left on disk beside the manifest."""
    out = tmp_path / "out"
    shutil.copytree(plated_two, out)
    sets = {**TWO, "plates.spacing_mm": "21"}

    real = plate_phase.atomic_write

    def stop(path, data, *a, **k):
        if str(path).endswith(".3mf"):
            raise KeyboardInterrupt
        return real(path, data, *a, **k)

    monkeypatch.setattr(plate_phase, "atomic_write", stop)
    with pytest.raises(KeyboardInterrupt):
        B.build(["stratstone"], None, out, jobs=2, progress=None, sets=sets, plates=True, slice_plates=False)
    monkeypatch.undo()
    listed = _plates_hold_their_parts(out)
    assert _unlisted_plates(out) == [] and len(listed) < len(list(plated_two.rglob("*.3mf")))
    _report_names_only_listed(out, listed)
    # an outdated plate as a SIGKILL between the manifest and the removals leaves it: the next build sweeps it
    victim = next(q for q in sorted(plated_two.rglob("*.3mf")) if q.relative_to(plated_two).as_posix() not in listed)
    (out / victim.relative_to(plated_two)).write_bytes(victim.read_bytes())
    # and a manifest that lists no plate at all (every plate left with its parts), the files still there
    m = json.loads((out / "manifest.json").read_text())
    m.pop("plates", None)
    (out / "manifest.json").write_text(json.dumps(m))
    assert _unlisted_plates(out)
    B.build(["stratstone"], None, out, jobs=1, progress=None, sets=sets)
    assert _unlisted_plates(out) == []
    _report_names_only_listed(out, [])


def _scratch(cache: Path) -> list[Path]:
    return sorted((cache / "stratstone-cad" / "tmp").glob("build-*"))


def test_the_slicer_and_pymp_folders_of_a_killed_build_are_swept_by_the_next(tmp_path):
    if shutil.which("prusa-slicer") is None and not os.environ.get("STRATSTONE_PRUSA_SLICER"):
        if os.environ.get("STRATSTONE_REQUIRE_SLICER"):
            pytest.fail("PrusaSlicer is required (STRATSTONE_REQUIRE_SLICER) but not installed")
        pytest.skip("PrusaSlicer is not installed")
    # a short cache path: the fork server's socket goes in the build's folder there (107 bytes at most)
    cache, out = Path(tempfile.mkdtemp(prefix="sc-")), tmp_path / "out"
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    # a running build's folder (here a process that made one and waits) is never swept
    alive = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom stratstone_cad.pipeline.scratch import "
                              "own_scratch\nprint(own_scratch(), flush=True)\ntime.sleep(120)"],  # not a wait: a build that runs on
                             stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    p = None
    try:
        running = Path(alive.stdout.readline().strip())
        assert running.is_dir()
        p = subprocess.Popen([sys.executable, "-m", "stratstone_cad", "build", "stratstone", "--plates", "--out", str(out),
                              "--jobs", "2", "--quiet", "--set", "stratstone.stone.per_colour=2"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, env=env, cwd=ROOT)
        deadline = time.monotonic() + 180
        while p.poll() is None and time.monotonic() < deadline:
            if list((cache / "stratstone-cad" / "tmp").glob("build-*/stratstone-slice-*")):
                break
            time.sleep(0.01)  # poll: a plate sliced in the build's own folder
        assert p.poll() is None, "the build sliced no plate in a folder of its own under the cache"
        os.kill(p.pid, signal.SIGKILL)
        p.communicate(timeout=30)
        killed = [d for d in _scratch(cache) if d != running]
        assert len(killed) == 1 and list(killed[0].glob("pymp-*")) and list(killed[0].glob("stratstone-slice-*"))
        r = subprocess.run([sys.executable, "-m", "stratstone_cad", "build", "stratstone", "--out", str(out),
                            "--quiet", "--set", "stratstone.stone.per_colour=2"],
                           capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
        assert r.returncode == 0, r.stderr
        assert _scratch(cache) == [running], "the killed build's folder is swept, the running one's kept"
    finally:
        alive.kill()
        alive.wait()
        shutil.rmtree(cache, ignore_errors=True)
        if p is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
