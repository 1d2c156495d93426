"""Observer: captures screenshot and accessibility tree concurrently.

The tree is the part that hangs in practice (UI Automation on a busy
Windows VM), so it runs under its own time limit: past it, the observation
goes out with the screenshot alone and `partial=("tree",)`, and the step
proceeds instead of waiting.
"""

from __future__ import annotations

import math
from typing import Any

import anyio

from protocols import CaptureTimings, Observation, Observe, Observed
from runtime.actor import Actor
from runtime.errors import Refused

from actors.backends import ScreenBackend

NAME = "observer"


class Observer(Actor):
    def __init__(self, backend: ScreenBackend, *, tree_timeout: float = 30.0, name: str = NAME) -> None:
        super().__init__(name)
        self.backend = backend
        self.tree_timeout = tree_timeout

    async def handle(self, message: Any) -> Any:
        if not isinstance(message, Observe):
            raise Refused(f"Observer does not handle {type(message).__name__}")
        timeout = self.tree_timeout if message.tree_timeout is None else message.tree_timeout
        return Observed(observation=await self.capture(timeout))

    async def capture(self, tree_timeout: float) -> Observation:
        parts: dict[str, Any] = {}
        timings: dict[str, float] = {}

        async def timed(part: str, capture, timeout: float = math.inf) -> None:
            started = anyio.current_time()
            with anyio.move_on_after(timeout):
                parts[part] = await capture()
            timings[part] = anyio.current_time() - started

        started = anyio.current_time()
        async with anyio.create_task_group() as tg:
            tg.start_soon(timed, "screenshot", self.backend.screenshot)
            tg.start_soon(timed, "tree", self.backend.tree, tree_timeout)
            tg.start_soon(timed, "details", self.backend.details)
        total = anyio.current_time() - started

        screenshot, viewport = parts["screenshot"]
        tree, raw_tree = parts.get("tree", (None, None))
        return Observation(
            screenshot=screenshot,
            viewport=viewport,
            tree=tree,
            raw_tree=raw_tree,
            timings=CaptureTimings(screenshot=timings["screenshot"], tree=timings["tree"], total=total),
            partial=() if "tree" in parts else ("tree",),
            **parts["details"],
        )
