"""OSWorld's live-web getters beside troupe's, on one real Chromium of a fresh local desktop showing pages
served from 127.0.0.1: active_tab_html_parse (every category), page_info, pdf_from_url,
info_from_website, and the profile and VM getters the same tasks name (cookie_data,
find_installed_extension_name, shortcuts_on_desktop, rule_relativeTime asking the VM for now).

OSWorld's getters (getters/chrome.py and misc.py, from ../shared/osworld/reference, tests only) connect
over DevTools to the same browser and ask the same server through OSWorld's own PythonController
(/execute, /file, /desktop_path, /list_directory). Two differences are
test-side: OSWorld's address-bar reader looks under the application "Google Chrome" (its x86 VMs),
while this desktop's browser is Chromium, so OSWorld's getters get the address troupe's reader reads
(itself compared with OSWorld's in test_parity_chrome_urls); and OSWorld's fixed sleeps between
retries (and pdf_from_url's 3 s before printing) are skipped on both sides. A label that is not on
the page costs Playwright's 30 s wait on each side, so no case asks for one. OSWorld's readings are
taken once per module; troupe's on both event loops (the browser itself started by troupe's page_info,
which finds none and launches Chrome as OSWorld's getters do). Prints the agreement per getter. Last,
one live-web task (a flight search) evaluated whole by troupe on a page served here standing in for its
site: 1 there, 0 on another page."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import shutil
import sqlite3
import urllib.parse
from datetime import datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
import requests
from playwright.sync_api import Browser, sync_playwright
from pypdf import PdfReader

from protocols import Evaluate

from actors.backends.waa.client import TOKEN_HEADER, WAAClient
from actors.backends.waa.devtools import with_browser
from bench.formats.task_folder import read_task
from bench.suites.osworld import chrome_pages
from bench.suites.osworld.checker import OSWorldChecker
from bench.suites.osworld.chrome import active_url_from_accessTree, profile_path
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import GetterFailed
from bench.suites.osworld.getters import resolve
from bench.suites.osworld.local import LocalServer
from bench.suites.osworld.metrics import METRICS
from bench.suites.osworld.node import OSWorldTaskSteps
from bench.suites.osworld.setup import run_steps

from tests.osworld_reference import EXAMPLES, REFERENCE, chrome_getters, misc_getters, python_controller
from tests.web_pages import serving

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not REFERENCE.is_dir(), reason="no shared OSWorld reference"),
              pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")]

PARSE = """<html><head><title>Parse</title></head><body>
<div class="price">  $10 </div><div class="price">$20</div>
<div class="route">SEA<div class="aura-separator"></div>NYC</div><div class="route">BOS</div>
<div class="card"><h3> First </h3></div><div class="card"><p>no h3</p></div><div class="card"><h3>Third</h3></div>
<span class="chip">Black</span><span class="chip">On sale</span><span class="chip">Extra</span>
<label>Check In</label>
<form><input name="n" value="  James Smith "><input name="m" value="james@example.com"></form>
<ul class="crumbs"><li class="catAllProducts"><span>Toys</span></li><li class="catAllProducts"><span>Kids</span></li>
<li class="catAllProducts">no span</li></ul>
<a class="filter" href="#w">Women</a><a class="filter" href="#n">nike</a>
<h2 data-automation="title">New York City Hotels</h2>
</body></html>"""
PAGES = {
    "/parse.html": PARSE,
    "/cart.html": "<title>Cart</title><p>The Dota 2 Official Soundtrack</p>",
    "/article.html": "<title>LLM Powered Autonomous Agents</title><h1>Agents</h1><p>Planning, memory and tool use.</p>",
    "/scholar.html": '<title>Scholar</title><div id="name">Yann LeCun</div>'
                     '<a id="paper" href="/paper.html">Deep learning</a>',
    "/paper.html": '<title>Paper</title><h1>Deep learning</h1><a id="pdf" href="https://hal.science/document">PDF</a>',
}
REFUSED = "http://127.0.0.1:9/"
"""An address whose page fails to load (Chromium refuses the port)."""
PARSE_SPECS = {
    "class": {"category": "class",
              "class_multiObject": {"price": {"0": "p0", "1": "p1", "5": "p5"}},
              "class_multiObject_child": {"route": {"0": "start", "1": "end", "2": "past"}},
              "class_multiObject_only_child": {"card": {"0": "c0", "1": "c1", "2": "c2"}},
              "class_multiObject_search_exist": {"chip": ["Black", "On sale", "Blue", "is_other_exist"]},
              "class_singleObject": {"price": "first", "missing": "gone"}},
    "xpath": {"category": "xpath", "xpathObject": {"//h2[@data-automation='title']": "city", "//nothing": "none",
                                                   "(//*[@class='price'])[2]": "second", "//form/input[1]": "input",
                                                   "//[": "invalid", "h2": "bare"}},
    "input": {"category": "input", "inputObject": {"//form/input[1]": "name", "//form/input[2]": "mail",
                                                   "//nothing": "none", "//h2": "not an input"}},
    "label": {"category": "label", "labelObject": {"Check In": "label", "York City": "part"}},
    "class&url": {"category": "class&url", "class_multiObject": {"filter": ["women", "nike", "jerseys"]},
                  "class_multiObject_li": {"crumbs": ["Toys", "Kids"]},
                  "url_include_expected": ["parse", "absent"],
                  "url_include_expected_multichoice": {"PARSE.html": "Page", "zzz": "Other"}},
    "another category": {"category": "table"},
    "a position that is not a number": {"category": "class", "class_multiObject": {"price": {"first": "p"}}},
    "no tab at the address": {"category": "class", "class_singleObject": {"price": "first"}, "goto_prefix": "http://x/"},
}


def page_urls(web: str) -> list[str]:
    return [f"{web}/cart.html", REFUSED]


def info_specs(web: str) -> dict[str, dict[str, Any]]:
    url = f"{web}/scholar.html"
    return {
        "every action": {"url": url, "backups": ["backup"], "infos": [
            {"action": "inner_text", "selector": "#name"}, {"selector": "#name"},
            {"action": "attribute", "selector": "#paper", "attribute": "href"},
            {"action": "click_and_inner_text", "selector": ["#paper", "h1"]},
            {"action": "click_and_attribute", "selector": ["#paper", "#pdf"], "attribute": "href"}]},
        "an action it does not know": {"url": url, "backups": ["backup"],
                                       "infos": [{"action": "screenshot", "selector": "#name"}]},
        "infos that are not a list": {"url": url, "infos": None},
    }


GAME = "[Desktop Entry]\nType=Application\nName=Play Puzzle Game 2048\nExec=google-chrome --app-id=abc\n"


def osworlds_controller(server: LocalServer) -> Any:
    """OSWorld's own PythonController for the local server, its requests carrying the server's token (a
    real OSWorld VM asks for none) and its retries not paused."""
    module = python_controller()
    session = requests.Session()
    session.headers[TOKEN_HEADER] = server.token
    module.requests = SimpleNamespace(post=session.post, get=session.get, exceptions=requests.exceptions)
    controller = module.PythonController("127.0.0.1", urllib.parse.urlsplit(server.url).port)
    controller.retry_interval = 0
    return controller


class Desktop:
    """The module's desktop: its server and browser, the pages, OSWorld's env for it, OSWorld's readings."""

    def __init__(self, server: LocalServer, web: str, cache: Path) -> None:
        self.server, self.web, self.cache = server, web, cache
        self.controller = osworlds_controller(server)
        self.env = SimpleNamespace(vm_ip="127.0.0.1", chromium_port=urllib.parse.urlsplit(server.devtools).port,
                                   server_port=urllib.parse.urlsplit(server.url).port, current_use_proxy=False,
                                   cache_dir=str(cache), vm_platform="Linux", controller=self.controller)
        self.address = ""
        self.pages: dict[str, str] = {}
        self.theirs: dict[str, Any] = {}

    def client(self) -> WAAClient:
        return WAAClient(self.server.url, token=self.server.token, devtools=self.server.devtools)


def _outcome(call) -> Any:
    try:
        return call()
    except Exception:  # noqa: BLE001 - a raise is an outcome to agree on
        return "raises"


async def _ours(episode: Episode, spec: dict[str, Any]) -> Any:
    try:
        return await resolve(episode, spec)
    except GetterFailed:
        return "raises"


async def _address(episode: Episode) -> str | None:
    return await active_url_from_accessTree(episode, {"goto_prefix": "http://"})


def _parse_tab_alone(web: str, browser: Browser) -> None:
    """Every tab but the parse page's closed, that one in front: what the getters' own tabs changed, undone."""
    for context in browser.contexts:
        for page in context.pages:
            if page.url == f"{web}/parse.html":
                page.bring_to_front()
            else:
                page.close()


async def parse_page_in_front(desk: Desktop) -> None:
    client = desk.client()
    try:
        episode = Episode(client, None)
        await with_browser(client, functools.partial(_parse_tab_alone, desk.web), attempts=15)
        with anyio.fail_after(30):
            while await _address(episode) != f"{desk.web}/parse.html":
                await anyio.sleep(0.2)
        desk.address = await _address(episode)
    finally:
        await client.aclose()


async def _start_browser(desk: Desktop) -> None:
    """Chrome started by troupe's page_info, which finds no browser and launches it as OSWorld's getters do,
    then the parse page opened as a task's setup opens it."""
    client = desk.client()
    try:
        episode = Episode(client, None)
        assert (await resolve(episode, {"type": "page_info", "url": f"{desk.web}/cart.html"}))["title"] == "Cart"
        steps = [{"type": "chrome_open_tabs", "parameters": {"urls_to_open": [f"{desk.web}/parse.html"]}}]
        assert await run_steps(episode, steps, phase="config") == []
    finally:
        await client.aclose()
    await parse_page_in_front(desk)


@pytest.fixture(scope="module")
def desktop(tmp_path_factory):
    pages = dict(PAGES)
    with serving(pages) as web:
        server = LocalServer.start()
        try:
            desk = Desktop(server, web, tmp_path_factory.mktemp("osworld-cache"))
            desk.pages = pages  # served as they are when asked for: a test may add one
            anyio.run(_start_browser, desk)
            _osworlds_readings(desk)
            anyio.run(parse_page_in_front, desk)
            yield desk
        finally:
            server.stop()


def _osworlds_readings(desk: Desktop) -> None:
    """OSWorld's getters on the desktop, each once. They run on one Playwright (each of OSWorld's getters
    starts its own driver, a second and a half here, for the same connection over DevTools)."""
    getters = chrome_getters()
    getters.time = SimpleNamespace(sleep=lambda seconds: None)
    bar = desk.address.removeprefix("http://")
    getters.get_active_url_from_accessTree = lambda env, config: f"{config.get('goto_prefix', 'https://')}{bar}"
    playwright = sync_playwright().start()
    getters.sync_playwright = lambda: contextlib.nullcontext(playwright)
    try:
        for name, spec in PARSE_SPECS.items():
            desk.theirs[f"parse {name}"] = _outcome(lambda: getters.get_active_tab_html_parse(
                desk.env, {"goto_prefix": "http://", **spec}))
        for url in page_urls(desk.web):
            desk.theirs[f"page {url}"] = getters.get_page_info(desk.env, {"url": url})
        path = getters.get_pdf_from_url(desk.env, {"path": f"{desk.web}/article.html", "dest": "gold.pdf"})
        desk.theirs["pdf"] = Path(path).read_bytes()
        for name, spec in info_specs(desk.web).items():
            desk.theirs[f"info {name}"] = _outcome(lambda: getters.get_info_from_website(desk.env, spec))
    finally:
        playwright.stop()


def _pdf_text(data: bytes) -> Any:
    try:
        return [page.extract_text() for page in PdfReader(io.BytesIO(data)).pages]
    except Exception:  # noqa: BLE001 - the stand-in PDF has no pages to read
        return data


@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # a comparison of readings, a second each: the loop's part,
async def test_active_tab_html_parse_reads_what_osworlds_reads(desktop, capsys):  # anyio's threads, runs on both in
    # test_the_profile_and_desktop_getters_read_what_osworlds_read and test_local_chrome
    await parse_page_in_front(desktop)
    client = desktop.client()
    try:
        episode = Episode(client, None)
        for name, spec in PARSE_SPECS.items():
            ours = await _ours(episode, {"type": "active_tab_html_parse", "goto_prefix": "http://", **spec})
            assert ours == desktop.theirs[f"parse {name}"], name
        with capsys.disabled():
            print(f"\nparity active_tab_html_parse: {len(PARSE_SPECS)}/{len(PARSE_SPECS)} specs agree with "
                  "OSWorld's getter")
        assert desktop.theirs["parse class"]["p1"] == "$20" and desktop.theirs["parse another category"] == {}
        assert desktop.theirs["parse a position that is not a number"] == "raises"
    finally:
        await client.aclose()


@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # as above
async def test_page_info_pdf_from_url_and_info_from_website_read_what_osworlds_read(desktop, capsys, monkeypatch):
    monkeypatch.setattr(chrome_pages, "PAGE_INFO_WAIT", 0.0)
    monkeypatch.setattr(chrome_pages, "PDF_WAIT", 0.0)
    client = desktop.client()
    try:
        episode = Episode(client, None)
        for url in page_urls(desktop.web):
            assert await resolve(episode, {"type": "page_info", "url": url}) == desktop.theirs[f"page {url}"], url
        cart = desktop.theirs[f"page {desktop.web}/cart.html"]
        assert METRICS["is_added_to_steam_cart"](cart, {"items": ["The Dota 2 Official Soundtrack"]}) == 1.0
        assert desktop.theirs[f"page {REFUSED}"]["title"] == "Connection failed"
        ours = await resolve(episode, {"type": "pdf_from_url", "path": f"{desktop.web}/article.html"})
        assert _pdf_text(ours) == _pdf_text(desktop.theirs["pdf"])
        assert "Planning, memory and tool use." in _pdf_text(ours)[0]
        assert await resolve(episode, {"type": "pdf_from_url", "path": REFUSED}) == b"%PDF-1.4\n%EOF\n"  # OSWorld's
        specs = info_specs(desktop.web)
        for name, spec in specs.items():
            assert await _ours(episode, {"type": "info_from_website", **spec}) == desktop.theirs[f"info {name}"], name
        assert desktop.theirs["info every action"] == ["Yann LeCun", "Yann LeCun", "/paper.html", "Deep learning",
                                                        "https://hal.science/document"]
        with capsys.disabled():
            print(f"\nparity page_info: 2/2 pages agree; pdf_from_url: 1/1 (the same text); info_from_website: "
                  f"{len(specs)}/{len(specs)} specs agree")
    finally:
        await client.aclose()


def _cookies_database(folder: Path) -> bytes:
    path = folder / "Cookies"
    path.unlink(missing_ok=True)
    with contextlib.closing(sqlite3.connect(path)) as connection:
        connection.execute("CREATE TABLE cookies (creation_utc INTEGER, host_key TEXT, top_frame_site_key TEXT, "
                           "name TEXT, value TEXT)")
        connection.executemany("INSERT INTO cookies VALUES (?, ?, ?, ?, ?)",
                               [(13300000000000000, ".amazon.com", "", "session-id", "1"),
                                (13300000000000001, "www.example.com", "", "a", "b")])
        connection.commit()
    return path.read_bytes()


async def test_the_profile_and_desktop_getters_read_what_osworlds_read(desktop, capsys, tmp_path):
    getters, misc = chrome_getters(), misc_getters()
    client = desktop.client()

    async def theirs(call) -> Any:
        return await anyio.to_thread.run_sync(_outcome, call)

    try:
        episode = Episode(client, None)
        cookies = await profile_path(episode, "Cookies")
        await client.post("/execute", json={"command": ["rm", "-f", cookies]})
        spec = {"type": "cookie_data", "dest": "Cookies"}
        assert await resolve(episode, spec) is None is await theirs(lambda: getters.get_cookie_data(desktop.env, spec))
        await episode.upload(cookies, _cookies_database(tmp_path))
        rows = await resolve(episode, spec)
        assert rows == [list(row) for row in await theirs(lambda: getters.get_cookie_data(desktop.env, spec))]
        assert METRICS["is_cookie_deleted"](rows, {"type": "domains", "domains": [".amazon.com"]}) == 0.0

        names = await resolve(episode, {"type": "find_installed_extension_name"})
        assert names == await theirs(lambda: getters.get_find_installed_extension_name(desktop.env, {}))

        await episode.upload("/home/user/Desktop/game.desktop", GAME.encode())
        await episode.upload("/home/user/Desktop/notes.txt", b"Name=Play Puzzle Game 2048\n")
        shortcuts = await resolve(episode, {"type": "shortcuts_on_desktop"})
        assert shortcuts == await theirs(lambda: getters.get_shortcuts_on_desktop(desktop.env, {}))
        assert list(shortcuts) == ["game.desktop"]
        assert METRICS["is_shortcut_on_desktop"](shortcuts, {"type": "name", "name": "Play Puzzle Game 2048"}) == 1.0

        rules = {"relativeTime": {"from": "next Monday", "to": "next Friday"},
                 "expected": {"from": "{DoW} {Year}-{Month0D}-{Day0D}", "to": "{DoW} {MonthD}/{DayD}"}}
        ours = await resolve(episode, {"type": "rule_relativeTime", "rules": rules})
        copied = json.loads(json.dumps(rules))  # OSWorld's getter writes into the spec it is given
        assert ours == await theirs(lambda: misc.get_rule_relativeTime(desktop.env, {"rules": copied}))
        assert ours["expected"]["from"].startswith("Mon ") and ours["expected"]["to"].startswith("Fri ")
        with capsys.disabled():
            print("\nparity on the desktop: cookie_data 2/2, find_installed_extension_name 1/1, shortcuts_on_desktop "
                  "1/1, rule_relativeTime (the VM's now) 1/1")
    finally:
        await client.aclose()


FLIGHT_TASK = "chrome/fc6d8143-9452-4171-9459-7f515143419a"
"""A live-web task (a flight search's results page, read by active_tab_html_parse against rule_relativeTime's
tomorrow) whose site a page served here stands in for."""


def _flight_page(day: datetime) -> str:
    return (f'<title>Flights</title><div class="mach-flight-context-info__wrapper--date"> {day:%a, %b %d, %Y} '
            '</div><div class="mach-flight-context-info__wrapper__info--separator">JFK'
            '<div class="aura-separator"></div>ORD</div>')


def _open_in_front(url: str, browser: Browser) -> None:
    page = browser.contexts[0].new_page()
    page.goto(url)
    page.bring_to_front()


async def test_a_live_web_task_scores_1_on_its_page_and_0_elsewhere_through_troupes_evaluation(desktop):
    task = read_task(EXAMPLES / f"{FLIGHT_TASK}.json", "chrome")
    spec = dict(task.evaluation_spec, result=dict(task.evaluation_spec["result"], goto_prefix="http://"))
    tomorrow = datetime.now().astimezone() + timedelta(days=1)  # this machine is the desktop's VM
    desktop.pages["/flight.html"] = _flight_page(tomorrow)
    await parse_page_in_front(desktop)
    client = desktop.client()

    async def score() -> float:
        state = await OSWorldTaskSteps().inspect(client, spec)
        verdict = await OSWorldChecker().check(Evaluate(task=task, episode_id="e", steps=(), vm_state=state))
        return verdict.score

    try:
        assert await score() == 0.0  # the page in front is not the task's
        await with_browser(client, functools.partial(_open_in_front, f"{desktop.web}/flight.html"))
        with anyio.fail_after(30):
            while await _address(Episode(client, None)) != f"{desktop.web}/flight.html":
                await anyio.sleep(0.2)
        assert await score() == 1.0
    finally:
        await client.aclose()
        await parse_page_in_front(desktop)
