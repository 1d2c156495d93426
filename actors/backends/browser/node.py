"""The node app for a browser VM: `python -m runtime.node --app actors.backends.browser.node:build`.

The browser is launched when the node starts (so a node that cannot find or
start Chromium fails at once, with the reason in its last stderr lines) and
closed when it stops. `TROUPE_BROWSER` names the executable to use.
"""

from __future__ import annotations

from typing import Any

from runtime.actor import Actor
from runtime.errors import Refused

from actors.backends.browser.backend import BrowserBackend
from actors.observer import Observer
from actors.vm_controller import VMController

NAME = "browser"


class BrowserKeeper(Actor):
    """Owns the browser's life: launched on start, closed on stop. Takes no messages."""

    def __init__(self, backend: BrowserBackend, name: str = NAME) -> None:
        super().__init__(name)
        self.backend = backend

    async def on_start(self) -> None:
        await self.backend.start()

    async def on_stop(self) -> None:
        await self.backend.close()

    async def handle(self, message: Any) -> Any:
        raise Refused(f"the browser keeper takes no messages, got {type(message).__name__}")


def actors_for(backend: BrowserBackend) -> list[Actor]:
    """The browser's keeper, and a VMController and an Observer driving it."""
    return [BrowserKeeper(backend), VMController(backend), Observer(backend)]


def build() -> list[Actor]:
    """A browser that opens URLs; suites with sites of their own have their own node app."""
    return actors_for(BrowserBackend())
