"""The studio stopped as users stop it, while it works: no worker and no slicer outlive it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.procs import cpu_ticks, descendants, in_session


def _slicing(pid: int) -> bool:
    try:
        return b"prusa-slicer" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


@pytest.mark.skipif(shutil.which("prusa-slicer") is None and not os.environ.get("STRATSTONE_REQUIRE_SLICER"),
                    reason="PrusaSlicer is not installed")
def test_sigterm_while_a_plate_is_sliced_stops_the_studio_and_every_process_it_started(tmp_path: Path) -> None:
    """A plate's print time asked for (a build that slices in the background), SIGTERM once
    PrusaSlicer runs: the studio exits within seconds with the build's one line and code,
    and nothing of its session is left: no worker, no fork server, no slicer."""
    p = subprocess.Popen([sys.executable, "-m", "stratstone_cad", "studio", "sage-stones", "--no-browser", "--port", "0",
                          "--out", str(tmp_path / "studio")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        url = p.stdout.readline().split()[1]
        asked = threading.Thread(target=_ask, args=(url + "api/plate/sage-stones/gem-red.stl",), daemon=True)
        asked.start()
        deadline = time.monotonic() + 180
        while not any(_slicing(c) for c in descendants(p.pid)):
            assert time.monotonic() < deadline and p.poll() is None, p.stderr.read() if p.poll() is not None else ""
            time.sleep(0.05)  # poll: a slicer running
        p.send_signal(signal.SIGTERM)
        stopped = time.monotonic()
        _, err = p.communicate(timeout=30)
        assert time.monotonic() - stopped < 10
        assert (p.returncode, err) == (143, "stratstone-cad: terminated\n")
        left = time.monotonic() + 5
        while in_session(p.pid) and time.monotonic() < left:  # a killed worker takes a moment to be reaped
            time.sleep(0.05)  # poll: the session's processes gone
        assert in_session(p.pid) == set()
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def _ask(url: str) -> None:
    try:
        urllib.request.urlopen(url, timeout=180).read()
    except (urllib.error.URLError, OSError):
        pass  # the studio stopped under it


def test_sighup_stops_the_studio_as_sigterm_does_and_leaves_nothing_in_tmpdir(tmp_path: Path) -> None:
    """The terminal closed (SIGHUP): the studio stops as on SIGTERM, and multiprocessing's
    ``pymp-*`` folder (the fork server's socket) goes from ``$TMPDIR`` with it."""
    import tempfile

    # a short TMPDIR: the fork server's socket path (TMPDIR/pymp-*/listener-*) must fit AF_UNIX's
    # 108 bytes, which a worker's pytest folder (/tmp/pytest-of-root/pytest-N/popen-gw1/...) passes
    tmp = Path(tempfile.mkdtemp(prefix="hup-", dir="/tmp"))
    request_cleanup = tmp  # removed below whatever happens
    p = subprocess.Popen([sys.executable, "-m", "stratstone_cad", "studio", "--no-browser", "--port", "0",
                          "--out", str(tmp_path / "studio")], env={**os.environ, "TMPDIR": str(tmp)},
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        p.stdout.readline()
        deadline = time.monotonic() + 60
        while not list(tmp.glob("pymp-*")):  # the fork server is listening
            assert time.monotonic() < deadline and p.poll() is None, p.poll() is not None and p.communicate()
            time.sleep(0.05)  # poll: the fork server's folder
        p.send_signal(signal.SIGHUP)
        _, err = p.communicate(timeout=30)
        assert (p.returncode, err) == (143, "stratstone-cad: terminated\n")
        assert list(tmp.iterdir()) == []
        left = time.monotonic() + 5
        while in_session(p.pid) and time.monotonic() < left:
            time.sleep(0.05)  # poll: the session's processes gone
        assert in_session(p.pid) == set()
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        shutil.rmtree(request_cleanup, ignore_errors=True)


def test_ctrl_c_answers_the_requests_in_flight_503_not_500(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the terminal's process group) while a part, a plate and the whole
    set's zip are being built: each request is answered 503 with one line (or its connection
    closed), never 500; the studio exits 130 with its one line."""
    p = subprocess.Popen([sys.executable, "-m", "stratstone_cad", "studio", "--no-browser", "--port", "0",
                          "--out", str(tmp_path / "studio")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    answers: dict[str, object] = {}

    def ask(name: str, url: str) -> None:
        try:
            with urllib.request.urlopen(url, timeout=120) as r:
                answers[name] = r.status
        except urllib.error.HTTPError as e:
            answers[name] = (e.code, e.read().decode())
        except (urllib.error.URLError, OSError):
            answers[name] = "closed"

    try:
        url = p.stdout.readline().split()[1]
        asked = [threading.Thread(target=ask, args=(name, url + path), daemon=True) for name, path in
                 [("part", "api/part/stratstone/stone-yellow-01.stl"), ("plate", "api/plate/stratstone/board.stl"),
                  ("zip", "download/stratstone.zip")]]
        for t in asked:
            t.start()
        busy = time.monotonic() + 60
        while cpu_ticks(descendants(p.pid)) < 30:  # the work under way: 0.3 s of CPU in the studio's processes
            assert time.monotonic() < busy and p.poll() is None
            time.sleep(0.05)  # poll: the studio's processes at work
        assert answers == {}  # all three still building
        os.killpg(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=30)
        for t in asked:
            t.join(10)
        assert set(answers) == {"part", "plate", "zip"}
        stopped = (503, "the studio stopped before this answer was ready: start it again and ask again")
        for name, answer in answers.items():  # a part may be finished within uvicorn's grace: 200; never 500
            assert answer in ("closed", stopped) or (name == "part" and answer == 200), (name, answer)
        assert answers["zip"] in ("closed", stopped)  # the whole set takes minutes: stopped, not finished
        # (a whole-set build's thread may still hold manifold3d's objects at exit: nanobind then
        # lists them as leaked after the line, a known noise of its own, not a failure)
        assert p.returncode == 130 and err.startswith("stratstone-cad: interrupted\n") and "Traceback" not in err, err
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()




def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=180) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_a_worker_killed_by_sigkill_is_replaced_and_the_next_parts_are_made(tmp_path: Path) -> None:
    """A build worker killed as the kernel's out-of-memory killer kills (SIGKILL): the
    studio replaces its pool and makes the next part (or answers 503 with one line), and the
    part after it is made; never 500."""
    p = subprocess.Popen([sys.executable, "-m", "stratstone_cad", "studio", "--no-browser", "--port", "0",
                          "--out", str(tmp_path / "studio")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        url = p.stdout.readline().split()[1] + "api/part/sage-stones/gem-red.stl?set=sage-stones.gem.height_mm="
        assert _get(url + "7")[0] == 200
        workers = [q for q in descendants(p.pid) if q not in _children(p.pid) and _children(q) == set()]
        assert workers  # below the fork server: the pool's workers
        os.kill(workers[0], signal.SIGKILL)
        gone = time.monotonic() + 30
        while workers[0] in descendants(p.pid) and time.monotonic() < gone:
            time.sleep(0.05)  # poll: the killed worker reaped
        status, text = _get(url + "8")
        assert status == 200 or (status == 503 and "\n" not in text), (status, text)
        assert _get(url + "9")[0] == 200
        assert p.poll() is None
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=30)
        assert err == "stratstone-cad: terminated\n"
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
            p.wait(30)


def _children(pid: int) -> set[int]:
    return {q for q in descendants(pid) if int(Path(f"/proc/{q}/stat").read_text().rsplit(")", 1)[1].split()[1]) == pid}
