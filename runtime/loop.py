"""The running event loop's own primitives for the actor hot path: wake-ups, the clock, task groups.

anyio finds the running loop again on every call: on asyncio through
`get_running_loop()`, which in CPython 3.11 makes a getpid system call each
time (a microsecond or more on a busy VM). Looked up once here, the clock is
the loop's own function and a wake-up the loop's own primitive.

`task_group()` and `cancel_scope()` behave as anyio's task groups and cancel
scopes on both loops (tests/runtime/test_loop_cancellation.py compares them
case by case) at less cost: under trio they are trio's own nursery and scope,
which anyio's wrap; on asyncio the task group is anyio's, with a `start_soon`
that spares each task a wrapping coroutine. `start` is `TaskGroup.start` as a
task and a wake-up. With 1,000 concurrent episodes each worker starts two
supervisors and nine tasks (docs/performance.md).

Every ask waits twice: the actor for the letter, the caller for the reply.
Each of those waits has exactly one waiter, and the caller's has a deadline.
`anyio.Event` serves any number of waiters on either loop, through a dispatch
on every call (sniffio, the backend class, a wrapper around the loop's own
event), and `anyio.move_on_after` sets up a cancel scope (on asyncio a timer,
the task's scope stack, a weak-keyed task table) per call. With 1,000
concurrent simulated episodes (bench/perf/pipeline) the two cost a sixth of
the runtime's CPU per step. A `Wakeup` is the loop's own primitive:

- asyncio: a Future; trio: the waiting task parked and rescheduled;
- a deadline: an entry in the loop's one heap of deadlines (`_Deadlines`), woken by one timer.

Cancellation stays the loop's: a waiter whose anyio scope is cancelled raises
as from any other wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import heapq
import itertools
import math
import sys
import time
from types import ModuleType
from typing import Any, AsyncContextManager, Awaitable, Callable, Iterator, Protocol

import anyio

from runtime import stalls

__all__ = [
    "CancelScope", "TaskGroup", "Waiter", "Wakeup", "cancel_scope", "cancel_scope_at", "loop_clock", "start", "task_group", "wakeup_factory",
]


class Wakeup(Protocol):
    def set(self) -> None:
        """Wake the waiter (now, or as soon as it waits); later calls do nothing."""

    async def wait(self, deadline: float = math.inf) -> bool:
        """Wait until `set` (True) or until the loop's clock reaches `deadline` (False).

        Only one task may wait, once."""


class Waiter:
    """Where one task at a time waits to be woken: `wait` makes a fresh wake-up and waits
    on it, `wake` sets the one waited on, if any, and forgets it.

    An actor waits so for a letter, a supervisor's deciding task for mail and for a
    child to start or end, an episode's summaries task for the next request."""

    __slots__ = ("_make", "_wakeup")

    def __init__(self, make: Callable[[], Wakeup]) -> None:
        self._make = make
        self._wakeup: Wakeup | None = None

    @property
    def waiting(self) -> bool:
        """A task has waited here and not been woken since."""
        return self._wakeup is not None

    def wake(self) -> None:
        wakeup = self._wakeup
        if wakeup is not None:
            self._wakeup = None
            wakeup.set()

    def wait(self, deadline: float = math.inf) -> Awaitable[bool]:
        """Await it: until `wake` (True) or until the loop's clock reaches `deadline` (False).

        The wake-up's own wait, not a coroutine around it: a frame less on every ask's two waits."""
        self._wakeup = wakeup = self._make()
        return wakeup.wait(deadline)


class _AsyncioWakeup:
    __slots__ = ("_deadlines", "_future")

    def __init__(self, loop: asyncio.AbstractEventLoop, deadlines: _AsyncioDeadlines) -> None:
        self._future = loop.create_future()
        self._deadlines = deadlines

    @property
    def waiting(self) -> bool:
        return not self._future.done()  # a cancelled waiter cancels the future

    def set(self) -> None:
        if not self._future.done():
            self._future.set_result(True)

    def expire(self) -> None:
        """The deadline passed: wake the waiter, if it still waits, with False."""
        if not self._future.done():
            self._future.set_result(False)

    async def wait(self, deadline: float = math.inf) -> bool:
        if deadline != math.inf and not self._future.done():
            self._deadlines.add(deadline, self)
        return await self._future


class _TrioWakeup:
    """Parks the waiting task itself (what a trio.Event does through a parking lot)."""

    __slots__ = ("_deadlines", "_expired", "_lowlevel", "_set", "_task")

    def __init__(self, trio: ModuleType, deadlines: _TrioDeadlines) -> None:
        self._lowlevel = trio.lowlevel  # passed by the factory: an asyncio process never loads trio
        self._deadlines = deadlines
        self._set = False
        self._expired = False
        self._task: Any = None

    @property
    def waiting(self) -> bool:
        return self._task is not None

    def set(self) -> None:
        if not self._set:
            self._set = True
            if self._task is not None:
                self._lowlevel.reschedule(self._task)
                self._task = None

    def expire(self) -> None:
        """The deadline passed: wake the waiter, if it still waits, with False."""
        if self._task is not None and not self._set:
            self._expired = True
            self.set()

    async def wait(self, deadline: float = math.inf) -> bool:
        if self._set:
            await self._lowlevel.checkpoint()
            return True
        self._task = self._lowlevel.current_task()
        if deadline != math.inf:
            self._deadlines.add(deadline, self)
        await self._lowlevel.wait_task_rescheduled(self._abort)
        return not self._expired

    def _abort(self, raise_cancel: Any) -> Any:
        self._task = None
        return self._lowlevel.Abort.SUCCEEDED


class _Expiring(Protocol):
    @property
    def waiting(self) -> bool: ...

    def expire(self) -> None: ...


class _Deadlines:
    """The deadlines of one loop's waiting wake-ups, in one heap, woken by one timer.

    A timer per deadline (asyncio's TimerHandle, in a heap compared by a Python
    `__lt__`) or a trio cancel scope per deadline costs ~3 and ~8 us per ask,
    and every ask has a deadline; an entry in this heap of tuples costs well
    under one. A wake-up set before its deadline (the usual case) stays in the
    heap until that passes or a compaction drops it."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._heap: list[tuple[float, int, _Expiring]] = []
        self._order = itertools.count()  # equal deadlines never compare their wake-ups
        self._compact_at = _COMPACT_AT
        self._clock = clock
        self.next = math.inf
        """When the loop has been asked to wake this keeper: the earliest deadline, or the next
        heartbeat (`runtime.stalls`), whichever comes first."""

    def add(self, deadline: float, wakeup: _Expiring) -> None:
        heapq.heappush(self._heap, (deadline, next(self._order), wakeup))
        if len(self._heap) >= self._compact_at:
            self._heap = [entry for entry in self._heap if entry[2].waiting]
            heapq.heapify(self._heap)
            self._compact_at = max(_COMPACT_AT, 2 * len(self._heap))
        if deadline < self.next:
            if self.next == math.inf:  # the first deadline after none: the heartbeat starts
                deadline = min(deadline, self._clock() + stalls.HEARTBEAT)
            self.next = deadline
            self._wake_at(deadline)

    def expire_due(self, now: float, planned: float) -> None:
        """Wake the waiters whose deadline is `now` or earlier; `next` becomes the earliest left,
        or the heartbeat. A wake-up far later than `planned` is a stall of the process, not of
        the waiters: every deadline moves later by it first (`runtime.stalls`)."""
        heap = self._heap
        late = now - planned
        if late > stalls.STALL_SECONDS:
            self._heap = heap = [(deadline + late, order, wakeup) for deadline, order, wakeup in heap]  # still a heap
            stalls.record(late)
        while heap and heap[0][0] <= now:
            heapq.heappop(heap)[2].expire()
        self.next = min(heap[0][0], now + stalls.HEARTBEAT) if heap else math.inf

    def _wake_at(self, when: float) -> None:
        """Have the loop call `expire_due` at `when` (earlier than it would have)."""
        raise NotImplementedError


_COMPACT_AT = 1024
_CLOCK_RESOLUTION = time.get_clock_info("monotonic").resolution
"""asyncio runs a timer up to its clock's resolution early; so are the deadlines it runs."""


class _AsyncioDeadlines(_Deadlines):
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(loop.time)
        self._loop = loop
        self._timer: asyncio.TimerHandle | None = None
        self._planned = math.inf

    def _wake_at(self, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._planned = when
        self._timer = self._loop.call_at(when, self._fire)

    def _fire(self) -> None:
        self._timer = None
        self.expire_due(self._loop.time() + _CLOCK_RESOLUTION, self._planned)
        if self.next != math.inf:
            self._wake_at(self.next)


class _TrioDeadlines(_Deadlines):
    """Kept by one system task of the run, asleep until the earliest deadline."""

    def __init__(self, trio: ModuleType) -> None:
        super().__init__(trio.current_time)
        self._trio = trio
        self._keeper: Any = None  # the keeper's task while it sleeps
        trio.lowlevel.spawn_system_task(self._keep, name="runtime.loop deadlines")

    def _wake_at(self, when: float) -> None:
        if self._keeper is not None:
            self._trio.lowlevel.reschedule(self._keeper)
            self._keeper = None

    async def _keep(self) -> None:
        lowlevel = self._trio.lowlevel
        planned = math.inf
        while True:
            self.expire_due(self._trio.current_time(), planned)
            self._keeper = lowlevel.current_task()
            planned = self.next
            with self._trio.move_on_at(planned):
                await lowlevel.wait_task_rescheduled(self._sleep_ended)

    def _sleep_ended(self, raise_cancel: Any) -> Any:
        self._keeper = None
        return self._trio.lowlevel.Abort.SUCCEEDED


def loop_clock() -> Callable[[], float]:
    """The running loop's clock, the one `anyio.current_time()` reads, as a function to call
    again and again; look it up once, in that loop."""
    trio = _running_trio()
    if trio is not None:
        return trio.lowlevel.current_clock().current_time  # what trio.current_time() calls
    return asyncio.get_running_loop().time


def wakeup_factory() -> Callable[[], Wakeup]:
    """What makes wake-ups for the loop running this task; call it once, in that loop."""
    trio = _running_trio()
    if trio is not None:
        return functools.partial(_TrioWakeup, trio, _trio_deadlines(trio))
    return _asyncio_wakeup_factory(asyncio.get_running_loop())


def _running_trio() -> ModuleType | None:
    """trio, if this thread runs it: anyio's other backend. Told by the name trio gives sniffio
    while it runs, not by asyncio's `get_running_loop()` raising (an exception raised and
    caught cost more than the rest of a wake-up factory's lookup: several per actor started)."""
    sniffio = sys.modules.get("sniffio")  # trio's dependency, loaded with it
    if sniffio is not None and sniffio.thread_local.name == "trio":
        return sys.modules["trio"]
    return None


def _asyncio_wakeup_factory(loop: asyncio.AbstractEventLoop) -> Callable[[], Wakeup]:
    return functools.partial(_AsyncioWakeup, loop, _asyncio_deadlines(loop))


def _asyncio_deadlines(loop: asyncio.AbstractEventLoop) -> _AsyncioDeadlines:
    deadlines = _ASYNCIO_DEADLINES.get(loop)
    if deadlines is None:
        for other in list(_ASYNCIO_DEADLINES):  # a copy: loops in other threads add theirs meanwhile
            if other.is_closed():
                _ASYNCIO_DEADLINES.pop(other, None)
        deadlines = _ASYNCIO_DEADLINES[loop] = _AsyncioDeadlines(loop)
    return deadlines


_ASYNCIO_DEADLINES: dict[asyncio.AbstractEventLoop, _AsyncioDeadlines] = {}
"""Each loop's heap of deadlines. It holds its loop (through its timer and its waiters'
futures), so a loop is dropped from here once it is closed, when the next loop's first
wake-ups are made: at most one finished loop is kept."""
_TRIO_DEADLINES: Any = None  # a trio RunVar once trio is loaded


def _trio_deadlines(trio: ModuleType) -> _TrioDeadlines:
    """This trio run's deadline keeper, started on first use."""
    global _TRIO_DEADLINES
    if _TRIO_DEADLINES is None:
        _TRIO_DEADLINES = trio.lowlevel.RunVar("runtime.loop deadlines")
    try:
        return _TRIO_DEADLINES.get()
    except LookupError:
        deadlines = _TrioDeadlines(trio)
        _TRIO_DEADLINES.set(deadlines)
        return deadlines


class CancelScope(Protocol):
    """What the runtime asks of a cancel scope: anyio's, or trio's own (`cancel_scope`)."""

    deadline: float
    shield: bool

    def cancel(self) -> None: ...

    @property
    def cancel_called(self) -> bool: ...

    @property
    def cancelled_caught(self) -> bool: ...

    def __enter__(self) -> CancelScope: ...

    def __exit__(self, *exc_info: Any) -> bool | None: ...


def cancel_scope(*, deadline: float = math.inf, shield: bool = False) -> CancelScope:
    """A cancel scope of the running loop: trio's own under trio, anyio's on asyncio.

    anyio's on trio is a wrapper that makes trio's scope twice over (its
    `__new__` picks the backend's class, whose `__init__` Python then runs
    again) after finding the backend: each supervised child and each
    supervisor has one, so a worker's start and stop pays for ten of them."""
    trio = _running_trio()
    if trio is not None:
        return trio.CancelScope(deadline=deadline, shield=shield)
    return anyio.CancelScope(deadline=deadline, shield=shield)


@contextlib.contextmanager
def cancel_scope_at(deadline: float) -> Iterator[CancelScope]:
    """A cancel scope cancelled at `deadline` by the loop's deadline keeper, not by the loop's
    own timers: a stall of the process moves it later, as it moves every call's deadline
    (`runtime.stalls`), before anything else of the loop sees the time that passed."""
    with cancel_scope() as scope:
        if deadline == math.inf:
            yield scope
            return
        expiry = _ScopeExpiry(scope)
        trio = _running_trio()
        keeper = _trio_deadlines(trio) if trio is not None else _asyncio_deadlines(asyncio.get_running_loop())
        keeper.add(deadline, expiry)
        try:
            yield scope
        finally:
            expiry.scope = None


class _ScopeExpiry:
    __slots__ = ("scope",)

    def __init__(self, scope: CancelScope) -> None:
        self.scope: CancelScope | None = scope

    @property
    def waiting(self) -> bool:
        return self.scope is not None

    def expire(self) -> None:
        if self.scope is not None:
            self.scope.cancel()


class TaskGroup(Protocol):
    """What the runtime asks of a task group: anyio's, or the loop's own (`task_group`)."""

    def start_soon(self, func: Callable[..., Awaitable[object]], *args: object, name: object = None) -> None: ...


def task_group() -> AsyncContextManager[TaskGroup]:
    """A task group of the running loop that behaves as anyio's: a trio nursery under trio,
    on asyncio anyio's own task group with a lighter `start_soon`.

    It waits for its tasks; the first error cancels the rest and comes out in an
    ExceptionGroup; its cancellation is anyio's (level-triggered, held back by
    shields) on both loops. tests/runtime/test_loop_cancellation.py runs the
    same cancellation cases through it and through anyio's on both loops.

    Why not anyio's as it is: on trio, anyio's task group is a wrapper around a
    nursery (its `start_soon` finds the backend, names the task, builds a
    handle); on asyncio, since anyio 4.14, every task runs inside a handle's
    coroutine with a cancel scope and an event of its own, and every resumption
    of the task passes through that coroutine's frame. Actors are long-lived
    tasks resumed several times per step: with 1,000 concurrent simulated
    episodes anyio's task group costs asyncio 8% more instructions per step,
    this one 1.7% (docs/performance.md)."""
    trio = _running_trio()
    if trio is not None:
        return trio.open_nursery()
    if _AsyncioTaskGroup is None:
        return anyio.create_task_group()
    return _AsyncioTaskGroup()


def _asyncio_task_group_class() -> type | None:
    """anyio's asyncio task group with `start_soon` as anyio spawned tasks before 4.14: the
    task registered in the group's cancel scope, no handle around it.

    It reaches into anyio's asyncio backend (its task states and its cancel scope's
    task set); if a version of anyio no longer has them, None, and `task_group` hands
    out anyio's own task group: slower, never different."""
    try:
        from anyio._backends._asyncio import CancelScope as AnyioScope
        from anyio._backends._asyncio import TaskGroup as AnyioTaskGroup
        from anyio._backends._asyncio import TaskState, _task_states
    except ImportError:
        return None
    group_fields = {"_entered", "_exceptions", "_on_completed_fut", "_tasks"}
    scope_fields = {"_active", "_host_task", "_tasks"}
    if not group_fields <= vars(AnyioTaskGroup()).keys() or not scope_fields <= set(AnyioScope.__slots__) \
            or not hasattr(AnyioScope, "_effectively_cancelled"):
        return None

    class LightTaskGroup(AnyioTaskGroup):
        def start_soon(self, func: Callable[..., Awaitable[object]], *args: object, name: object = None) -> None:
            scope = self.cancel_scope
            if not self._entered or not scope._active:
                raise RuntimeError("This task group is not active; no new tasks can be started.")
            loop = scope._host_task.get_loop()  # not get_running_loop(): a getpid call on 3.11
            if loop.get_task_factory() is not None:  # an eager one would run the task before it is registered
                super().start_soon(func, *args, name=name)
                return
            task = loop.create_task(func(*args), name=str(name) if name is not None else getattr(func, "__qualname__", None))
            _task_states[task] = TaskState(parent_id=id(scope._host_task), cancel_scope=scope)
            scope._tasks.add(task)
            self._tasks.add(task)
            task.add_done_callback(self._task_done)

        def _task_done(self, task: asyncio.Task[object]) -> None:
            """anyio's own bookkeeping when a task ends (its `_spawn`'s `task_done`)."""
            _task_states.pop(task).cancel_scope._tasks.discard(task)
            self._tasks.remove(task)
            if self._on_completed_fut is not None and not self._tasks and not self._on_completed_fut.done():
                self._on_completed_fut.set_result(None)
            if task.cancelled():
                error: BaseException | None = asyncio.CancelledError()
            else:
                error = task.exception()
            if error is not None:
                if not isinstance(error, asyncio.CancelledError):
                    self._exceptions.append(error)
                if not self.cancel_scope._effectively_cancelled:
                    self.cancel_scope.cancel()

    return LightTaskGroup


_AsyncioTaskGroup = _asyncio_task_group_class()


async def start(group: TaskGroup, func: Callable[..., Awaitable[object]], *args: object, name: object = None) -> Any:
    """Run `func(*args, task_status=...)` as a task of `group`; return the value it passes to
    `task_status.started()`, once it has.

    anyio's `TaskGroup.start`, for any task group, as a task and a wake-up. As
    from anyio's, an exception the task raises before it has started is raised
    here, not in the group; so is its returning without having started."""
    status = _Starting(wakeup_factory()())
    group.start_soon(_report_start, func, args, status, name=name or getattr(func, "__qualname__", None))
    return await status.result()


class _Starting:
    """The `task_status` that `start` hands its task."""

    __slots__ = ("_wakeup", "_value", "_error", "has_started", "abandoned")

    def __init__(self, wakeup: Wakeup) -> None:
        self._wakeup = wakeup
        self._value: Any = None
        self._error: Exception | None = None
        self.has_started = False
        self.abandoned = False  # the starter was cancelled while it waited: nobody will raise an error here

    def started(self, value: Any = None) -> None:
        if self.has_started:
            raise RuntimeError("called 'started' twice on the same task status")
        self.has_started = True
        self._value = value
        self._wakeup.set()

    def failed(self, error: Exception) -> None:
        self._error = error
        self._wakeup.set()

    async def result(self) -> Any:
        try:
            await self._wakeup.wait()
        except BaseException:
            self.abandoned = True
            raise
        if self._error is not None:
            raise self._error
        return self._value


async def _report_start(func: Callable[..., Awaitable[object]], args: tuple[object, ...], status: _Starting) -> None:
    try:
        await func(*args, task_status=status)
    except Exception as exc:
        if status.has_started or status.abandoned:
            raise  # the group's, as any task's
        status.failed(exc)  # the starter raises it; cancellations and the like stay the group's
        return
    if not status.has_started and not status.abandoned:
        status.failed(RuntimeError(f"{getattr(func, '__qualname__', func)} returned without calling task_status.started()"))
