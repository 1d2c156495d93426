"""A task kept beside its owner's to run calls one at a time, each begun and finished by the owner.

The Observer captures the tree and the details alongside the screenshot, at
every step. Two new tasks in a task group opened for each capture, with a
cancel scope for the tree's time limit, would cost a sixth of the runtime's
CPU per step on trio and a tenth on asyncio (docs/performance.md). A side
task is made once, for as long as its owner serves (`Actor.lifetime`): a call
costs two wake-ups, and its deadline is an entry in the loop's heap of
deadlines. A call past its deadline is cancelled through the side task's
cancel scope, which lasts until it is used: only a cancellation makes another.

    tree = SideTask.in_group(group, name="tree")
    tree.begin(capture_tree)
    ...                                       # the owner's own work meanwhile
    finished = await tree.finish(deadline)    # False: cancelled at the deadline

The owner begins a call, finishes it, and cancels it if it leaves before the
call finished (`cancel`, a no-op once it has): whatever happens, no call of a
side task outlives the owner's wish for it.
"""

from __future__ import annotations

import math
from typing import Awaitable, Callable

from runtime.loop import CancelScope, TaskGroup, Waiter, cancel_scope, wakeup_factory

__all__ = ["SideTask"]


class SideTask:
    __slots__ = ("name", "_make", "_begun", "_call", "_running", "_ended", "_error", "_scope", "_closed")

    def __init__(self, name: str) -> None:
        self.name = name
        self._make = wakeup_factory()
        self._begun = Waiter(self._make)  # the side task waits here for a call
        self._call: Callable[[], Awaitable[object]] | None = None  # begun, not yet taken by the side task
        self._running = False  # from `begin` until the call has ended, however it ended
        self._ended = self._make()
        self._error: Exception | None = None
        self._scope: CancelScope  # the one the side task runs calls in: its own, made anew once used
        self._closed = False

    @classmethod
    def in_group(cls, group: TaskGroup, *, name: str) -> SideTask:
        """A side task running in `group` (its owner's), until `close` or the group's end."""
        side = cls(name)
        group.start_soon(side._serve, name=name)
        return side

    def begin(self, call: Callable[[], Awaitable[object]]) -> None:
        """Have the side task run `call()` as soon as the owner waits for anything."""
        if self._running:
            raise RuntimeError(f"side task {self.name!r}: a call is still running")
        if self._closed:
            raise RuntimeError(f"side task {self.name!r} is closed")
        self._call, self._error, self._running = call, None, True
        self._ended = self._make()
        self._begun.wake()

    async def finish(self, deadline: float = math.inf) -> bool:
        """Wait until the call begun has ended and raise what it raised: True; or, when the
        loop's clock reaches `deadline` first, cancel it and wait for it to end: False."""
        if self._running and not await self._ended.wait(deadline) and self._running:
            await self.cancel()
            return False
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        return True

    async def cancel(self) -> None:
        """Withdraw the call begun if the side task has not taken it yet, or cancel it if it
        still runs and return once it has ended (shielded: an owner cancelled meanwhile still
        waits for its side task's call to end)."""
        if self._call is not None:
            self._call, self._running = None, False
        elif self._running:  # taken: the side task runs it in its scope
            self._ended = self._make()
            self._scope.cancel()
            with cancel_scope(shield=True):
                await self._ended.wait()
            self._error = None  # what a cancelled call raised on its way out is nobody's answer

    def close(self) -> None:
        """End the side task once no call runs (an owner that leaves cancels its call first)."""
        self._closed = True
        self._begun.wake()

    async def _serve(self) -> None:
        while True:
            with cancel_scope() as self._scope:  # left only when `cancel` cancelled it
                while True:
                    while self._call is None:
                        if self._closed:
                            return
                        await self._begun.wait()
                    call, self._call = self._call, None
                    try:
                        await call()
                    except Exception as error:
                        self._error = error
                    finally:
                        self._running = False
                        self._ended.set()
