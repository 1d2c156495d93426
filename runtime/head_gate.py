"""Connections wait for their whole request head without a thread: slow clients cannot hold a
threaded server's slots.

A threaded HTTP server gives each connection a thread from its first byte;
with a cap on threads, 300 connections that send half a request and stop
held all 32 of the WAA server's, and a real client got 503 until they timed
out. Here one thread watches every new connection (a selector: an idle one
costs a file descriptor and its bytes so far) and hands it on only once its
request head has arrived (the blank line that ends the headers), when the
head grows past `MAX_HEAD` (the handler then refuses it), or never: a
connection whose head has not come within `HEAD_SECONDS` is closed, and so
is the oldest one waiting when `MAX_WAITING` are.
"""

from __future__ import annotations

import io
import logging
import re
import selectors
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["HEAD_SECONDS", "MAX_HEAD", "MAX_WAITING", "HeadGate", "Prefetched"]

HEAD_SECONDS = 10.0
MAX_HEAD = 64 * 1024
MAX_WAITING = 4096
_TICK = 0.25
_CONTENT_LENGTH = re.compile(rb"\ncontent-length:[ \t]*(\d{1,12})", re.IGNORECASE)

logger = logging.getLogger(__name__)


class HeadGate:
    """Watch accepted connections in a thread of its own; `ready(connection, address)` gets each
    whose request head has arrived (a `Prefetched` that reads the head again first)."""

    def __init__(self, ready: Callable[[Prefetched, Any], None], name: str = "http heads") -> None:
        self._ready = ready
        self._selector = selectors.DefaultSelector()
        self._waiting: dict[socket.socket, tuple[bytearray, float, Any]] = {}  # oldest first
        self._new: list[tuple[socket.socket, Any]] = []
        self._lock = threading.Lock()
        self._wake_read, self._wake_write = socket.socketpair()
        self._wake_read.setblocking(False)
        self._selector.register(self._wake_read, selectors.EVENT_READ)
        self._closing = False
        self._thread = threading.Thread(target=self._watch, name=name, daemon=True)
        self._thread.start()

    def add(self, connection: socket.socket, address: Any) -> None:
        with self._lock:
            self._new.append((connection, address))
        self._wake()

    def close(self) -> None:
        """Stop watching; the connections still waiting are closed."""
        self._closing = True
        self._wake()
        self._thread.join(timeout=5)
        self._wake_read.close()
        self._wake_write.close()

    def _wake(self) -> None:
        try:
            self._wake_write.send(b"x")
        except (BlockingIOError, OSError):
            pass  # a wake-up is pending already, or the gate is closed

    def _watch(self) -> None:
        try:
            while not self._closing:
                for key, _ in self._selector.select(_TICK):
                    if key.fileobj is self._wake_read:
                        self._drain_wakes()
                    else:
                        self._read(key.fileobj)
                self._take_new()
                self._expire(time.monotonic() - HEAD_SECONDS)
        finally:
            for connection in list(self._waiting):
                self._drop(connection)
            self._selector.close()

    def _drain_wakes(self) -> None:
        try:
            while self._wake_read.recv(4096):
                pass
        except (BlockingIOError, OSError):
            pass

    def _take_new(self) -> None:
        with self._lock:
            new, self._new = self._new, []
        for connection, address in new:
            if len(self._waiting) >= MAX_WAITING:
                self._drop(next(iter(self._waiting)))
            connection.setblocking(False)
            self._waiting[connection] = (bytearray(), time.monotonic(), address)
            self._selector.register(connection, selectors.EVENT_READ)

    def _read(self, connection: Any) -> None:
        head, _, address = self._waiting[connection]
        try:
            data = connection.recv(MAX_HEAD)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._drop(connection)
            return
        head += data
        if b"\r\n\r\n" in head or b"\n\n" in head or len(head) > MAX_HEAD:
            self._selector.unregister(connection)
            del self._waiting[connection]
            connection.setblocking(True)
            try:
                self._ready(Prefetched(connection, bytes(head)), address)
            except Exception:
                logger.warning("handing on a connection failed", exc_info=True)
                connection.close()

    def _expire(self, started_before: float) -> None:
        for connection, (_, started, _) in list(self._waiting.items()):
            if started >= started_before:
                break
            self._drop(connection)

    def _drop(self, connection: socket.socket) -> None:
        self._waiting.pop(connection, None)
        try:
            self._selector.unregister(connection)
        except (KeyError, ValueError):
            pass
        connection.close()


class Prefetched:
    """A connection whose first bytes were read already: `makefile("rb")` reads them first;
    everything else is the socket's."""

    def __init__(self, connection: socket.socket, head: bytes) -> None:
        self._connection = connection
        self._head = head
        found = _CONTENT_LENGTH.search(head)
        self.content_length = int(found.group(1)) if found else 0
        """The body's length as the head declares it (0 if it does not)."""

    def makefile(self, mode: str = "r", buffering: int = -1, **kwargs: Any) -> Any:
        if mode == "rb":
            return io.BufferedReader(_HeadFirst(self._connection, self._head))
        return self._connection.makefile(mode, buffering, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)


class _HeadFirst(io.RawIOBase):
    def __init__(self, connection: socket.socket, head: bytes) -> None:
        self._connection = connection
        self._head = memoryview(head)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._head:
            count = min(len(buffer), len(self._head))
            buffer[:count] = self._head[:count]
            self._head = self._head[count:]
            return count
        return self._connection.recv_into(buffer)
