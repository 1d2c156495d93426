"""Chrome's tabs over DevTools as OSWorld's setup steps, getters and metrics use them (Playwright's
`connect_over_cdp` to the DevTools address, actors.backends.waa.devtools).

Steps (OSWorld's SetupController):

- `chrome_open_tabs`: each URL in a new tab of the browser's first context
  (a load that fails or takes over 60 s is logged and left as it is); after
  the first, the context's first tab, the one the browser started with, is
  closed. Connecting is tried 15 times (pauses growing to OSWorld's 5 s), and
  a browser that never answers fails the setup, as OSWorld raises;
- `chrome_close_tabs`: for each URL, the first open tab whose URL is the same
  (`compare_urls`) is closed. OSWorld sleeps 5 s first for Chrome to finish
  launching; here connecting waits for it (the same 15 attempts).

Getters:

- `open_tabs_info`: `{title, url}` of every tab of every context, each read
  once its network has been idle (30 s at most: else the title "Load
  timeout"; another error: "Error encountered"). A browser that does not
  answer is launched (`google-chrome --remote-debugging-port=1337`, as
  OSWorld asks) and tried again 5 s later; no browser then: [];
- `active_tab_info`: the address bar's URL (`active_url_from_accessTree`,
  with the spec's `goto_prefix`) loaded in a new page of a new context
  (60 s at most): `{title, url, content}`, the title "Load timeout" when it
  did not load in time; None when there is no address, no browser, or the
  page fails otherwise.

Either getter tries twice, 3 s apart, when anything else fails, as
OSWorld's do, then gives [] or None.

Metrics: `is_expected_tabs` (rule type "url": the open tabs' URLs equal the
rule's `urls` as OSWorld's `are_lists_equal` compares lists: as many, and
each wanted one matches some open one) and `is_expected_active_tab` (the
active tab's URL, from a dict's `url` or the value itself, matches the
rule's `url`); an unknown rule type scores 0, no tabs score 0.

`compare_urls` is OSWorld's: a missing scheme reads as http, the host's
public suffix is dropped ("airbnb.com.sg" and "airbnb.com" are both
"airbnb", by the public suffix list tldextract ships, never fetched), a
sole "www" subdomain is dropped, a bare "/" path is empty; query, params and
fragment stay. None equals only None.
"""

from __future__ import annotations

import functools
import logging
import re
from typing import Any
from urllib.parse import ParseResult, urlparse, urlunparse

import anyio
import tldextract
from playwright.sync_api import Browser, TimeoutError as PlaywrightTimeout

from actors.backends.waa.devtools import DevToolsUnavailable, close_tabs, with_browser
from bench.suites.osworld.chrome import active_url_from_accessTree
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import SetupFailed

logger = logging.getLogger(__name__)

SETUP_ATTEMPTS = 15
"""OSWorld's setup steps' connection attempts."""
OPEN_TIMEOUT_MS = 60_000
"""OSWorld's limit on loading each tab `chrome_open_tabs` opens, and the active tab's page."""
IDLE_TIMEOUT_MS = 30_000
"""OSWorld's limit on each tab's network going idle in `open_tabs_info`."""
GETTER_TRIES, GETTER_RETRY_WAIT = 2, 3.0
RELAUNCH = ["google-chrome", "--remote-debugging-port=1337"]
RELAUNCH_WAIT = 5.0
LOAD_TIMEOUT, ERROR_TITLE = "Load timeout", "Error encountered"
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+\-.]*://")


@functools.cache
def _domains() -> tldextract.TLDExtract:
    return tldextract.TLDExtract(suffix_list_urls=())  # the list it ships: no fetch


def _normalized(url: str, full: bool) -> str:
    parsed = urlparse(url if _SCHEME.match(url) else f"http://{url}")
    parts = _domains()(parsed.netloc.lower())
    subdomain = "" if parts.subdomain == "www" else parts.subdomain
    return urlunparse(ParseResult(scheme=parsed.scheme.lower(),
                                  netloc=f"{subdomain}.{parts.domain}" if subdomain else parts.domain,
                                  path=parsed.path if parsed.path != "/" else "",
                                  params=parsed.params if full else "", query=parsed.query if full else "",
                                  fragment=parsed.fragment if full else ""))


def compare_urls(first: str | None, second: str | None, full: bool = True) -> bool:
    if first is None or second is None:
        return first == second
    return _normalized(first, full) == _normalized(second, full)


async def _step_session(episode: Episode, work, step: str) -> None:
    try:
        await with_browser(episode.client, work, attempts=SETUP_ATTEMPTS)
    except DevToolsUnavailable as exc:
        raise SetupFailed(f"{step}: {exc}") from None


async def _chrome_open_tabs(episode: Episode, p: dict[str, Any]) -> None:
    urls = p["urls_to_open"]

    def open_tabs(browser: Browser) -> None:
        context = browser.contexts[0]
        for index, url in enumerate(urls):
            page = context.new_page()
            try:
                page.goto(url, timeout=OPEN_TIMEOUT_MS)
            except Exception as exc:  # noqa: BLE001 - OSWorld logs any failure to load and goes on
                logger.warning("chrome_open_tabs: opening %s: %s", url, str(exc).splitlines()[0])
            if index == 0:
                context.pages[0].close()

    await _step_session(episode, open_tabs, "chrome_open_tabs")


async def _chrome_close_tabs(episode: Episode, p: dict[str, Any]) -> None:
    close = functools.partial(close_tabs, urls=p["urls_to_close"], same=compare_urls)
    await _step_session(episode, close, "chrome_close_tabs")


def _tabs(browser: Browser) -> list[dict[str, str]]:
    tabs = []
    for context in browser.contexts:
        for page in context.pages:
            try:
                page.set_default_timeout(IDLE_TIMEOUT_MS)
                page.wait_for_load_state("networkidle", timeout=IDLE_TIMEOUT_MS)
                tabs.append({"title": page.title(), "url": page.url})
            except PlaywrightTimeout:
                tabs.append({"title": LOAD_TIMEOUT, "url": page.url})
            except Exception:  # noqa: BLE001 - OSWorld records the tab with this title
                tabs.append({"title": ERROR_TITLE, "url": page.url})
    return tabs


async def _tries(read, fallback: Any) -> Any:
    """`read()`, tried again GETTER_RETRY_WAIT later when it raises; `fallback` when both raise."""
    for attempt in range(GETTER_TRIES):
        try:
            return await read()
        except Exception as exc:  # noqa: BLE001 - OSWorld's getters retry on anything, then give up
            logger.warning("Chrome getter, attempt %d of %d: %s", attempt + 1, GETTER_TRIES, exc)
            if attempt + 1 < GETTER_TRIES:
                await anyio.sleep(GETTER_RETRY_WAIT)
    return fallback


async def _open_tabs_info(episode: Episode, spec: dict[str, Any]) -> list[dict[str, str]]:
    async def read() -> list[dict[str, str]]:
        try:
            return await with_browser(episode.client, _tabs)
        except DevToolsUnavailable as exc:
            logger.warning("%s; launching Chrome as OSWorld's getter does", exc)
        await episode.client.post("/setup/launch", json={"command": RELAUNCH, "shell": False},
                                  answer_server_errors=True)
        await anyio.sleep(RELAUNCH_WAIT)
        try:
            return await with_browser(episode.client, _tabs)
        except DevToolsUnavailable:
            return []

    return await _tries(read, [])


def _page_at(url: str, browser: Browser) -> dict[str, str] | None:
    page = browser.new_page()
    page.set_default_timeout(OPEN_TIMEOUT_MS)
    try:
        page.goto(url, wait_until="load", timeout=OPEN_TIMEOUT_MS)
        page.wait_for_load_state("load", timeout=OPEN_TIMEOUT_MS)
        return {"title": page.title(), "url": page.url, "content": page.content()}
    except PlaywrightTimeout:
        return {"title": LOAD_TIMEOUT, "url": page.url, "content": page.content()}
    except Exception as exc:  # noqa: BLE001 - OSWorld's getter gives None when the page fails
        logger.warning("active_tab_info: opening %s: %s", url, str(exc).splitlines()[0])
        return None


async def _active_tab_info(episode: Episode, spec: dict[str, Any]) -> dict[str, str] | None:
    url = await active_url_from_accessTree(episode, spec)
    if url is None:
        return None

    async def read() -> dict[str, str] | None:
        try:
            return await with_browser(episode.client, functools.partial(_page_at, url))
        except DevToolsUnavailable:
            return None

    return await _tries(read, None)


TAB_STEPS = {"chrome_open_tabs": _chrome_open_tabs, "chrome_close_tabs": _chrome_close_tabs}
TAB_GETTERS = {"open_tabs_info": _open_tabs_info, "active_tab_info": _active_tab_info}


def is_expected_tabs(open_tabs: Any, rule: Any, **options: Any) -> float:
    if not open_tabs:
        return 0.0
    if rule["type"] != "url":
        return 0.0  # OSWorld's logs an unknown type and scores 0
    wanted, found = rule["urls"], [tab["url"] for tab in open_tabs]
    return float(len(wanted) == len(found) and all(any(compare_urls(w, f) for f in found) for w in wanted))


def is_expected_active_tab(active_tab_info: Any, rule: Any, **options: Any) -> float:
    if not active_tab_info:
        return 0.0
    if rule["type"] != "url":
        return 0.0  # OSWorld's logs an unknown type and scores 0
    actual = active_tab_info.get("url", None) if isinstance(active_tab_info, dict) else active_tab_info
    return float(compare_urls(rule["url"], actual))


TAB_METRICS = {"is_expected_tabs": is_expected_tabs, "is_expected_active_tab": is_expected_active_tab}
