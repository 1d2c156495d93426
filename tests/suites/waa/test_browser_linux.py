"""WAA's Chrome tasks end to end on the Linux WAA server's real Chromium, on both event loops:
setup, a scripted agent acting with keys and the mouse, the getters, the metric: 1 when
the agent did the task, 0 when it did nothing.

One family of getters each: tabs (open_tabs_info), bookmarks, history, preferences
(chrome_font_size, WAA's own task file), cookies (cookie_data), pdf (pdf_from_url). The
other tasks are local variants of WAA's (named on each), with pages served from
127.0.0.1 because this machine has no internet. One server and one page server serve
every case; before each, the browser is closed and its profile removed, as a WAA VM
starts each task from its snapshot.
"""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import httpx
import pytest

from actors.backends.waa.client import Retry, WAAClient
from bench.suites.waa.browser import tabs
from bench.suites.waa.checker import WAAChecker
from bench.suites.waa.getters import resolve
from bench.suites.waa.node import waa_backend
from bench.suites.waa.taskfile import read_task
from protocols import Click, Evaluate, Hotkey, Key, Point, Task, TypeText, Wait

from tests.waa_servers import ROOT, start_linux_server, stop
from tests.web_pages import serving

pytestmark = pytest.mark.anyio

WAA = ROOT.parent / "shared" / "waa" / "evaluation_examples_windows"
FONT_SIZE_TASK = WAA / "examples" / "chrome" / "af630914-714e-4a24-a7bb-f9af687d3b91-wos.json"

PAGES = {
    "/a.html": "<title>Page A</title><h1>A</h1>",
    "/b.html": "<title>Page B</title><h1>B</h1>",
    "/c.html": "<title>Page C</title><h1>C</h1>",
    # No page margins, so printing leaves no room for headers and footers: the dialog's PDF and
    # Playwright's page.pdf() hold the same text.
    "/article.html": "<title>Article</title><style>@page { margin: 0 }</style><h1>Troupe article</h1>"
                     "<p>First paragraph.</p><p>Second paragraph.</p>",
}
LAUNCH = {"type": "launch", "parameters": {"command": ["google-chrome", "--remote-debugging-port=1337",
                                                       "--force-renderer-accessibility"]}}
FORWARD = {"type": "launch", "parameters": {"command": ["socat", "tcp-listen:9222,fork", "tcp:localhost:1337"]}}
KILL = {"type": "execute", "parameters": {"command": "taskkill /IM chrome.exe /F", "shell": "true"}}
STARTED = [Wait(seconds=2.5), Click(point=Point(512, 450))]
"""The agent's first look: a fresh profile's Chromium takes a few seconds to show its window; a click
on the page gives the window the keyboard."""


@pytest.fixture(scope="module")
def web():
    with serving(PAGES, {"/a.html": {"Set-Cookie": "session=1; Max-Age=86400"}}) as url:
        yield url


@pytest.fixture(scope="module")
def server():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        devtools_port = probe.getsockname()[1]
    linux = start_linux_server(flags=("--devtools-port", str(devtools_port)))
    linux.devtools = f"http://127.0.0.1:{devtools_port}"
    yield linux
    stop(linux)


def reset(server) -> None:
    """The browser closed and its profile and desktop files gone, as a WAA VM's snapshot starts."""
    headers = {"X-WAA-Token": server.token}
    httpx.post(f"{server.url}/setup/execute", json={"command": "taskkill /IM chrome.exe /F", "shell": True},
               headers=headers, timeout=30).raise_for_status()
    desktop = Path(httpx.post(f"{server.url}/desktop_path", headers=headers).json()["desktop_path"])
    shutil.rmtree(desktop.parent / ".config" / "google-chrome", ignore_errors=True)
    for made in desktop.iterdir():
        made.unlink()


def task(name: str, config: list, evaluator: dict) -> Task:
    return Task(task_id=f"chrome/{name}", instruction=name, domain="chrome",
                raw_config={"config": config, "evaluator": evaluator}, evaluation_spec=evaluator)


async def score(server, task: Task, actions: list) -> tuple[float, str]:
    vm = waa_backend(server.url, token=server.token, devtools=server.devtools, settle_timeout=0.5,
                     probe=Retry(attempts=5, backoff=0.2))
    try:
        await vm.reset(task, 1)
        await vm.screenshot()
        for action in actions:
            acted = await vm.act(1, action)
            assert acted.error is None, (action, acted.error)
        state = await vm.inspect(task.evaluation_spec)
    finally:
        await vm.aclose()
    verdict = await WAAChecker().check(Evaluate(task=task, episode_id="e", steps=(), vm_state=state))
    return verdict.score, verdict.reason


def tabs_task(web: str) -> Task:
    """WAA's 06fe7178 (bring back the last tab I shut down), on local pages."""
    urls = [f"{web}/a.html", f"{web}/b.html", f"{web}/c.html"]
    return task("reopen-closed-tab", [
        LAUNCH, FORWARD, {"type": "chrome_open_tabs", "parameters": {"urls_to_open": urls}},
        {"type": "chrome_close_tabs", "parameters": {"urls_to_close": urls[2:]}}],
        {"func": "is_expected_tabs", "result": {"type": "open_tabs_info"},
         "expected": {"type": "rule", "rules": {"type": "url", "urls": urls}}})


def bookmarks_task(web: str) -> Task:
    """WAA's 7a5a7856 (save this page to the bookmarks bar), on local pages."""
    return task("bookmark-bar", [
        LAUNCH, FORWARD, {"type": "chrome_open_tabs", "parameters": {"urls_to_open": [f"{web}/a.html",
                                                                                       f"{web}/b.html"]}}],
        {"func": "is_expected_bookmarks", "result": {"type": "bookmarks"},
         "expected": {"type": "rule", "rules": {"type": "bookmark_bar_websites_urls", "urls": [f"{web}/b.html"]}}})


def history_task() -> Task:
    """WAA's 44ee5668 (clear my YouTube history), with each URL visited once."""
    visits = [{"url": url, "title": title, "visit_time_from_now_in_seconds": seconds} for url, title, seconds in [
        ("https://www.youtube.com/watch?v=dQw4w9WgXcQ", "Rick Astley - Never Gonna Give You Up", 3600),
        ("https://www.nytimes.com/", "The New York Times", 300),
        ("https://www.youtube.com/watch?v=9bZkp7q19f0", "PSY - GANGNAM STYLE(강남스타일) M/V", 1631),
        ("https://www.bbc.co.uk/", "BBC", 1500),
        ("https://www.youtube.com/watch?v=JGwWNGJdvx8", "Taylor Swift - Shake It Off", 2400)]]
    return task("clear-youtube-history", [{"type": "update_browse_history", "parameters": {"history": visits}},
                                          LAUNCH, FORWARD],
                {"postconfig": [KILL, LAUNCH], "func": "check_history_deleted",
                 "result": {"type": "history", "dest": "history.sqlite"},
                 "expected": {"type": "rule", "rules": {"type": "keywords", "keywords": ["youtube"]}}})


def cookies_task(web: str) -> Task:
    """WAA's 7b6c7e24 (delete the site's cookies), for the local site; the browser is closed after the
    site set its cookie and before the getter reads, so that Chromium has written its cookie store
    (it does every 30 s otherwise)."""
    return task("delete-site-cookies", [
        LAUNCH, FORWARD, {"type": "chrome_open_tabs", "parameters": {"urls_to_open": [f"{web}/a.html"]}}, KILL,
        LAUNCH],
        {"postconfig": [KILL, LAUNCH], "func": "is_cookie_deleted", "result": {"type": "cookie_data", "dest": "Cookies"},
         "expected": {"type": "rule", "rules": {"type": "domains", "domains": ["127.0.0.1"]}}})


def pdf_task(web: str) -> Task:
    """WAA's e1e75309 (save the page as a PDF on the desktop), for a local page."""
    return task("page-to-pdf", [LAUNCH, FORWARD,
                                {"type": "chrome_open_tabs", "parameters": {"urls_to_open": [f"{web}/article.html"]}}],
                {"func": "compare_pdfs", "result": {"type": "vm_file", "path": "~/Desktop/Article.pdf"},
                 "expected": {"type": "pdf_from_url", "path": f"{web}/article.html"}})


def font_size_task() -> Task:
    if not FONT_SIZE_TASK.is_file():
        pytest.skip(f"the shared WAA data is not at {WAA}")
    return read_task(FONT_SIZE_TASK, "chrome")


CASES = {
    "tabs": (tabs_task, [Hotkey(keys=("ctrl", "shift", "t")), Wait(seconds=0.5)]),
    # The bubble's folder list starts at "Other bookmarks"; "Bookmarks bar" is the one above it.
    "bookmarks": (bookmarks_task, [Hotkey(keys=("ctrl", "d")), Key(key="tab"), Key(key="up"), Key(key="tab"),
                                   Key(key="tab"), Key(key="enter"), Wait(seconds=3.0)]),  # Chrome saves in 2.5 s
    "history": (lambda web: history_task(), [
        *STARTED, Hotkey(keys=("ctrl", "l")), TypeText(text="chrome://history/?q=youtube\n"), Wait(seconds=0.5),
        Hotkey(keys=("ctrl", "a")), Key(key="delete"), Key(key="enter")]),
    # the fonts page takes over 1 s to draw on a loaded machine; its first slider is the default font size, End "Huge"
    "preferences": (lambda web: font_size_task(), [
        *STARTED, Hotkey(keys=("ctrl", "l")), TypeText(text="chrome://settings/fonts\n"), Wait(seconds=2.0),
        Key(key="tab"), Key(key="end")]),
    "cookies": (cookies_task, [*STARTED, Hotkey(keys=("ctrl", "shift", "delete")), Wait(seconds=2.0), Key(key="tab"),
                               Key(key="enter"), Wait(seconds=1.0)]),  # Tab from Cancel to "Delete from this device"
    "pdf": (pdf_task, [Hotkey(keys=("ctrl", "p")), Wait(seconds=2.0), Key(key="enter"), Wait(seconds=1.5),
                       Hotkey(keys=("ctrl", "a")), TypeText(text="~/Desktop/Article.pdf"),
                       Click(point=Point(973, 739)), Wait(seconds=1.5)]),  # the GTK dialog's Save, at 1024x768
}


@pytest.mark.parametrize("family", list(CASES))
async def test_a_chrome_task_scores_1_when_done_and_0_when_not(server, web, family, anyio_backend, monkeypatch):
    """Each family once per event loop: on asyncio the agent does the task, on trio it does nothing
    (both on both would double the suite's minute of real browser episodes)."""
    monkeypatch.setattr(tabs, "CLOSE_TABS_WAIT", 0.5)  # WAA's five seconds only give Chrome time to start
    make, actions = CASES[family]
    reset(server)
    done = anyio_backend == "asyncio"
    verdict = await score(server, make(web), actions if done else [])
    assert verdict[0] == (1.0 if done else 0.0), verdict


def test_chromes_and_edges_window_names_find_chromiums_window(server):
    """WAA's tasks activate "Google Chrome"; the Chromium standing in for it is titled "... - Chromium"."""
    reset(server)
    headers = {"X-WAA-Token": server.token}
    activate = {"window_name": "Google Chrome"}
    try:
        httpx.post(f"{server.url}/setup/launch", json={"command": LAUNCH["parameters"]["command"]}, headers=headers,
                   timeout=30).raise_for_status()
        for name in ("Google Chrome", "google chrome", "Microsoft Edge"):
            reply = httpx.post(f"{server.url}/setup/activate_window", json={"window_name": name}, headers=headers,
                               timeout=30)
            assert (reply.status_code, reply.text) == (200, "Window activated successfully"), name
    finally:
        reset(server)
    reply = httpx.post(f"{server.url}/setup/activate_window", json=activate, headers=headers, timeout=30)
    assert reply.status_code == 404 and "no window titled 'Chromium'" in reply.text


async def test_shortcuts_on_desktop_lists_the_desktop_through_list_directory(server):
    """The Chrome task's getter (a shortcut made from Chrome's menu) reads .desktop files on this server."""
    reset(server)
    desktop = Path(httpx.post(f"{server.url}/desktop_path", headers={"X-WAA-Token": server.token}).json()["desktop_path"])
    (desktop / "Page A.desktop").write_text("[Desktop Entry]\nName=Page A\n")
    (desktop / "notes.txt").write_text("not a shortcut")
    client = WAAClient(server.url, token=server.token)
    try:
        assert await resolve(client, {"type": "shortcuts_on_desktop"}) == {
            "Page A.desktop": "[Desktop Entry]\nName=Page A\n"}
    finally:
        await client.aclose()
        reset(server)
