"""The VM and screen backend for a WAA VM server: one object, both roles.

Reset waits for /probe (bounded retries: a VM may still be booting) and runs
the task's `config` steps; an action becomes a pyautogui program sent to
/execute, then the screen is given until it stops changing (bounded by WAA's
own fixed 3 s pause) instead of a fixed sleep; `inspect` runs `postconfig`
and reads what the evaluator compares.

Screenshot and tree are separate requests, so the Observer fetches them
concurrently, each under its own limit: the screenshot under
`screenshot_timeout`, the tree under the Observer's tree limit. The tree is
tried once and its failures leave the tree out, because a step can go on
with pixels alone; every other request that keeps failing raises
`WAAUnavailable` and ends the episode as an environment failure.
"""

from __future__ import annotations

import struct
from typing import Any

import anyio

from protocols import Acted, Action, Task, UIElement, Viewport, Wait

from actors.waa import at_tree
from actors.waa.client import CommandRefused, Retry, WAAClient, WAAUnavailable
from actors.waa.commands import Untranslatable, command, to_pyautogui
from actors.waa.getters import GetterFailed, resolve, specs
from actors.waa.setup import run_steps

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> Viewport:
    """Width and height from a PNG's header, without decoding it."""
    if data[:8] != _PNG_SIGNATURE or data[12:16] != b"IHDR":
        raise WAAUnavailable(f"/screenshot did not answer a PNG (starts with {data[:16]!r})")
    width, height = struct.unpack(">II", data[16:24])
    return Viewport(width, height)


class WAABackend:
    def __init__(
        self, url: str, *, token: str | None = None, retry: Retry = Retry(),
        probe: Retry = Retry(attempts=10, backoff=1.0), screenshot_timeout: float = 10.0,
        settle_timeout: float = 3.0, settle_interval: float = 0.2, tree_backend: str = "uia",
    ) -> None:
        self.client = WAAClient(url, token=token, retry=retry)
        self.probe_retry = probe
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
        await self.client.probe(self.probe_retry)
        await run_steps(self.client, task.raw_config.get("config", []), phase="config")

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
        await run_steps(self.client, spec.get("postconfig", []), phase="postconfig")
        state: dict[str, Any] = {"result": [], "expected": [], "errors": []}
        for key in ("result", "expected"):
            for index, item in enumerate(specs(spec.get(key))):
                try:
                    value = await resolve(self.client, item)
                except (GetterFailed, CommandRefused) as exc:
                    state["errors"].append(f"{key}[{index}]: {exc}")
                    value = None
                state[key].append(value)
        return state

    # --- ScreenBackend -----------------------------------------------------------

    async def screenshot(self) -> tuple[bytes, Viewport]:
        response = await self.client.get("/screenshot", timeout=self.screenshot_timeout)
        if response.status_code != 200:
            raise WAAUnavailable(f"/screenshot answered HTTP {response.status_code}: {response.text[:200]}")
        self.viewport = png_size(response.content)
        return response.content, self.viewport

    async def tree(self) -> tuple[UIElement | None, Any]:
        try:
            response = await self.client.get(
                "/accessibility", params={"backend": self.tree_backend}, retry=Retry(attempts=1),
            )
        except WAAUnavailable as exc:
            return None, f"no tree: {exc}"
        if response.status_code != 200:
            return None, f"no tree: HTTP {response.status_code}: {response.text[:200]}"
        try:
            raw = response.json()["AT"]
        except (ValueError, KeyError, TypeError):
            return None, f"no tree: /accessibility did not answer {{'AT': xml}}: {response.text[:200]}"
        self.last_tree = at_tree.normalize(raw) if raw else None
        return self.last_tree, raw

    async def details(self) -> dict[str, Any]:
        return {}
