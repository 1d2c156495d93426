"""One launched Chromium: Playwright's driver, the browser, the sites its pages come from.

A node hosts one, for one VM slot or for several (each slot a `BrowserBackend`
over it, with contexts of its own). Memory and start-up are the browser's
and the driver's, not the contexts': measured on small benchmark pages, one
browser holding a live and a prepared context per slot took 211, 121, 77
and 54 MiB PSS per slot for 1, 2, 4 and 8 slots.

The browser's death is everyone's: every backend over it checks `check`,
which raises `BrowserCrashed` once the browser is gone, and `unless_lost`
stops waiting for a call the dead browser will never answer.
"""

from __future__ import annotations

from typing import Awaitable, Mapping, TypeVar

import anyio
import sniffio
from playwright.async_api import Browser, Playwright, async_playwright

from protocols import TroupeError
from runtime.errors import Refused

from actors.backends.browser.launch import LAUNCH_ARGS, find_browser
from actors.backends.browser.pages import Site
from actors.errors import ConfigError

T = TypeVar("T")


class BrowserCrashed(TroupeError, RuntimeError):
    """The browser process is gone; the node must be restarted."""


class Chromium:
    def __init__(self, executable: str | None = None, *, sites: Mapping[str, Site] | None = None) -> None:
        self.executable = executable
        self.sites = dict(sites or {})
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._lost: str | None = None
        self._waiting: set[anyio.CancelScope] = set()

    async def start(self) -> None:
        loop = sniffio.current_async_library()
        if loop != "asyncio":
            raise ConfigError(
                f"the browser backend drives Playwright, which needs asyncio, not {loop}: host it in a node "
                "process (--vm node; functools.partial(run_local_node, app)) or run on asyncio")
        self._playwright = await async_playwright().start()
        path = find_browser(self.executable, self._playwright.chromium.executable_path)
        self._browser = await self._playwright.chromium.launch(executable_path=path, args=list(LAUNCH_ARGS))
        self._browser.on("disconnected", self._disconnected)

    async def close(self) -> None:
        for site in self.sites.values():
            site.close()
        if self._browser is not None and self._browser.is_connected():
            await self._browser.close()
        if self._playwright is not None:
            await self._playwright.stop()

    @property
    def browser(self) -> Browser:
        self.check()
        assert self._browser is not None
        return self._browser

    def check(self, exc: BaseException | None = None) -> None:
        """Raise BrowserCrashed when the browser is gone (whatever error showed it)."""
        if self._browser is None:
            raise Refused("the browser has not been started")
        if self._lost or not self._browser.is_connected() or (exc is not None and "closed" in str(exc)):
            detail = f": {str(exc).splitlines()[0]}" if exc is not None else ""
            raise BrowserCrashed(f"{self._lost or 'the browser is gone'}{detail}") from exc

    async def unless_lost(self, work: Awaitable[T]) -> T:
        """`work`'s result, or BrowserCrashed as soon as the browser is gone, even while `work`
        waits for it: Playwright answers some calls in flight when the browser dies (a new
        page's) never, and a reset waited for it until its caller gave up."""
        with anyio.CancelScope() as scope:
            self._waiting.add(scope)
            if self._lost:
                scope.cancel()
            try:
                return await work
            finally:
                self._waiting.discard(scope)
        raise BrowserCrashed(f"{self._lost} while a call to it was waiting")  # the scope's cancel

    def _disconnected(self, _browser: Browser) -> None:
        self._lost = "the browser process died or closed its connection"
        for scope in self._waiting:
            scope.cancel()
