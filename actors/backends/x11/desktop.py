"""The X11 desktop backend: VMBackend and ScreenBackend over one fresh Xvfb session per episode.

reset: close the last session, start a new display (size from the task's
`raw_config["screen"]`, else the backend's), home and AT-SPI bus, run the
task's setup steps. act: plan the action (actors.backends.input_plan), send it
through XTEST on a connection of the desktop's own (actors.backends.x11.xtest),
wait for the screen to stop drawing (actors.backends.x11.redraws). Observe: mss
screenshot, active window title and application (python-xlib), AT-SPI tree
in a worker thread whose walk stops itself at its deadline.

Every call first checks that the desktop is alive: a dead Xvfb or a killed
application raises `DesktopDied`, which crashes the hosting actor and so
the node, and the supervisor retries the episode on a fresh one.
"""

from __future__ import annotations

import functools
from typing import Any

import anyio
from Xlib.error import ConnectionClosedError, XError

from protocols import Acted, Action, Task, UIElement, Viewport, Wait
from runtime.errors import Refused

from actors.backends.input_plan import Plan, StepError
from actors.normalize import atspi as normalize_atspi
from actors.backends.files import read_state
from actors.backends.screenshots import Encoding, Screen
from actors.backends.treewalk import Walk, WalkLimits
from actors.backends.x11 import atspi
from actors.backends.x11.redraws import Redraws
from actors.backends.x11.xtest import XTestInput, batches
from actors.backends.x11.session import Session
from actors.errors import ConfigError
from actors.backends.x11.setup import parse_steps, run_steps
from actors.backends.x11.windows import WindowList


class X11Desktop:
    def __init__(self, width: int = 1280, height: int = 800, *, encoding: Encoding = Encoding(),
                 walk_limits: WalkLimits = WalkLimits(), settle_bound: float = 2.0) -> None:
        self.size = (width, height)
        self.encoding = encoding
        self.walk_limits = walk_limits
        self.settle_bound = settle_bound
        self.session: Session | None = None
        self.screen: Screen | None = None
        self.windows: WindowList | None = None
        self.input: XTestInput | None = None
        self.redraws: Redraws | None = None
        self.last_tree: UIElement | None = None
        self._xlib = anyio.CapacityLimiter(1)
        self._input = anyio.CapacityLimiter(1)

    # --- VMBackend --------------------------------------------------------------------

    async def reset(self, task: Task, attempt: int) -> None:
        try:  # a malformed task is the request's fault: refused, the node serves on
            steps = parse_steps(task.raw_config.get("config", []))
            width, height = _screen_size(task.raw_config.get("screen", self.size))
        except ConfigError as exc:
            raise Refused(f"task {task.task_id}: {exc}") from None
        self.close()
        self.session = Session.start(width, height)
        self.screen = Screen(self.session.display, self.encoding)
        self.windows = WindowList(self.session.display)
        self.input = XTestInput(self.session.display)
        self.redraws = Redraws(self.session.display)
        await anyio.to_thread.run_sync(self.windows.wait_for_manager, 10.0, limiter=self._xlib)
        await run_steps(self.session, steps, self._wait_window)

    async def act(self, step: int, action: Action) -> Acted:
        session = self._live()
        began = anyio.current_time()
        try:
            ops = Plan(session.width, session.height, self._find).ops(action)
        except StepError as exc:
            return Acted(error=str(exc))
        await anyio.to_thread.run_sync(self.redraws.forget, limiter=self._input)
        for batch in batches(ops):
            if isinstance(batch, float):
                await anyio.sleep(batch)
                continue
            try:
                await anyio.to_thread.run_sync(self.input.send, batch, limiter=self._input)
            except (XError, ConnectionClosedError) as exc:
                session.check()  # a dead display is a crash, not the agent's fault
                return Acted(error=f"X input failed: {exc}")
        acted = anyio.current_time()
        settle = 0.0 if isinstance(action, Wait) else await anyio.to_thread.run_sync(
            functools.partial(self.redraws.settle, bound=self.settle_bound), limiter=self._input)
        session.check()
        return Acted(duration=acted - began, settle=settle)

    async def inspect(self, spec: dict[str, Any]) -> dict[str, Any]:
        return read_state(self._live().home, spec)

    # --- ScreenBackend -----------------------------------------------------------------

    async def screenshot(self) -> tuple[bytes, Viewport]:
        self._live()
        return await self.screen.screenshot()

    async def tree(self) -> UIElement | None:
        session = self._live()
        walk = Walk(self.walk_limits)
        try:
            raw = await anyio.to_thread.run_sync(
                functools.partial(atspi.capture, session.env["DBUS_SESSION_BUS_ADDRESS"], walk),
                abandon_on_cancel=True,
            )
        finally:
            walk.cancelled.set()  # an abandoned walk stops at its next node
        self.last_tree = normalize_atspi.normalize(raw)
        return self.last_tree

    async def details(self) -> dict[str, Any]:
        self._live()
        title, app = await anyio.to_thread.run_sync(self.windows.active, limiter=self._xlib)
        return {"window_title": title, "app_name": app}

    # --- plumbing --------------------------------------------------------------------

    def _live(self) -> Session:
        if self.session is None:
            raise Refused("the desktop has not been reset to a task yet")
        self.session.check()
        return self.session

    def _find(self, node_id: str) -> UIElement | None:
        return self.last_tree.find(node_id) if self.last_tree is not None else None

    async def _wait_window(self, title: str, timeout: float) -> str:
        return await anyio.to_thread.run_sync(self.windows.wait_for, title, timeout, limiter=self._xlib)

    def close(self) -> None:
        for part in (self.input, self.redraws, self.screen, self.windows, self.session):
            if part is not None:
                part.close()
        self.input = self.redraws = self.screen = self.windows = self.session = None
        self.last_tree = None


_MAX_SCREEN = 8192


def _screen_size(value: Any) -> tuple[int, int]:
    """A task's `screen`: [width, height] in pixels, whole numbers Xvfb can make."""
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) and 16 <= n <= _MAX_SCREEN for n in value)):
        raise ConfigError(f"`screen` must be [width, height], whole numbers of pixels in 16..{_MAX_SCREEN}, got {value!r}")
    return value[0], value[1]


__all__ = ["X11Desktop"]
