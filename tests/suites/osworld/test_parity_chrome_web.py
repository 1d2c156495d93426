"""troupe's functions for OSWorld's live-web tasks agree with OSWorld's own (getters/misc.py's
rule_relativeTime, getters/chrome.py's url_path_parse and find_installed_extension_name, metrics/chrome.py,
imported from ../shared/osworld/reference for tests only) on values built to sit on each one's edges.
Prints the agreement per function."""

from __future__ import annotations

import itertools
import json
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace
from typing import Any

import pytest
import requests

from actors.backends.waa.commands import PREFIX
from bench.suites.osworld import metrics, relative_time
from bench.suites.osworld.chrome_extensions import extension_names
from bench.suites.osworld.chrome_urls import macys_fields
from bench.suites.osworld.errors import GetterFailed
from bench.suites.osworld.relative_time import KNOWN, VM_NOW, fill, zone_named

from tests.osworld_reference import FILE, REFERENCE, Case, assert_agrees, chrome, chrome_getters, misc_getters
from tests.osworld_servers import getter_outcome, osworld_vm
from tests.waa_servers import StandIn
from tests.web_pages import serving

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

C = Case


def bar(*children: dict) -> dict:
    return {"bookmark_bar": {"children": list(children)}, "other": {"children": []}}


def folder(name: str, *urls: str) -> dict:
    return {"type": "folder", "name": name, "children": [{"type": "url", "name": u, "url": u} for u in urls]}


AUTHORS = [["https://a.me/", "https://a.org/"], "https://b.me/", ["https://c.me/"]]
PAGE = "<html><head><title>Cart</title></head><body><p>The Dota 2 Official Soundtrack</p></body></html>"
TABLE = ('<html><body><table><tr><td sdnum="1033;0;0.00">1.00</td><td>x</td></tr></table>\n'
         '<p class="a">Total</p></body></html>')


def html(text: str) -> bytes:
    return text.encode()


GAME = ("#!/usr/bin/env xdg-open\n[Desktop Entry]\nVersion=1.0\nTerminal=false\nType=Application\n"
        "Name=Play Puzzle Game 2048\nExec=/opt/google/chrome/google-chrome --profile-directory=Default --app-id=abc\n")
COOKIES = [[13300000000000000, ".amazon.com", "", "session-id", "1"], [1, "www.example.com", "", "a", "b"]]
CASES: dict[str, list[Case]] = {
    "is_expected_bookmarks": [
        C(bar(folder("Liked Authors", "https://a.me/", "https://b.me/", "https://c.me/")),
          {"type": "liked_authors_websites_urls", "urls": AUTHORS}),
        C(bar(folder("Liked Authors", "https://a.org/", "https://b.me/", "https://c.me/")),
          {"type": "liked_authors_websites_urls", "urls": AUTHORS}),
        C(bar(folder("Liked Authors", "https://a.org/", "https://a.me/", "https://b.me/", "https://c.me/")),
          {"type": "liked_authors_websites_urls", "urls": AUTHORS}),  # one choice per author, exactly
        C(bar(folder("Liked Authors", "https://b.me/", "https://c.me/")),
          {"type": "liked_authors_websites_urls", "urls": AUTHORS}),
        C(bar(folder("liked authors", "https://a.me/", "https://b.me/", "https://c.me/")),
          {"type": "liked_authors_websites_urls", "urls": AUTHORS}),
        C(bar(folder("Other"), folder("Liked Authors")), {"type": "liked_authors_websites_urls", "urls": []}),
        C(bar(folder("Liked Authors", "https://b.me/"), folder("Liked Authors", "https://a.me/")),
          {"type": "liked_authors_websites_urls", "urls": ["https://a.me/"]}),  # the first such folder
        C(bar({"type": "url", "name": "Liked Authors", "url": "https://a.me/"}),
          {"type": "liked_authors_websites_urls", "urls": ["https://a.me/"]}),
        C(bar({"type": "folder", "name": "Liked Authors"}), {"type": "liked_authors_websites_urls", "urls": []}),
        C({}, {"type": "liked_authors_websites_urls", "urls": []}), C(None, {"type": "liked_authors_websites_urls"}),
        C(bar(folder("Liked Authors", "https://a.me/")), {"type": "liked_authors_websites_urls"}),
        C(bar(folder("Liked Authors")), {"type": "reading_list", "urls": []}),
    ],
    "is_expected_search_query": [
        C({"url": "https://www.google.com/search?q=nereida&oq=x"},
          {"expect": {"pattern": r"(?i)https?://(?:www\.)?google\.com/search\?q=nereida(?:&|$|#).*"}}),
        C({"url": "https://www.google.com/search?q=nereidas"},
          {"expect": {"pattern": r"(?i)https?://(?:www\.)?google\.com/search\?q=nereida(?:&|$|#).*"}}),
        C({"url": "https://google.com/search?q=NEREIDA"}, {"expect": {"pattern": "(?i)q=nereida"}}),
        C({"url": "https://google.com/search?q=NEREIDA"}, {"expect": {"pattern": "q=nereida"}}),
        C(None, {"expect": {"pattern": "x"}}), C({}, {"expect": {"pattern": "x"}}),
        C({"title": "no url"}, {"expect": {"pattern": "x"}}), C({"url": None}, {"expect": {"pattern": "x"}}),
        C({"url": "https://a.com"}, {"expect": {}}), C({"url": "https://a.com"}, {"pattern": "a"}),
        C({"url": "https://a.com"}, {"expect": {"pattern": "("}}),
    ],
    "is_added_to_steam_cart": [
        C({"title": "Cart", "url": "u", "content": PAGE}, {"items": ["The Dota 2 Official Soundtrack"]}),
        C({"title": "Cart", "url": "u", "content": PAGE}, {"items": ["The Dota 2 Official Soundtrack", "Dota 2 Plus"]}),
        C({"title": "Cart", "url": "u", "content": PAGE}, {"items": []}),
        C({"title": "Connection failed", "url": "u", "content": ""}, {"items": ["Dota"]}),
        C({"content": None}, {"items": []}), C({"content": None}, {"items": ["x"]}),
        C({"content": ["Dota"]}, {"items": ["Dota"]}), C({}, {"items": []}), C(None, {"items": []}),
        C({"content": PAGE}, {}), C({"content": PAGE}, {"items": "Dota"}),
    ],
    "is_cookie_deleted": [
        C(COOKIES, {"type": "domains", "domains": [".amazon.com"]}),
        C(COOKIES[1:], {"type": "domains", "domains": [".amazon.com"]}),
        C([[1, "amazon.com"]], {"type": "domains", "domains": [".amazon.com"]}),
        C([[1, "www.amazon.com"]], {"type": "domains", "domains": [".amazon.com"]}),
        C([[1, ".amazon.co.uk"]], {"type": "domains", "domains": [".amazon.com"]}),  # the suffix is dropped
        C([[1, "smile.amazon.com"]], {"type": "domains", "domains": [".amazon.com"]}),
        C([], {"type": "domains", "domains": [".amazon.com"]}), C(COOKIES, {"type": "domains", "domains": []}),
        C(None, {"type": "domains", "domains": [".amazon.com"]}), C(None, {"type": "names", "domains": []}),
        C(COOKIES, {"type": "names", "names": ["session-id"]}), C(COOKIES, {"domains": [".amazon.com"]}),
        C([[1]], {"type": "domains", "domains": ["a.com"]}), C([[1, None]], {"type": "domains", "domains": ["a.com"]}),
    ],
    "is_expected_installed_extensions": [
        C(["Zoom for Google Chrome", "Momentum"], {"expected": ["Zoom for Google Chrome", "Momentum"]}),
        C(["Zoom Chrome Extension", "Momentum"], {"expected": ["Zoom for Google Chrome", "Momentum"]}),  # aliases
        C(["Zoom for Google Chrome"], {"expected": ["Zoom Chrome Extension"]}),
        C(["Momentum", "React Developer Tools", "Google Translate"], {"expected": ["Momentum"]}),
        C(["Momentum"], {"expected": ["Momentum", "Google Translate"]}),
        C(["momentum"], {"expected": ["Momentum"]}), C([], {"expected": []}), C(None, {"expected": ["x"]}),
        C("Google", {"expected": ["Google"]}), C("Google", {"expected": ["G", "o"]}),  # the getter's fallback
        C(["Momentum"], {"expected": []}), C(["Momentum"], {}), C(["Momentum"], {"expected": "Momentum"}),
    ],
    "compare_htmls": [
        C(html(TABLE), html(TABLE)), C(html(TABLE), html(TABLE.replace("1033;0;0.00", "1033;0;0.0"))),
        C(html(TABLE), html(TABLE.replace("1033;0;0.00", "1033;0;0.0")), ignore_sdnum=True),
        C(html(TABLE), html(TABLE.replace(' sdnum="1033;0;0.00"', "")), ignore_sdnum=True),
        C(html(TABLE), html(TABLE.replace('class="a"', 'class="b"')), ignore_sdnum=True),
        C(html(TABLE), html(TABLE.replace("Total", "Sum"))), C(html(TABLE), html(TABLE.replace("<p", "<div")
                                                                                .replace("</p>", "</div>"))),
        C(html(TABLE), html(TABLE.replace("\n", "\r\n"))), C(html(TABLE), html(TABLE.replace("\n", " "))),
        C(html(TABLE), html(TABLE.replace("</body>", "<p>more</p></body>"))),  # as far as the shorter goes
        C(html("<p>a</p>"), html("<p>a</p><p>b</p>")), C(html(""), html("<p>x</p>")), C(html(""), html("")),
        C(html("<p>caf\u00e9</p>"), "<p>caf\u00e9</p>".encode("latin-1")),
        C(html("<p>a <b>b</b></p>"), html("<p>a <i>b</i></p>")),
        C(html("<p>a</p><!-- x -->"), html("<p>a</p><!-- y -->")),
    ],
    "is_shortcut_on_desktop": [
        C({"a.desktop": GAME}, {"type": "name", "name": "Play Puzzle Game 2048"}),
        C({"a.desktop": GAME}, {"type": "name", "name": "play puzzle game"}),  # held by the line, any case
        C({"a.desktop": GAME}, {"type": "name", "name": "Play Puzzle Game 2048 Online"}),  # holds the line
        C({"a.desktop": GAME}, {"type": "name", "name": "Sudoku"}),
        C({"a.desktop": "[Desktop Entry]\nName=\n"}, {"type": "name", "name": "Sudoku"}),  # "" is held by any
        C({"a.desktop": "Name=Play Puzzle Game 2048"}, {"type": "name", "name": "Play Puzzle Game 2048"}),
        C({"a.desktop": "X-Name=2048\n"}, {"type": "name", "name": "2048"}),
        C({"a.desktop": "Name=Sudoku\n", "b.desktop": GAME}, {"type": "name", "name": "2048"}),
        C({"a.desktop": GAME}, {"type": "exec", "exec": "/opt/google/chrome/google-chrome --app-id=abc"}),
        C({"a.desktop": GAME}, {"type": "exec", "exec": "google-chrome"}),
        C({"a.desktop": GAME}, {"type": "exec", "exec": "GOOGLE-CHROME"}),  # commands keep their case
        C({"a.desktop": GAME}, {"type": "url", "url": "https://www.mathsisfun.com/games/2048.html"}),
        C({"a.desktop": GAME}, {"type": "id", "id": "abc"}), C({"a.desktop": GAME}, {"name": "2048"}),
        C({}, {"type": "name", "name": "2048"}), C([], {"type": "name", "name": "2048"}),
        C(None, {"type": "name", "name": "2048"}), C({"a.desktop": GAME}, {"type": "name"}),
    ],
}
FILE_ARGUMENTS = {"compare_htmls"}


def _as_files(case: Case) -> Case:
    first, second = case.arguments
    return Case(FILE, first, FILE, second, **case.options)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_web_tasks_metrics_agree_with_osworlds_on_every_built_case(name, tmp_path, capsys):
    cases = [_as_files(case) for case in CASES[name]] if name in FILE_ARGUMENTS else CASES[name]
    seen = assert_agrees(name, getattr(chrome(), name), metrics.METRICS[name], cases, tmp_path, capsys, suffix=".html")
    assert {0.0, 1.0} <= seen


def _outcome(call) -> Any:
    try:
        return call()
    except Exception:  # noqa: BLE001 - a raise is an outcome to agree on
        return "raises"


def _vm_at(now: datetime) -> SimpleNamespace:
    """OSWorld's env whose VM prints `now` for the getter's program."""
    answer = {"output": now.isoformat()}
    return SimpleNamespace(controller=SimpleNamespace(execute_python_command=lambda program: answer))


TEMPLATE = "{DoW} {DoW}, {Month} {DayD} {Day0D} {Month0D} {MonthD} {month} {MonthFull} {Year}"
NOWS = [datetime(2026, month, day, 23, 30, tzinfo=timezone(timedelta(hours=offset)))
        for month, offset in ((8, -5), (12, 2)) for day in range(1, 8)]
"""A week of days (each weekday) in August (first monday four months later: month 0) and December (the
year turns), late in the evening in zones either side of UTC."""
NAMES = sorted(KNOWN) + ["yesterday"]


def _relative_cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = [
        {"relativeTime": {"from": name}, "expected": {"time": TEMPLATE, "other": "{Year}"}} for name in NAMES]
    cases += [{"relativeTime": {"from": start, "to": end},
               "expected": {"from": TEMPLATE, "to": "{DayD}/{MonthD}", "puDay": "{DayD}", "puMonth": "{MonthD}",
                            "puYear": "{Year}", "doDay": "{Day0D}", "doMonth": "{Month0D}", "doYear": "{Year}"}}
              for start, end in itertools.product(NAMES, NAMES)]
    cases += [
        {"relativeTime": {"from": "next Monday"}, "expected": {"time": ["{Year}-{Month0D}-{Day0D}", "{DoW}"]}},
        {"relativeTime": {"from": "next Monday"}, "expected": {"time": ["{Year}", 5]}},
        {"relativeTime": {"from": "next Monday"}, "expected": {"time": 5}},
        {"relativeTime": {"from": "next Monday"}, "expected": {}}, {"relativeTime": {"from": "next Monday"}},
        {"relativeTime": {}, "expected": {"time": "x"}}, {"relativeTime": ["from"], "expected": {"time": "x"}},
        {"relativeTime": {"from": "next Monday split", "to": "next Friday split"}, "expected": {"puDay": "{DayD}"}},
        {"relativeTime": {"from": "tomorrow", "to": "next Sunday"}, "expected": {"from": ["{DayD}"], "to": "x"}},
        {"relativeTime": {"from": ["tomorrow"]}, "expected": {"time": "x"}},
    ]
    return cases


def test_rule_relative_time_writes_the_days_osworlds_getter_writes(capsys):
    misc = misc_getters()
    cases = [(rules, now) for rules in _relative_cases() for now in NOWS]
    differences, filled = [], 0
    for rules, now in cases:
        theirs = _outcome(lambda: misc.get_rule_relativeTime(_vm_at(now), {"rules": json.loads(json.dumps(rules))}))
        ours = _outcome(lambda: fill(rules, now))
        filled += ours != "raises"
        if theirs != ours:
            differences.append((rules, now, theirs, ours))
    with capsys.disabled():
        print(f"\nparity rule_relativeTime: {len(cases) - len(differences)}/{len(cases)} cases agree with "
              f"OSWorld's getter ({filled} filled, the others raise in both)")
    assert not differences[:3]
    assert 0 < filled < len(cases)


class _Frozen(datetime):
    """datetime whose now() is one fixed instant, in the zone asked."""

    instant = datetime(2026, 12, 31, 23, 30, tzinfo=timezone.utc)

    @classmethod
    def now(cls, tz=None):  # noqa: ANN001 - datetime's signature
        return cls.instant.astimezone(tz)


ZONES = ["America/New_York", "Europe/Zurich", "europe/zurich", "UTC", "utc", "Pacific/Kiritimati", "Mars/Base"]


def test_rule_relative_time_reads_a_named_zone_as_osworlds_getter_does(capsys):
    misc = misc_getters()
    misc.datetime = _Frozen
    cases = [{"relativeTime": {"from": "tomorrow"}, "timezone": zone, "expected": {"time": TEMPLATE}} for zone in ZONES]
    agree = 0
    for rules in cases:
        theirs = misc.get_rule_relativeTime(None, {"rules": json.loads(json.dumps(rules))})
        ours = fill(rules, _Frozen.instant.astimezone(zone_named(rules["timezone"])))
        assert theirs == ours, rules["timezone"]
        agree += 1
    with capsys.disabled():
        print(f"parity rule_relativeTime zones: {agree}/{len(cases)} zones agree with OSWorld's getter")
    assert fill(cases[0], _Frozen.instant.astimezone(zone_named("Pacific/Kiritimati")))["expected"]["time"] != \
        fill(cases[0], _Frozen.instant.astimezone(zone_named("America/New_York")))["expected"]["time"]
    with pytest.raises(GetterFailed, match="not a zone's name"):
        zone_named(5)


MACYS = "https://www.macys.com/shop/mens-clothing/"
URLS = [
    MACYS + "mens-short-sleeve-shirts/Men_regular_size_t,Price_discount_range/L,50_PERCENT_%20off%20%26%20more"
            "?id=1",
    MACYS + "shop-all-mens-clothing/Men_regular_size_t,Price_discount_range,Product_department,Sleeve_length/"
            "L,50_PERCENT_ off & more|30_PERCENT_ off & more,Shirts,Short Sleeve",
    MACYS + "x/Product_department,Sleeve_length/Shirt,short-sleeve",
    MACYS + "x/Product_department,Product_department/shirts,pants",
    MACYS + "x/Price_discount_range,Men_regular_size_t/,",
    MACYS + "x/a,b/c/d,e",  # the second segment holds no comma: no pairs there
    MACYS + "x/a,b/c,d/e,f",  # only the first pair of segments is read
    "https://www.macys.com/shop/womens-clothing/dresses", "https://www.macys.com/",
    MACYS + "x/Price_discount_range,Sleeve_length/50_PERCENT_ off & more|20_PERCENT_ off & more,long",
    MACYS + "x/Men_regular_size_t,Price_discount_range/XL,50_PERCENT_ off & more",
]
KEYS = [["mens_clothing", "shirts", "Men_regular_size_t", "Price_discount_range", "short_sleeve"],
        ["Price_discount_range"], ["Sleeve_length", "Product_department", "a", "c"], []]


def test_url_path_parse_reads_the_addresses_as_osworlds_getter_does(capsys):
    getters = chrome_getters()
    cases = [(url, keys) for url in URLS for keys in KEYS]
    for url, keys in cases:
        getters.get_active_url_from_accessTree = lambda env, config, url=url: url
        assert getters.get_url_path_parse(None, {"parse_keys": keys}) == macys_fields(url, keys), (url, keys)
    with capsys.disabled():
        print(f"parity url_path_parse: {len(cases)}/{len(cases)} cases agree with OSWorld's getter")


def _preferences(*entries: Any) -> bytes:
    return json.dumps({"extensions": {"settings": {f"id{i}": entry for i, entry in enumerate(entries)}}}).encode()


PREFERENCES = [
    _preferences({"manifest": {"name": "Momentum"}}, {"manifest": {"name": "__MSG_appName__"}}),
    _preferences(), _preferences({"path": "x"}), _preferences({"manifest": {}}), b"{}", b"not json", b"", None,
    json.dumps({"extensions": {"settings": []}}).encode(), json.dumps({"extensions": None}).encode(),
]


def test_find_installed_extension_name_reads_preferences_as_osworlds_getter_does(capsys):
    getters = chrome_getters()
    for content in PREFERENCES:
        env = SimpleNamespace(vm_platform="Linux", controller=SimpleNamespace(
            execute_python_command=lambda program: {"output": "/home/user/.config/google-chrome/Default/Preferences"},
            get_file=lambda path, content=content: content))
        assert getters.get_find_installed_extension_name(env, {}) == extension_names(content), content
    with capsys.disabled():
        print(f"parity find_installed_extension_name: {len(PREFERENCES)}/{len(PREFERENCES)} Preferences agree")


VM_CASES = [("refuses", {}, {"timezone": "Pacific/Kiritimati"}), ("refuses", {}, {"timezone": "Etc/GMT+12"}),
            ("prints nothing", {}, None),
            ("refuses", {"timezone": ""}, {"timezone": "Pacific/Kiritimati"}),
            ("prints its now", {}, {"timezone": "Pacific/Kiritimati"})]
"""How the VM answers the getter's program, extra rules, and what the geolocation service says (None: 404).
At any hour one of the two zones named is on another day than UTC, so a zone not taken shows."""
VM_NOW_AT = "2026-08-02T23:30:00-04:00"


@pytest.mark.anyio
async def test_rule_relative_time_takes_now_where_osworlds_getter_takes_it(monkeypatch, capsys):
    """The VM's now when it says it, else the host's zone as a geolocation service (a page served here
    standing in for ipapi.co) names it, else UTC; OSWorld's getter beside troupe's on the same answers."""
    command = json.dumps(["python", "-c", PREFIX + VM_NOW])
    rules = {"relativeTime": {"from": "tomorrow"}, "expected": {"time": TEMPLATE}}
    for vm, extra, located in VM_CASES:
        pages = {"/json/": json.dumps(located)} if located else {}
        with serving(pages) as web, StandIn(osworld_vm(
                {command: VM_NOW_AT} if vm == "prints its now" else {},
                refusing={"/execute": (500, b"no")} if vm == "refuses" else None)) as server:
            monkeypatch.setattr(relative_time, "GEOLOCATION", f"{web}/json/")
            ours = await getter_outcome(server.url, {"type": "rule_relativeTime", "rules": {**rules, **extra}})
            misc = misc_getters()
            misc.requests = SimpleNamespace(get=lambda url, timeout, web=web: requests.get(f"{web}/json/",
                                                                                         timeout=timeout))
            answer = {"output": VM_NOW_AT} if vm == "prints its now" else {"output": ""}
            env = SimpleNamespace(controller=SimpleNamespace(
                execute_python_command=lambda program: None if vm == "refuses" else answer))
            theirs = misc.get_rule_relativeTime(env, {"rules": json.loads(json.dumps({**rules, **extra}))})
        assert ours == theirs, (vm, extra, located)
    with capsys.disabled():
        print(f"\nparity rule_relativeTime's now: {len(VM_CASES)}/{len(VM_CASES)} VM and geolocation answers agree")
