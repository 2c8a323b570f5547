"""Slow clients against a real studio on loopback, its descriptors few (its RLIMIT_NOFILE
lowered, so that running out of them is cheap): half-sent requests are closed and do not
keep an ordinary request out; running out of descriptors is said once, not once an attempt."""

from __future__ import annotations

import os
import resource
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from stratstone_cad.studio.limits import HEAD_TIMEOUT_S, LEAST_CONNECTIONS

#: Half-sent requests at once: a few hundred, more than the studio's descriptors.
HALF_SENT = 300


def _studio(out: Path, nofile: int) -> subprocess.Popen:
    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    return subprocess.Popen([sys.executable, "-m", "stratstone_cad", "studio", "--no-browser", "--port", "0",
                             "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=limited)


def _half_sent(address: tuple[str, int], n: int) -> list[socket.socket]:
    """``n`` connections, each with a request's first line and no end to its head."""
    out = []
    for _ in range(n):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(address)  # completed by the kernel into the listening backlog, accepted or not
        out.append(s)
    time.sleep(0.1)  # not a wait: the connections' handshakes, before the first bytes are sent on them
    for s in out:
        try:
            s.send(f"GET / HTTP/1.1\r\nHost: {address[0]}:{address[1]}\r\n".encode())
        except OSError:
            pass  # refused or reset: the studio is full, which is the point
    return out


def _ordinary(address: tuple[str, int], timeout: float) -> str:
    with socket.create_connection(address, timeout=timeout) as s:
        s.sendall(f"GET /api/games HTTP/1.1\r\nHost: {address[0]}:{address[1]}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return data.decode("latin-1")


def _stop(p: subprocess.Popen) -> str:
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGTERM)
    try:
        return p.communicate(timeout=30)[1]
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def _address(p: subprocess.Popen) -> tuple[str, int]:
    host, port = p.stdout.readline().split()[1].split("//", 1)[1].strip("/").rsplit(":", 1)
    return host, int(port)


def test_half_sent_requests_are_closed_and_an_ordinary_request_is_answered(tmp_path: Path) -> None:
    """300 connections each with half a request, on a studio of 256 descriptors: an ordinary
    request made next is answered at once (the oldest half-sent one closed to make room),
    and every half-sent connection is closed by the studio within its head's timeout."""
    p = _studio(tmp_path / "studio", 256)
    try:
        address = _address(p)
        slow = _half_sent(address, HALF_SENT)
        asked = time.monotonic()
        answer = _ordinary(address, timeout=HEAD_TIMEOUT_S)
        assert answer.startswith("HTTP/1.1 200") and '"games"' in answer, answer[:200]
        assert time.monotonic() - asked < HEAD_TIMEOUT_S / 2
        deadline = asked + HEAD_TIMEOUT_S + 5
        for s in slow:
            s.setblocking(True)
            s.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                while s.recv(4096):  # a 503 to a newcomer when every connection answers: none here
                    pass
            except ConnectionResetError:
                pass  # closed before it was accepted
            except TimeoutError:
                raise AssertionError(f"a half-sent request still open {HEAD_TIMEOUT_S + 5:g} s on") from None
            s.close()
        assert p.poll() is None
    finally:
        err = _stop(p)
    assert "Traceback" not in err, err


def test_out_of_descriptors_is_said_once_a_minute(tmp_path: Path) -> None:
    """A studio whose descriptors run out before its connections' cap (60 of them, the
    cap at its least, 64): 300 half-sent requests make ``accept`` fail again and again;
    that is said once, in one line, the connections waiting for their heads are closed,
    and an ordinary request is answered."""
    p = _studio(tmp_path / "studio", LEAST_CONNECTIONS - 4)  # the cap (at its least) above what they allow
    try:
        address = _address(p)
        slow = _half_sent(address, HALF_SENT)
        answer = _ordinary(address, timeout=3 * HEAD_TIMEOUT_S)
        assert answer.startswith("HTTP/1.1 200"), answer[:200]
        for s in slow:
            s.close()
    finally:
        err = _stop(p)
    said = [line for line in err.splitlines() if "out of descriptors" in line or "out of system resource" in line]
    assert len(said) == 1 and "Traceback" not in err, err[-3000:]
