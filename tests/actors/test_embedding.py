"""The actors embedded in someone else's program: plain trio, plain asyncio."""

import asyncio
import functools

import pytest
import trio

from actors.episode import Outlets
from actors.runner import EpisodeRunner
from actors.backends.sim.node import build
from bench.suites.sim.suite import sim_tasks
from runtime.events import EventBus
from runtime.host import run_local_host
from runtime.limits import Limits
from tests.crews import sim_crew



def make_runner(bus):
    return EpisodeRunner(
        crew=sim_crew(),
        vm_slot=functools.partial(run_local_host, build),
        limits=Limits(call_seconds=5),
        concurrency=2,
        outlets=Outlets(bus=bus),
    )


@pytest.mark.trio
async def test_runner_inside_a_plain_trio_program_next_to_its_own_tasks():
    tasks = sim_tasks(3, sim={"scale": 0.001})
    bus = EventBus()
    ticks = 0
    results = []

    async def own_work():
        nonlocal ticks
        while True:
            ticks += 1
            await trio.sleep(0.001)

    with bus.subscribe() as events:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(own_work)
            results = await make_runner(bus).run(tasks)
            nursery.cancel_scope.cancel()
    assert sorted(r.task_id for r in results) == sorted(t.task_id for t in tasks)
    assert all(r.success for r in results)
    assert ticks > 3  # the program's own task kept running while episodes ran
    assert events.dropped == 0


def test_runner_inside_a_plain_asyncio_program_next_to_its_own_tasks():
    tasks = sim_tasks(3, sim={"scale": 0.001})

    async def program():
        bus = EventBus()
        seen = []

        async def watch(events):
            async for event in events:
                seen.append(type(event).__name__)

        with bus.subscribe() as events:
            async with asyncio.TaskGroup() as group:
                watcher = group.create_task(watch(events))
                results = await make_runner(bus).run(tasks)
                bus.close()
                await watcher
        return results, seen

    results, seen = asyncio.run(program())
    assert all(r.success for r in results) and len(results) == 3
    assert seen.count("EpisodeFinished") == 3 and "StepSummarized" in seen
