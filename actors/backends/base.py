"""What a VM backend must provide; the VMController and Observer actors wrap it.

One backend object usually plays both roles (one browser, one display), so the
node hosting it builds a VMController and an Observer on the same instance.
"""

from __future__ import annotations

from typing import Any, Protocol

from protocols import Action, Acted, Task, UIElement, Viewport


class VMBackend(Protocol):
    async def reset(self, task: Task, attempt: int) -> None:
        """Bring the screen to the task's initial state (fresh context, display, snapshot)."""

    async def act(self, step: int, action: Action) -> Acted:
        """Carry out one action and wait for the screen to settle; never a fixed sleep."""

    async def inspect(self, spec: dict[str, Any]) -> dict[str, Any]:
        """Read the state the task's evaluator checks."""


class ScreenBackend(Protocol):
    async def screenshot(self) -> tuple[bytes, Viewport]: ...

    async def tree(self) -> UIElement | None:
        """The normalized accessibility tree, or None when there is none to read."""

    async def details(self) -> dict[str, Any]:
        """Observation fields besides pixels and tree: url, window_title, app_name, ..."""
