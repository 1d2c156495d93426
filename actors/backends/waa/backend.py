"""The VM and screen backend for a WAA VM server: one object, both roles.

Reset waits for the probe path (bounded retries: a VM may still be booting) and lets
the suite's `TaskSteps` prepare the task (WAA's `config` steps); an action
becomes a pyautogui program sent to /execute, then the screen is given until it
stops changing (bounded by WAA's own fixed 3 s pause) instead of a fixed sleep;
`inspect` hands the evaluation spec to the suite's `TaskSteps`, which run
`postconfig` and read what the evaluator compares. The backend itself knows
the server's protocol and no benchmark.

Screenshot and tree are separate requests, so the Observer fetches them
concurrently, each under its own limit: the screenshot under
`screenshot_timeout`, the tree under the Observer's tree limit. The tree is
tried once and its failures leave the tree out, because a step can go on
with pixels alone; every other request that keeps failing raises
`WAAUnavailable` and ends the episode as an environment failure.
"""

from __future__ import annotations

import logging
import struct
from typing import Any, Protocol

import anyio

from protocols import Acted, Action, Task, UIElement, Viewport, Wait

from actors.backends.waa import at_tree
from actors.backends.waa.client import CommandRefused, Retry, WAAClient, WAAUnavailable
from actors.backends.waa.commands import Untranslatable, command, to_pyautogui

logger = logging.getLogger(__name__)

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> Viewport:
    """Width and height from a PNG's header, without decoding it."""
    if data[:8] != _PNG_SIGNATURE or data[12:16] != b"IHDR":
        raise WAAUnavailable(f"/screenshot did not answer a PNG (starts with {data[:16]!r})")
    width, height = struct.unpack(">II", data[16:24])
    return Viewport(width, height)


class TaskSteps(Protocol):
    """What a benchmark does on a WAA VM around an episode, through the backend's client."""

    async def prepare(self, client: WAAClient, task: Task) -> None:
        """Bring the VM to the task's initial state (after the probe answered)."""

    async def inspect(self, client: WAAClient, spec: dict[str, Any]) -> dict[str, Any]:
        """Read the state the task's evaluator compares."""


class NoTaskSteps:
    """A bare VM: nothing prepared, nothing read."""

    async def prepare(self, client: WAAClient, task: Task) -> None:
        return None

    async def inspect(self, client: WAAClient, spec: dict[str, Any]) -> dict[str, Any]:
        return {}


class WAABackend:
    def __init__(
        self, url: str, *, token: str | None = None, steps: TaskSteps = NoTaskSteps(), retry: Retry = Retry(),
        probe: Retry = Retry(attempts=10, backoff=1.0), screenshot_timeout: float = 10.0,
        settle_timeout: float = 3.0, settle_interval: float = 0.2, tree_backend: str = "uia",
        devtools: str | None = None, probe_path: str = "/probe",
    ) -> None:
        self.client = WAAClient(url, token=token, retry=retry, devtools=devtools)
        self.steps = steps
        self.probe_retry = probe
        self.probe_path = probe_path
        self.screenshot_timeout = screenshot_timeout
        self.settle_timeout = settle_timeout
        self.settle_interval = settle_interval
        self.tree_backend = tree_backend
        self.viewport: Viewport | None = None
        self.last_tree: UIElement | None = None

    async def aclose(self) -> None:
        await self.client.aclose()

    # --- VMBackend -------------------------------------------------------------

    async def reset(self, task: Task, attempt: int) -> None:
        self.viewport = None
        self.last_tree = None
        await self.client.probe(self.probe_retry, self.probe_path)
        await self.steps.prepare(self.client, task)

    async def act(self, step: int, action: Action) -> Acted:
        started = anyio.current_time()
        if isinstance(action, Wait):
            await anyio.sleep(action.seconds)
            return Acted(duration=anyio.current_time() - started)
        try:
            program = to_pyautogui(action, self.viewport, self.last_tree)
            reply = await self.client.execute(command(program))
        except (Untranslatable, CommandRefused) as exc:
            return Acted(duration=anyio.current_time() - started, error=str(exc))
        ran = anyio.current_time()
        error = None
        if reply.get("status") != "success" or reply.get("returncode", 0) != 0:
            error = f"the VM could not run the action: {reply.get('error') or reply.get('message') or reply}"
        settle = await self._settle()
        return Acted(duration=ran - started, settle=settle, error=error)

    async def _settle(self) -> float:
        """Seconds until two screenshots in a row are the same, at most `settle_timeout`."""
        started = anyio.current_time()
        previous = None
        with anyio.move_on_after(self.settle_timeout):
            while True:
                current, _ = await self.screenshot()
                if current == previous:
                    break
                previous = current
                await anyio.sleep(self.settle_interval)
        return anyio.current_time() - started

    async def inspect(self, spec: dict[str, Any]) -> dict[str, Any]:
        return await self.steps.inspect(self.client, spec)

    # --- ScreenBackend -----------------------------------------------------------

    async def screenshot(self) -> tuple[bytes, Viewport]:
        response = await self.client.get("/screenshot", timeout=self.screenshot_timeout)
        if response.status_code != 200:
            raise WAAUnavailable(f"/screenshot answered HTTP {response.status_code}: {response.text[:200]}")
        self.viewport = png_size(response.content)
        return response.content, self.viewport

    async def tree(self) -> UIElement | None:
        """The VM's tree, or None (the reason logged) when /accessibility cannot give one."""
        try:
            response = await self.client.get(
                "/accessibility", params={"backend": self.tree_backend}, retry=Retry(attempts=1),
            )
        except WAAUnavailable as exc:
            return _no_tree(str(exc))
        if response.status_code != 200:
            return _no_tree(f"HTTP {response.status_code}: {response.text[:200]}")
        try:
            raw = response.json()["AT"]
        except (ValueError, KeyError, TypeError):
            return _no_tree(f"/accessibility did not answer {{'AT': xml}}: {response.text[:200]}")
        self.last_tree = at_tree.normalize(raw) if raw else None
        return self.last_tree

    async def details(self) -> dict[str, Any]:
        return {}


def _no_tree(reason: str) -> None:
    """A step goes on without a tree; the log says why (the observation itself has no field for it)."""
    logger.warning("no accessibility tree: %s", reason)
