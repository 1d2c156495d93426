"""The Chrome and Edge metrics, each giving WAA's score for the same input (its metrics/chrome.py,
edge.py and general.py):

- `is_expected_tabs`: rule type "url": as many open tabs as `urls`, and each
  wanted URL among them (urls.same_items); any other type scores 0;
- `is_expected_active_tab`: rule type "url": the tab's `url` (or the value
  itself when it is not a dict) is the same URL; nothing read scores 0;
- `is_expected_bookmarks`: nothing read scores 0; "bookmark_bar_folders_names"
  and "bookmark_bar_websites_urls": the wanted names or URLs are among the
  bookmark bar's folders or links (a subset); "liked_authors_websites_urls":
  the bar's "Liked Authors" folder holds exactly one choice of the URLs
  (a list of alternatives per author);
- `is_cookie_deleted`: rule type "domains": no cookie's domain (the row's
  second column) is the same as a listed domain (urls.same_url, so
  ".amazon.com" matches only ".amazon.com");
- `check_history_deleted`: rule type "keywords": no visited URL contains a keyword;
- `check_enabled_experiments`: rule type "names": the enabled experiments'
  names (before "@") are exactly `names`, in order;
- `check_font_size`: "value": the default font size equals it; "range":
  strictly between `min` and `max`. `check_edge_font_size`: the same with
  `min` included;
- `check_direct_json_object`: every key of `expected` has that value in the
  result (a missing key reads as None), or with `expect_in_result` each
  expected string is within, or one of each expected list is in, the
  result's value; a result given as text is read as JSON after its single
  quotes become double ones; None and a result that is not an object score 0;
- `is_shortcut_on_desktop`: "name": a shortcut holds the line
  "Name=<name>"; "description": a shortcut's JSON `data.description`
  contains it (a shortcut that is not such JSON is passed over);
- `is_url_shortcut_on_desktop`: "url": a shortcut contains `url_content`;
- `is_added_to_steam_cart`: every item is in the page's content;
- `compare_pdfs`: pdfs.py.

A rule type WAA does not know raises there (a task's mistake: `MetricFailed`),
and so does a value read without the keys WAA looks up (bookmarks without a
bar, font sizes without `default_font_size`): `MetricFailed` too, naming it.
Where WAA's metric raises on what was read (no cookies or history file at
all, shortcuts read as a list, a page without content), `ReferenceCrash`;
the `missing-file` fix scores nothing read as empty: no cookies or history
left is 1, no shortcuts or page content 0.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Callable

from bench.formats.bookmarks import liked_authors_score
from bench.suites.waa.browser.pdfs import compare_pdfs
from bench.suites.waa.browser.urls import same_items, same_url
from bench.suites.waa.errors import MetricFailed, ReferenceCrash, rule_field


def _unknown(func: str, rule: Any) -> MetricFailed:
    return MetricFailed(f"{func}: WAA's metric does not know the rule type {rule.get('type')!r}")


def _nothing_read(func: str, what: str, fixed: float) -> ReferenceCrash:
    return ReferenceCrash(f"{func}: no {what} was read", fix="missing-file", fixed=fixed)


def is_expected_tabs(result: Any, expected: Any, **options: Any) -> float:
    if rule_field(expected, "is_expected_tabs", "type") != "url":
        return 0.0
    return float(same_items(rule_field(expected, "is_expected_tabs", "urls"), [tab["url"] for tab in result]))


def is_expected_active_tab(result: Any, expected: Any, **options: Any) -> float:
    if not result:
        return 0.0
    if rule_field(expected, "is_expected_active_tab", "type") != "url":
        return 0.0
    actual = result.get("url", None) if isinstance(result, dict) else result
    return float(same_url(rule_field(expected, "is_expected_active_tab", "url"), actual))


def _bar(bookmarks: Any, kind: str) -> list[dict[str, Any]]:
    return [item for item in bookmarks["bookmark_bar"]["children"] if item["type"] == kind]


def is_expected_bookmarks(result: Any, expected: Any, **options: Any) -> float:
    if not result:
        return 0.0
    kind = rule_field(expected, "is_expected_bookmarks", "type")
    if kind == "bookmark_bar_folders_names":
        return float(set(expected["names"]) <= {item["name"] for item in _bar(result, "folder")})
    if kind == "bookmark_bar_websites_urls":
        return float(set(expected["urls"]) <= {item["url"] for item in _bar(result, "url")})
    if kind == "liked_authors_websites_urls":
        return liked_authors_score(result, expected["urls"])
    raise _unknown("is_expected_bookmarks", expected)


def is_cookie_deleted(result: Any, expected: Any, **options: Any) -> float:
    if rule_field(expected, "is_cookie_deleted", "type") != "domains":
        raise _unknown("is_cookie_deleted", expected)
    if result is None:
        raise _nothing_read("is_cookie_deleted", "cookies database", 1.0)
    domains = [cookie[1] for cookie in result]
    return float(not any(same_url(wanted, domain) for wanted in expected["domains"] for domain in domains))


def check_history_deleted(result: Any, expected: Any, **options: Any) -> float:
    if rule_field(expected, "check_history_deleted", "type") != "keywords":
        raise _unknown("check_history_deleted", expected)
    if result is None:
        raise _nothing_read("check_history_deleted", "History database", 1.0)
    urls = [visit[0] for visit in result]
    return float(not any(keyword in url for keyword in expected["keywords"] for url in urls))


def check_enabled_experiments(result: Any, expected: Any, **options: Any) -> float:
    names = [experiment.split("@")[0] for experiment in result]
    if rule_field(expected, "check_enabled_experiments", "type") != "names":
        raise _unknown("check_enabled_experiments", expected)
    return float(names == expected["names"])


def _font_size(func: str, result: Any, expected: Any, low_inclusive: bool) -> float:
    size = result["default_font_size"]
    kind = rule_field(expected, func, "type")
    if kind == "value":
        return float(size == expected["value"])
    if kind == "range":
        above = expected["min"] <= size if low_inclusive else expected["min"] < size
        return float(above and size < expected["max"])
    raise _unknown(func, expected)


def check_font_size(result: Any, expected: Any, **options: Any) -> float:
    return _font_size("check_font_size", result, expected, low_inclusive=False)


def check_edge_font_size(result: Any, expected: Any, **options: Any) -> float:
    return _font_size("check_edge_font_size", result, expected, low_inclusive=True)


def _within(wanted: Any, value: Any) -> bool:
    if isinstance(wanted, list):
        return isinstance(value, list) and any(choice in value for choice in wanted)
    if isinstance(wanted, str):
        return wanted in value
    return False


def check_direct_json_object(result: Any, expected: Any, **options: Any) -> float:
    if isinstance(result, str):
        try:
            result = json.loads(result.strip().replace("'", '"'))
        except ValueError as exc:
            raise MetricFailed(f"check_direct_json_object: the result is text that is not JSON, on which WAA's "
                               f"metric raises ({exc})") from None
    if result is None:
        return 0.0
    try:
        wanted = expected["expected"]
        if not expected.get("expect_in_result", False):
            return float(all(value == result.get(key) for key, value in wanted.items()))
        return float(all(_within(value, result.get(key)) for key, value in wanted.items()))
    except Exception:  # noqa: BLE001 - WAA scores any failure here 0 (a result that is not an object, ...)
        return 0.0


def _shortcut_items(func: str, result: Any) -> list[tuple[str, str]]:
    if not isinstance(result, dict):
        raise ReferenceCrash(f"{func}: the shortcuts were read as {type(result).__name__}, not by name",
                             fix="missing-file", fixed=0.0)
    return list(result.items())


def _description(content: str) -> str | None:
    try:
        return json.loads(content)["data"]["description"]
    except Exception:  # noqa: BLE001 - WAA passes over a shortcut it cannot read this way
        return None


def is_shortcut_on_desktop(result: Any, expected: Any, **options: Any) -> float:
    kind = rule_field(expected, "is_shortcut_on_desktop", "type")
    if kind == "name":
        line = f"Name={expected['name']}\n"
        return float(any(line in content for _, content in _shortcut_items("is_shortcut_on_desktop", result)))
    if kind == "description":
        wanted = expected.get("description")
        for _, content in _shortcut_items("is_shortcut_on_desktop", result):
            description = _description(content)
            try:
                if description is not None and wanted in description:
                    return 1.0
            except TypeError:
                continue
        return 0.0
    raise _unknown("is_shortcut_on_desktop", expected)


def is_url_shortcut_on_desktop(result: Any, expected: Any, **options: Any) -> float:
    if rule_field(expected, "is_url_shortcut_on_desktop", "type") != "url":
        raise _unknown("is_url_shortcut_on_desktop", expected)
    wanted = expected["url_content"]
    return float(any(wanted in content for _, content in _shortcut_items("is_url_shortcut_on_desktop", result)))


def is_added_to_steam_cart(result: Any, expected: Any, **options: Any) -> float:
    items = rule_field(expected, "is_added_to_steam_cart", "items")
    if not isinstance(result, dict) or not isinstance(result.get("content"), str):
        raise ReferenceCrash("is_added_to_steam_cart: no page content was read", fix="missing-file", fixed=0.0)
    return float(all(item in result["content"] for item in items))


def _as_waa_raises(metric: Callable[..., float]) -> Callable[..., float]:
    """`metric`, with the lookup errors WAA's metric would raise on the same value named as such."""

    @functools.wraps(metric)
    def scored(result: Any, expected: Any, **options: Any) -> float:
        try:
            return metric(result, expected, **options)
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            raise MetricFailed(f"{metric.__name__}: WAA's metric raises on this value too "
                               f"({type(exc).__name__}: {exc})") from None

    return scored


_METRICS = {
    "is_expected_tabs": is_expected_tabs,
    "is_expected_active_tab": is_expected_active_tab,
    "is_expected_bookmarks": is_expected_bookmarks,
    "is_cookie_deleted": is_cookie_deleted,
    "check_history_deleted": check_history_deleted,
    "check_enabled_experiments": check_enabled_experiments,
    "check_font_size": check_font_size,
    "check_edge_font_size": check_edge_font_size,
    "check_direct_json_object": check_direct_json_object,
    "is_shortcut_on_desktop": is_shortcut_on_desktop,
    "is_url_shortcut_on_desktop": is_url_shortcut_on_desktop,
    "is_added_to_steam_cart": is_added_to_steam_cart,
    "compare_pdfs": compare_pdfs,
}
BROWSER_METRICS = {name: _as_waa_raises(metric) for name, metric in _METRICS.items()}
