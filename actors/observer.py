"""Observer: captures screenshot, accessibility tree and details concurrently.

The tree is the part that hangs in practice (UI Automation on a busy
Windows VM), so it runs under its own time limit, the run's
`Limits.tree_seconds` that each `Observe` carries: past it, the observation
goes out with the screenshot alone and `partial=("tree",)`, and the step
proceeds instead of waiting.

The tree and the details are captured in two side tasks that live as long as
the Observer (`runtime.side_task`), the pixels meanwhile in the Observer's own:
at every step of every episode, two new tasks in a task group of their own cost
a sixth of the runtime's CPU per step on trio. An error is raised as the
capture's own, the screenshot's first, then the details', then the tree's: a
backend's `Refused` (nothing to capture before a Reset) stays a refusal.
"""

from __future__ import annotations

import contextlib
from typing import Any, AsyncIterator, Callable

from protocols import CaptureTimings, Observation, Observe, Observed, UIElement
from protocols.numbers import MAX_SECONDS
from runtime.actor import Actor
from runtime.errors import Refused, first_error
from runtime.loop import loop_clock, task_group
from runtime.side_task import SideTask

from actors.backends.base import ScreenBackend

NAME = "observer"


class Observer(Actor):
    def __init__(self, backend: ScreenBackend, *, name: str = NAME) -> None:
        super().__init__(name)
        self.backend = backend
        self._now: Callable[[], float] | None = None  # the loop's clock, looked up at the first capture
        self._sides: tuple[SideTask, SideTask] | None = None  # the tree's and the details', while it lives

    @contextlib.asynccontextmanager
    async def lifetime(self) -> AsyncIterator[None]:
        async with self._side_tasks() as self._sides:
            try:
                yield
            finally:
                self._sides = None

    @contextlib.asynccontextmanager
    async def _side_tasks(self) -> AsyncIterator[tuple[SideTask, SideTask]]:
        """The tree's side task and the details', for as long as the block runs."""
        try:
            async with task_group() as group:
                sides = (SideTask.in_group(group, name=f"{self.name} tree"),
                         SideTask.in_group(group, name=f"{self.name} details"))
                try:
                    yield sides
                finally:
                    for side in sides:
                        side.close()
        except ExceptionGroup as group:  # the task group's wrapping of what the Observer raised in it
            raise first_error(group) from None

    async def handle(self, message: Any) -> Any:
        if not isinstance(message, Observe):
            raise Refused(f"Observer does not handle {type(message).__name__}")
        if not 0 <= message.tree_timeout <= MAX_SECONDS:  # checked at decode; an in-process Observe is not decoded
            raise Refused(f"tree_timeout must be a finite number of seconds >= 0, got {message.tree_timeout}")
        return Observed(observation=await self.capture(message.tree_timeout))

    async def capture(self, tree_timeout: float) -> Observation:
        """The tree in a side task under its time limit, details in another; pixels meanwhile in this one.

        Called on an Observer that is not running as an actor, it makes side tasks of this
        capture's own (so such captures may run at once)."""
        if self._sides is None:
            async with self._side_tasks() as sides:
                return await self._capture(sides, tree_timeout)
        return await self._capture(self._sides, tree_timeout)

    async def _capture(self, sides: tuple[SideTask, SideTask], tree_timeout: float) -> Observation:
        tree_side, details_side = sides
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

        started = now()
        tree_side.begin(capture_tree)
        details_side.begin(capture_details)
        try:
            screenshot, viewport = await self.backend.screenshot()
            screenshot_seconds = now() - started
            await details_side.finish()
            await tree_side.finish(started + tree_timeout)
        finally:  # on the way out with an error: nothing of this capture goes on
            await details_side.cancel()
            await tree_side.cancel()
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
