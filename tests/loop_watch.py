"""A metric that can score 1 only while the event loop keeps running: it waits for a task on the loop to
answer it, so a checker that ran metrics on the loop's own thread would stall every other actor (and here
time out and score 0)."""

from __future__ import annotations

import threading
from typing import Any, Awaitable, Callable

import anyio

ANSWER_WITHIN = 5.0


class LoopWatch:
    def __init__(self) -> None:
        self.started = threading.Event()
        self.answered = threading.Event()

    def metric(self, *arguments: Any, **options: Any) -> float:
        self.started.set()
        return float(self.answered.wait(ANSWER_WITHIN))

    async def _answer(self) -> None:
        while not self.started.is_set():
            await anyio.sleep(0.01)
        self.answered.set()

    async def score(self, check: Callable[[], Awaitable[Any]]) -> Any:
        """The checker's verdict, with the loop answering the metric meanwhile."""
        async with anyio.create_task_group() as group:
            group.start_soon(self._answer)
            return await check()
