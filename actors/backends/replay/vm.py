"""A VM that plays a recording back: the screens a recorded episode saw, one per step.

Replaying is teacher forcing: whatever the agent does, the next screen is the
one the recording saw next, so each step is judged from the recorded state
and a recording can be scored with no live environment. `act` changes no
screen; it moves to the next recorded step and answers with the feedback the
recording's own action got. Each screen carries the action recorded on it
(`Observation.reference`), which the episode copies into the step record.
When the recording runs out, `Acted.ended` ends the episode's steps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import anyio
import msgspec

from protocols import Action, Acted, Observation, Task, UIElement, Viewport
from runtime.errors import Refused

__all__ = ["RECORDED_STEPS", "RecordedStep", "Recording", "ReplayError", "ReplayVM"]

RECORDED_STEPS = "recorded_steps"
"""The key of `inspect`'s state that holds how many steps the recording has."""

_CAPTURED = {"screenshot", "viewport", "tree", "timings", "partial"}
"""Observation fields the Observer fills from the capture itself; `details` gives the rest."""


class ReplayError(Refused, LookupError):
    """A task with nothing (readable) recorded to replay; the message names it. A refusal, not a
    crash: the replay VM is fine and goes on serving, only this request cannot be answered."""


@dataclass(frozen=True)
class RecordedStep:
    observation: Observation
    """What the recording agent saw before acting."""
    reference: Action
    """What it did."""
    error: str | None = None
    """What the environment said of that action (the feedback its agent got)."""
    after: bytes = b""
    """The screenshot after the action (needed after the last step: nothing follows it)."""


Recording = Callable[[Task], Sequence[RecordedStep]]
"""The recorded steps of a task (blocking: it may read files; called in a worker thread);
ReplayError, naming the file, when the recording cannot be read."""


class ReplayVM:
    """VMBackend and ScreenBackend in one: a VMController and an Observer share it."""

    def __init__(self, recording: Recording) -> None:
        self._recording = recording
        self._steps: tuple[RecordedStep, ...] = ()
        self._next = 0

    async def reset(self, task: Task, attempt: int) -> None:
        steps = tuple(await anyio.to_thread.run_sync(self._recording, task))
        if not steps:
            raise ReplayError(f"no recorded steps to replay for task {task.task_id!r}")
        self._steps, self._next = steps, 0

    async def act(self, step: int, action: Action) -> Acted:
        if self._next >= len(self._steps):
            raise ReplayError(f"step {step}: the recording has no step {self._next + 1} to act on")
        recorded = self._steps[self._next]
        self._next += 1
        left = len(self._steps) - self._next
        return Acted(error=recorded.error, ended="" if left else f"the recording ends after step {self._next}")

    async def inspect(self, spec: dict[str, Any]) -> dict[str, Any]:
        return {RECORDED_STEPS: len(self._steps)}

    async def screenshot(self) -> tuple[bytes, Viewport | None]:
        screen = self._screen()
        return screen.screenshot, screen.viewport

    async def tree(self) -> UIElement | None:
        return self._screen().tree

    async def details(self) -> dict[str, Any]:
        screen = self._screen()
        return {name: getattr(screen, name) for name in screen.__struct_fields__ if name not in _CAPTURED}

    def _screen(self) -> Observation:
        """The recorded screen of the current step, with its reference; after the last, the final screen."""
        if not self._steps:
            raise ReplayError("nothing to show: the replay was not reset to a task")
        if self._next < len(self._steps):
            step = self._steps[self._next]
            return msgspec.structs.replace(step.observation, reference=step.reference)
        last = self._steps[-1]
        return Observation(screenshot=last.after, viewport=last.observation.viewport)
