"""MiniWoB++ pages in the browser: served from the `miniwob` package, started by seed.

MiniWoB pages are served from the package's html/ folder by a loopback HTTP
server (its flight tasks need a real origin; file:// would not do), started
the first time a MiniWoB task is opened and owned by the browser's node. A
task's page is `miniwob:<task>` (see actors.backends.browser.pages).
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
from pathlib import Path

from playwright.async_api import Page

from actors.backends.browser.pages import PageSpec
from runtime.http_server import LoopbackHTTPServer, QuietHandler

SITE = "miniwob"

# Seed the page's random generator, give the episode the harness's time (the
# page's own 10 s timer would end slow agents' episodes), start it, and return the
# utterance once the task says it is ready (at once, except for the flight tasks,
# whose inner page reports it), or null past `readyMs`. One call into the page:
# Playwright's wait_for_function would inject and compile its whole helper script
# into every fresh page first.
_START_MINIWOB = """
async ([seed, maxMs, readyMs]) => {
  if (seed !== null) Math.seedrandom(seed);
  core.EPISODE_MAX_TIME = maxMs;
  core.startEpisodeReal();
  const start = performance.now();
  while (!window.WOB_TASK_READY) {
    if (performance.now() - start >= readyMs) return null;
    await new Promise(resolve => setTimeout(resolve, 20));
  }
  const utterance = core.getUtterance();
  return typeof utterance === 'string' ? utterance : utterance.utterance;
}
"""


def miniwob_html() -> Path:
    """The html/ folder of the installed `miniwob` package, found without importing it."""
    found = importlib.util.find_spec("miniwob")
    if found is None or not found.submodule_search_locations:
        raise RuntimeError("the `miniwob` package is not installed (pip install miniwob)")
    return Path(next(iter(found.submodule_search_locations))) / "html"


def miniwob_page(task: str) -> str:
    """The page of a MiniWoB task, relative to html/: flight.AA is flight/AA/wrapper.html."""
    if task.startswith("flight."):
        return f"flight/{task.removeprefix('flight.')}/wrapper.html"
    return f"miniwob/{task}.html"


class _QuietHandler(QuietHandler, http.server.SimpleHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/favicon.ico":
            # Every fresh context asks for one; there is none. Answer at once instead of
            # a 404 built from a FileNotFoundError (whose page a closing context may not read).
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()


class MiniWobServer:
    """A loopback HTTP server for the MiniWoB html/ folder, in a thread it owns."""

    def __init__(self) -> None:
        self.root = miniwob_html()
        handler = functools.partial(_QuietHandler, directory=str(self.root))
        self._server = LoopbackHTTPServer(handler, name="miniwob-http").start()

    def url(self, task: str) -> str:
        page = miniwob_page(task)
        if not (self.root / page).is_file():
            raise ValueError(f"no MiniWoB task {task!r}: {page} is not in {self.root}")
        return f"{self._server.url}/{page}"

    def close(self) -> None:
        self._server.close()


async def start_miniwob(page: Page, spec: PageSpec, ready_timeout: float) -> str:
    """Start the episode on a loaded MiniWoB page; return its utterance (the instruction).

    The natural-language email tasks' pages answer `getUtterance` outside their test mode with
    `{utterance, fields}` (the fields are the task's answer key): the instruction is the utterance."""
    utterance = await page.evaluate(_START_MINIWOB, [spec.seed, spec.episode_seconds * 1000, ready_timeout * 1000])
    if utterance is None:
        raise TimeoutError(f"the MiniWoB task did not report ready within {ready_timeout:g} s")
    return utterance


class MiniWobSite:
    """The `miniwob:` site: its server starts with the first MiniWoB page loaded. Loading a
    task's page does not depend on the seed, which only the start uses: a page can be loaded
    ahead for the next episode of the same task."""

    def __init__(self) -> None:
        self._server: MiniWobServer | None = None

    async def load(self, page: Page, name: str, load_timeout: float) -> None:
        if self._server is None:
            self._server = MiniWobServer()
        await page.goto(self._server.url(name), wait_until="load", timeout=load_timeout * 1000)

    async def start(self, page: Page, spec: PageSpec, timeout: float) -> str:
        return await start_miniwob(page, spec, timeout)

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
