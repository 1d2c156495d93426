"""The Chrome and Edge metrics on the edge cases where WAA's own functions decide something
surprising (values worked out from WAA's metrics/chrome.py, edge.py, general.py and utils.py),
the getters that need no browser against a stand-in WAA server answering as a Windows VM, and the
Linux server's reading of WAA's browser commands."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime

import pytest

from actors.backends.waa.client import WAAClient
from actors.backends.waa.browser_commands import CHROME, EDGE, Forward, Launch, Stop, launch_of, stop_of
from bench.suites.waa.browser.history import history_database
from bench.suites.waa.browser.pdfs import compare_pdfs
from bench.suites.waa.browser.relative_time import fill
from bench.suites.waa.browser.urls import same_items, same_url
from bench.suites.waa.errors import GetterCrash, GetterFailed, MetricFailed, ReferenceCrash
from bench.suites.waa.getters import resolve
from bench.suites.waa.metrics import METRICS

from tests.suites.waa.windows_guest import World, WindowsGuest
from tests.waa_servers import StandIn

pytestmark = pytest.mark.anyio

PREFERENCES = "C:\\Users\\Docker\\AppData\\Local\\Google/Chrome/User Data/Default/Preferences"
EDGE_PREFERENCES = "C:\\Users\\Docker\\AppData\\Local\\Microsoft/Edge/User Data/Default/Preferences"
UIA_TREE = ('<desktop xmlns:val="uri:deskat:value.at-spi.gnome.org"><chrome_widgetwin_1 name="Google Chrome">'
            '<pane name="x"><edit name="Address and search bar" val:value="drugs.com/tamiflu.html#side-effects"/>'
            '</pane></chrome_widgetwin_1></desktop>')


def test_urls_are_compared_as_waa_normalizes_them():
    assert same_url("https://www.airbnb.com", "https://airbnb.com/")
    assert not same_url("https://airbnb.com/a/", "https://airbnb.com/a")  # only a bare "/" path is dropped
    assert same_url(".amazon.com", ".amazon.com") and not same_url(".amazon.com", "www.amazon.com")
    assert same_url(None, None) and not same_url(None, "a")
    assert same_items(["http://a.com", "http://a.com"], ["http://a.com", "http://b.com"])  # not paired off


def test_tabs_bookmarks_and_active_tab():
    rule = {"type": "url", "urls": ["https://www.lonelyplanet.com", "https://www.airbnb.com"]}
    assert METRICS["is_expected_tabs"]([{"url": "https://airbnb.com/"}, {"url": "https://lonelyplanet.com"}], rule) == 1
    assert METRICS["is_expected_tabs"]([{"url": "https://airbnb.com/"}], rule) == 0
    assert METRICS["is_expected_tabs"]([], {"type": "title"}) == 0  # an unknown type scores 0 there
    bar = {"bookmark_bar": {"children": [{"type": "url", "url": "https://x/"}, {"type": "folder", "name": "F",
                                                                               "children": []}]}}
    assert METRICS["is_expected_bookmarks"](bar, {"type": "bookmark_bar_websites_urls", "urls": ["https://x/"]}) == 1
    assert METRICS["is_expected_bookmarks"](bar, {"type": "bookmark_bar_folders_names", "names": ["G"]}) == 0
    assert METRICS["is_expected_bookmarks"]([], {"type": "anything"}) == 0  # nothing read: 0 before the type
    with pytest.raises(MetricFailed, match="does not know the rule type"):
        METRICS["is_expected_bookmarks"](bar, {"type": "anything"})
    liked = {"bookmark_bar": {"children": [{"type": "folder", "name": "Liked Authors", "children": [
        {"type": "url", "url": "b"}, {"type": "url", "url": "c"}]}]}}
    assert METRICS["is_expected_bookmarks"](liked, {"type": "liked_authors_websites_urls", "urls": [["a", "b"], "c"]})
    assert METRICS["is_expected_active_tab"]("https://www.x.com/", {"type": "url", "url": "https://x.com"}) == 1
    assert METRICS["is_expected_active_tab"](None, {}) == 0


def test_cookies_history_experiments_and_font_sizes():
    amazon = {"type": "domains", "domains": [".amazon.com"]}
    assert METRICS["is_cookie_deleted"]([[0, "www.amazon.com"]], amazon) == 1  # WAA matches the domain whole
    assert METRICS["is_cookie_deleted"]([[0, ".amazon.com"]], amazon) == 0
    with pytest.raises(ReferenceCrash) as crash:
        METRICS["is_cookie_deleted"](None, amazon)
    assert (crash.value.fix, crash.value.fixed) == ("missing-file", 1.0)
    youtube = {"type": "keywords", "keywords": ["youtube"]}
    assert METRICS["check_history_deleted"]([["https://www.youtube.com/x", "t", 1]], youtube) == 0
    assert METRICS["check_history_deleted"]([["https://youtu.be/x", "t", 1]], youtube) == 1
    names = {"type": "names", "names": ["a", "b"]}
    assert METRICS["check_enabled_experiments"](["a@1", "b@2"], names) == 1
    assert METRICS["check_enabled_experiments"](["b@1", "a@2"], names) == 0  # in order
    assert METRICS["check_font_size"]({"default_font_size": 16}, {"type": "range", "min": 16, "max": 99}) == 0
    assert METRICS["check_edge_font_size"]({"default_font_size": 24}, {"type": "range", "min": 24, "max": 99}) == 1
    with pytest.raises(MetricFailed, match="WAA's metric raises"):  # only the minimum font size was changed
        METRICS["check_font_size"]({"minimum_font_size": 20}, {"type": "value", "value": 16})


def test_check_direct_json_object_reads_as_waa_does():
    rule = {"expected": {"a": "x", "b": None}}
    assert METRICS["check_direct_json_object"]({"a": "x"}, rule) == 1  # a missing key reads as None
    assert METRICS["check_direct_json_object"]("{'a': 'x', 'b': null}", rule) == 1
    assert METRICS["check_direct_json_object"](None, rule) == 0
    assert METRICS["check_direct_json_object"](["a"], rule) == 0
    within = {"expect_in_result": True, "expected": {"a": "x", "c": [1, 2]}}
    assert METRICS["check_direct_json_object"]({"a": "xyz", "c": [2]}, within) == 1
    assert METRICS["check_direct_json_object"]({"a": None, "c": [2]}, within) == 0


def test_shortcuts_cart_and_pdfs():
    lnk = {"s.lnk": json.dumps({"data": {"description": "Play Puzzle Game 2048. Use your arrow keys."}})}
    assert METRICS["is_shortcut_on_desktop"](lnk, {"type": "description", "description": "Play Puzzle Game 2048"}) == 1
    assert METRICS["is_shortcut_on_desktop"]({"s.desktop": "[Desktop Entry]"}, {"type": "description",
                                                                                "description": "x"}) == 0
    with pytest.raises(ReferenceCrash):
        METRICS["is_url_shortcut_on_desktop"]([], {"type": "url", "url_content": "x"})  # the Linux getter's []
    assert METRICS["is_url_shortcut_on_desktop"]({"a.url": "URL=https://x/2048.html"},
                                                 {"type": "url", "url_content": "https://x/2048.html"}) == 1
    assert METRICS["is_added_to_steam_cart"]({"content": "The Dota 2 Official Soundtrack"},
                                             {"items": ["The Dota 2 Official Soundtrack"]}) == 1
    with pytest.raises(ReferenceCrash, match="gold PDF") as no_gold:  # WAA's evaluate() calls it without one
        compare_pdfs(None, None)
    assert no_gold.value.fixed == 1.0  # two empty texts are alike
    assert compare_pdfs(b"not a pdf", [None]) == 0.0
    assert compare_pdfs([None, None], [None]) == 1.0  # pairs up to the shorter list, over the expected count


def test_relative_dates_are_waas():
    rules = {"relativeTime": {"from": "next Monday"}, "expected": {"time": "{Year}-{Month0D}-{Day0D} {DoW}"}}
    assert fill(rules, datetime(2024, 5, 6))["expected"]["time"] == "2024-05-13 Mon"  # a Monday: a week on
    assert fill(rules, datetime(2024, 12, 31))["expected"]["time"] == "2025-01-06 Mon"
    with pytest.raises(GetterFailed, match="not a date"):
        fill({"relativeTime": {"from": "first monday four months later"}, "expected": {"time": ""}},
             datetime(2024, 8, 1))  # WAA asks for month 0
    with pytest.raises(GetterFailed, match="does not know"):
        fill({"relativeTime": {"from": "next Friday"}, "expected": {"time": ""}}, datetime(2024, 8, 1))


def test_the_history_database_holds_the_visits_as_waa_inserts_them():
    data = history_database([{"url": "https://y/", "title": "t", "visit_time_from_now_in_seconds": 3600}],
                            datetime(2024, 1, 1, 12))
    db = sqlite3.connect(":memory:")
    db.deserialize(data)
    stamp = int((datetime(2024, 1, 1, 11) - datetime(1601, 1, 1)).total_seconds() * 1_000_000)
    assert db.execute("SELECT url, title, visit_count, last_visit_time FROM urls").fetchall() == [("https://y/", "t",
                                                                                                  1, stamp)]
    assert db.execute("SELECT transition FROM visits").fetchall() == [(805306368,)]


def windows(files: dict[str, bytes], tree: str = UIA_TREE) -> WindowsGuest:
    """A stand-in answering as WAA's Windows VM (its Python, files, platform), with the screen's tree."""
    guest = WindowsGuest(World(files=files))
    guest.gets["/accessibility?backend=uia"] = (200, json.dumps({"AT": tree}).encode())
    return guest


async def test_profile_getters_read_windows_files_as_waa_does():
    prefs = {"default_search_provider": {"guid": "485bf7d3-0215-45af-87dc-538868000003"},
             "profile": {"name": "Thomas"}, "safebrowsing": {}}
    edge = {"default_search_provider": {"synced_guid": "485bf7d3-0215-45af-87dc-538868000092"}}
    with StandIn(windows({PREFERENCES: json.dumps(prefs).encode(), EDGE_PREFERENCES: json.dumps(edge).encode()})) as vm:
        client = WAAClient(vm.url)
        try:
            read = {kind: await resolve(client, {"type": kind}) for kind in (
                "default_search_engine", "profile_name", "enable_enhanced_safety_browsing", "data_delete_automacally",
                "chrome_font_size", "default_search_engine_from_edge", "edge_home_page", "bookmarks")}
            dash = await resolve(client, {"type": "url_dashPart", "goto_prefix": "https://www.", "partIndex": -1,
                                          "needDeleteId": False, "returnType": "string"})
        finally:
            await client.aclose()
    assert read == {"default_search_engine": "Bing", "profile_name": "Thomas",
                    "enable_enhanced_safety_browsing": "false", "data_delete_automacally": "false",
                    "chrome_font_size": {"default_fixed_font_size": 13, "default_font_size": 16, "minimum_font_size": 13},
                    "default_search_engine_from_edge": "DuckDuckGo",
                    "edge_home_page": "error",  # no Secure Preferences: WAA's answer for any failure
                    "bookmarks": []}
    assert dash == "tamiflu.html#side-effects"


async def test_an_address_bar_without_a_value_is_waas_crash_and_linux_has_no_edge_preferences():
    tree = UIA_TREE.replace(' val:value="drugs.com/tamiflu.html#side-effects"', "")
    with StandIn(windows({}, tree)) as vm:
        client = WAAClient(vm.url)
        try:
            with pytest.raises(GetterCrash, match="no value"):
                await resolve(client, {"type": "active_tab_url_parse", "parse_keys": ["a"]})
        finally:
            await client.aclose()
    linux = windows({})  # the Linux WAA server: it refuses WAA's platform program and says Linux at /platform
    linux.world = World(broken={"/execute": (400, b'{"status": "error", "message": "refused: not pyautogui"}')})
    linux.gets["/platform"] = (200, b"Linux")
    with StandIn(linux) as vm:
        client = WAAClient(vm.url)
        try:
            with pytest.raises(GetterFailed, match="reads it on Windows only"):
                await resolve(client, {"type": "profile_name_from_edge"})
        finally:
            await client.aclose()


def test_the_linux_server_reads_waas_browser_commands_without_running_them():
    assert launch_of(["google-chrome", "--remote-debugging-port=1337"]) == Launch(CHROME, ())
    assert launch_of(["start", "msedge", "https://x/", "--disable-features=X"]) == Launch(EDGE, ("https://x/",))
    assert launch_of(["cmd", "/c", "start msedge"]) == Launch(EDGE, ())
    assert launch_of(["google-chrome", "--load-extension=/a,/b c", "--load-extension=", "https://x/"]) == Launch(
        CHROME, ("https://x/",), ("/a", "/b c"))
    assert launch_of(["socat", "tcp-listen:9222,fork", "tcp:localhost:1337"]) == Forward()
    assert launch_of(["xterm"]) is None and launch_of("unclosed 'quote") is None
    assert stop_of("taskkill /IM chrome.exe /F") == Stop(CHROME)
    assert stop_of("taskkill /F /IM msedge.exe /T") == Stop(EDGE)
    assert stop_of("taskkill /IM notepad.exe") is None and stop_of("taskkill /IM") is None


def test_a_devtools_address_that_is_not_a_url_is_refused_by_name():
    with pytest.raises(ValueError, match="DevTools address must start with http"):
        WAAClient("http://vm:5000", devtools="vm:9222")
    assert WAAClient("http://vm:5000").devtools == "http://vm:9222"  # WAA's port on the VM's host
