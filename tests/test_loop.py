"""The running loop's own primitives (runtime.loop): wake-ups with deadlines, the clock, side tasks."""

import anyio
import pytest

from runtime.loop import alongside, loop_clock, wakeup_factory

pytestmark = pytest.mark.anyio


async def test_the_clock_is_the_one_anyio_reads():
    clock = loop_clock()
    before = anyio.current_time()
    await anyio.sleep(0.01)
    now = clock()
    assert before + 0.01 <= now <= anyio.current_time()


async def test_a_wakeup_wakes_its_waiter_and_a_second_set_does_nothing():
    wakeup = wakeup_factory()()
    got = []

    async def wait():
        got.append(await wakeup.wait(anyio.current_time() + 5))

    async with anyio.create_task_group() as tg:
        tg.start_soon(wait)
        await anyio.sleep(0.01)
        assert got == []
        wakeup.set()
        wakeup.set()
    assert got == [True]

    already = wakeup_factory()()
    already.set()
    assert await already.wait() is True


async def test_a_wait_past_its_deadline_says_so_and_a_late_set_is_harmless():
    wakeup = wakeup_factory()()
    began = anyio.current_time()
    assert await wakeup.wait(began + 0.05) is False
    assert 0.05 <= anyio.current_time() - began < 1
    wakeup.set()


async def test_a_cancelled_waiter_raises_as_from_any_wait_and_set_after_it_is_harmless():
    wakeup = wakeup_factory()()
    with anyio.move_on_after(0.05) as scope:
        await wakeup.wait()
    assert scope.cancelled_caught
    wakeup.set()


async def test_alongside_returns_mains_result_once_the_side_tasks_are_done():
    done = []

    async def side(name, seconds):
        await anyio.sleep(seconds)
        done.append(name)

    async def main():
        return "pixels"

    assert await alongside(main, lambda: side("tree", 0.05), lambda: side("details", 0.01)) == "pixels"
    assert done == ["details", "tree"]


async def test_a_side_tasks_error_cancels_the_rest_and_comes_as_a_group():
    cancelled = []

    async def fails():
        await anyio.sleep(0.01)
        raise LookupError("no tree")

    async def hangs():
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            cancelled.append("main")
            raise

    with pytest.raises(ExceptionGroup) as info:
        await alongside(hangs, fails)
    assert info.group_contains(LookupError, match="no tree") and cancelled == ["main"]


async def test_cancelling_the_caller_stops_the_side_tasks():
    stopped = []

    async def hangs(name):
        try:
            await anyio.sleep_forever()
        finally:
            stopped.append(name)

    with anyio.move_on_after(0.05) as scope:
        await alongside(lambda: hangs("main"), lambda: hangs("tree"), lambda: hangs("details"))
    assert scope.cancelled_caught and sorted(stopped) == ["details", "main", "tree"]
