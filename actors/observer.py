"""Observer: captures screenshot, accessibility tree and details concurrently.

The tree is the part that hangs in practice (UI Automation on a busy
Windows VM), so it runs under its own time limit: past it, the observation
goes out with the screenshot alone and `partial=("tree",)`, and the step
proceeds instead of waiting.
"""

from __future__ import annotations

from typing import Any

import anyio

from protocols import CaptureTimings, Observation, Observe, Observed, UIElement
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
        """The tree in a side task under its time limit, details in another; pixels meanwhile in this one."""
        tree: list[tuple[UIElement | None, Any]] = []
        tree_seconds = 0.0

        async def capture_tree() -> None:
            nonlocal tree_seconds
            began = anyio.current_time()
            with anyio.move_on_after(tree_timeout):
                tree.append(await self.backend.tree())
            tree_seconds = anyio.current_time() - began

        details: dict[str, Any] = {}

        async def capture_details() -> None:
            details.update(await self.backend.details())

        started = anyio.current_time()
        async with anyio.create_task_group() as tg:
            tg.start_soon(capture_tree)
            tg.start_soon(capture_details)  # small, but no reason to wait for the pixels first
            screenshot, viewport = await self.backend.screenshot()
            screenshot_seconds = anyio.current_time() - started
        (normalized, raw), = tree or [(None, None)]
        return Observation(
            screenshot=screenshot,
            viewport=viewport,
            tree=normalized,
            raw_tree=raw,
            timings=CaptureTimings(
                screenshot=screenshot_seconds, tree=tree_seconds, total=anyio.current_time() - started,
            ),
            partial=() if tree else ("tree",),
            **details,
        )
