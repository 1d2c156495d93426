"""Observer: captures screenshot, accessibility tree and details concurrently.

The tree is the part that hangs in practice (UI Automation on a busy
Windows VM), so it runs under its own time limit, the run's
`Limits.tree_seconds` that each `Observe` carries: past it, the observation
goes out with the screenshot alone and `partial=("tree",)`, and the step
proceeds instead of waiting.

The three captures run in a task group, which wraps what they raise in an
exception group; the Observer raises the first real error itself, so a
backend's `Refused` (nothing to capture before a Reset) stays a refusal
instead of crashing the actor as an anonymous group.
"""

from __future__ import annotations

from typing import Any, Callable

from protocols import CaptureTimings, Observation, Observe, Observed, UIElement, Viewport
from protocols.numbers import MAX_SECONDS
from runtime.actor import Actor
from runtime.errors import Refused, first_error
from runtime.loop import alongside, loop_clock

from actors.backends.base import ScreenBackend

NAME = "observer"


class Observer(Actor):
    def __init__(self, backend: ScreenBackend, *, name: str = NAME) -> None:
        super().__init__(name)
        self.backend = backend
        self._now: Callable[[], float] | None = None  # the loop's clock, looked up at the first capture

    async def handle(self, message: Any) -> Any:
        if not isinstance(message, Observe):
            raise Refused(f"Observer does not handle {type(message).__name__}")
        if not 0 <= message.tree_timeout <= MAX_SECONDS:  # checked at decode; an in-process Observe is not decoded
            raise Refused(f"tree_timeout must be a finite number of seconds >= 0, got {message.tree_timeout}")
        return Observed(observation=await self.capture(message.tree_timeout))

    async def capture(self, tree_timeout: float) -> Observation:
        """The tree in a side task under its time limit, details in another; pixels meanwhile in this one."""
        if self._now is None:
            self._now = loop_clock()  # anyio.current_time(), without finding the loop at each call
        now = self._now
        tree: list[UIElement | None] = []
        tree_seconds = 0.0

        async def capture_tree() -> None:
            nonlocal tree_seconds
            try:
                tree.append(await self.backend.tree())
            finally:
                tree_seconds = now() - started

        details: dict[str, Any] = {}

        async def capture_details() -> None:
            details.update(await self.backend.details())

        async def capture_pixels() -> tuple[bytes, Viewport, float]:
            screenshot, viewport = await self.backend.screenshot()
            return screenshot, viewport, now() - started

        started = now()
        try:
            (screenshot, viewport, screenshot_seconds), _ = await alongside(
                capture_pixels, capture_tree, capture_details, limit=tree_timeout)
        except ExceptionGroup as group:
            raise first_error(group) from None
        return Observation(
            screenshot=screenshot,
            viewport=viewport,
            tree=tree[0] if tree else None,
            timings=CaptureTimings(
                screenshot=screenshot_seconds, tree=tree_seconds, total=now() - started,
            ),
            partial=() if tree else ("tree",),
            **details,
        )
