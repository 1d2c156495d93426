"""runtime.loop's task group, cancel scope and `start` behave as anyio's do, on asyncio and on trio.

Each case below is run twice on the same loop, once through runtime.loop's primitives and
once through anyio's (`anyio.create_task_group`, `anyio.CancelScope`, `TaskGroup.start`), and
what can be seen of it (what the tasks did, in order; which scopes caught a cancellation; the
shape of what was raised) must be the same. The cases are the ways cancellation reaches a
task: from outside, from a failing sibling, from a deadline, before the task has run, through
nested and shielded scopes, and again after a task caught it.
"""

from __future__ import annotations

import math
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, AsyncIterator, Awaitable, Callable

import anyio
import pytest

from runtime import loop

pytestmark = pytest.mark.anyio


@dataclass(frozen=True)
class Primitives:
    """The three primitives a case uses, from one of the two implementations."""

    task_group: Callable[[], Any]
    cancel_scope: Callable[..., Any]
    start: Callable[..., Awaitable[Any]]


async def _anyio_start(group: Any, func: Callable[..., Awaitable[object]], *args: object) -> Any:
    return await group.start(func, *args)


RUNTIME = Primitives(loop.task_group, loop.cancel_scope, loop.start)
ANYIO = Primitives(anyio.create_task_group, anyio.CancelScope, _anyio_start)


def shape(error: BaseException | None) -> object:
    """What was raised, as types and messages, exception groups as the sorted shapes inside."""
    if error is None:
        return None
    if isinstance(error, BaseExceptionGroup):
        return (type(error).__name__, sorted((shape(e) for e in error.exceptions), key=repr))
    if isinstance(error, anyio.get_cancelled_exc_class()):
        return "cancelled"
    return (type(error).__name__, str(error))


class Log(dict):
    """What each task of a case did, in order. Only each task's own order counts: which of
    two tasks cancelled at once hears of it first is the scheduler's business."""

    def note(self, who: str, what: str) -> None:
        self.setdefault(who, []).append(what)

    async def sleep_forever(self, name: str) -> None:
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            self.note(name, "cancelled")
            raise

    async def fail(self, name: str, seconds: float = 0.0) -> None:
        await anyio.sleep(seconds)
        self.note(name, "fails")
        raise ValueError(name)

    async def fail_at_once(self, name: str) -> None:
        """Fail before any checkpoint: whichever task the scheduler runs first, none is cancelled before."""
        self.note(name, "fails")
        raise ValueError(name)


async def _cancel_soon(scope: Any) -> None:
    await anyio.sleep(0.01)
    scope.cancel()


@asynccontextmanager
async def cancelled_soon(make_scope: Callable[[], Any]) -> AsyncIterator[Any]:
    """A scope, made by `make_scope`, that another task cancels 10 ms after it is entered."""
    with make_scope() as outer:
        async with anyio.create_task_group() as canceller:
            canceller.start_soon(_cancel_soon, outer)
            yield outer


# --- the cases: each takes the primitives and a log, and returns what else it saw ----------------


async def cancelled_from_outside(p: Primitives, log: Log) -> object:
    async with cancelled_soon(anyio.CancelScope) as outer:
        async with p.task_group() as group:
            group.start_soon(log.sleep_forever, "a")
            group.start_soon(log.sleep_forever, "b")
            await log.sleep_forever("body")
    return outer.cancelled_caught


async def cancelled_from_outside_while_the_body_has_ended(p: Primitives, log: Log) -> object:
    async with cancelled_soon(anyio.CancelScope) as outer:
        async with p.task_group() as group:
            group.start_soon(log.sleep_forever, "a")
        log.note("body", "not reached")
    return outer.cancelled_caught


async def a_child_fails(p: Primitives, log: Log) -> object:
    async with p.task_group() as group:
        group.start_soon(log.sleep_forever, "a")
        group.start_soon(log.fail, "b")
        await log.sleep_forever("body")


async def a_child_fails_after_the_body_has_ended(p: Primitives, log: Log) -> object:
    async with p.task_group() as group:
        group.start_soon(log.sleep_forever, "a")
        group.start_soon(log.fail, "b", 0.01)
    log.note("body", "not reached")


async def two_children_fail_at_once(p: Primitives, log: Log) -> object:
    async with p.task_group() as group:
        group.start_soon(log.fail_at_once, "a")
        group.start_soon(log.fail_at_once, "b")


async def the_body_fails(p: Primitives, log: Log) -> object:
    async with p.task_group() as group:
        group.start_soon(log.sleep_forever, "a")
        await anyio.sleep(0.01)
        raise KeyError("body")


async def a_nested_group_fails(p: Primitives, log: Log) -> object:
    async def inner_group() -> None:
        async with p.task_group() as inner:
            inner.start_soon(log.sleep_forever, "inner a")
            inner.start_soon(log.fail, "inner b")

    async with p.task_group() as group:
        group.start_soon(log.sleep_forever, "outer a")
        group.start_soon(inner_group)


async def a_child_cancels_a_scope_of_its_own(p: Primitives, log: Log) -> object:
    async def child() -> None:
        with p.cancel_scope() as inner:
            inner.cancel()
            await anyio.sleep(1)
            log.note("child", "not reached")
        log.note("child", f"inner caught {inner.cancelled_caught}, child goes on")
        await anyio.sleep(0.01)
        log.note("child", "child done")

    async with p.task_group() as group:
        group.start_soon(child)
    log.note("body", "group done")


async def nested_scopes_cancel_the_innermost_first(p: Primitives, log: Log) -> object:
    with p.cancel_scope() as outer:
        with p.cancel_scope() as middle:
            with p.cancel_scope() as inner:
                middle.cancel()
                await anyio.sleep(1)
            log.note("body", "not reached")
        log.note("body", "after middle")
        await anyio.sleep(0)
        log.note("body", "outer goes on")
    return inner.cancelled_caught, middle.cancelled_caught, outer.cancelled_caught, middle.cancel_called


async def clean_up_shielded(p: Primitives, log: Log) -> None:
    """Wait until cancelled, then clean up for 20 ms in a shielded scope."""
    try:
        await anyio.sleep_forever()
    finally:
        with p.cancel_scope(shield=True):
            await anyio.sleep(0.02)
            log.note("cleanup", "cleanup done")
        await anyio.sleep(0)  # past the shield the cancellation is delivered again
        log.note("cleanup", "not reached")


async def a_shielded_cleanup_finishes_when_a_sibling_fails(p: Primitives, log: Log) -> object:
    async with p.task_group() as group:
        group.start_soon(clean_up_shielded, p, log)
        group.start_soon(log.fail, "b", 0.01)


async def a_shielded_cleanup_finishes_when_cancelled_from_outside(p: Primitives, log: Log) -> object:
    async with cancelled_soon(p.cancel_scope) as outer:
        async with p.task_group() as group:
            group.start_soon(clean_up_shielded, p, log)
    return outer.cancelled_caught


async def a_shielded_body_finishes_when_a_child_fails(p: Primitives, log: Log) -> object:
    async with p.task_group() as group:
        group.start_soon(log.fail, "b")
        with p.cancel_scope(shield=True):
            await anyio.sleep(0.02)
            log.note("body", "shielded body done")
        await log.sleep_forever("body")


async def the_children_are_cancelled_while_the_body_is_shielded(p: Primitives, log: Log) -> object:
    a_cancelled = anyio.Event()

    async def a() -> None:
        try:
            await log.sleep_forever("a")
        finally:
            a_cancelled.set()

    async with cancelled_soon(p.cancel_scope) as outer:
        async with p.task_group() as group:
            group.start_soon(a)
            with p.cancel_scope(shield=True):
                with anyio.move_on_after(1):  # the cancellation comes at 10 ms, or never reaches `a` meanwhile
                    await a_cancelled.wait()
                log.note("body", f"shielded part done, a cancelled meanwhile: {'a' in log}")
            await log.sleep_forever("body")
    return outer.cancelled_caught


async def a_shield_lifted_lets_the_cancellation_in(p: Primitives, log: Log) -> object:
    async def child() -> None:
        with p.cancel_scope(shield=True) as shield:
            await anyio.sleep(0.02)
            log.note("child", "shielded part done")
            shield.shield = False
            await log.sleep_forever("unshielded")

    async with p.task_group() as group:
        group.start_soon(child)
        group.start_soon(log.fail, "b")


async def a_task_that_catches_the_cancellation_is_cancelled_again(p: Primitives, log: Log) -> object:
    async def stubborn() -> None:
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            log.note("stubborn", "caught")
        try:
            await anyio.sleep(0.05)
            log.note("stubborn", "slept on")
        except anyio.get_cancelled_exc_class():
            log.note("stubborn", "cancelled again")
            raise

    async with p.task_group() as group:
        group.start_soon(stubborn)
        group.start_soon(log.fail, "b", 0.01)


async def a_task_that_swallows_the_cancellation_returns(p: Primitives, log: Log) -> object:
    async def swallow() -> None:
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            log.note("swallow", "swallowed")

    async with cancelled_soon(p.cancel_scope) as outer:
        async with p.task_group() as group:
            group.start_soon(swallow)
    return outer.cancelled_caught


async def a_deadline_cancels_the_group(p: Primitives, log: Log) -> object:
    with p.cancel_scope(deadline=anyio.current_time() + 0.01) as scope:
        async with p.task_group() as group:
            group.start_soon(log.sleep_forever, "a")
            await log.sleep_forever("body")
    return scope.cancelled_caught, scope.cancel_called


async def a_deadline_moved_earlier_while_inside(p: Primitives, log: Log) -> object:
    with p.cancel_scope() as scope:
        async with p.task_group() as group:
            group.start_soon(log.sleep_forever, "a")
            await anyio.sleep(0)
            scope.deadline = anyio.current_time() + 0.01
            log.note("body", f"deadline set, effective {anyio.current_effective_deadline() != math.inf}")
            await log.sleep_forever("body")
    return scope.cancelled_caught


async def a_deadline_already_past(p: Primitives, log: Log) -> object:
    with p.cancel_scope(deadline=anyio.current_time() - 1) as scope:
        log.note("body", "body runs")
        await anyio.sleep(0)
        log.note("body", "not reached")
    return scope.cancelled_caught, scope.cancel_called


async def cancelled_before_the_group_starts(p: Primitives, log: Log) -> object:
    async def child() -> None:
        log.note("child", "child runs")  # trio runs a task up to its first checkpoint, asyncio (anyio) not at all
        await log.sleep_forever("child")

    with p.cancel_scope() as scope:
        scope.cancel()
        async with p.task_group() as group:
            group.start_soon(child)
            log.note("body", "body runs")
            await log.sleep_forever("body")
    return scope.cancelled_caught


async def a_shielded_group_in_a_cancelled_scope(p: Primitives, log: Log) -> object:
    with p.cancel_scope() as scope:
        scope.cancel()
        with p.cancel_scope(shield=True):
            async with p.task_group() as group:
                group.start_soon(log.fail, "a", 0.01)
                await log.sleep_forever("body")  # cancelled by the child's failure, not by the scope


async def start_returns_the_started_value(p: Primitives, log: Log) -> object:
    async def serve(greeting: str, *, task_status: Any) -> None:
        log.note("serve", "serving")
        task_status.started(f"{greeting} started")
        await anyio.sleep(0.01)
        log.note("serve", "served")

    async with p.task_group() as group:
        log.note("body", await p.start(group, serve, "it"))
    log.note("body", "group done")


async def an_error_before_started_is_raised_by_start(p: Primitives, log: Log) -> object:
    async def broken(*, task_status: Any) -> None:
        await anyio.sleep(0)
        raise OSError("no display")

    async with p.task_group() as group:
        group.start_soon(log.sleep_forever, "other")
        try:
            await p.start(group, broken)
        except OSError as error:
            log.note("body", f"start raised {error}")
        raise KeyError("end it")


async def an_error_after_started_is_the_groups(p: Primitives, log: Log) -> object:
    async def crash_later(*, task_status: Any) -> None:
        task_status.started()
        await anyio.sleep(0)
        raise KeyError("after the start")

    async with p.task_group() as group:
        await p.start(group, crash_later)
        log.note("body", "started")
        await log.sleep_forever("body")


async def the_starter_cancelled_while_it_waits(p: Primitives, log: Log) -> object:
    async def slow(*, task_status: Any) -> None:
        await log.sleep_forever("slow")

    async with p.task_group() as group:
        with anyio.move_on_after(0.01) as waited:
            await p.start(group, slow)
        log.note("body", f"gave up waiting: {waited.cancelled_caught}")
        await anyio.sleep(0.01)
        log.note("body", "group goes on")
        raise KeyError("end it")


async def start_inside_a_cancelled_scope(p: Primitives, log: Log) -> object:
    async def serve(*, task_status: Any) -> None:
        log.note("serve", "serve runs")
        task_status.started()
        await log.sleep_forever("serve")

    async with p.task_group() as group:
        with p.cancel_scope() as scope:
            scope.cancel()
            await p.start(group, serve)
            log.note("body", "start returned")
        log.note("body", f"scope caught {scope.cancelled_caught}")
        raise KeyError("end it")


CASES = [
    cancelled_from_outside,
    cancelled_from_outside_while_the_body_has_ended,
    a_child_fails,
    a_child_fails_after_the_body_has_ended,
    two_children_fail_at_once,
    the_body_fails,
    a_nested_group_fails,
    a_child_cancels_a_scope_of_its_own,
    nested_scopes_cancel_the_innermost_first,
    a_shielded_cleanup_finishes_when_a_sibling_fails,
    a_shielded_cleanup_finishes_when_cancelled_from_outside,
    a_shielded_body_finishes_when_a_child_fails,
    the_children_are_cancelled_while_the_body_is_shielded,
    a_shield_lifted_lets_the_cancellation_in,
    a_task_that_catches_the_cancellation_is_cancelled_again,
    a_task_that_swallows_the_cancellation_returns,
    a_deadline_cancels_the_group,
    a_deadline_moved_earlier_while_inside,
    a_deadline_already_past,
    cancelled_before_the_group_starts,
    a_shielded_group_in_a_cancelled_scope,
    start_returns_the_started_value,
    an_error_before_started_is_raised_by_start,
    an_error_after_started_is_the_groups,
    the_starter_cancelled_while_it_waits,
    start_inside_a_cancelled_scope,
]


async def outcome(case: Callable[[Primitives, Log], Awaitable[object]], primitives: Primitives) -> tuple[object, ...]:
    log = Log()
    returned, raised = None, None
    with anyio.fail_after(5):
        try:
            returned = await case(primitives, log)
        except BaseException as error:  # noqa: BLE001 - what was raised is the outcome
            if isinstance(error, anyio.get_cancelled_exc_class()):
                raise  # fail_after's own: the case hung
            raised = error
    return log, returned, shape(raised)


@pytest.mark.parametrize("case", CASES, ids=[case.__name__ for case in CASES])
async def test_the_case_ends_as_it_does_with_anyios_own(case):
    assert await outcome(case, RUNTIME) == await outcome(case, ANYIO)
