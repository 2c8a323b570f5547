"""The studio's whole builds (the set's zip, a plate's figures) as a server must run them:
stopped when nobody waits for them any more, queued within a bound, the zip streamed from
one file on disk however many download it. A real studio on loopback, its processes read from /proc."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from stratstone_cad.studio.set_jobs import MAX_SET_JOBS
from tests.procs import cpu_ticks, descendants

#: How soon work nobody waits for must have stopped (seconds), the issue's bound.
STOPPED_WITHIN_S = 20


@contextlib.contextmanager
def running(out: Path, env: dict[str, str] | None = None) -> Iterator[tuple[subprocess.Popen, str]]:
    """A studio on a free loopback port, working in ``out``: the process and its address."""
    p = subprocess.Popen([sys.executable, "-m", "stratstone_cad", "studio", "--no-browser", "--port", "0",
                          "--out", str(out)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        yield p, p.stdout.readline().split()[1]
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


@pytest.fixture()
def studio(tmp_path: Path) -> Iterator[tuple[subprocess.Popen, str]]:
    with running(tmp_path / "studio") as started:
        yield started


def tree_ticks(pid: int) -> int:
    """CPU time (user and system, clock ticks) of ``pid`` and every process below it."""
    return cpu_ticks({pid, *descendants(pid)})


def building(pid: int) -> set[int]:
    """The processes below ``pid`` that build a set or slice: a ``build`` command or PrusaSlicer."""
    found = set()
    for q in descendants(pid):
        try:
            cmd = Path(f"/proc/{q}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"build" in cmd or any(b"prusa-slicer" in c for c in cmd):
            found.add(q)
    return found


def asked(url: str, path: str) -> socket.socket:
    """A GET of ``path`` sent on a connection of its own, its answer not read."""
    host, port = url.split("//", 1)[1].strip("/").rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=30)
    s.sendall(f"GET /{path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    return s


def answered(s: socket.socket) -> str:
    """The answer read from ``s``: its head and as many bytes of body as it says (the body
    may come in a segment of its own)."""
    data = b""
    while b"\r\n\r\n" not in data or len(data.partition(b"\r\n\r\n")[2]) < int(
            next((x.split(b":")[1] for x in data.split(b"\r\n") if x.lower().startswith(b"content-length:")), b"0")):
        more = s.recv(4096)
        if not more:
            break
        data += more
    return data.decode()


def zip_path(i: int) -> str:
    return f"download/sage-stones.zip?set=sage-stones.gem.height_mm={6 + i / 4}"


def test_abandoned_zip_downloads_stop_within_20_s_and_the_queue_is_bounded(
        studio: tuple[subprocess.Popen, str]) -> None:
    """As many zips as the studio queues, each another setting (a whole build with STEP
    files and PrusaSlicer's figures: minutes each), asked and left: one more is refused
    at once with 503 and one line; once the clients have gone, within 20 s no build and no
    slicer is left and the studio and its processes are idle (its pool's workers wait)."""
    p, url = studio
    clients = [asked(url, zip_path(i)) for i in range(MAX_SET_JOBS)]
    busy = time.monotonic() + 120
    start = tree_ticks(p.pid)
    while tree_ticks(p.pid) - start < 300:  # the builds at work: 3 s of CPU
        assert time.monotonic() < busy and p.poll() is None
        time.sleep(0.1)  # poll: the builds' CPU time
    extra = asked(url, zip_path(MAX_SET_JOBS))
    extra.settimeout(15)
    answer = answered(extra)
    extra.close()
    head, _, body = answer.partition("\r\n\r\n")
    assert head.startswith("HTTP/1.1 503") and "ask again" in body and body.count("\n") == 0, answer
    for c in clients:
        c.close()
    left = time.monotonic()
    quiet_since, ticks = None, tree_ticks(p.pid)
    while True:
        time.sleep(0.1)  # poll: the studio's processes idle
        now, before, ticks = time.monotonic(), ticks, tree_ticks(p.pid)
        idle = not building(p.pid) and ticks - before <= 2  # 20 ms of CPU a tenth of a second at most
        quiet_since = (quiet_since or now) if idle else None
        if quiet_since is not None and now - quiet_since >= 1:
            break
        assert now - left < STOPPED_WITHIN_S, f"still at work {now - left:.0f} s after the clients left: {building(p.pid)}"
    assert p.poll() is None


def rss_bytes(pid: int) -> int:
    """The resident memory of ``pid`` (``VmRSS`` of /proc)."""
    line = next(x for x in Path(f"/proc/{pid}/status").read_text().splitlines() if x.startswith("VmRSS:"))
    return int(line.split()[1]) * 1024


#: Slow readers of one zip at once, as in the issue (30 took a server from 167 MB to 1.07 GB).
READERS = 30


def test_slow_readers_of_the_zip_share_one_file_and_do_not_grow_the_servers_memory(tmp_path: Path) -> None:
    """The zip (without the slicer: not on PATH) downloaded by 30 readers at once to the end
    (the server's threads and buffers warmed up), then by 30 slow readers, each reading its
    first 64 kB and then nothing: one zip file on disk, and the server's resident memory
    grows by less than one zip, where a copy per reader would be 30. (Streamed from the
    file, a reader holds a 64 kB chunk and the transport's 64 kB of unsent bytes at most:
    about 4 MB for 30.)"""
    env = {**os.environ, "PATH": os.path.dirname(sys.executable)}  # no prusa-slicer: no slicing
    with running(tmp_path / "studio", env) as (p, url):
        for s in _readers(url, 1, 300) + _readers(url, READERS, 60):  # the zip made, then read by 30 at once
            with s:
                head, size = _headers(s)
                assert head.startswith("HTTP/1.1 200"), head
                while size > 0:
                    size -= len(s.recv(1 << 20)) or size
        zips = list((tmp_path / "studio").rglob("*.zip"))
        assert len(zips) == 1 and zips[0].stat().st_size > 4_000_000, zips  # the zip on disk
        before = rss_bytes(p.pid)
        readers = _readers(url, READERS, 60)
        try:
            for s in readers:
                assert _headers(s)[0].startswith("HTTP/1.1 200"), "a reader was not answered"
                s.recv(65536)
            grown = rss_bytes(p.pid) - before
        finally:
            for s in readers:
                s.close()
        assert list((tmp_path / "studio").rglob("*.zip")) == zips  # made once for the setting
        assert grown < zips[0].stat().st_size, f"{grown / 1e6:.0f} MB more for {READERS} readers"


def _readers(url: str, n: int, timeout: float) -> list[socket.socket]:
    """``n`` connections asking for the zip, each reading slowly (a 4 kB receive buffer)."""
    out = []
    for _ in range(n):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.settimeout(timeout)
        s.connect(_address(url))
        s.sendall(f"GET /{zip_path(0)} HTTP/1.1\r\nHost: {url.split('//')[1].strip('/')}\r\n\r\n".encode())
        out.append(s)
    return out


def _address(url: str) -> tuple[str, int]:
    host, port = url.split("//", 1)[1].strip("/").rsplit(":", 1)
    return host, int(port)


def _headers(s: socket.socket) -> tuple[str, int]:
    """The head of the answer read from ``s`` and how many body bytes are still to come."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(4096)
        assert chunk, data
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?i)content-length: (\d+)", head)[1]) if b"ontent-length" in head.lower() else 0
    return head.decode("latin-1"), length - len(rest)
