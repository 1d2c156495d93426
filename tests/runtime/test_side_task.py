"""runtime.side_task: calls begun and finished by an owner, run in a task that outlives them."""

import anyio
import pytest

from runtime.loop import task_group
from runtime.side_task import SideTask

pytestmark = pytest.mark.anyio


def hanging(log: list[str], ended_at: list[float], began: anyio.Event):
    async def call() -> None:
        began.set()
        try:
            await anyio.sleep_forever()
        finally:
            log.append("hung ended")
            ended_at.append(anyio.current_time())

    return call


async def test_a_call_runs_while_the_owner_works_and_finish_waits_for_it():
    log = []
    async with task_group() as group:
        side = SideTask.in_group(group, name="tree")
        for _ in range(2):  # the same task serves call after call
            began, owner_done = anyio.Event(), anyio.Event()

            async def call() -> None:
                began.set()
                await owner_done.wait()
                await anyio.sleep(0.01)
                log.append("side")

            side.begin(call)
            await began.wait()  # the owner's own work: the call runs meanwhile
            log.append("owner")
            owner_done.set()
            assert await side.finish() is True
            log.append("finished")
        side.close()
    assert log == ["owner", "side", "finished"] * 2


async def test_a_call_past_its_deadline_is_cancelled_and_the_next_call_runs():
    log, ended_at = [], []

    async def quick() -> None:
        log.append("quick")

    async with task_group() as group:
        side = SideTask.in_group(group, name="tree")
        began = anyio.Event()
        side.begin(hanging(log, ended_at, began))
        await began.wait()
        deadline = anyio.current_time() + 0.05
        assert await side.finish(deadline) is False
        assert log == ["hung ended"] and deadline - 0.001 <= ended_at[0] < deadline + 1  # ended before finish returned
        side.begin(quick)
        assert await side.finish(anyio.current_time() + 5) is True
        side.close()
    assert log == ["hung ended", "quick"]


async def test_a_calls_error_is_raised_by_finish_and_the_side_task_goes_on():
    async def fails() -> None:
        await anyio.sleep(0)
        raise LookupError("no tree")

    async def quick() -> None:
        pass

    async with task_group() as group:
        side = SideTask.in_group(group, name="tree")
        side.begin(fails)
        with pytest.raises(LookupError, match="no tree"):
            await side.finish()
        side.begin(quick)
        assert await side.finish() is True
        side.close()


async def test_an_owner_leaving_cancels_its_call_and_a_call_not_yet_taken_never_runs():
    log = []

    async def never() -> None:
        log.append("ran")

    async with task_group() as group:
        side = SideTask.in_group(group, name="details")
        began = anyio.Event()
        side.begin(hanging(log, [], began))
        await began.wait()  # taken: it runs
        await side.cancel()
        assert log == ["hung ended"]
        side.begin(never)
        await side.cancel()  # before the side task could take it: the owner has not waited since
        await anyio.sleep(0.02)
        side.close()
    assert log == ["hung ended"]


async def test_an_owner_cancelled_while_it_waits_still_waits_for_its_call_to_end():
    log = []
    began = anyio.Event()

    async def slow_to_stop() -> None:
        began.set()
        try:
            await anyio.sleep_forever()
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.sleep(0.05)
            log.append("call ended")

    async with task_group() as group:
        side = SideTask.in_group(group, name="tree")
        side.begin(slow_to_stop)
        await began.wait()
        with anyio.move_on_after(0.02) as scope:
            try:
                await side.finish()
            finally:
                await side.cancel()
                log.append("owner left")
        assert scope.cancelled_caught
        side.close()
    assert log == ["call ended", "owner left"]


async def test_a_call_that_swallows_its_cancellation_does_not_cancel_the_next_one():
    log = []
    began = anyio.Event()

    async def stubborn() -> None:
        began.set()
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            log.append("swallowed")

    async def next_call() -> None:
        await anyio.sleep(0.01)
        log.append("next finished")

    async with task_group() as group:
        side = SideTask.in_group(group, name="tree")
        side.begin(stubborn)
        await began.wait()
        assert await side.finish(anyio.current_time() + 0.02) is False
        side.begin(next_call)
        assert await side.finish() is True
        side.close()
    assert log == ["swallowed", "next finished"]


async def test_one_call_at_a_time_and_none_once_closed():
    async with task_group() as group:
        side = SideTask.in_group(group, name="tree")
        side.begin(anyio.sleep_forever)
        with pytest.raises(RuntimeError, match="side task 'tree': a call is still running"):
            side.begin(anyio.sleep_forever)
        await side.cancel()
        side.close()
        with pytest.raises(RuntimeError, match="side task 'tree' is closed"):
            side.begin(anyio.sleep_forever)
