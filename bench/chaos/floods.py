"""Connection floods against a port on 127.0.0.1, bounded in count and in time.

A flood is what an outsider with no token can do to a node or a viewer: open
many TCP connections and leave them idle, then knock with websocket
handshakes carrying a wrong token. Both loops stop by themselves (a fixed
number of connections and handshakes, a deadline, a timeout on every
socket), so a flood can never outlive its fault.
"""

from __future__ import annotations

import base64
import os
import resource
import socket
import time

import msgspec

__all__ = ["MOST", "Flood", "FloodOutcome", "flood", "refuses_wrong_token"]

_HOST = "127.0.0.1"
MOST = 10_000
"""Connections, and handshakes, one flood may make: enough to pass the common limit of 1,024
open files, few enough that the flooding process itself stays within an ordinary limit."""


class Flood(msgspec.Struct, frozen=True):
    """How hard a flood hits: `connections` idle connections held `hold` seconds, then
    `handshakes` websocket upgrades with a wrong token, all within `deadline` seconds."""

    connections: int = 200
    hold: float = 3.0
    handshakes: int = 50
    deadline: float = 20.0

    def __post_init__(self) -> None:
        for name in ("connections", "handshakes"):
            if not 0 <= getattr(self, name) <= MOST:
                raise ValueError(f"a flood's {name} must be from 0 to {MOST}, not {getattr(self, name)}")
        for name in ("hold", "deadline"):
            value = getattr(self, name)
            if not 0 <= value < float("inf"):
                raise ValueError(f"a flood's {name} must be a finite number of seconds >= 0, not {value}")


class FloodOutcome(msgspec.Struct, frozen=True):
    """What the port did: connections it accepted, handshakes it refused with 401, and the rest."""

    port: int
    opened: int = 0
    not_opened: int = 0
    refused: int = 0
    """Wrong-token handshakes answered 401, as they should be."""
    other_answers: int = 0
    """Wrong-token handshakes answered anything but 401 (an upgrade would be a hole)."""
    unanswered: int = 0
    """Handshakes that got no status line: the connection failed, closed or timed out."""
    listening_after: bool = True
    """Whether the port still took a connection after the flood (False: its process went away,
    killed by another fault or by the flood itself)."""

    @property
    def reached(self) -> int:
        """Handshakes a live process answered: what the flood really put to the port."""
        return self.refused + self.other_answers


def flood(port: int, settings: Flood = Flood()) -> FloodOutcome:
    """Flood `127.0.0.1:port` once, as `settings` says, and report what it answered."""
    stop = time.monotonic() + settings.deadline
    _allow_open_files(settings.connections + 64)
    idle: list[socket.socket] = []
    not_opened = 0
    try:
        for _ in range(settings.connections):
            if time.monotonic() >= stop:
                break
            try:
                idle.append(socket.create_connection((_HOST, port), timeout=_left(stop)))
            except OSError:
                not_opened += 1
        time.sleep(min(settings.hold, _left(stop)))
    finally:
        for connection in idle:
            connection.close()
    answers = [_wrong_token_handshake(port, stop) for _ in range(settings.handshakes) if time.monotonic() < stop]
    return FloodOutcome(
        port=port, opened=len(idle), not_opened=not_opened,
        refused=answers.count(401), unanswered=answers.count(None),
        other_answers=sum(1 for status in answers if status not in (401, None)),
        listening_after=_listening(port),
    )


def _listening(port: int) -> bool:
    try:
        socket.create_connection((_HOST, port), timeout=2.0).close()
    except OSError:
        return False
    return True


def refuses_wrong_token(port: int, seconds: float = 5.0) -> bool:
    """Whether `port` is a troupe websocket server with a token: one wrong-token upgrade gets 401.
    (A node also listens for other things, such as the MiniWoB page server.)"""
    return _wrong_token_handshake(port, time.monotonic() + seconds) == 401


def _allow_open_files(wanted: int) -> None:
    """Raise this process's soft limit of open files towards `wanted` (never past the hard
    limit), so the flood tests the target's limit rather than the flooder's."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        ceiling = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, ceiling), hard))


def _left(stop: float) -> float:
    return max(0.05, min(5.0, stop - time.monotonic()))


def _wrong_token_handshake(port: int, stop: float) -> int | None:
    """The HTTP status a websocket upgrade with a wrong bearer token gets, or None."""
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET / HTTP/1.1\r\nHost: {_HOST}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        "Authorization: Bearer not-the-token\r\n\r\n"
    ).encode()
    try:
        with socket.create_connection((_HOST, port), timeout=_left(stop)) as connection:
            connection.sendall(request)
            status_line = connection.makefile("rb").readline(200)
    except OSError:
        return None
    parts = status_line.split()
    return int(parts[1]) if len(parts) >= 2 and parts[1].isdigit() else None
