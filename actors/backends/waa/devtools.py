"""The VM's browser over the DevTools protocol, reached as WAA's and OSWorld's clients reach it:
Playwright's `connect_over_cdp` to the DevTools address (`WAAClient.devtools`, port 9222 on the VM's
host unless the run says otherwise).

Playwright's async API runs on asyncio only, while these steps and getters
run on whatever loop drives the VM actors (asyncio or trio). So a session is
Playwright's sync API on a driver thread: it connects, hands the `Browser` to
the caller's function and disconnects. Disconnecting leaves the browser
running with its tabs, as WAA's `browser.close()` on a CDP connection does;
pages the function opened stay open too. Starting Playwright's driver takes
about a second, three times per task (a setup step, a postconfig, a getter),
so each driver thread keeps its Playwright for the process's life and serves
one session at a time; sessions at once get a thread each.

A suite's steps may try to connect several times (`attempts`); the pauses
between attempts grow from a quarter second to five (runtime.backoff), so a
browser that is already up costs no wait.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from concurrent.futures import Future
from collections.abc import Iterable
from typing import Callable, TypeVar

import anyio
from playwright.sync_api import Browser, Error as PlaywrightError, Playwright, sync_playwright

from protocols import TroupeError
from actors.backends.waa.client import WAAClient
from runtime.backoff import Backoff

__all__ = ["CONNECT_TIMEOUT", "DevToolsUnavailable", "close_tabs", "with_browser"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

CONNECT_TIMEOUT = 10.0
"""Seconds one connection attempt may take: a browser caught starting can accept the connection and
not answer it, and Playwright's default would hold that attempt for 30 s before the next one."""
_PAUSES = Backoff(0.25, 2.0, 5.0)


class DevToolsUnavailable(TroupeError, ConnectionError):
    """Nothing answered the DevTools protocol at the address, after every attempt."""


def _connect(playwright, url: str, attempts: int) -> Browser:
    for attempt in range(1, attempts + 1):
        try:
            return playwright.chromium.connect_over_cdp(url, timeout=CONNECT_TIMEOUT * 1000)
        except PlaywrightError as exc:
            if attempt == attempts:
                raise DevToolsUnavailable(f"no browser answers DevTools at {url} after {attempts} "
                                          f"attempt{'s' * (attempts > 1)}: {str(exc).splitlines()[0]}") from None
            logger.info("DevTools at %s not ready (%d/%d): %s", url, attempt, attempts, str(exc).splitlines()[0])
            time.sleep(_PAUSES.delay(attempt))
    raise AssertionError("unreachable")


class _Driver:
    """A daemon thread owning one running Playwright (sync objects belong to the thread that made
    them), serving the sessions put on its queue one after another."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[Callable[[Playwright], None]] = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="devtools-driver", daemon=True).start()

    def _serve(self) -> None:
        try:
            playwright = sync_playwright().start()
        except Exception as exc:  # every session this thread is given fails with the reason
            while True:
                self.jobs.get()(exc)
        while True:
            self.jobs.get()(playwright)


_idle: list[_Driver] = []
_idle_lock = threading.Lock()


def _session(url: str, work: Callable[[Browser], T], attempts: int) -> T:
    def job(playwright: Playwright | Exception) -> None:
        try:
            if isinstance(playwright, Exception):
                raise playwright
            browser = _connect(playwright, url, attempts)
            try:
                done.set_result(work(browser))
            finally:
                browser.close()
        except BaseException as exc:
            done.set_exception(exc)

    with _idle_lock:
        driver = _idle.pop() if _idle else _Driver()
    done: Future[T] = Future()
    driver.jobs.put(job)
    try:
        return done.result()
    finally:
        with _idle_lock:
            _idle.append(driver)


async def with_browser(client: WAAClient, work: Callable[[Browser], T], *, attempts: int = 1) -> T:
    """`work(browser)` in a worker thread, connected to the VM's browser; DevToolsUnavailable when
    none answers after `attempts` tries."""
    return await anyio.to_thread.run_sync(_session, client.devtools, work, attempts)


def close_tabs(browser: Browser, urls: Iterable[str], same: Callable[[str, str], bool]) -> None:
    """Close, for each of `urls`, the first open tab whose address is `same` as it: the tab-closing
    step both references have, each comparing addresses by its own rule."""
    context = browser.contexts[0]
    for url in urls:
        page = next((page for page in context.pages if same(page.url, url)), None)
        if page is not None:
            page.close()
