"""The viewer over a folder of runs: a page listing every run under it, a search over their
episodes, and any run or selection of runs opened in the viewer's own page.

One port, read-only, on 127.0.0.1 unless told otherwise:

- `/` the runs page (runs.html); `/runs.json` its rows (`Catalog.rows`);
  `/search?q=TEXT` the episodes that mention TEXT (`Search.find`);
- `/view?run=ID[&run=ID...]` the viewer page over those runs (several: compared),
  whose stream `/events?run=ID...` sends their snapshot, as `FinishedRunsServer`
  does for the runs it was started with; `/runs/ID/<kind>/...` their step files
  (`bench.viewer.files`).

Reading a run (every step record) and searching read many files, so they run in
worker threads and the server keeps answering.
"""

from __future__ import annotations

import json
import urllib.parse
from importlib import resources

import anyio
from anyio.abc import TaskStatus

from actors.run_folder import ResultsError
from protocols import to_json
from runtime.errors import ConnectionClosed
from runtime.websocket import POLICY_VIOLATION, WebSocket, serve

from bench.viewer.catalog import Catalog, UnknownRun
from bench.viewer.search import Search
from bench.viewer.files import StepFile
from bench.viewer.server import answer, not_found, page_html, refuse_input, refused

__all__ = ["CatalogServer"]

_HTML = "text/html; charset=utf-8"
_JSON = "application/json"


def runs_page() -> bytes:
    return resources.files("bench.viewer").joinpath("runs.html").read_bytes()


def _selection(path: str) -> list[str]:
    """The run ids a page or stream URL names (`?run=ID&run=ID`), in order, each once."""
    ids = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query).get("run", [])
    return list(dict.fromkeys(ids))


class CatalogServer:
    def __init__(self, catalog: Catalog, *, token: str | None = None) -> None:
        self.catalog = catalog
        self.search = Search(catalog)
        self.token = token
        self._page = page_html()
        self._runs_page = runs_page()

    async def run(self, host: str = "127.0.0.1", port: int = 0,
                  *, task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED) -> None:
        await serve(self._viewer, host=host, port=port, token=self.token, http=self._http, query_token=True,
                    task_status=task_status)

    async def _viewer(self, ws: WebSocket) -> None:
        try:
            try:
                runs = await anyio.to_thread.run_sync(self.catalog.opened, _selection(ws.path))
            except (UnknownRun, ResultsError) as exc:
                await ws.close(POLICY_VIOLATION, str(exc)[:120])
                return
            await ws.send(await anyio.to_thread.run_sync(lambda: to_json({**runs.snapshot(), "home": True})))
            async with anyio.create_task_group() as tg:
                await refuse_input(ws, tg.cancel_scope)
        except* ConnectionClosed:
            pass

    async def _http(self, request) -> tuple[int, str, bytes]:
        refusal = refused(request, self.token)
        if refusal is not None:
            return refusal
        parts = urllib.parse.urlsplit(request.path)
        match parts.path:
            case "/" | "/index.html":
                return 200, _HTML, self._runs_page
            case "/runs.json":
                rows = await anyio.to_thread.run_sync(self.catalog.rows)
                return 200, _JSON, json.dumps({"root": str(self.catalog.root), "runs": rows}).encode()
            case "/search":
                query = urllib.parse.parse_qs(parts.query).get("q", [""])[0]
                found = await anyio.to_thread.run_sync(self.search.find, query)
                return 200, _JSON, json.dumps(found).encode()
            case "/view":
                try:
                    await anyio.to_thread.run_sync(self.catalog.folders, _selection(request.path))
                except UnknownRun as exc:
                    return not_found(str(exc))
                return 200, _HTML, self._page
        return await answer(request, self.token, self._page, self._step_file)

    async def _step_file(self, wanted: StepFile) -> bytes:
        return await anyio.to_thread.run_sync(self.catalog.step_file, wanted)
