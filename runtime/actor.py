"""Actors: a mailbox, a handler, and a life owned by a task group.

An actor handles one message at a time from a bounded mailbox. Callers hold a reference and either `tell` (fire and
forget; waits only while the mailbox is full, which is the backpressure) or
`ask` (wait for the reply, with a timeout). Nothing runs without an owner:
`spawn` starts the actor in a task group the caller provides, and the actor
ends when that group is cancelled or when its handler raises.
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections import deque
from typing import Any, AsyncContextManager, Callable, Protocol

import anyio
import anyio.lowlevel
from anyio.abc import TaskStatus

from runtime.errors import ActorCrashed, ActorStopped, CallTimeout, Refused, RequestRefused, describe
from runtime.loop import TaskGroup, Waiter, Wakeup, cancel_scope_at, loop_clock, start, wakeup_factory

__all__ = ["Actor", "LocalRef", "Ref", "Then", "ask_soon", "run_actor", "spawn"]

logger = logging.getLogger(__name__)


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

    def lifetime(self) -> AsyncContextManager[object]:
        """What the actor holds open while it lives, entered before `on_start` and left after
        `on_stop`: say, a task group for tasks that live as long as it (the Observer's side
        captures). Cancelling the actor cancels what runs in there too."""
        return contextlib.nullcontext()

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
    """A message in a mailbox, with the wake-up its reply comes with (asks only)."""

    __slots__ = ("message", "_replied", "_settled", "_value", "_error")

    def __init__(self, message: Any, replied: Wakeup | None) -> None:
        self.message = message
        self._replied = replied
        self._settled = False
        self._value: Any = None
        self._error: BaseException | None = None

    def resolve(self, value: Any) -> None:
        if self._replied is not None and not self._settled:
            self._settled = True
            self._value = value
            self._replied.set()

    def fail(self, error: BaseException) -> None:
        if self._replied is not None and not self._settled:
            self._settled = True
            self._error = error
            self._replied.set()

    async def reply(self, deadline: float = math.inf) -> Any:
        """The reply; raises CallTimeout's stand-in `_NoReply` when `deadline` passes first."""
        assert self._replied is not None
        if not await self._replied.wait(deadline):
            raise _NoReply
        if self._error is not None:
            raise self._error
        return self._value


Then = Callable[[Any, BaseException | None], None]
"""Takes an ask's reply, or the error it failed with (then the reply is None): `LocalRef.ask_soon`."""


class _LetterThen(_Letter):
    """A letter whose reply is handed to a function, in the task that settles it (the actor's,
    as a rule), instead of waking a caller that waits."""

    __slots__ = ("_then",)

    def __init__(self, message: Any, then: Then) -> None:
        super().__init__(message, None)
        self._then = then

    def resolve(self, value: Any) -> None:
        self._settle(value, None)

    def fail(self, error: BaseException) -> None:
        self._settle(None, error)

    def _settle(self, value: Any, error: BaseException | None) -> None:
        if self._settled:
            return
        self._settled = True
        try:
            self._then(value, error)
        except Exception:  # the caller's bug, not the actor's: it must not crash the actor
            logger.exception("the reply function of a %s ask raised", type(self.message).__name__)


class _NoReply(Exception):
    """The caller's deadline passed before the reply came."""


class _Mailbox:
    """A bounded FIFO of letters with one reader, the actor.

    What an anyio memory object stream does, minus what an actor's hot path
    does not need: it yields to the event loop on every send and every
    receive even when nobody has to wait, which measured as two extra
    scheduling rounds per ask. Here a post into a mailbox with room returns at
    once (an ask then waits for its reply, a real suspension), and the actor
    waits only when its mailbox is empty; when it is not, it still yields
    between letters, so a busy actor cannot starve the others. The waits
    are `runtime.loop`'s, the loop's own primitives.
    """

    __slots__ = ("name", "size", "wakeup", "clock", "_letters", "_arrived", "_room", "_open")

    def __init__(self, name: str, size: int) -> None:
        self.name = name
        self.size = size
        self.wakeup = wakeup_factory()
        self.clock = loop_clock()
        self._letters: deque[_Letter] = deque()
        self._arrived = Waiter(self.wakeup)  # the actor waits for a letter
        self._room: anyio.Event | None = None  # senders wait for room (any number of them)
        self._open = True

    def post_nowait(self, letter: _Letter) -> bool:
        """Queue `letter` if there is room; False if the mailbox is full."""
        if not self._open:
            raise ActorStopped(self.name, "not running")
        if len(self._letters) >= self.size:
            return False
        self._letters.append(letter)
        self._arrived.wake()
        return True

    async def post(self, letter: _Letter) -> None:
        """Queue `letter`, waiting while the mailbox is full (backpressure)."""
        while not self.post_nowait(letter):
            if self._room is None:
                self._room = anyio.Event()
            await self._room.wait()

    async def take(self) -> _Letter | None:
        """The next letter; None once the mailbox was closed while the actor waited (`close_if_idle`)."""
        if self._letters:
            await anyio.lowlevel.checkpoint()
        while not self._letters:
            if not self._open:
                return None
            await self._arrived.wait()
        letter = self._letters.popleft()
        if self._room is not None:
            self._room.set()
            self._room = None
        return letter

    @property
    def idle(self) -> bool:
        """The actor waits for a letter and none has come."""
        return self._arrived.waiting and not self._letters and self._open

    def close_if_idle(self) -> bool:
        """Close the mailbox if the actor waits for a letter, and wake it to end; False if it is busy."""
        if not self.idle:
            return False
        self._open = False
        self._arrived.wake()
        return True

    def close(self) -> list[_Letter]:
        """Refuse new letters, wake the senders waiting for room, and hand back the queued letters."""
        self._open = False
        if self._room is not None:
            self._room.set()
            self._room = None
        letters = list(self._letters)
        self._letters.clear()
        return letters


class LocalRef:
    """A reference to an actor in this process."""

    def __init__(self, name: str, mailbox: _Mailbox) -> None:
        self.name = name
        self._mailbox = mailbox

    def close_if_idle(self) -> bool:
        """End the actor at once, without cancelling it, if it waits for a letter; False if it is busy.

        What a supervisor tries before cancelling a child it stops: an idle
        actor has nothing to interrupt, and delivering a cancellation through
        its task's scopes cost more than the rest of a short-lived actor's life
        (bench/perf/pipeline)."""
        return self._mailbox.close_if_idle()

    @property
    def idle(self) -> bool:
        """The actor waits for a letter and none has come: `close_if_idle` would end it."""
        return self._mailbox.idle

    async def tell(self, message: Any) -> None:
        letter = _Letter(message, None)
        if not self._mailbox.post_nowait(letter):
            await self._mailbox.post(letter)

    async def ask(self, message: Any, timeout: float = math.inf) -> Any:
        """The common case, room in the mailbox, sets up no cancel scope: the
        deadline is the reply's wake-up's own."""
        letter = _Letter(message, self._mailbox.wakeup())
        try:
            if self._mailbox.post_nowait(letter):
                return await letter.reply(self._mailbox.clock() + timeout if timeout != math.inf else math.inf)
            with cancel_scope_at(self._mailbox.clock() + timeout):
                await self._mailbox.post(letter)
                return await letter.reply()
        except _NoReply:
            pass
        letter.fail(ActorStopped(self.name, "caller gave up"))
        raise CallTimeout(self.name, type(message).__name__, timeout)

    def ask_soon(self, message: Any, then: Then) -> bool:
        """Post an ask and return at once: `then(reply, error)` is called once it is answered or
        has failed, in the task that settles it (the actor's, as a rule), so it must not block;
        what it raises is logged. False if the mailbox is full or closed: nothing was posted.

        For a caller with nothing to do while it waits: a task parked on the reply costs two
        task switches per ask: ~8% of the runtime's CPU per step on trio for an episode's
        change summaries (bench/perf/pipeline). No time limit: the caller keeps its own."""
        try:
            return self._mailbox.post_nowait(_LetterThen(message, then))
        except ActorStopped:
            return False


def ask_soon(ref: Ref, message: Any, then: Then) -> bool:
    """`ref.ask_soon(message, then)` if `ref` can take an ask so (a `LocalRef`, a supervised
    child's while it runs); False if it cannot, or not now: nothing was posted, ask it the usual way."""
    method = getattr(ref, "ask_soon", None)
    return method is not None and method(message, then)


async def run_actor(
    actor: Actor,
    *,
    task_status: TaskStatus[LocalRef] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Run `actor` until cancelled or crashed; report its ref once it has started."""
    await _run(actor, _Mailbox(actor.name, actor.mailbox_size), task_status)


async def _run(actor: Actor, mailbox: _Mailbox, task_status: TaskStatus[LocalRef]) -> None:
    try:
        async with actor.lifetime():
            await _live(actor, mailbox, task_status)
    finally:
        _refuse_queued(actor, mailbox)  # a lifetime that failed to open never reached _live's


async def _live(actor: Actor, mailbox: _Mailbox, task_status: TaskStatus[LocalRef]) -> None:
    try:
        await actor.on_start()
        task_status.started(LocalRef(actor.name, mailbox))
        await _serve(actor, mailbox)
    finally:
        _refuse_queued(actor, mailbox)  # before on_stop: its callers need not wait for it
        if type(actor).on_stop is not Actor.on_stop:  # two cancel scopes are a cost worth skipping for nothing
            with anyio.CancelScope(shield=True), anyio.move_on_after(actor.shutdown_timeout):
                await actor.on_stop()


def _refuse_queued(actor: Actor, mailbox: _Mailbox) -> None:
    """Close the mailbox and fail the letters in it (once: a closed mailbox hands back none)."""
    for letter in mailbox.close():
        letter.fail(ActorCrashed(actor.name, "stopped before handling the request"))


async def _serve(actor: Actor, mailbox: _Mailbox) -> None:
    while True:
        letter = await mailbox.take()
        if letter is None:
            return
        try:
            reply = await actor.handle(letter.message)
        except Refused as exc:
            refused = RequestRefused(actor.name, str(exc))
            refused.__cause__ = exc  # what the handler's code raised stays reachable for the caller's record
            letter.fail(refused)
            continue
        except BaseException as exc:
            _refuse_queued(actor, mailbox)  # first: a reply function must not post into a mailbox nobody reads
            letter.fail(ActorCrashed(actor.name, describe(exc)))
            raise
        letter.resolve(reply)


async def spawn(task_group: TaskGroup, actor: Actor) -> LocalRef:
    """Start `actor` in `task_group` (its owner) and return its ref once started.

    An actor without an `on_start` has nothing to do, or to fail, before it is
    started: its mailbox is made here and its loop runs as a plain task (a
    `TaskGroup.start`, which waits for the task to report, costs twice as much)."""
    if type(actor).on_start is Actor.on_start:
        mailbox = _Mailbox(actor.name, actor.mailbox_size)
        task_group.start_soon(_run, actor, mailbox, anyio.TASK_STATUS_IGNORED)
        return LocalRef(actor.name, mailbox)
    return await start(task_group, run_actor, actor)
