"""The studio's connections bounded, on uvicorn's HTTP/1.1 protocol (h11):

- a request's head (its line and headers) must arrive within :data:`HEAD_TIMEOUT_S` of
  the connection or of the answer before it, or the connection is closed (uvicorn's
  keep-alive timer starts only after an answer, and its concurrency limit counts only
  requests whose head is complete: a half-sent request would hold its descriptor for ever);
- at most :func:`max_connections` connections are open: one more closes the oldest still
  waiting for its head, never one whose request is being answered (the Play room's live
  updates among them); when every one is answering, the newcomer gets 503 and one line;
- running out of descriptors in ``accept`` (EMFILE) closes every connection that has waited
  :data:`SHED_AFTER_S` for its head (a slow client's or a half-sent one's) and is said
  once a minute (:data:`SAY_EVERY_S`), not once an attempt (:class:`Server`)."""

from __future__ import annotations

import asyncio
import resource
import sys
import time
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

#: How long a connection may take to send a request's head (seconds).
HEAD_TIMEOUT_S = 5.0
#: Connections kept open at most, and at least (room for the Play room's 50 live updates and more).
MOST_CONNECTIONS, LEAST_CONNECTIONS = 1000, 64
#: Descriptors kept for everything but connections: files, pipes, the builds' processes.
RESERVED_FDS = 64
#: Out of descriptors, the connections waiting this long for their heads are closed (seconds).
SHED_AFTER_S = 0.5
#: How often running out of descriptors is said at most (seconds).
SAY_EVERY_S = 60.0
BUSY = b"the studio has as many connections open as it keeps, each answering: ask again in a moment"


def max_connections() -> int:
    """The connections the studio keeps open: its descriptor limit less :data:`RESERVED_FDS`,
    between :data:`LEAST_CONNECTIONS` and :data:`MOST_CONNECTIONS`."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    room = MOST_CONNECTIONS if soft == resource.RLIM_INFINITY else soft - RESERVED_FDS
    return max(LEAST_CONNECTIONS, min(MOST_CONNECTIONS, room))


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a timer on each request's head and the cap on connections."""

    cap = MOST_CONNECTIONS  # set by the server from max_connections()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.head_since: float | None = None
        self.head_timer: asyncio.TimerHandle | None = None
        self._watch_head()
        if len(self.connections) > self.cap and not self._make_room():
            transport.write(b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
                            b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(BUSY), BUSY))
            transport.close()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch_head()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch_head()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
        super().connection_lost(exc)

    def waiting_for_head(self) -> bool:
        return (self.cycle is None or self.cycle.response_complete) and self.conn.their_state in (h11.IDLE, h11.DONE)

    def _watch_head(self) -> None:
        """The head's timer started when the connection waits for a head, stopped when it has one."""
        if not self.waiting_for_head():
            self.head_since = None
            if self.head_timer is not None:
                self.head_timer.cancel()
                self.head_timer = None
        elif self.head_timer is None and not self.transport.is_closing():
            self.head_since = time.monotonic()
            self.head_timer = self.loop.call_later(HEAD_TIMEOUT_S, self._head_late)

    def _head_late(self) -> None:
        self.head_timer = None
        if self.waiting_for_head():
            self.transport.close()

    def _make_room(self) -> bool:
        """Close the oldest other connection waiting for its head; False when none does."""
        waiting = waiting_for_heads(self.connections, self)
        if not waiting:
            return False
        min(waiting, key=lambda c: c.head_since).transport.close()
        return True


def waiting_for_heads(connections: Any, but: Any = None, for_s: float = 0.0) -> list[GuardedH11]:
    """The open connections (but ``but``) waiting for a request's head for ``for_s`` seconds or more."""
    now = time.monotonic()
    return [c for c in connections if c is not but and getattr(c, "head_since", None) is not None
            and now - c.head_since >= for_s and not c.transport.is_closing()]


class Server(uvicorn.Server):
    """uvicorn's server whose loop says running out of descriptors once a minute, in one line."""

    said_at = -SAY_EVERY_S

    async def serve(self, sockets: Any = None) -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(self.handle)
        await super().serve(sockets)

    def handle(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if isinstance(error, ValueError) and "_start_serving" in repr(context.get("handle")):
            return  # accept's retry after running out, come after the stop closed the socket: nothing to serve
        if not (isinstance(error, OSError) and "out of system resource" in context.get("message", "")):
            loop.default_exception_handler(context)
            return
        for c in waiting_for_heads(self.server_state.connections, for_s=SHED_AFTER_S):  # room for those that ask
            c.transport.close()
        now = time.monotonic()
        if now - self.said_at >= SAY_EVERY_S:
            self.said_at = now
            print(f"studio: out of descriptors ({error.strerror}; the limit is "
                  f"{resource.getrlimit(resource.RLIMIT_NOFILE)[0]}): connections still sending their "
                  f"requests closed, new ones wait (said once a minute)", file=sys.stderr, flush=True)
