"""Small HTTP servers on 127.0.0.1, each served by a thread its owner starts and stops.

The WAA Linux server, the MiniWoB page server and the test stand-ins (a
WAA VM, a chat-completions API) answer plain HTTP whose work blocks: a
desktop's xdotool, a file read, a scripted delay. The standard library's
threaded server suits them; this module is the one place that binds it to
loopback, gives it a backlog that does not drop connections when many
episodes call at once (the default of 5 does, and a dropped SYN costs a 1 s
retransmit), and stops it without leaving its thread behind.

The viewer answers its page on its websocket's port instead, over anyio
(`runtime.websocket.serve(http=...)`): one port, the run's own event loop.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from runtime.head_gate import HeadGate

__all__ = ["LARGE_BODY", "LARGE_WAIT", "LoopbackHTTPServer", "QuietHandler", "send_reply"]

logger = logging.getLogger(__name__)

LARGE_BODY = 64 * 1024
"""A body over this many bytes makes a large request (`max_large`)."""
LARGE_WAIT = 60.0
"""Seconds a large request waits for its turn before it is answered 503."""
_POLL_SECONDS = 0.1
"""How often the serving thread looks for `close`: the longest a close waits for it."""


class LoopbackHTTPServer:
    """A threaded HTTP server on 127.0.0.1 (`port` 0: any free port); `start`, then `close`.

    Also a context manager that starts on entry and closes on exit. A connection is given a
    thread only once its request head has arrived (`runtime.head_gate`: slow clients hold no
    thread). With `max_connections`, at most that many connections are served at once; another
    is answered 503 and closed at once rather than given a thread of its own. With `max_large`,
    at most that many requests whose body is over `LARGE_BODY` are handled at once (the rest
    wait their turn before their body is read, up to `LARGE_WAIT` seconds, then get 503): what a
    handler makes of a large body (a parse tree hundreds of times its size) is then bounded too.
    """

    def __init__(self, handler: Callable[..., BaseHTTPRequestHandler], *, port: int = 0, name: str = "http",
                 backlog: int = 256, max_connections: int | None = None, max_large: int | None = None) -> None:
        server = _ThreadingServer(("127.0.0.1", port), handler, max_connections, max_large)
        server.request_queue_size = backlog
        try:
            server.server_bind()
            server.server_activate()
        except BaseException:
            server.server_close()
            raise
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": _POLL_SECONDS},
                                        name=name, daemon=True)

    @property
    def port(self) -> int:
        return self._server.server_port

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> LoopbackHTTPServer:
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving, release the port, and wait for the serving thread."""
        if self._thread.is_alive():
            self._server.shutdown()
            self._thread.join(timeout=5)
        self._server.server_close()

    def __enter__(self) -> LoopbackHTTPServer:
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


class _ThreadingServer(ThreadingHTTPServer):
    """ThreadingHTTPServer with an optional cap on the handler threads alive at once."""

    daemon_threads = True  # a request still running never holds up the process's exit

    def __init__(self, address: tuple[str, int], handler: Callable[..., BaseHTTPRequestHandler],
                 max_connections: int | None, max_large: int | None) -> None:
        super().__init__(address, handler, bind_and_activate=False)
        self._slots = threading.BoundedSemaphore(max_connections) if max_connections else None
        self._large = threading.BoundedSemaphore(max_large) if max_large else None
        self._heads: HeadGate | None = None

    def process_request(self, request: Any, client_address: Any) -> None:
        """A connection gets a thread (and a slot) once its request head has arrived (`runtime.head_gate`)."""
        if self._heads is None:
            self._heads = HeadGate(self._head_arrived)
        self._heads.add(request, client_address)

    def _head_arrived(self, request: Any, client_address: Any) -> None:
        if self._slots is not None and not self._slots.acquire(blocking=False):
            _answer_busy(request)
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def server_close(self) -> None:
        if self._heads is not None:
            self._heads.close()
        super().server_close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client gone mid-request (a browser killed, a context closed while its page loaded)
        is part of a run, not an error; any other failure is logged, not printed to stderr
        (the standard library's default) between a run's lines."""
        if isinstance(sys.exc_info()[1], (ConnectionResetError, ConnectionAbortedError, BrokenPipeError)):
            return
        logger.warning("a request from %s:%s failed", *client_address[:2], exc_info=True)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        large = self._large is not None and request.content_length > LARGE_BODY
        try:
            if large and not self._large.acquire(timeout=LARGE_WAIT):
                _answer_busy(request)
                self.shutdown_request(request)
                return
            try:
                super().process_request_thread(request, client_address)
            finally:
                if large:
                    self._large.release()
        finally:
            if self._slots is not None:
                self._slots.release()


_BUSY = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


def _answer_busy(request: Any) -> None:
    """Tell a connection over the cap so, without waiting on it: it may not be reading."""
    try:
        request.settimeout(0)
        request.send(_BUSY)
    except OSError:
        pass


class QuietHandler(BaseHTTPRequestHandler):
    """A handler that logs nothing: a run makes thousands of requests, and tests read what they record."""

    def log_message(self, format: str, *args: Any) -> None:
        pass


def send_reply(handler: BaseHTTPRequestHandler, status: int, content_type: str, body: bytes,
               headers: Iterable[tuple[str, str]] = ()) -> None:
    """Send one whole response: status, content type and length, any other `headers`, the body."""
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    for name, value in headers:
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)
