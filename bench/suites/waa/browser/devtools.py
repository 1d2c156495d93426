"""The VM's browser over the DevTools protocol, reached as WAA's client reaches it: Playwright's
`connect_over_cdp` to the DevTools address (`WAAClient.devtools`, port 9222 on the VM's host unless
the run says otherwise).

Playwright's async API runs on asyncio only, while these steps and getters
run on whatever loop drives the VM actors (asyncio or trio). So a session is
Playwright's sync API in a worker thread: it starts Playwright, connects,
hands the `Browser` to the caller's function and disconnects. Disconnecting
leaves the browser running with its tabs, as WAA's `browser.close()` on a
CDP connection does; pages the function opened stay open too.

WAA's setup steps try to connect 15 times, five seconds apart; here the
pauses grow from a quarter second to that five (runtime.backoff), so a
browser that is already up costs no wait. Its getters try once and, when
that fails, ask the server to launch Chrome and try once more five seconds
later (`reconnecting`).
"""

from __future__ import annotations

import logging
import time
from typing import Callable, TypeVar

import anyio
from playwright.sync_api import Browser, Error as PlaywrightError, sync_playwright

from protocols import TroupeError
from actors.backends.waa.client import WAAClient
from runtime.backoff import Backoff

logger = logging.getLogger(__name__)

T = TypeVar("T")

SETUP_ATTEMPTS = 15
"""WAA's setup steps' connection attempts."""
RELAUNCH = ["google-chrome", "--remote-debugging-port=1337"]
"""What WAA's getters ask /setup/launch to start when the browser does not answer."""
RELAUNCH_WAIT = 5.0
"""Seconds WAA's getters wait after that launch before trying again."""
_PAUSES = Backoff(0.25, 2.0, 5.0)


class DevToolsUnavailable(TroupeError, ConnectionError):
    """Nothing answered the DevTools protocol at the address, after every attempt."""


def _connect(playwright, url: str, attempts: int) -> Browser:
    for attempt in range(1, attempts + 1):
        try:
            return playwright.chromium.connect_over_cdp(url)
        except PlaywrightError as exc:
            if attempt == attempts:
                raise DevToolsUnavailable(f"no browser answers DevTools at {url} after {attempts} "
                                          f"attempt{'s' * (attempts > 1)}: {str(exc).splitlines()[0]}") from None
            logger.info("DevTools at %s not ready (%d/%d): %s", url, attempt, attempts, str(exc).splitlines()[0])
            time.sleep(_PAUSES.delay(attempt))
    raise AssertionError("unreachable")


def _session(url: str, work: Callable[[Browser], T], attempts: int) -> T:
    with sync_playwright() as playwright:
        browser = _connect(playwright, url, attempts)
        try:
            return work(browser)
        finally:
            browser.close()


async def with_browser(client: WAAClient, work: Callable[[Browser], T], *, attempts: int = 1) -> T:
    """`work(browser)` in a worker thread, connected to the VM's browser; DevToolsUnavailable when
    none answers after `attempts` tries."""
    return await anyio.to_thread.run_sync(_session, client.devtools, work, attempts)


async def reconnecting(client: WAAClient, work: Callable[[Browser], T]) -> T:
    """As WAA's getters connect: once, then after asking the server to launch Chrome, once more."""
    try:
        return await with_browser(client, work)
    except DevToolsUnavailable as exc:
        logger.warning("%s; launching Chrome as WAA's getters do", exc)
    await client.post("/setup/launch", json={"command": RELAUNCH, "shell": False}, answer_server_errors=True)
    await anyio.sleep(RELAUNCH_WAIT)
    return await with_browser(client, work)
