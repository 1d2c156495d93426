"""`active_tab_html_parse`: parts of the page the address bar shows, read from its open tab over
DevTools as OSWorld's getter (getters/chrome.py) reads them.

The address comes from the tree (`active_url_from_accessTree`, with the
spec's `goto_prefix`; None when there is none). Connecting is
chrome_pages.with_chrome's (Chrome launched when none answers; still none
raises, as OSWorld's does). The tab is found among every context's tabs,
each once its network is idle (60 s at most), whose address equals the bar's
once both are percent-decoded and stripped of trailing slashes: in each
context the first such tab, the last context's winning, as OSWorld's loop
leaves it. No such tab gives {}.

Then by `category`, into a dict of keys the spec names:

- "class": texts of the elements with a class (each element's text,
  stripped), by position: `class_multiObject` {class: {position: key}};
  `class_multiObject_child` the same over the first such element's own
  text nodes; `class_multiObject_only_child` over the elements' first `h3`;
  a position past the end reads "". `class_multiObject_search_exist`
  {class: [texts]}: whether each text is among them, and with
  "is_other_exist" listed, whether any other is. `class_singleObject`
  {class: key}: the first one's text, or "";
- "label": {text: key}: the text of the first element matching Playwright's
  `text=` selector (it waits Playwright's 30 s for one), "" when none;
- "xpath": {xpath: key}: the first match's text (an expression that matches
  nothing as XPath is tried as Playwright reads it bare), "" when none;
- "input": {xpath: key}: the first match's input value, "" when none;
- "class&url": `class_multiObject` {class: [wanted]} (and
  `class_multiObject_li`, the text of each `li.catAllProducts`'s `span`
  within): each wanted text found (case-insensitively) is True under its
  lowercased name, and "is_other_exist" says whether some found text is in
  none of the wanted ones; `url_include_expected` [text] and
  `url_include_expected_multichoice` {text: name}: whether the text is in
  the tab's address (lowercased), where the name is not set already.

A read that fails reads as empty ([] of texts, ""), as OSWorld's helpers
catch it; what OSWorld's getter does not catch (a position that is not a
number, a missing `category`, a negative position into no texts) is an
evaluation error here (`GetterFailed`).
"""

from __future__ import annotations

import functools
import logging
from typing import Any
from urllib.parse import unquote

from playwright.sync_api import Browser, Page

from bench.suites.osworld.chrome import active_url_from_accessTree
from bench.suites.osworld.chrome_pages import with_chrome
from bench.suites.osworld.chrome_tabs import OPEN_TIMEOUT_MS
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import GetterFailed

logger = logging.getLogger(__name__)

OTHER = "is_other_exist"
TEXT_NODES = "(node) => Array.from(node.childNodes).filter(n => n.nodeType === Node.TEXT_NODE)" \
             ".map(n => n.textContent.trim()).filter(Boolean)"
"""An element's own text nodes, stripped, the empty ones left out (OSWorld's script)."""


def _normalized(url: str) -> str:
    return unquote(url).rstrip("/")


def _tab_at(browser: Browser, url: str) -> Page | None:
    found = None
    for context in browser.contexts:
        for page in context.pages:
            try:
                page.wait_for_load_state("networkidle", timeout=OPEN_TIMEOUT_MS)
                if not page.is_closed() and _normalized(page.url) == _normalized(url):
                    found = page
                    break
            except Exception:  # noqa: BLE001 - OSWorld passes over a tab it cannot read
                continue
    return found


def _safely(read):
    """`read(page, selector)`, or [] when it fails, as OSWorld's helpers read."""
    @functools.wraps(read)
    def safe(page: Page, selector: str) -> list[Any]:
        try:
            return [] if page.is_closed() else read(page, selector)
        except Exception as exc:  # noqa: BLE001 - OSWorld's helpers catch everything
            logger.warning("active_tab_html_parse: reading %r: %s", selector, str(exc).splitlines()[0])
            return []
    return safe


@_safely
def _texts(page: Page, selector: str) -> list[str]:
    return [element.text_content().strip() for element in page.query_selector_all(selector) if element]


@_safely
def _own_texts(page: Page, selector: str) -> list[str]:
    found = [element.evaluate(TEXT_NODES) for element in page.query_selector_all(selector)]
    return found[0] if found else []


@_safely
def _h3_texts(page: Page, selector: str) -> list[str]:
    return [element.query_selector("h3").text_content().strip() for element in page.query_selector_all(selector)
            if element.query_selector("h3")]


@_safely
def _li_texts(page: Page, selector: str) -> list[str]:
    return [element.query_selector("span").inner_text().strip()
            for element in page.query_selector_all(selector + " li.catAllProducts") if element.query_selector("span")]


def _by_position(found: dict[str, Any], page: Page, objects: dict[str, Any], read) -> None:
    for class_name, positions in objects.items():
        texts = read(page, "." + class_name)
        for position, key in positions.items():
            index = int(position)
            found[key] = texts[index] if len(texts) > index else ""


def _search_exist(found: dict[str, Any], page: Page, objects: dict[str, Any]) -> None:
    for class_name, wanted in objects.items():
        texts = _texts(page, "." + class_name)
        for text in wanted:
            if text != OTHER:
                found[text] = text in texts
        if OTHER in wanted:
            if any(text not in wanted for text in texts):
                found[OTHER] = True
            found.setdefault(OTHER, False)


def _by_class(found: dict[str, Any], page: Page, spec: dict[str, Any]) -> None:
    _by_position(found, page, spec.get("class_multiObject", {}), _texts)
    _by_position(found, page, spec.get("class_multiObject_child", {}), _own_texts)
    _by_position(found, page, spec.get("class_multiObject_only_child", {}), _h3_texts)
    _search_exist(found, page, spec.get("class_multiObject_search_exist", {}))
    for class_name, key in spec.get("class_singleObject", {}).items():
        texts = _texts(page, "." + class_name)
        found[key] = texts[0] if texts else ""


def _each_safely(found: dict[str, Any], page: Page, objects: dict[str, Any], read) -> None:
    """found[key] = read(page, selector) for each {selector: key}, "" when the page is closed or it fails."""
    for selector, key in objects.items():
        try:
            found[key] = "" if page.is_closed() else read(page, selector)
        except Exception as exc:  # noqa: BLE001 - OSWorld reads a failure as ""
            logger.warning("active_tab_html_parse: reading %r: %s", selector, str(exc).splitlines()[0])
            found[key] = ""


def _label(page: Page, text: str) -> str:
    return (page.locator(f"text={text}").first.text_content() or "").strip()


def _first_text(locator) -> str:
    text = locator.first.text_content()
    return (text.strip() if text else text) or ""


def _xpath_text(page: Page, xpath: str) -> str:
    matches = page.locator(f"xpath={xpath}")
    if matches.count() > 0:
        return _first_text(matches)
    try:
        bare = page.locator(xpath)
        return _first_text(bare) if bare.count() > 0 else ""
    except Exception:  # noqa: BLE001 - OSWorld reads a failed fallback as ""
        return ""


def _input_value(page: Page, xpath: str) -> str:
    inputs = page.locator(f"xpath={xpath}")
    if inputs.count() == 0:
        return ""
    value = inputs.first.input_value()
    return (value.strip() if value else value) or ""


def _wanted_found(found: dict[str, Any], texts: list[str], wanted: list[str]) -> None:
    for text in wanted:
        if any(text.lower() == seen.lower() for seen in texts):
            found[text.lower()] = True
    if any(all(seen.lower() not in text.lower() for text in wanted) for seen in texts):
        found[OTHER] = True
    found.setdefault(OTHER, False)


def _in_address(found: dict[str, Any], page: Page, text: str, name: str) -> None:
    try:
        present = not page.is_closed() and text.lower() in page.url.lower()
    except Exception:  # noqa: BLE001 - OSWorld reads a failure as not there
        present = False
    found.setdefault(name.lower(), present)


def _by_class_and_url(found: dict[str, Any], page: Page, spec: dict[str, Any]) -> None:
    for class_name, wanted in spec.get("class_multiObject", {}).items():
        _wanted_found(found, _texts(page, "." + class_name), wanted)
    for class_name, wanted in spec.get("class_multiObject_li", {}).items():
        _wanted_found(found, _li_texts(page, "." + class_name), wanted)
    for text in spec.get("url_include_expected", []):
        _in_address(found, page, text, text)
    for text, name in spec.get("url_include_expected_multichoice", {}).items():
        _in_address(found, page, text, name)


def _parsed(url: str, spec: dict[str, Any], browser: Browser) -> dict[str, Any]:
    page = _tab_at(browser, url)
    if page is None:
        logger.warning("active_tab_html_parse: no open tab is at %s", url)
        return {}
    found: dict[str, Any] = {}
    category = spec["category"]
    if category == "class":
        _by_class(found, page, spec)
    elif category == "label":
        _each_safely(found, page, spec.get("labelObject", {}), _label)
    elif category == "xpath":
        _each_safely(found, page, spec.get("xpathObject", {}), _xpath_text)
    elif category == "input":
        _each_safely(found, page, spec.get("inputObject", {}), _input_value)
    elif category == "class&url":
        _by_class_and_url(found, page, spec)
    return found


async def active_tab_html_parse(episode: Episode, spec: dict[str, Any]) -> dict[str, Any] | None:
    url = await active_url_from_accessTree(episode, spec)
    if not isinstance(url, str):
        return None
    try:
        return await with_chrome(episode, functools.partial(_parsed, url, spec))
    except Exception as exc:  # noqa: BLE001 - whatever escapes OSWorld's getter leaves it no value
        raise GetterFailed(f"active_tab_html_parse: OSWorld's getter raises here too ({type(exc).__name__}: "
                           f"{str(exc).splitlines()[0] if str(exc) else exc})") from None


PAGE_PARSE_GETTERS = {"active_tab_html_parse": active_tab_html_parse}
