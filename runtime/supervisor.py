"""Supervision after Erlang/OTP: restart what failed, and give up loudly when that does not help.

A `Supervisor` owns its children: each one runs as a task in the supervisor's
task group, inside a cancel scope of its own. When a child ends, its restart
type (permanent, transient, temporary) says whether it comes back, and the
strategy (one_for_one, one_for_all, rest_for_one) says which siblings go down
and come back with it. Restarts of a child back off exponentially, and when
restarts come faster than the supervisor's intensity allows, it stops
everything and raises `RestartIntensityExceeded`: a supervisor that is itself
a child then crashes in its parent, which decides in turn. A failure is never
retried forever and never swallowed.

One task decides everything: `run` handles exits and `restart` requests one at
a time, in the order they arrived, so no two restarts ever interleave. While
it backs off or waits for a child to start, whatever else happens queues up.
"""

from __future__ import annotations

import enum
import logging
import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Sequence, TypeVar

import anyio
from anyio.abc import TaskStatus

from runtime.actor import Actor, LocalRef, Ref, Then, ask_soon, run_actor
from runtime.backoff import Backoff
from runtime.errors import ActorStopped, CallTimeout, RestartIntensityExceeded, TroupeError, describe
from runtime.loop import CancelScope, TaskGroup, Waiter, Wakeup, cancel_scope, loop_clock, task_group, wakeup_factory

__all__ = ["ChildSpec", "Intensity", "Restart", "Strategy", "SupervisedRef", "Supervisor", "actor_child"]

logger = logging.getLogger(__name__)

T = TypeVar("T")


class Restart(enum.Enum):
    """When a child that ended is started again."""

    PERMANENT = "permanent"  # always
    TRANSIENT = "transient"  # only after an abnormal exit (an exception)
    TEMPORARY = "temporary"  # never, not even when a sibling's crash stopped it


class Strategy(enum.Enum):
    """Which children are stopped and restarted when one of them has to be restarted."""

    ONE_FOR_ONE = "one_for_one"  # just that one
    ONE_FOR_ALL = "one_for_all"  # all of them
    REST_FOR_ONE = "rest_for_one"  # that one and every child started after it


@dataclass(frozen=True)
class ChildSpec:
    """How to run one child.

    `start` is called with `task_status=`, as `TaskGroup.start` would call it:
    it calls `task_status.started(handle)` once ready (the handle is whatever
    callers need, e.g. a Ref) and then runs until done. Returning is a normal
    exit; raising, before or after `started`, is a crash.
    """

    id: str
    start: Callable[..., Awaitable[None]]
    restart: Restart = Restart.PERMANENT
    shutdown_timeout: float = 5.0


def actor_child(
    id: str,
    factory: Callable[[], Actor],
    *,
    restart: Restart = Restart.PERMANENT,
    shutdown_timeout: float = 5.0,
) -> ChildSpec:
    """A child running an actor; its handle is the actor's LocalRef.

    Each incarnation gets a fresh Actor from `factory`, because the state of
    the one that crashed is what crashed it. The actor's own `shutdown_timeout`
    is set to the spec's so that its shielded `on_stop` ends within the time
    the supervisor waits for it.
    """

    async def start(*, task_status: TaskStatus[LocalRef] = anyio.TASK_STATUS_IGNORED) -> None:
        actor = factory()
        actor.shutdown_timeout = shutdown_timeout
        await run_actor(actor, task_status=task_status)

    return ChildSpec(id, start, restart, shutdown_timeout)


@dataclass(frozen=True)
class Intensity:
    """More than `max_restarts` restarts within `within_seconds` and the supervisor gives up."""

    max_restarts: int = 3
    within_seconds: float = 5.0


class _Incarnation:
    """One run of a child's start function; it is also the `task_status` that function gets.

    Its cancel scope is shielded so that cancellation reaches the child only
    through the supervisor, which stops children one by one in reverse start
    order; a cancellation of the supervisor from outside becomes exactly that
    orderly stop instead of all children being torn down at once.

    The deciding task waits for it to start, and to end when it stops it, on a
    wake-up of the loop's (`runtime.loop`): anyio events, and a cancel scope to
    bound the wait for the end, were a third of a short-lived child's cost
    (bench/perf/pipeline starts and stops five per episode).
    """

    def __init__(self, child: _Child, notify: Callable[[], None], wakeup: Callable[[], Wakeup]) -> None:
        self.child = child
        self.scope = cancel_scope(shield=True)
        self.has_started = False
        self.ended = False  # its task is over, cleanup included
        self.handle: Any = None
        self.error: Exception | None = None
        self.decider = Waiter(wakeup)  # the deciding task waits for it to start or end
        self._done: anyio.Event | None = None  # made for others who wait for the end
        self._notify = notify

    def started(self, value: Any = None) -> None:
        """The child is ready; `value` is what `Supervisor.handle` returns for it."""
        self.handle = value
        self.has_started = True
        self.decider.wake()
        self._notify()

    def end(self) -> None:
        self.ended = True
        self.decider.wake()
        if self._done is not None:
            self._done.set()

    async def wait_ended(self) -> None:
        if not self.ended:
            if self._done is None:
                self._done = anyio.Event()
            await self._done.wait()

    @property
    def live(self) -> bool:
        return self.has_started and not self.ended


class _Child:
    def __init__(self, spec: ChildSpec) -> None:
        self.spec = spec
        self.current: _Incarnation | None = None
        self.ended = False  # for good: it will not be started again in this run


@dataclass
class _RestartRequest:
    """`Supervisor.restart` asks the deciding task to kill and restart an incarnation."""

    incarnation: _Incarnation
    reason: str
    done: anyio.Event = field(default_factory=anyio.Event)
    escalation: RestartIntensityExceeded | None = None


class _Stop:
    """`Supervisor.stop`'s request to a deciding task that waits for mail: end `run`."""


_STOP = _Stop()


class _Mail:
    """What a supervisor's deciding task handles, in the order it came: incarnations that
    ended, restart requests, a stop.

    One task reads it, so a deque and the loop's one-shot wake-up do what an
    anyio memory stream did, without its checkpoints on every send and receive."""

    def __init__(self, wakeup: Callable[[], Wakeup]) -> None:
        self._messages: deque[_Incarnation | _RestartRequest | _Stop] = deque()
        self._arrived = Waiter(wakeup)  # the deciding task waits for mail
        self._open = True

    @property
    def awaited(self) -> bool:
        """The deciding task waits for mail and none has come."""
        return self._arrived.waiting and not self._messages

    def put(self, message: _Incarnation | _RestartRequest | _Stop) -> None:
        """Queue `message`; after `close`, a restart request is answered at once (nobody will decide on it)."""
        if not self._open:
            if isinstance(message, _RestartRequest):
                message.done.set()
            return
        self._messages.append(message)
        self._arrived.wake()

    async def get(self) -> _Incarnation | _RestartRequest | _Stop:
        while not self._messages:
            await self._arrived.wait()
        return self._messages.popleft()

    def close(self) -> list[_Incarnation | _RestartRequest | _Stop]:
        """Take no more mail; hand back what was not read."""
        self._open = False
        messages = list(self._messages)
        self._messages.clear()
        return messages


class Supervisor:
    """Runs children and restarts them per their restart type and the strategy.

    A Supervisor is itself a valid child (`ChildSpec(id, start=sub.run)`): its
    escalation is a crash of that child in the parent, and the parent's restart
    runs it again from scratch (its intensity window starts empty; `restarts`
    and `history` keep counting).

    troupe's own runner needs only one_for_one and permanent children (a crew,
    a VM slot). The other strategies and restart types are for programs that
    embed the runtime and supervise their own pieces:

    - rest_for_one: a node and the children that hold refs into it, started
      after it. When the node dies they restart with it (their refs point at
      a dead connection); when one of them crashes, the node stays up.
    - one_for_all: children that are only consistent together (two actors
      sharing one screen that neither may outlive).
    - transient: work that ends by itself (a warm-up, a download), started
      again only if it crashed; temporary: best effort (a viewer), never
      started again.

    tests/runtime/test_supervisor.py runs each of them, rest_for_one with a real node.
    """

    _tg: TaskGroup
    _scope: CancelScope
    _finished: list[Wakeup]  # of those waiting in `stop` for `run` to end
    _mail: _Mail
    _wakeup: Callable[[], Wakeup]  # the running loop's, looked up once a run
    _clock: Callable[[], float]

    def __init__(
        self,
        children: Sequence[ChildSpec],
        *,
        strategy: Strategy = Strategy.ONE_FOR_ONE,
        intensity: Intensity = Intensity(),
        backoff: Backoff = Backoff(),
        name: str = "supervisor",
    ) -> None:
        ids = [spec.id for spec in children]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"{name}: duplicate child ids {duplicates}")
        self.name = name
        self.strategy = strategy
        self.intensity = intensity
        self.backoff = backoff
        self.restarts = 0
        self.history: list[tuple[float, str, str]] = []
        self._children = [_Child(spec) for spec in children]
        self._by_id = {child.spec.id: child for child in self._children}
        self._recent: list[tuple[float, str]] = []  # restarts of this run still in the window
        self._running = False
        self._stopped = False
        self._changed: anyio.Event | None = None

    # -- public surface ----------------------------------------------------------------

    async def run(self, *, task_status: TaskStatus[Supervisor] = anyio.TASK_STATUS_IGNORED) -> None:
        """Start the children in order, report started, then supervise them.

        Returns when cancelled (after stopping the children), when `stop` was
        called, or when no child remains. Raises RestartIntensityExceeded,
        after stopping the children, when restarts came too fast.
        """
        if self._running:
            raise RuntimeError(f"{self.name} is already running")
        self._begin()
        escalation = None
        try:
            async with task_group() as self._tg:
                with self._scope:
                    try:
                        await self._start_in_order(self._children)
                        task_status.started(self)
                        await self._supervise()
                    except RestartIntensityExceeded as exc:
                        escalation = exc
                    finally:
                        with cancel_scope(shield=True):
                            for child in reversed(self._children):
                                await self._stop(child)
        finally:
            self._end()
        if escalation is not None:
            raise escalation

    async def stop(self) -> None:
        """Stop the children in reverse start order and end `run`; returns once it has.

        A supervisor with nothing to decide is asked to end by itself; one busy
        deciding (backing off, waiting for a child to start) is cancelled."""
        if self._running:
            if self._mail.awaited:
                self._mail.put(_STOP)
            else:
                self._scope.cancel()
            finished = self._wakeup()
            self._finished.append(finished)
            await finished.wait()

    async def handle(self, child_id: str) -> Any:
        """The current incarnation's started value, waiting while the child is (re)starting."""
        return (await self._live(child_id)).handle

    def ref(self, child_id: str) -> SupervisedRef:
        """A Ref that stays valid across restarts of the child (an actor child)."""
        self._child(child_id)
        return SupervisedRef(self, child_id)

    async def restart(self, child_id: str, reason: str, *, if_handle: Any = None) -> None:
        """Kill the child (say, it hangs) and restart it exactly as if it had crashed with `reason`.

        Counts toward the intensity, and returns once the strategy's new
        incarnations have started. Raises RestartIntensityExceeded if this
        restart was one too many (the supervisor escalates with it too).

        With `if_handle`, only the incarnation that handed out that handle is
        restarted: a caller that saw a call fail cannot tell whether the child
        crashed (and is being restarted already) or hangs; if it is no longer
        the live one, this just waits for its successor and counts nothing.
        """
        if if_handle is not None:
            current = self._child(child_id).current
            if current is None or current.handle is not if_handle or not current.live:
                await self._live(child_id)
                return
        request = _RestartRequest(await self._live(child_id), reason)
        self._mail.put(request)
        await request.done.wait()
        if request.escalation is not None:
            raise RestartIntensityExceeded(str(request.escalation)) from request.escalation.__cause__
        if self._stopped:
            raise ActorStopped(self.name, "stopped before restarting " + repr(child_id))

    # -- one run -----------------------------------------------------------------------

    def _begin(self) -> None:
        self._running = True
        self._stopped = False
        self._scope = cancel_scope()
        self._finished = []
        self._wakeup = wakeup_factory()
        self._clock = loop_clock()
        self._mail = _Mail(self._wakeup)
        self._recent = []
        for child in self._children:
            child.current = None
            child.ended = False

    def _end(self) -> None:
        self._running = False
        self._stopped = True
        for message in self._mail.close():  # nobody will decide on these any more
            if isinstance(message, _RestartRequest):
                message.done.set()
        for finished in self._finished:
            finished.set()
        self._notify()

    async def _supervise(self) -> None:
        while any(not child.ended for child in self._children):
            message = await self._mail.get()
            if message is _STOP:
                return
            if isinstance(message, _RestartRequest):
                await self._restart_on_request(message)
            elif message.child.current is message:  # else the supervisor stopped it itself
                await self._exited(message)

    async def _run_child(self, incarnation: _Incarnation) -> None:
        """The task of one incarnation: whatever happens, the deciding task hears of it."""
        spec = incarnation.child.spec
        try:
            with incarnation.scope:
                await spec.start(task_status=incarnation)
                if not incarnation.has_started and not incarnation.scope.cancel_called:
                    raise RuntimeError(f"{spec.id} returned without calling task_status.started()")
        except Exception as exc:
            incarnation.error = exc
            if incarnation.scope.cancel_called:
                logger.warning("%s: child %r raised while stopping", self.name, spec.id, exc_info=exc)
            else:
                what = "crashed" if incarnation.has_started else "failed to start"
                # A TroupeError says in its text what failed (a node that cannot be reached, an actor
                # that crashed); its traceback would only repeat the runtime's own frames, at every restart.
                logger.error("%s: child %r %s: %s", self.name, spec.id, what, describe(exc),
                             exc_info=None if isinstance(exc, TroupeError) else exc)
        finally:
            incarnation.end()
            self._notify()
            self._mail.put(incarnation)

    async def _start_in_order(self, children: list[_Child]) -> None:
        for child in children:
            if not child.ended and child.current is None:
                await self._start(child)

    async def _start(self, child: _Child) -> None:
        """Start one incarnation and wait until it is ready; failing to start is a crash."""
        incarnation = _Incarnation(child, self._notify, self._wakeup)
        child.current = incarnation
        self._tg.start_soon(self._run_child, incarnation, name=f"{self.name}/{child.spec.id}")
        await incarnation.decider.wait()
        if not incarnation.has_started:
            child.current = None
            reason = "failed to start: " + describe(incarnation.error)
            await self._on_exit(child, reason, incarnation.error, abnormal=True)

    async def _exited(self, incarnation: _Incarnation) -> None:
        child = incarnation.child
        child.current = None
        error = incarnation.error
        reason = "exited normally" if error is None else describe(error)
        await self._on_exit(child, reason, error, abnormal=error is not None)

    async def _restart_on_request(self, request: _RestartRequest) -> None:
        child = request.incarnation.child
        try:
            if child.current is request.incarnation:  # else it was replaced meanwhile
                await self._stop(child)
                # A child that raised on its own (its crash still unwinding when the
                # request came) is restarted for that crash, not for the request.
                error = request.incarnation.error
                reason = request.reason if error is None else describe(error)
                await self._on_exit(child, reason, error, abnormal=True)
        except RestartIntensityExceeded as exc:
            request.escalation = exc
            raise
        finally:
            request.done.set()

    async def _on_exit(
        self, child: _Child, reason: str, error: Exception | None, *, abnormal: bool
    ) -> None:
        kind = child.spec.restart
        if kind is Restart.PERMANENT or (kind is Restart.TRANSIENT and abnormal):
            await self._restart(child, reason, error)
        else:
            logger.info("%s: child %r ended for good (%s)", self.name, child.spec.id, reason)
            child.ended = True
            self._notify()

    async def _restart(self, child: _Child, reason: str, error: Exception | None) -> None:
        attempt = self._count(child, reason, error)
        group = self._group(child)
        for sibling in reversed(group):
            await self._stop(sibling)
        for sibling in group:
            if sibling.spec.restart is Restart.TEMPORARY:
                sibling.ended = True
        self._notify()
        await anyio.sleep(self.backoff.delay(attempt))
        # A failure to start in here is handled (and counted) as a crash of its own.
        await self._start_in_order(group)

    def _count(self, child: _Child, reason: str, error: Exception | None) -> int:
        """Record a restart of `child`; return how many it had in the window, or raise if too many."""
        now = anyio.current_time()
        window = self.intensity.within_seconds
        self._recent = [(t, i) for t, i in self._recent if now - t < window]
        count = len(self._recent) + 1
        if count > self.intensity.max_restarts:
            raise RestartIntensityExceeded(
                f"{self.name}: {count} restarts within {window:g} s exceed the limit of "
                f"{self.intensity.max_restarts}; last: child {child.spec.id!r} ({reason})"
            ) from error
        self._recent.append((now, child.spec.id))
        self.history.append((now, child.spec.id, reason))
        self.restarts += 1
        logger.warning("%s: restarting %r (%s)", self.name, child.spec.id, reason)
        return sum(1 for _, i in self._recent if i == child.spec.id)

    def _group(self, child: _Child) -> list[_Child]:
        """The children the strategy restarts with `child`, in start order."""
        remaining = [c for c in self._children if not c.ended]
        if self.strategy is Strategy.ONE_FOR_ALL:
            return remaining
        if self.strategy is Strategy.REST_FOR_ONE:
            return remaining[remaining.index(child) :]
        return [child]

    async def _stop(self, child: _Child) -> None:
        """Cancel the child's scope and wait for its task, at most `shutdown_timeout`.

        Cleanup the child shields from cancellation cannot be cut short from
        outside (that is what a shield is for), so the bound holds only if the
        child bounds its shielded cleanup itself, as `run_actor` does with
        `Actor.shutdown_timeout` (which `actor_child` sets to the spec's). Past
        the timeout the supervisor logs it and goes on stopping or restarting
        the others; the overdue task stays in the supervisor's task group, so
        `run` returns only once it has finished, and nothing is left behind
        (if the supervisor itself is cancelled from outside, its task group's
        cancellation reaches that task too, held back only by the task's own shields).
        """
        incarnation = child.current
        if incarnation is None:
            return
        if not _ended_by_itself(incarnation):
            incarnation.scope.cancel()
        ended = incarnation.ended
        if not ended:
            ended = await incarnation.decider.wait(self._clock() + child.spec.shutdown_timeout)
        child.current = None  # only now: if the wait above is cancelled, the final stop waits again
        if not ended:
            logger.error(
                "%s: child %r did not finish within its shutdown_timeout of %g s; going on without it",
                self.name,
                child.spec.id,
                child.spec.shutdown_timeout,
            )

    # -- waiting for a child -----------------------------------------------------------

    def _child(self, child_id: str) -> _Child:
        try:
            return self._by_id[child_id]
        except KeyError:
            raise LookupError(f"{self.name} has no child {child_id!r}") from None

    async def _live(self, child_id: str) -> _Incarnation:
        """The child's running incarnation, once there is one (also waits for `run` to start)."""
        while (incarnation := self._live_now(child_id)) is None:
            await self._changed_event().wait()
        return incarnation

    def _live_now(self, child_id: str) -> _Incarnation | None:
        """The child's running incarnation, None while there is none yet; raises if there will be none."""
        child = self._child(child_id)
        if self._stopped:
            raise ActorStopped(self.name, "stopped")
        if child.ended:
            raise ActorStopped(child_id, f"ended and will not be restarted by {self.name}")
        if child.current is not None and child.current.live:
            return child.current
        return None

    def _changed_event(self) -> anyio.Event:
        # Made on demand: an Event needs a running event loop, __init__ may have none.
        if self._changed is None:
            self._changed = anyio.Event()
        return self._changed

    def _notify(self) -> None:
        """Wake everyone waiting in `_live` to look again."""
        if self._changed is not None:
            self._changed.set()
            self._changed = None


class SupervisedRef:
    """A Ref to a supervised child that outlives its incarnations.

    Each call goes to the incarnation running at the time, waiting for one
    while the child restarts. A message that reached an incarnation is never
    sent twice: if it dies meanwhile the caller gets ActorCrashed, as from any
    ref. Only ActorStopped (the message did not get in, because that
    incarnation was already going down) makes the ref wait for the incarnation
    to end and deliver to the next one (so a child whose handle reports
    ActorStopped while the child runs on would hold the caller until `ask`'s
    timeout).
    """

    def __init__(self, supervisor: Supervisor, child_id: str) -> None:
        self.name = child_id
        self._supervisor = supervisor
        self._clock: Callable[[], float] | None = None  # the loop's, once the first ask runs in it

    async def tell(self, message: Any) -> None:
        await self._deliver(lambda ref: ref.tell(message), math.inf)

    async def ask(self, message: Any, timeout: float = math.inf) -> Any:
        """Ask the current incarnation; `timeout` also covers waiting for a restart.

        While the child runs, its incarnation's ref is asked with what is left
        of the timeout and no cancel scope is set up here (two per call were a
        tenth of the runtime's CPU per step); only waiting for a restart is
        bounded by one."""
        if self._clock is None:
            self._clock = loop_clock()
        clock = self._clock
        deadline = clock() + timeout
        try:
            return await self._deliver(lambda ref: ref.ask(message, timeout=deadline - clock()), deadline)
        except (CallTimeout, _Expired):
            raise CallTimeout(self.name, type(message).__name__, timeout) from None

    def ask_soon(self, message: Any, then: Then) -> bool:
        """`LocalRef.ask_soon` of the incarnation running now; False while there is none (the
        child restarts, or has ended for good) or it cannot take the ask: then `ask`, which waits."""
        try:
            incarnation = self._supervisor._live_now(self.name)
        except ActorStopped:
            return False
        return incarnation is not None and ask_soon(incarnation.handle, message, then)

    async def _deliver(self, call: Callable[[Ref], Awaitable[Any]], deadline: float) -> Any:
        while True:
            incarnation = self._supervisor._live_now(self.name) or await _until(deadline, self._supervisor._live(self.name))
            try:
                return await call(incarnation.handle)
            except ActorStopped:
                await _until(deadline, incarnation.wait_ended())


def _ended_by_itself(incarnation: _Incarnation) -> bool:
    """Whether a started child whose handle can end it without a cancellation (an
    idle actor's `LocalRef`, a `LocalHost` of idle actors: `close_if_idle`) did so."""
    close_if_idle = getattr(incarnation.handle, "close_if_idle", None)
    return incarnation.live and close_if_idle is not None and close_if_idle()


class _Expired(Exception):
    """A wait for a restart outlasted the call's deadline."""


async def _until(deadline: float, waiting: Awaitable[T]) -> T:
    """`waiting`'s result, or _Expired at `deadline`."""
    with anyio.move_on_at(deadline):
        return await waiting
    raise _Expired


