"""The running loop's own primitives (runtime.loop): wake-ups with deadlines, the clock, task groups."""

import asyncio
import gc
import time
import weakref
from contextlib import asynccontextmanager

import anyio
import pytest

from runtime.loop import Waiter, loop_clock, start, task_group, wakeup_factory

pytestmark = pytest.mark.anyio


async def test_the_clock_is_the_one_anyio_reads():
    clock = loop_clock()
    before = anyio.current_time()
    await anyio.sleep(0.01)
    now = clock()
    assert before + 0.01 <= now <= anyio.current_time()


@asynccontextmanager
async def waiting_on(wait):
    """A task awaits `wait` (with a deadline 5 s away) from 10 ms before the block; yields the
    list its result goes to, and leaves once the task has it."""
    got = []

    async def waiting():
        got.append(await wait(anyio.current_time() + 5))

    async with anyio.create_task_group() as tg:
        tg.start_soon(waiting)
        await anyio.sleep(0.01)
        yield got


async def test_a_wakeup_wakes_its_waiter_and_a_second_set_does_nothing():
    wakeup = wakeup_factory()()
    async with waiting_on(wakeup.wait) as got:
        assert got == []
        wakeup.set()
        wakeup.set()
    assert got == [True]

    already = wakeup_factory()()
    already.set()
    assert await already.wait() is True


async def test_a_waiter_wakes_only_the_task_that_waits_there_now():
    waiter = Waiter(wakeup_factory())
    waiter.wake()  # nobody waits: nothing is kept for a later wait
    assert not waiter.waiting
    assert await waiter.wait(anyio.current_time() + 0.02) is False
    async with waiting_on(waiter.wait) as got:
        assert waiter.waiting and got == []
        waiter.wake()
    assert got == [True] and not waiter.waiting


async def test_a_wait_past_its_deadline_says_so_and_a_late_set_is_harmless():
    wakeup = wakeup_factory()()
    began = anyio.current_time()
    assert await wakeup.wait(began + 0.05) is False
    assert 0.05 <= anyio.current_time() - began < 1
    wakeup.set()


async def test_deadlines_expire_in_their_order_whatever_order_they_were_set_in():
    """A later deadline set first, then an earlier one: the earlier wakes first, on time
    (on trio one keeper sleeps until the earliest deadline and must be woken for a new one)."""
    make = wakeup_factory()
    began = anyio.current_time()
    woke: dict[str, float] = {}

    async def wait(name, seconds):
        assert await make().wait(began + seconds) is False
        woke[name] = anyio.current_time() - began

    async with anyio.create_task_group() as tg:
        tg.start_soon(wait, "late", 0.3)
        await anyio.sleep(0.01)
        tg.start_soon(wait, "early", 0.05)
    assert list(woke) == ["early", "late"]
    assert 0.05 <= woke["early"] < 0.25 and woke["late"] >= 0.3


async def test_many_wakeups_set_before_their_deadlines_leave_the_live_ones_waiting():
    """Thousands of asks answered long before their deadlines (the usual case) are dropped
    from trio's deadline heap without losing the deadline of one still waiting."""
    make = wakeup_factory()
    waiting = make()
    result = []

    async def wait():
        result.append(await waiting.wait(anyio.current_time() + 0.2))

    async def answer(wakeup):
        await anyio.sleep(0)
        wakeup.set()

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            tg.start_soon(wait)
            for _ in range(3000):
                answered = make()
                tg.start_soon(answer, answered)
                assert await answered.wait(anyio.current_time() + 600) is True
    assert result == [False]


async def test_a_cancelled_waiter_raises_as_from_any_wait_and_set_after_it_is_harmless():
    wakeup = wakeup_factory()()
    with anyio.move_on_after(0.05) as scope:
        await wakeup.wait()
    assert scope.cancelled_caught
    wakeup.set()


async def test_the_loops_task_group_waits_for_its_tasks_and_the_first_error_cancels_the_rest():
    done = []

    async def finish(seconds):
        await anyio.sleep(seconds)
        done.append(seconds)

    async with task_group() as group:
        group.start_soon(finish, 0.02)
        group.start_soon(finish, 0.01, name="named")
    assert sorted(done) == [0.01, 0.02]  # both waited for; which wakes first is the scheduler's (trio shuffles a batch)

    cancelled = []

    async def wait_forever():
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.append(True)

    async def fail():
        raise ValueError("the first error")

    with pytest.raises(ExceptionGroup) as caught:
        async with task_group() as group:
            group.start_soon(wait_forever)
            await anyio.sleep(0.01)
            group.start_soon(fail)
    assert [type(e) for e in caught.value.exceptions] == [ValueError]
    assert cancelled == [True]


@pytest.mark.parametrize("cancelled_in", ["body", "exit"])
async def test_a_cancelled_task_group_waits_for_shielded_cleanup_without_spinning(cancelled_in):
    """A cancelled anyio scope around the group cancels its waiting task again at every pass
    of the loop; the group must take the first cancellation and wait, not spin a core."""
    cleaned = []

    async def clean_up_slowly():
        try:
            await anyio.sleep_forever()
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.sleep(0.4)
                cleaned.append(True)

    cpu = time.process_time()
    with anyio.CancelScope() as outer:
        async with anyio.create_task_group() as canceller:
            canceller.start_soon(_cancel_after, outer, 0.05)
            async with task_group() as group:
                group.start_soon(clean_up_slowly)
                if cancelled_in == "body":
                    await anyio.sleep_forever()
    assert outer.cancelled_caught and cleaned == [True]
    assert time.process_time() - cpu < 0.2  # spinning took all of the 0.4 s cleanup


async def _cancel_after(scope, seconds):
    await anyio.sleep(seconds)
    scope.cancel()


@pytest.mark.parametrize("make_group", [task_group, anyio.create_task_group], ids=["loop", "anyio"])
async def test_start_returns_what_the_task_reported_while_it_runs_on(make_group):
    ran_on = anyio.Event()

    async def serve(greeting, *, task_status):
        task_status.started(greeting + " started")
        await anyio.sleep(0.01)
        ran_on.set()

    async with make_group() as group:
        assert await start(group, serve, "it") == "it started"
        assert not ran_on.is_set()
    assert ran_on.is_set()


@pytest.mark.parametrize("make_group", [task_group, anyio.create_task_group], ids=["loop", "anyio"])
async def test_an_error_before_started_is_raised_by_start_and_leaves_the_group_running(make_group):
    async def broken(*, task_status):
        await anyio.sleep(0)
        raise OSError("no display :99")

    async def forgetful(*, task_status):
        await anyio.sleep(0)

    others_done = []

    async def other():
        await anyio.sleep(0.02)
        others_done.append(True)

    async with make_group() as group:
        group.start_soon(other)
        with pytest.raises(OSError, match="no display :99"):
            await start(group, broken)
        with pytest.raises(RuntimeError, match="forgetful returned without calling task_status.started"):
            await start(group, forgetful)
    assert others_done == [True]


async def test_an_error_before_started_is_the_groups_once_the_starter_was_cancelled():
    async def slow_to_fail(*, task_status):
        await anyio.sleep(0.05)
        raise OSError("failed with nobody waiting")

    with pytest.raises(ExceptionGroup) as caught:
        async with task_group() as group:
            with anyio.move_on_after(0.01):
                await start(group, slow_to_fail)
    [error] = caught.value.exceptions
    assert isinstance(error, OSError) and "nobody waiting" in str(error)


async def test_an_error_after_started_is_the_groups_and_started_twice_is_refused():
    async def crash_later(*, task_status):
        task_status.started()
        await anyio.sleep(0)
        raise KeyError("after the start")

    with pytest.raises(ExceptionGroup) as caught:
        async with task_group() as group:
            await start(group, crash_later)
            await anyio.sleep(1)
    assert [type(e) for e in caught.value.exceptions] == [KeyError]

    async def twice(*, task_status):
        task_status.started(1)
        task_status.started(2)

    with pytest.raises(ExceptionGroup) as caught:
        async with task_group() as group:
            assert await start(group, twice) == 1
    [error] = caught.value.exceptions
    assert isinstance(error, RuntimeError) and "called 'started' twice" in str(error)


def test_finished_asyncio_loops_are_not_kept_alive_by_their_deadlines():
    """About asyncio only: its deadline heaps are kept per loop in a registry (trio's lives
    and dies with its run), which lets a closed loop go when the next loop makes wake-ups."""
    loops = []

    async def ask_with_a_deadline():
        loops.append(weakref.ref(asyncio.get_running_loop()))
        wakeup = wakeup_factory()()

        async def answer():
            await anyio.sleep(0)
            wakeup.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(answer)
            assert await wakeup.wait(anyio.current_time() + 600) is True

    for _ in range(3):
        anyio.run(ask_with_a_deadline, backend="asyncio")
    gc.collect()
    assert [ref() is None for ref in loops] == [True, True, False]  # the last one until the next
