"""An event bus that never slows the publisher.

`publish` is synchronous and O(subscribers): it appends to each
subscriber's bounded queue and returns. A subscriber that falls behind loses
its *oldest* events (the newest state is what a viewer wants) and the loss is
counted, so it can tell its user how many it missed.
"""

from __future__ import annotations

from collections import deque
from contextlib import contextmanager
from typing import Any, Iterator

import anyio

__all__ = ["EventBus", "Subscription"]


class Subscription:
    def __init__(self, maxlen: int) -> None:
        if maxlen < 1:
            raise ValueError(f"a subscription needs room for at least 1 event, got {maxlen}")
        self._queue: deque[Any] = deque(maxlen=maxlen)
        self._wakeup = anyio.Event()
        self._closed = False
        self.dropped = 0
        self._dropped_reported = 0

    def _push(self, event: Any) -> None:
        if len(self._queue) == self._queue.maxlen:
            self.dropped += 1
        self._queue.append(event)
        self._wakeup.set()

    def _close(self) -> None:
        self._closed = True
        self._wakeup.set()

    def discard(self) -> int:
        """Drop every queued event and return how many: for a reader that is about
        to resynchronize from a snapshot newer than all of them."""
        count = len(self._queue)
        self._queue.clear()
        return count

    def take_dropped(self) -> int:
        """How many events were dropped since the last call."""
        count = self.dropped - self._dropped_reported
        self._dropped_reported = self.dropped
        return count

    async def receive(self) -> Any:
        while not self._queue:
            if self._closed:
                raise anyio.EndOfStream
            await self._wakeup.wait()
            self._wakeup = anyio.Event()
        return self._queue.popleft()

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class EventBus:
    def __init__(self) -> None:
        self._subscriptions: list[Subscription] = []
        self.published = 0

    def publish(self, event: Any) -> None:
        self.published += 1
        for subscription in self._subscriptions:
            subscription._push(event)

    @contextmanager
    def subscribe(self, maxlen: int = 1024) -> Iterator[Subscription]:
        """Receive every event published while the block runs (bounded, oldest dropped)."""
        subscription = Subscription(maxlen)
        self._subscriptions.append(subscription)
        try:
            yield subscription
        finally:
            self._subscriptions.remove(subscription)

    def close(self) -> None:
        """End every subscriber's iteration once it has drained its queue."""
        for subscription in self._subscriptions:
            subscription._close()
