"""Where an episode's page comes from, and how its task is started.

A task says which page to open in `raw_config["browser"]` (a `PageSpec`):
an ordinary URL, or `miniwob:<task>` for a MiniWoB++ task from the `miniwob`
package. Only data crosses the socket: the scripts that start a MiniWoB
episode live here, in the node.

MiniWoB pages are served from the package's html/ folder by a loopback HTTP
server (its flight tasks need a real origin; file:// would not do), started
the first time a MiniWoB task is opened and owned by the browser backend.
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import threading
from pathlib import Path
from typing import Any

import msgspec
from playwright.async_api import Page

MINIWOB_SCHEME = "miniwob:"

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
  return core.getUtterance();
}
"""


class PageSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`start`: a URL (http, https, file, data, about) or `miniwob:<task>`."""

    start: str
    seed: int | None = None
    viewport: tuple[int, int] = (1280, 720)
    episode_seconds: float = 3600.0

    def __post_init__(self) -> None:
        if not self.start.startswith((MINIWOB_SCHEME, "http://", "https://", "file:", "data:", "about:")):
            raise ValueError(f"`start` must be a URL or miniwob:<task>, got {self.start!r}")
        if min(self.viewport) <= 0:
            raise ValueError(f"`viewport` must be positive, got {self.viewport}")


def page_spec(raw_config: dict[str, Any]) -> PageSpec:
    """The task's page, or a ValueError naming the field that is wrong."""
    try:
        return msgspec.convert(raw_config.get("browser"), PageSpec)
    except msgspec.ValidationError as exc:
        raise ValueError(f"task raw_config['browser']: {exc}") from None


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


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

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
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="miniwob-http", daemon=True)
        self._thread.start()

    def url(self, task: str) -> str:
        page = miniwob_page(task)
        if not (self.root / page).is_file():
            raise ValueError(f"no MiniWoB task {task!r}: {page} is not in {self.root}")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/{page}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


async def start_miniwob(page: Page, spec: PageSpec, ready_timeout: float) -> str:
    """Start the episode on a loaded MiniWoB page; return its utterance (the instruction)."""
    utterance = await page.evaluate(_START_MINIWOB, [spec.seed, spec.episode_seconds * 1000, ready_timeout * 1000])
    if utterance is None:
        raise TimeoutError(f"the MiniWoB task did not report ready within {ready_timeout:g} s")
    return utterance
