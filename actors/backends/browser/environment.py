"""One episode's environment: a fresh browser context with one page, used once, then closed.

A fresh context per episode is the isolation between episodes: cookies,
storage (local, session, IndexedDB, origin-private files), cache, history
and downloads all belong to the context and go with it. Making one costs
most of a reset (a new renderer process), and none of it depends on the
task, so the backend makes the next one ahead (see `ahead`). `loaded` says
which page it already holds, loaded but not started: a page loaded ahead
for the task it was predicted for.
"""

from __future__ import annotations

import contextlib

import anyio
from playwright.async_api import Browser, BrowserContext, CDPSession, Download, Page
from playwright.async_api import Error as PlaywrightError

from actors.backends.browser.settle import INIT_SCRIPT, NetworkWatch

CLOSE_SECONDS = 5.0
"""How long closing the context of a page that was not made may take."""

Page_ = tuple[str, tuple[int, int]]
"""A page as `PageSpec.page` names it: its `start` and the viewport."""


class Environment:
    def __init__(self, context: BrowserContext, page: Page, cdp: CDPSession, viewport: tuple[int, int]) -> None:
        self.context = context
        self.page = page
        self.cdp = cdp
        self.network: NetworkWatch | None = None
        """Watches requests from when the environment is handed to an episode (`hand_over`): a page
        loaded ahead has finished loading, and its requests would only be events to carry."""
        self.viewport = viewport
        self.loaded: str | None = None
        """The `start` of the page loaded here and not started yet; None for a blank page."""
        self.downloads: list[str] = []
        """The file names of the downloads this episode's page started."""
        self.crashed = False
        """Its renderer died (killed, out of memory): made ahead, it is not handed over; live, its
        episode is refused."""
        page.on("download", self._downloaded)
        page.on("crash", self._crashed)

    @classmethod
    async def open(cls, browser: Browser, viewport: tuple[int, int]) -> Environment:
        """A fresh context with a blank page, the settle watcher installed and a CDP session on it."""
        width, height = viewport
        context = await browser.new_context(viewport={"width": width, "height": height})
        try:
            await context.add_init_script(INIT_SCRIPT)
            page = await context.new_page()
            cdp = await context.new_cdp_session(page)
        except BaseException:  # a page not made in time, too: the context goes, bounded
            with anyio.move_on_after(CLOSE_SECONDS, shield=True), contextlib.suppress(PlaywrightError):
                await context.close()
            raise
        return cls(context, page, cdp, viewport)

    def holds(self, page: Page_) -> bool:
        """Whether this environment has `page` loaded, or is blank and can load it."""
        return not self.crashed and (self.loaded is None or (self.loaded, self.viewport) == page)

    def hand_over(self) -> None:
        """Start watching the page's requests, for an episode's settle waits."""
        self.network = NetworkWatch(self.page)

    async def fit(self, viewport: tuple[int, int]) -> None:
        """Give a blank page the viewport a task asks for."""
        if viewport != self.viewport:
            width, height = viewport
            await self.page.set_viewport_size({"width": width, "height": height})
            self.viewport = viewport

    async def close(self) -> None:
        """Close the context and everything in it; quietly, when the browser is already gone."""
        with contextlib.suppress(PlaywrightError):
            await self.context.close()

    def _downloaded(self, download: Download) -> None:
        self.downloads.append(download.suggested_filename)

    def _crashed(self, _page: Page) -> None:
        self.crashed = True
