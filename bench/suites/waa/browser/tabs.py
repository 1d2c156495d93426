"""Tabs over DevTools: WAA's Chrome setup steps that open and close tabs, and the getters that
read pages, each with WAA's Playwright calls.

Steps (WAA's client runs them in order and a step that cannot connect stops the setup):

- `chrome_open_tabs`: each URL in a new tab of the browser's first context
  (a load over 60 s is logged and left loading); after the first, the
  context's first tab, the one the browser started with, is closed;
- `chrome_close_tabs`: after five seconds (WAA gives Chrome that to finish
  launching), for each URL the first open tab whose URL is the same
  (urls.same_url) is closed.

Getters (each connects as WAA's do, `devtools.reconnecting`, except `active_tab_info`):

- `open_tabs_info`: every tab of every context, each once the network has
  been idle (Playwright's "networkidle", 30 s at most): `{title, url}`; a tab
  that does not settle in time or raises keeps its URL with the title
  "Error encountered" (WAA catches Python's TimeoutError, which Playwright
  never raises). No browser even after the relaunch: [];
- `page_info`: `url` opened in a new tab, after `load_state` (default
  "load"): `{title, url, content}`, or the title "Error encountered";
- `pdf_from_url`: the page at `path` opened in a new page of its own
  context and printed with Playwright's `page.pdf()` defaults: the PDF's bytes;
- `active_tab_info`: the address bar's URL (address_bar) opened in a new
  page: `{title, url, content}` after "load"; None when there is no address,
  no browser (no relaunch here) or the page does not open.

A Playwright error where WAA's getter has no handler fails the getter
(`GetterFailed`): WAA records no score then either.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

import anyio
from playwright.sync_api import Browser, Error as PlaywrightError

from actors.backends.waa.client import WAAClient
from bench.suites.waa.browser.address_bar import active_tab_url
from actors.backends.waa.devtools import DevToolsUnavailable, close_tabs, with_browser
from bench.suites.waa.browser.devtools import SETUP_ATTEMPTS, reconnecting
from bench.suites.waa.browser.urls import same_url
from bench.suites.waa.errors import GetterFailed, SetupFailed

logger = logging.getLogger(__name__)

OPEN_TIMEOUT_MS = 60_000
"""WAA's limit on loading each tab `chrome_open_tabs` opens."""
CLOSE_TABS_WAIT = 5.0
"""Seconds `chrome_close_tabs` waits before connecting, as WAA's does."""
ERROR_TITLE = "Error encountered"


async def _step_session(client: WAAClient, work, step: str) -> None:
    try:
        await with_browser(client, work, attempts=SETUP_ATTEMPTS)
    except DevToolsUnavailable as exc:
        raise SetupFailed(f"{step}: {exc}") from None


async def chrome_open_tabs(client: WAAClient, p: dict[str, Any], cache: Any) -> None:
    urls = p["urls_to_open"]

    def open_tabs(browser: Browser) -> None:
        for index, url in enumerate(urls):
            context = browser.contexts[0]
            page = context.new_page()
            try:
                page.goto(url, timeout=OPEN_TIMEOUT_MS)
            except PlaywrightError as exc:
                logger.warning("chrome_open_tabs: opening %s: %s", url, str(exc).splitlines()[0])
            if index == 0:
                context.pages[0].close()

    await _step_session(client, open_tabs, "chrome_open_tabs")


async def chrome_close_tabs(client: WAAClient, p: dict[str, Any], cache: Any) -> None:
    close = functools.partial(close_tabs, urls=p["urls_to_close"], same=same_url)
    await anyio.sleep(CLOSE_TABS_WAIT)
    await _step_session(client, close, "chrome_close_tabs")


def _settled(page, state: str, content: bool) -> dict[str, Any]:
    try:
        page.wait_for_load_state(state)
        info = {"title": page.title(), "url": page.url}
    except PlaywrightError:
        info = {"title": ERROR_TITLE, "url": page.url}
    if content:
        info["content"] = page.content()
    return info


async def _getter_session(client: WAAClient, work, getter: str) -> Any:
    try:
        return await reconnecting(client, work)
    except PlaywrightError as exc:
        raise GetterFailed(f"{getter}: {str(exc).splitlines()[0]}") from None


async def open_tabs_info(client: WAAClient, spec: dict[str, Any]) -> list[dict[str, Any]]:
    def tabs(browser: Browser) -> list[dict[str, Any]]:
        return [_settled(page, "networkidle", content=False) for context in browser.contexts for page in context.pages]

    try:
        return await _getter_session(client, tabs, "open_tabs_info")
    except DevToolsUnavailable:
        return []


async def page_info(client: WAAClient, spec: dict[str, Any]) -> dict[str, Any]:
    url, state = spec["url"], spec.get("load_state", "load")

    def read(browser: Browser) -> dict[str, Any]:
        page = browser.contexts[0].new_page()
        page.goto(url)
        return _settled(page, state, content=True)

    return await _failing(client, read, "page_info")


async def pdf_from_url(client: WAAClient, spec: dict[str, Any]) -> bytes:
    url = spec["path"]

    def print_page(browser: Browser) -> bytes:
        page = browser.new_page()
        page.goto(url)
        return page.pdf()

    return await _failing(client, print_page, "pdf_from_url")


async def _failing(client: WAAClient, work, getter: str) -> Any:
    """A getter WAA lets raise when no browser answers even after its relaunch."""
    try:
        return await _getter_session(client, work, getter)
    except DevToolsUnavailable as exc:
        raise GetterFailed(f"{getter}: {exc}") from None


async def active_tab_info(client: WAAClient, spec: dict[str, Any]) -> dict[str, Any] | None:
    url = await active_tab_url(client, spec)
    if url is None:
        return None

    def read(browser: Browser) -> dict[str, Any] | None:
        page = browser.new_page()
        try:
            page.goto(url)
        except PlaywrightError as exc:
            logger.warning("active_tab_info: opening %s: %s", url, str(exc).splitlines()[0])
            return None
        page.wait_for_load_state("load")
        return {"title": page.title(), "url": page.url, "content": page.content()}

    try:
        return await with_browser(client, read)
    except DevToolsUnavailable:
        return None
    except PlaywrightError as exc:
        raise GetterFailed(f"active_tab_info: {str(exc).splitlines()[0]}") from None


TAB_STEPS = {"chrome_open_tabs": chrome_open_tabs, "chrome_close_tabs": chrome_close_tabs}
TAB_GETTERS = {"open_tabs_info": open_tabs_info, "page_info": page_info, "pdf_from_url": pdf_from_url,
               "active_tab_info": active_tab_info}
