"""Actors: a mailbox, a handler, and a life owned by a task group.

An actor handles one message at a time from a bounded mailbox (an anyio
memory object stream). Callers hold a reference and either `tell` (fire and
forget; waits only while the mailbox is full, which is the backpressure) or
`ask` (wait for the reply, with a timeout). Nothing runs without an owner:
`spawn` starts the actor in a task group the caller provides, and the actor
ends when that group is cancelled or when its handler raises.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import anyio
from anyio.abc import TaskGroup, TaskStatus
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from runtime.errors import ActorCrashed, ActorStopped, CallTimeout, Refused, RequestRefused, describe

__all__ = ["Actor", "LocalRef", "Ref", "run_actor", "spawn"]


class Actor:
    """Subclass and implement `handle`; its return value is the reply to an ask.

    Raise `Refused` to reject one request and go on; any other exception
    crashes the actor, fails every request still in its mailbox, and
    propagates to whoever owns it (normally a Supervisor).
    """

    mailbox_size: int = 64
    shutdown_timeout: float = 5.0

    def __init__(self, name: str | None = None) -> None:
        self.name = name or type(self).__name__

    async def on_start(self) -> None:
        """Acquire resources before the first message is handled."""

    async def on_stop(self) -> None:
        """Release resources; runs shielded, bounded by `shutdown_timeout`."""

    async def handle(self, message: Any) -> Any:
        raise NotImplementedError


class Ref(Protocol):
    """What callers hold: a local mailbox, a remote actor, or a supervised child."""

    name: str

    async def tell(self, message: Any) -> None: ...

    async def ask(self, message: Any, timeout: float = math.inf) -> Any: ...


class _Letter:
    """A message in a mailbox, with the slot its reply goes to (asks only)."""

    __slots__ = ("message", "_done", "_value", "_error")

    def __init__(self, message: Any, wants_reply: bool) -> None:
        self.message = message
        self._done = anyio.Event() if wants_reply else None
        self._value: Any = None
        self._error: BaseException | None = None

    def resolve(self, value: Any) -> None:
        if self._done is not None and not self._done.is_set():
            self._value = value
            self._done.set()

    def fail(self, error: BaseException) -> None:
        if self._done is not None and not self._done.is_set():
            self._error = error
            self._done.set()

    async def reply(self) -> Any:
        assert self._done is not None
        await self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value


class LocalRef:
    """A reference to an actor in this process."""

    def __init__(self, name: str, send: MemoryObjectSendStream[_Letter]) -> None:
        self.name = name
        self._send = send

    async def tell(self, message: Any) -> None:
        await self._post(_Letter(message, wants_reply=False))

    async def ask(self, message: Any, timeout: float = math.inf) -> Any:
        letter = _Letter(message, wants_reply=True)
        if timeout == math.inf:  # the common case in hot loops: no cancel scope to set up
            await self._post(letter)
            return await letter.reply()
        with anyio.move_on_after(timeout):
            await self._post(letter)
            return await letter.reply()
        letter.fail(ActorStopped(self.name, "caller gave up"))
        raise CallTimeout(self.name, type(message).__name__, timeout)

    async def _post(self, letter: _Letter) -> None:
        try:
            await self._send.send(letter)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            raise ActorStopped(self.name, "not running") from None


async def run_actor(
    actor: Actor,
    *,
    task_status: TaskStatus[LocalRef] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Run `actor` until cancelled or crashed; report its ref once it has started."""
    send, receive = anyio.create_memory_object_stream[_Letter](actor.mailbox_size)
    async with send, receive:
        try:
            await actor.on_start()
            task_status.started(LocalRef(actor.name, send))
            await _serve(actor, receive)
        finally:
            send.close()
            _fail_pending(actor.name, receive)
            with anyio.CancelScope(shield=True), anyio.move_on_after(actor.shutdown_timeout):
                await actor.on_stop()


async def _serve(actor: Actor, receive: MemoryObjectReceiveStream[_Letter]) -> None:
    async for letter in receive:
        try:
            reply = await actor.handle(letter.message)
        except Refused as exc:
            letter.fail(RequestRefused(actor.name, str(exc)))
            continue
        except BaseException as exc:
            letter.fail(ActorCrashed(actor.name, describe(exc)))
            raise
        letter.resolve(reply)


def _fail_pending(name: str, receive: MemoryObjectReceiveStream[_Letter]) -> None:
    while True:
        try:
            letter = receive.receive_nowait()
        except (anyio.WouldBlock, anyio.EndOfStream, anyio.ClosedResourceError):
            return
        letter.fail(ActorCrashed(name, "stopped before handling the request"))


async def spawn(task_group: TaskGroup, actor: Actor) -> LocalRef:
    """Start `actor` in `task_group` (its owner) and return its ref once started."""
    return await task_group.start(run_actor, actor)
