"""troupe's Chrome metrics agree with OSWorld's own (metrics/chrome.py with its compare_urls, imported from
../shared/osworld/reference for tests only) on values built to sit on each function's edges: empty and
None results, a dict or a bare URL, every rule type troupe has and an unknown one, rules without their
keys, URLs that differ by scheme, "www", public suffix, trailing slash, query or port. Prints the
agreement per function."""

from __future__ import annotations

import pytest

from bench.suites.osworld import metrics

from tests.osworld_reference import REFERENCE, Case, assert_agrees, chrome

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

C = Case


def bar(*children: dict) -> dict:
    """A Bookmarks file's `roots` with these bookmark-bar children."""
    return {"bookmark_bar": {"children": list(children)}, "other": {"children": []}}


FOLDER = {"type": "folder", "name": "Favorites", "children": []}
SITE = {"type": "url", "name": "Example", "url": "https://example.com/"}
URLS = ["https://www.airbnb.com/rooms?q=1", "http://airbnb.com.sg/rooms", "airbnb.com/rooms/", "https://airbnb.com",
        "https://airbnb.com/", "https://maps.airbnb.com", "http://127.0.0.1:8000/a", "http://127.0.0.1:8001/a",
        "http://www.airbnb.com/rooms"]

CASES: dict[str, list[Case]] = {
    "is_expected_bookmarks": [
        C(bar(FOLDER), {"type": "bookmark_bar_folders_names", "names": ["Favorites"]}),
        C(bar(FOLDER, dict(FOLDER, name="Work")), {"type": "bookmark_bar_folders_names", "names": ["Favorites"]}),
        C(bar(FOLDER, FOLDER), {"type": "bookmark_bar_folders_names", "names": ["Favorites"]}),  # as sets
        C(bar(SITE), {"type": "bookmark_bar_folders_names", "names": []}),
        C(bar(SITE), {"type": "bookmark_bar_websites_urls", "urls": ["https://example.com/"]}),
        C(bar(SITE), {"type": "bookmark_bar_websites_urls", "urls": ["https://example.com"]}),  # exact strings
        C(bar(SITE, FOLDER), {"type": "bookmark_bar_websites_urls", "urls": ["https://example.com/"]}),
        C([], {"type": "bookmark_bar_folders_names", "names": []}), C({}, {"type": "bookmark_bar_folders_names"}),
        C(None, {"type": "bookmark_bar_websites_urls", "urls": []}),
        C(bar(FOLDER), {"names": ["Favorites"]}), C(bar(FOLDER), {"type": "bookmark_bar_folders_names"}),
        C({"other": {}}, {"type": "bookmark_bar_folders_names", "names": []}),
    ],
    "check_font_size": [
        C({"default_font_size": 72}, {"type": "value", "value": 72}),
        C({"default_font_size": 16}, {"type": "value", "value": 72}),
        C({"default_font_size": 72.0}, {"type": "value", "value": 72}),
        C({"default_font_size": 16}, {"type": "range", "min": 16, "max": 20}),  # both ends excluded
        C({"default_font_size": 17}, {"type": "range", "min": 16, "max": 20}),
        C({"default_font_size": 20}, {"type": "range", "min": 16, "max": 20}),
        C({"default_font_size": 16}, {"type": "size", "value": 16}), C({"default_font_size": 16}, {"value": 16}),
        C({"minimum_font_size": 13}, {"type": "value", "value": 13}), C(None, {"type": "value", "value": 16}),
        C({"default_font_size": 16}, {"type": "range", "min": 10}),
    ],
    "check_history_deleted": [
        C([["https://www.youtube.com/", "YouTube", 1]], {"type": "keywords", "keywords": ["youtube"]}),
        C([["https://example.com/", "Example", 1]], {"type": "keywords", "keywords": ["youtube"]}),
        C([["https://example.com/?v=YouTube", "x", 1]], {"type": "keywords", "keywords": ["youtube"]}),  # case
        C([], {"type": "keywords", "keywords": ["youtube"]}),
        C([["https://youtube.com/", "x", 1]], {"type": "keywords", "keywords": []}),
        C(None, {"type": "keywords", "keywords": ["youtube"]}),
        C([["https://youtube.com/", "x", 1]], {"type": "domains", "keywords": ["youtube"]}),
        C([["https://youtube.com/", "x", 1]], {"keywords": ["youtube"]}),
    ],
    "is_expected_active_tab_approximate": [
        C({"url": "https://example.com/a?x=1"}, {"type": "url", "url": "https://example.com/a?y=2"}),
        C("https://example.com/a?x=1", {"type": "url", "url": "https://example.com/a"}),
        C("https://example.com/a#top", {"type": "url", "url": "https://example.com/a"}),  # the fragment counts
        C("https://www.example.com/a", {"type": "url", "url": "https://example.com/a"}),
        C("http://example.com/a", {"type": "url", "url": "https://example.com/a"}),
        C(None, {"type": "url", "url": "x"}), C({}, {"type": "url", "url": "x"}), C("", {"type": "url", "url": ""}),
        C({"title": "no url"}, {"type": "url", "url": "https://example.com"}),
        C("https://example.com", {"type": "title", "url": "https://example.com"}),
        C("https://example.com", {"url": "https://example.com"}),
    ],
    "is_expected_url_pattern_match": [
        C("chrome://settings/appearance", {"expected": ["^chrome://settings/appearance/?$"]}),
        C("chrome://settings/appearance/", {"expected": ["^chrome://settings/appearance/?$"]}),
        C("chrome://settings/", {"expected": ["^chrome://settings/appearance/?$"]}),
        C({"url": "https://example.com/search?q=cats"}, {"expected": ["example", "q=cats"]}),
        C({"url": "https://example.com/search?q=dogs"}, {"expected": ["example", "q=cats"]}),
        C({"title": "no url"}, {"expected": ["x"]}), C(["https://example.com"], {"expected": ["example"]}),
        C(None, {"expected": ["x"]}), C("", {"expected": []}), C("https://example.com", {"expected": []}),
        C("https://example.com", {"expected": ["("]}), C("https://example.com", {"wanted": ["example"]}),
    ],
    "is_expected_tabs": [
        *(C([{"title": "t", "url": first}], {"type": "url", "urls": [second]}) for first in URLS for second in URLS),
        C([{"url": URLS[0]}, {"url": URLS[6]}], {"type": "url", "urls": [URLS[6], URLS[0]]}),
        C([{"url": URLS[0]}, {"url": URLS[1]}], {"type": "url", "urls": [URLS[0], URLS[0]]}),  # not paired off
        C([{"url": URLS[0]}], {"type": "url", "urls": [URLS[0], URLS[0]]}),
        C([], {"type": "url", "urls": []}), C(None, {"type": "url", "urls": []}),
        C([{"url": URLS[0]}], {"type": "title", "urls": [URLS[0]]}), C([{"url": URLS[0]}], {"urls": [URLS[0]]}),
        C([{"title": "t"}], {"type": "url", "urls": ["x"]}),
    ],
    "is_expected_active_tab": [
        *(C({"title": "t", "url": first}, {"type": "url", "url": second}) for first in URLS[:4] for second in URLS[:4]),
        C(URLS[6], {"type": "url", "url": URLS[7]}), C(URLS[1], {"type": "url", "url": URLS[8]}), C(None, {"type": "url", "url": "x"}),
        C({}, {"type": "url", "url": "x"}), C({"title": "no url"}, {"type": "url", "url": "https://a.com"}),
        C(URLS[0], {"type": "title", "url": URLS[0]}), C(URLS[0], {"url": URLS[0]}),
    ],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_troupes_chrome_metric_agrees_with_osworlds_on_every_built_case(name, tmp_path, capsys):
    assert_agrees(name, getattr(chrome(), name), metrics.METRICS[name], CASES[name], tmp_path, capsys)
