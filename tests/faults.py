"""Killing real processes mid-episode, for the tests that show a run survives it."""

from __future__ import annotations

import os
import signal
from typing import Callable, Sequence

import anyio

from actors.backends.browser.processes import descendants as processes_below
from actors.runner import EpisodeRunner
from protocols import EpisodeResult, StepTaken, Task
from runtime.events import EventBus


def descendants(name: bytes) -> list[int]:
    """Pids of processes anywhere below this test process whose program is `name` or whose
    command line has `name` as one of its arguments."""
    return [pid for pid, argv in processes_below(os.getpid()).items()
            if name in argv or os.path.basename(argv[0]) == name]


async def run_killing_after_first_step(
    runner: EpisodeRunner, bus: EventBus, tasks: Sequence[Task], victim: Callable[[], int],
) -> tuple[list[EpisodeResult], list[int]]:
    """Run `tasks`, SIGKILLing `victim()` as soon as the first step of any episode is taken.

    `bus` must be the runner's event bus. Returns the results and the killed pid(s).
    """
    killed: list[int] = []

    async def kill_after_the_first_step() -> None:
        with bus.subscribe() as events:
            async for event in events:
                if isinstance(event, StepTaken):
                    pid = victim()
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                    return

    async with anyio.create_task_group() as tg:
        tg.start_soon(kill_after_the_first_step)
        await anyio.sleep(0)  # subscribed before the first step
        results = await runner.run(tasks)
    assert killed, "nothing was killed: no step was taken"
    return results, killed
