"""Getters that load a web page in the VM's Chrome over DevTools, as OSWorld's getters/chrome.py loads
them, and the metrics that read what they give.

Each connects as OSWorld's do (`with_chrome`): to the browser that answers
DevTools, else Chrome is launched (`google-chrome
--remote-debugging-port=1337`, which OSWorld's server turns into chromium on
ARM, and troupe's Linux server always) and the getter connects once it
answers, where OSWorld sleeps 5 s and tries once.

- `page_info`: `url` in a new tab of the first context (a new context when
  there is none), loaded until the network is idle (60 s at most):
  `{title, url, content}`; the title "Load timeout" or "Error encountered"
  when reading it fails so, the tab then closed. Two attempts, 3 s apart
  (a load that fails fails the attempt and leaves its tab open, as
  OSWorld's does); then `{"title": "Connection failed", "url": url, "content": ""}`;
- `info_from_website`: `url` in a new tab of the first context, then for
  each of `infos` (back at `url` first whenever the tab is elsewhere): an
  element's inner text (`inner_text`) or `attribute`, or after clicking
  through each selector but the last (`click_and_inner_text`,
  `click_and_attribute`), waiting 10 s for each element to be in the page
  (30 s for the last one of `click_and_attribute`, Playwright's default):
  the list of what it read. Anything that fails, an action it does not know
  included, gives the spec's `backups` (None without). The tab stays open,
  as OSWorld leaves it;
- `pdf_from_url`: the page at `path` in a new page of its own context,
  loaded until the network is idle, printed with Playwright's `page.pdf()`
  defaults: the PDF's bytes. OSWorld then sleeps 3 s "to ensure all content
  is rendered"; troupe waits for the page's fonts to be ready, the part of
  rendering a printout waits on that network idleness does not cover.
  Three attempts, 5 s apart; then the 15-byte stand-in PDF OSWorld writes
  (`%PDF-1.4\\n%EOF\\n`).

Metrics: `is_expected_search_query` (the regex `rules.expect.pattern` is
found in the page's `url`; nothing read scores 0) and
`is_added_to_steam_cart` (each of the rule's `items` is in the page's
`content`; a page without content raises, as OSWorld's does, unless there are no items).
"""

from __future__ import annotations

import functools
import logging
import re
from typing import Any, Callable, TypeVar

import anyio
from playwright.sync_api import Browser, Page, TimeoutError as PlaywrightTimeout

from actors.backends.waa.devtools import DevToolsUnavailable, with_browser
from bench.suites.osworld.chrome_tabs import ERROR_TITLE, LOAD_TIMEOUT, OPEN_TIMEOUT_MS, RELAUNCH
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import GetterFailed

logger = logging.getLogger(__name__)

T = TypeVar("T")

RELAUNCH_ATTEMPTS = 8
"""Connection attempts after launching Chrome (pauses growing to 5 s: about 20 s in all)."""
PAGE_INFO_TRIES, PAGE_INFO_WAIT = 2, 3.0
PDF_TRIES, PDF_WAIT = 3, 5.0
SELECTOR_TIMEOUT_MS = 10_000
"""How long OSWorld's info_from_website waits for each element to be in the page."""
CONNECTION_FAILED = "Connection failed"
STAND_IN_PDF = b"%PDF-1.4\n%EOF\n"
"""What OSWorld's pdf_from_url writes when every attempt failed."""


async def with_chrome(episode: Episode, work: Callable[[Browser], T]) -> T:
    """`work(browser)` on the VM's browser; when none answers, Chrome launched as OSWorld's getters
    launch it and `work` on it once it answers (DevToolsUnavailable when it never does)."""
    try:
        return await with_browser(episode.client, work)
    except DevToolsUnavailable as exc:
        logger.warning("%s; launching Chrome as OSWorld's getters do", exc)
    await episode.client.post("/setup/launch", json={"command": RELAUNCH, "shell": False}, answer_server_errors=True)
    return await with_browser(episode.client, work, attempts=RELAUNCH_ATTEMPTS)


async def _tried(read: Callable[[], Any], tries: int, wait: float, what: str) -> tuple[bool, Any]:
    """(True, `read()`'s value), tried `tries` times `wait` seconds apart; (False, None) when every try raised."""
    for attempt in range(tries):
        try:
            return True, await read()
        except Exception as exc:  # noqa: BLE001 - OSWorld's getters retry on anything
            logger.warning("%s, attempt %d of %d: %s", what, attempt + 1, tries, str(exc).splitlines()[0])
            if attempt + 1 < tries:
                await anyio.sleep(wait)
    return False, None


def _page_info(url: str, browser: Browser) -> dict[str, str]:
    context = browser.contexts[0] if browser.contexts else browser.new_context()
    page = context.new_page()
    page.set_default_timeout(OPEN_TIMEOUT_MS)
    page.goto(url, wait_until="networkidle", timeout=OPEN_TIMEOUT_MS)
    try:
        page.wait_for_load_state("networkidle", timeout=OPEN_TIMEOUT_MS)
        info = {"title": page.title(), "url": page.url, "content": page.content()}
    except PlaywrightTimeout:
        info = {"title": LOAD_TIMEOUT, "url": page.url, "content": page.content()}
    except Exception:  # noqa: BLE001 - OSWorld records the page with this title
        info = {"title": ERROR_TITLE, "url": page.url, "content": page.content()}
    try:
        page.close()
    except Exception:  # noqa: BLE001 - OSWorld closes it best-effort
        pass
    return info


async def page_info(episode: Episode, spec: dict[str, Any]) -> dict[str, str]:
    url = spec["url"]
    done, info = await _tried(lambda: with_chrome(episode, functools.partial(_page_info, url)),
                              PAGE_INFO_TRIES, PAGE_INFO_WAIT, "page_info")
    return info if done else {"title": CONNECTION_FAILED, "url": url, "content": ""}


def _element(page: Page, selector: str, timeout_ms: float | None = SELECTOR_TIMEOUT_MS):
    return page.wait_for_selector(selector, state="attached", timeout=timeout_ms)


def _clicked_through(page: Page, selectors: list[str]) -> None:
    for selector in selectors:
        _element(page, selector).click()
        page.wait_for_load_state("load")


def _read_one(page: Page, info: dict[str, Any]) -> Any:
    action = info.get("action", "inner_text")
    if action == "inner_text":
        return _element(page, info["selector"]).inner_text()
    if action == "attribute":
        return _element(page, info["selector"]).get_attribute(info["attribute"])
    if action == "click_and_inner_text":
        _clicked_through(page, info["selector"][:-1])
        return _element(page, info["selector"][-1]).inner_text()
    if action == "click_and_attribute":
        _clicked_through(page, info["selector"][:-1])
        return _element(page, info["selector"][-1], None).get_attribute(info["attribute"])
    raise NotImplementedError(f"info_from_website: the action {action!r} is not one OSWorld's getter knows")


def _infos(url: str, infos: list[dict[str, Any]], browser: Browser) -> list[Any]:
    page = browser.contexts[0].new_page()
    page.goto(url)
    page.wait_for_load_state("load")
    found = []
    for info in infos:
        if page.url != url:
            page.goto(url)
            page.wait_for_load_state("load")
        found.append(_read_one(page, info))
    return found


async def info_from_website(episode: Episode, spec: dict[str, Any]) -> Any:
    infos = spec.get("infos", [])
    try:
        len(infos)
    except TypeError:
        raise GetterFailed(f"info_from_website: infos is {infos!r}, not a list (OSWorld's getter raises "
                           "counting it)") from None
    try:
        return await with_chrome(episode, functools.partial(_infos, spec["url"], infos))
    except Exception as exc:  # noqa: BLE001 - OSWorld's getter gives the backups on any failure
        logger.warning("info_from_website: %s; giving the backups", str(exc).splitlines()[0] if str(exc) else exc)
        return spec.get("backups", None)


FONTS_READY = "() => document.fonts.ready.then(() => true)"


def _printed(url: str, browser: Browser) -> bytes:
    page = browser.new_page()
    page.set_default_timeout(OPEN_TIMEOUT_MS)
    page.goto(url, wait_until="networkidle", timeout=OPEN_TIMEOUT_MS)
    page.wait_for_load_state("networkidle", timeout=OPEN_TIMEOUT_MS)
    page.evaluate(FONTS_READY)
    return page.pdf()


async def pdf_from_url(episode: Episode, spec: dict[str, Any]) -> bytes:
    url = spec["path"]
    done, data = await _tried(lambda: with_chrome(episode, functools.partial(_printed, url)),
                              PDF_TRIES, PDF_WAIT, "pdf_from_url")
    return data if done else STAND_IN_PDF


PAGE_GETTERS = {"page_info": page_info, "info_from_website": info_from_website, "pdf_from_url": pdf_from_url}


def is_expected_search_query(active_tab_info: Any, rules: Any, **options: Any) -> float:
    if not active_tab_info:
        return 0.0
    return float(re.search(rules["expect"]["pattern"], active_tab_info["url"]) is not None)


def is_added_to_steam_cart(active_tab_info: Any, rule: Any, **options: Any) -> float:
    items, content = rule["items"], active_tab_info["content"]
    return float(all(item in content for item in items))


PAGE_METRICS = {"is_expected_search_query": is_expected_search_query, "is_added_to_steam_cart": is_added_to_steam_cart}
