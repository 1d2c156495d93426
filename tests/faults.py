"""Killing real processes mid-episode, for the tests that show a run survives it."""

from __future__ import annotations

import os
import signal
from typing import Callable, Sequence

import anyio

from actors.runner import EpisodeRunner
from protocols import EpisodeResult, StepTaken, Task
from runtime.events import EventBus


def descendants(name: bytes) -> list[int]:
    """Pids of processes anywhere below this test process whose command name is
    `name` or whose command line has `name` as one of its arguments."""
    parents: dict[int, int] = {}
    names: dict[int, set[bytes]] = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parents[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/comm", "rb") as comm, open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                names[int(entry)] = {comm.read().strip(), *cmdline.read().split(b"\0")}
        except OSError:
            continue
    found = []
    for pid, parent in parents.items():
        if name not in names.get(pid, ()):
            continue
        while parent > 1 and parent != os.getpid():
            parent = parents.get(parent, 0)
        if parent == os.getpid():
            found.append(pid)
    return found


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
