"""`compare_htmls` (OSWorld's metrics/chrome.py): two HTML files, each read as text (UTF-8, universal
newlines) and parsed with BeautifulSoup's lxml parser, walked node by node in document order side by
side, as far as the shorter goes (what one has past the other's end is not looked at). A text node
must equal its partner; an element must have its partner's name, stripped text and attributes, except
that with `ignore_sdnum` attributes that differ only by `sdnum` (LibreOffice's number format) pass.
Any pair that differs scores 0. A file that is not UTF-8 raises there, as OSWorld's does."""

from __future__ import annotations

from typing import Any

from bs4 import BeautifulSoup, Tag

from bench.formats.text_file import text_mode


def _same(first: Any, second: Any, ignore_sdnum: Any) -> bool:
    if not (isinstance(first, Tag) and isinstance(second, Tag)):
        return first == second
    if first.name != second.name or first.text.strip() != second.text.strip():
        return False
    if first.attrs != second.attrs:
        if ignore_sdnum:
            return ({k: v for k, v in first.attrs.items() if k != "sdnum"}
                    == {k: v for k, v in second.attrs.items() if k != "sdnum"})
        return False
    return True


def compare_htmls(result: bytes, expected: bytes, **options: Any) -> float:
    first, second = (BeautifulSoup(text_mode(data), "lxml") for data in (result, expected))
    ignore_sdnum = options.get("ignore_sdnum", None)
    return float(all(_same(a, b, ignore_sdnum) for a, b in zip(first.descendants, second.descendants)))


HTML_METRICS = {"compare_htmls": compare_htmls}
