"""The node app for a browser VM: `python -m runtime.node --app actors.backends.browser.node:build`.

The browser is launched when the node starts (so a node that cannot find or
start Chromium fails at once, with the reason in its last stderr lines) and
closed when it stops. `TROUPE_BROWSER` names the executable to use.

With `--seats N` the node hosts N VM slots on that one browser: a
VMController and an Observer per seat (named per seat, `runtime.seats`), each
pair over a backend of its own, with its own contexts and its own next
environment made ahead. A browser with a context per slot takes a fraction of
the memory and start-up of a browser per slot (see `chromium`); the price is
that its death ends every slot on it.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from runtime.actor import Actor
from runtime.errors import Refused
from runtime.seats import seat_name

from actors import observer, vm_controller
from actors.backends.browser.backend import BrowserBackend
from actors.backends.browser.chromium import Chromium
from actors.backends.browser.pages import Site
from actors.observer import Observer
from actors.vm_controller import VMController

NAME = "browser"


class BrowserKeeper(Actor):
    """Owns the browser's life: launched on start, with each slot's first environment begun;
    closed on stop, each slot's environments first. Takes no messages."""

    def __init__(self, backends: Sequence[BrowserBackend], shared: Chromium | None = None, name: str = NAME) -> None:
        super().__init__(name)
        self.backends = backends
        self.shared = shared

    async def on_start(self) -> None:
        if self.shared is not None:
            await self.shared.start()
        for backend in self.backends:
            await backend.start()

    async def on_stop(self) -> None:
        for backend in self.backends:
            await backend.close()
        if self.shared is not None:
            await self.shared.close()

    async def handle(self, message: Any) -> Any:
        raise Refused(f"the browser keeper takes no messages, got {type(message).__name__}")


def actors_for(backend: BrowserBackend) -> list[Actor]:
    """The browser's keeper, and a VMController and an Observer driving it."""
    return [BrowserKeeper([backend]), VMController(backend), Observer(backend)]


def seated_actors(browser: Chromium, seats: int) -> list[Actor]:
    """The keeper of `browser`, and per seat a VMController and an Observer over a backend of its own."""
    backends = [BrowserBackend(browser=browser) for _ in range(seats)]
    actors: list[Actor] = [BrowserKeeper(backends, shared=browser)]
    for seat, backend in enumerate(backends):
        actors += [VMController(backend, seat_name(vm_controller.NAME, seat)),
                   Observer(backend, name=seat_name(observer.NAME, seat))]
    return actors


def browser_actors(seats: int | None = None, sites: Mapping[str, Site] | None = None) -> list[Actor]:
    """A node's actors: one VM slot with its own browser, or `seats` slots sharing one."""
    if seats is None:
        return actors_for(BrowserBackend(sites=sites))
    return seated_actors(Chromium(sites=sites), seats)


def build(seats: int | None = None) -> list[Actor]:
    """A browser that opens URLs; suites with sites of their own have their own node app."""
    return browser_actors(seats)
