"""A real browser for the tests: Debian's Chromium, headless, driven over the DevTools
protocol on a pipe (``--remote-debugging-pipe``: JSON messages ended by a NUL byte on the
browser's file descriptors 3 and 4), with nothing installed but the browser.

WebGL runs on SwiftShader (software), as on a machine without a GPU. The network is cut
(every host resolves to nothing, a proxy that does not exist takes the rest) and every
request the page makes is recorded, so a test can say the page asked for nothing.
"""

from __future__ import annotations

import base64
import io
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

__all__ = ["Browser", "chromium"]

CANDIDATES = ("chromium", "chromium-browser", "google-chrome")


def chromium() -> str:
    """The browser's executable; skips the test when there is none (fails when
    ``STRATSTONE_REQUIRE_BROWSER`` is set, as in CI)."""
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("STRATSTONE_REQUIRE_BROWSER"):
        pytest.fail("chromium is required (apt-get install -y chromium)")
    pytest.skip("chromium is not installed")


class Browser:
    """One headless Chromium with one page (``size``: its viewport in CSS pixels)."""

    def __init__(self, size: tuple[int, int] = (1280, 720), flags: tuple[str, ...] | list[str] = ()) -> None:
        self.profile = tempfile.mkdtemp(prefix="stratstone-chromium-")
        self.log = Path(self.profile) / "stderr.txt"
        args = [chromium(), "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-default-apps", "--mute-audio",
                f"--user-data-dir={self.profile}", f"--window-size={size[0]},{size[1]}",
                "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist",
                "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
                *flags, "about:blank"]
        # fd 3 reads our commands, fd 4 writes the answers: the pipes are our stdin and stdout
        self.proc = subprocess.Popen(["bash", "-c", 'exec "$@" 3<&0 4>&1 0</dev/null 1>/dev/null', "chromium", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log.open("wb"), start_new_session=True)
        self.next_id = 0
        self.answers: dict[int, queue.Queue[dict[str, Any]]] = {}
        self.events: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.call(f"{domain}.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=size[0], height=size[1],
                  deviceScaleFactor=1, mobile=False)

    def _read(self) -> None:
        buf = b""
        out = self.proc.stdout
        assert out is not None
        while True:
            chunk = out.read1(1 << 16) if hasattr(out, "read1") else out.read(1 << 16)
            if not chunk:
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" in msg:
                    with self.lock:
                        q = self.answers.get(msg["id"])
                    if q is not None:
                        q.put(msg)
                else:
                    self.events.append(msg)

    def call(self, method: str, session: bool = False, timeout: float = 60, **params: Any) -> dict[str, Any]:
        """A DevTools command (to the page's session when ``session``); its result."""
        with self.lock:
            self.next_id += 1
            ident = self.next_id
            q: queue.Queue[dict[str, Any]] = queue.Queue()
            self.answers[ident] = q
        msg: dict[str, Any] = {"id": ident, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg).encode() + b"\0")
        self.proc.stdin.flush()
        try:
            answer = q.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"{method}: no answer in {timeout} s; {self.log.read_text(errors='replace')[-2000:]}") from None
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    def open(self, url: str) -> None:
        self.call("Page.navigate", session=True, url=url)

    def js(self, expression: str, timeout: float = 60) -> Any:
        """The value of ``expression`` in the page (awaited when it is a promise)."""
        r = self.call("Runtime.evaluate", session=True, timeout=timeout, expression=expression, returnByValue=True,
                      awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait(self, expression: str, timeout: float = 30) -> float:
        """Seconds until ``expression`` is true in the page."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            try:
                if self.js(expression):
                    return time.monotonic() - start
            except RuntimeError:
                pass
            time.sleep(0.02)
        raise TimeoutError(f"{expression} not true after {timeout} s")

    def key(self, key: str, code: int) -> None:
        """Press and release a key (``"ArrowRight"``, 39)."""
        for kind in ("rawKeyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", session=True, type=kind, key=key, code=key if len(key) > 1 else "Space",
                      windowsVirtualKeyCode=code)

    def screenshot(self) -> np.ndarray:
        """The page as an (h, w, 3) uint8 image."""
        import imageio.v3 as iio

        data = base64.b64decode(self.call("Page.captureScreenshot", session=True, format="png")["data"])
        return iio.imread(io.BytesIO(data))[:, :, :3]

    def requests(self) -> list[str]:
        """Every URL the page asked for."""
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def console_errors(self) -> list[str]:
        out = []
        for e in self.events:
            if e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] in ("error", "assert"):
                out.append(" ".join(str(a.get("value", a.get("description", ""))) for a in e["params"]["args"]))
            elif e.get("method") == "Runtime.exceptionThrown":
                out.append(str(e["params"]["exceptionDetails"].get("exception", {}).get("description", "exception")))
            elif e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error":
                out.append(e["params"]["entry"]["text"])
        return out

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=5)
        except (TimeoutError, RuntimeError, BrokenPipeError, OSError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
