"""OSWorld's Chrome tab steps and getters over DevTools on a fresh local desktop (Debian's Chromium), on
pages served from 127.0.0.1: chrome_open_tabs, chrome_close_tabs, open_tabs_info, active_tab_info, and
the metrics that read them."""

from __future__ import annotations

import shutil

import anyio
import pytest

from actors.backends.waa.client import WAAClient
from bench.suites.osworld.chrome_tabs import compare_urls, is_expected_active_tab, is_expected_tabs
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import SetupFailed
from bench.suites.osworld.getters import resolve
from bench.suites.osworld.local import LocalServer
from bench.suites.osworld.setup import run_steps

from tests.web_pages import serving

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")]

PAGES = {"/a.html": "<title>Page A</title><h1>A</h1>", "/b.html": "<title>Page B</title><h1>B</h1>",
         "/c.html": "<title>Page C</title><h1>C</h1>"}


@pytest.fixture(scope="module")
def web():
    with serving(PAGES) as url:
        yield url


async def test_tabs_are_opened_closed_and_read_as_osworld_does(web):
    server = await anyio.to_thread.run_sync(LocalServer.start)
    client = WAAClient(server.url, token=server.token, devtools=server.devtools)
    episode = Episode(client, None)
    try:
        problems = await run_steps(episode, [
            {"type": "launch", "parameters": {"command": ["google-chrome", "--remote-debugging-port=1337"]}},
            {"type": "chrome_open_tabs", "parameters": {"urls_to_open": [f"{web}/a.html", f"{web}/b.html",
                                                                         f"{web}/c.html"]}},
            {"type": "chrome_close_tabs", "parameters": {"urls_to_close": [f"{web}/a.html"]}},
        ], phase="config")
        assert problems == []
        tabs = await resolve(episode, {"type": "open_tabs_info"})
        assert sorted((tab["title"], tab["url"]) for tab in tabs) == [("Page B", f"{web}/b.html"),
                                                                      ("Page C", f"{web}/c.html")]
        assert is_expected_tabs(tabs, {"type": "url", "urls": [f"{web}/c.html", f"{web}/b.html"]}) == 1.0
        assert is_expected_tabs(tabs, {"type": "url", "urls": [f"{web}/a.html", f"{web}/b.html"]}) == 0.0
        with anyio.fail_after(30):  # the last tab opened is the one the address bar shows
            while "c.html" not in (await client.get("/accessibility")).text:
                await anyio.sleep(0.2)
        active = await resolve(episode, {"type": "active_tab_info", "goto_prefix": "http://"})
        assert (active["title"], active["url"]) == ("Page C", f"{web}/c.html") and "<h1>C</h1>" in active["content"]
        assert is_expected_active_tab(active, {"type": "url", "url": f"{web}/c.html"}) == 1.0
        assert is_expected_active_tab(active, {"type": "url", "url": f"{web}/b.html"}) == 0.0
        assert len(await resolve(episode, {"type": "open_tabs_info"})) == 2  # its page closed with its context
    finally:
        await client.aclose()
        await anyio.to_thread.run_sync(server.stop)


async def test_a_tab_step_without_its_urls_names_the_missing_parameter():
    client = WAAClient("http://127.0.0.1:9")
    try:
        with pytest.raises(SetupFailed, match=r"config\[0\] \(chrome_open_tabs\): missing parameter 'urls_to_open'"):
            await run_steps(Episode(client, None), [{"type": "chrome_open_tabs", "parameters": {}}], phase="config")
    finally:
        await client.aclose()


def test_urls_compare_as_osworlds_compare_urls():
    assert compare_urls("airbnb.com.sg/rooms/", "http://www.airbnb.com/rooms/")  # suffix, www and scheme
    assert not compare_urls("https://airbnb.com", "http://airbnb.com")  # the scheme counts when given
    assert not compare_urls("http://a.com/x?q=1", "http://a.com/x?q=2")
    assert compare_urls("http://a.com/", "http://a.com") and compare_urls(None, None)
    assert not compare_urls(None, "http://a.com")
