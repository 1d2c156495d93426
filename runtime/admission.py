"""Who a server lets in, and how much they may hold: no flood takes it down.

Three bounds, each against an outsider (or a broken peer) on the same host:

- `accept_forever` survives accept errors: anyio's `listener.serve` ends on
  the first one, and running out of open files (EMFILE, 1,100 idle
  connections under the common limit of 1,024) then stopped a node for
  good. An accept error is logged and retried after a capped backoff; the
  connections already open go on.
- `Admission.max_pending` caps connections that have not finished their
  handshake (and so proved nothing, not even a token). A connection past the
  cap evicts the oldest unfinished one, not itself: slow connections that
  dribble their handshake cannot keep a client that completes its own at
  once out (with the newest refused instead, 64 of them kept every real
  client out until they timed out). The server's handshake timeout bounds
  how long each of them may stay.
- `Admission.max_buffered` caps the bytes all of a server's connections hold
  in unfinished or unread messages together. `max_size` bounds one message,
  not eight connections each holding 31 MiB of a frame; the connection whose
  bytes go past the budget is closed with 1009.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import anyio
from anyio import CancelScope
from anyio.abc import Listener, SocketStream, TaskGroup

from runtime.backoff import Backoff

__all__ = ["ACCEPT_BACKOFF", "Admission", "accept_forever"]

ACCEPT_BACKOFF = Backoff(initial=0.05, maximum=1.0)
"""Pause after consecutive accept errors: out of file descriptors, retrying at once only spins."""

_logger = logging.getLogger(__name__)


class Admission:
    """The bounds one server applies to all its connections together."""

    def __init__(self, *, max_pending: int, max_buffered: int) -> None:
        for name, value in (("max_pending", max_pending), ("max_buffered", max_buffered)):
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"{name} must be a positive whole number, got {value!r}")
        self.max_pending = max_pending
        self.max_buffered = max_buffered
        self.evicted = 0
        self._pending: dict[object, CancelScope | None] = {}  # oldest first; None until its handshake starts
        self._held: dict[int, int] = {}
        self.buffered = 0

    @property
    def pending(self) -> int:
        return len(self._pending)

    def admit(self, connection: object) -> None:
        """Count `connection` as one in its handshake; at the cap, the oldest such one is evicted."""
        if len(self._pending) >= self.max_pending:
            oldest = next(iter(self._pending))
            scope = self._pending.pop(oldest)
            if scope is not None:
                scope.cancel()
            self.evicted += 1
            if self.evicted == 1 or self.evicted % 100 == 0:
                _logger.warning("%d connections still in their handshake: closed the oldest (%d so far)",
                                self.max_pending, self.evicted)
        self._pending[connection] = None

    def handshaking(self, connection: object, scope: CancelScope) -> None:
        """`connection`'s handshake runs in `scope`, which eviction cancels (at once, if it was evicted
        before its handshake started)."""
        if connection in self._pending:
            self._pending[connection] = scope
        else:
            scope.cancel()

    def handshake_over(self, connection: object) -> None:
        self._pending.pop(connection, None)

    def hold(self, connection: object, size: int) -> bool:
        """Record that `connection` now holds `size` bytes; False if that overruns the budget."""
        key = id(connection)
        self.buffered += size - self._held.get(key, 0)
        if size:
            self._held[key] = size
        else:
            self._held.pop(key, None)
        return self.buffered <= self.max_buffered


async def accept_forever(
    listener: Listener[SocketStream],
    handle: Callable[[SocketStream], Awaitable[None]],
    task_group: TaskGroup,
    admission: Admission,
) -> None:
    """Accept connections until cancelled, each handled in `task_group`; see the module docstring."""
    failures = 0
    while True:
        try:
            stream = await listener.accept()
        except (OSError, anyio.BrokenResourceError) as exc:
            failures += 1
            delay = ACCEPT_BACKOFF.delay(failures)
            cause = exc.__cause__ if isinstance(exc, anyio.BrokenResourceError) and exc.__cause__ else exc
            _logger.warning("accepting a connection failed (%s: %s); retrying in %.2f s", type(cause).__name__, cause, delay)
            await anyio.sleep(delay)
            continue
        failures = 0
        admission.admit(stream)
        task_group.start_soon(handle, stream)
