"""The live viewer's server: one port, a web page and a websocket stream of step events.

`FinishedRunsServer` serves the same page over finished run folders.

One task follows the run's event bus, folds each event into `ViewerState`
and publishes the JSON update (encoded once, shared by all viewers) on a
second, viewer-side bus. Each viewer connection has its own bounded
subscription there: a viewer that reads slowly or not at all loses its oldest
updates, never slows the run (publishing is synchronous and O(viewers)).
When a viewer has lost updates it is told how many (`events_dropped`) and
gets a fresh snapshot, so its picture is whole again.

The stream is one-way: JSON in binary frames, server to viewer. A viewer
that sends anything is disconnected with a reason. With a token, both the
page and the stream require it (`?token=` in the URL, or a bearer header).
"""

from __future__ import annotations

import urllib.parse
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Awaitable, Callable, Mapping

import anyio
from anyio.abc import TaskStatus

from protocols import EpisodeResult, EventsDropped, to_json
from runtime.events import EventBus, Subscription
from runtime.errors import ConnectionClosed
from runtime.websocket import POLICY_VIOLATION, WebSocket, serve, token_refusal

from actors.run_folder import episode_dir
from bench.viewer.files import StepFile, observation_json, parse, read
from bench.viewer.folders import FinishedRuns
from bench.viewer.state import ViewerState

_HTML = "text/html; charset=utf-8"
_TEXT = "text/plain; charset=utf-8"


def page_html() -> bytes:
    """The viewer page with its scripts inlined (the timeline, shared with report.html, and the
    step view): one self-contained file."""
    folder = resources.files("bench.viewer")
    page = (folder / "page.html").read_text()
    for marker, script in (("/*TIMELINE*/", "timeline.js"), ("/*STEP*/", "step.js")):
        page = page.replace(marker, (folder / script).read_text())
    return page.encode()


def refused(request, token: str | None) -> tuple[int, str, bytes] | None:
    """The 401 answer to a request without the viewer's token, or None when it may be served."""
    refusal = None if token is None else token_refusal(request, token, in_query=True)
    return None if refusal is None else (401, _TEXT, f"troupe viewer: {refusal}\n".encode())


def not_found(what: str) -> tuple[int, str, bytes]:
    return 404, _TEXT, f"troupe viewer: {what}\n".encode()


async def answer(request, token: str | None, page: bytes,
                 step_file: Callable[[StepFile], Awaitable[bytes]]) -> tuple[int, str, bytes]:
    """An HTTP request to a viewer: the page, a step's file (`step_file` reads it; b"": there is
    none), or 401/404."""
    refusal = refused(request, token)
    if refusal is not None:
        return refusal
    path = urllib.parse.urlsplit(request.path).path
    if path in ("/", "/index.html"):
        return 200, _HTML, page
    wanted = parse(path)
    content = b"" if wanted is None else await step_file(wanted)
    if content:
        return 200, wanted.content_type(content), content
    return not_found(f"nothing at {path}")


async def refuse_input(ws: WebSocket, scope: anyio.CancelScope) -> None:
    """The stream is one-way; whatever a viewer sends ends its connection, with the reason."""
    try:
        data = await ws.receive()
    except ConnectionClosed:
        scope.cancel()
        return
    await ws.close(POLICY_VIOLATION, f"the viewer stream is one-way; got {len(data)} unexpected bytes")
    scope.cancel()


class ViewerServer:
    def __init__(self, bus: EventBus, *, token: str | None = None, run_dir: Path | None = None,
                 queue: int = 256, summarizing: bool = True, earlier: Mapping[str, EpisodeResult] | None = None,
                 total: int | None = None, last_screen_shows_work: bool = True) -> None:
        self.bus = bus
        self.token = token
        self.run_dir = run_dir
        self.queue = queue
        self.state = ViewerState(summarizing=summarizing, earlier=earlier, total=total,
                                 last_screen_shows_work=last_screen_shows_work)
        self.updates = EventBus()
        self._page = page_html()
        self._ended = False
        self._viewers = 0
        self._all_told = anyio.Event()

    async def run(self, host: str = "127.0.0.1", port: int = 0,
                  *, task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED) -> None:
        """Serve until cancelled; reports the bound port."""
        with self.bus.subscribe(maxlen=8192) as events:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._follow, events)
                bound = await tg.start(partial(serve, self._viewer, host=host, port=port, token=self.token,
                                               http=self._http, query_token=True))
                task_status.started(bound)

    async def _follow(self, events: Subscription) -> None:
        async for event in events:
            lost = events.take_dropped()
            if lost:
                self.updates.publish(to_json(EventsDropped(count=lost)))
            update = self.state.apply(event)
            if update is not None:
                self.updates.publish(to_json(update))
        self.updates.publish(self._ended_update())  # the run's bus closed: the run ended
        self._ended = True
        self.updates.close()
        self._check_told()

    def _ended_update(self) -> bytes:
        """The run ended: how far it got, and its folder, which `python -m bench.viewer` browses again."""
        folder = {} if self.run_dir is None else {"folder": str(self.run_dir)}
        return to_json({**self.state.ended(), **folder})

    async def told(self) -> None:
        """Wait until every viewer connected has been told the run ended (and its connection closed)."""
        await self._all_told.wait()

    def _check_told(self) -> None:
        if self._ended and not self._viewers:
            self._all_told.set()

    async def _viewer(self, ws: WebSocket) -> None:
        self._viewers += 1
        try:
            with self.updates.subscribe(self.queue) as updates:
                late = self._ended  # joined between the run's end and the server's: no update will come
                await ws.send(to_json(self.state.snapshot()))
                if late:
                    await ws.send(self._ended_update())
                else:
                    async with anyio.create_task_group() as tg:
                        tg.start_soon(refuse_input, ws, tg.cancel_scope)
                        await self._stream(ws, updates)
                        tg.cancel_scope.cancel()
                await ws.close(reason="the run ended")
        except* ConnectionClosed:
            pass  # the viewer went away (or was told why it had to)
        finally:
            self._viewers -= 1
            self._check_told()

    async def _stream(self, ws: WebSocket, updates: Subscription) -> None:
        async for update in updates:
            lost = updates.take_dropped()
            if lost:
                lost += updates.discard()
                snapshot = to_json(self.state.snapshot())
                await ws.send(to_json(EventsDropped(count=lost)))
                await ws.send(snapshot)
            else:
                await ws.send(update)

    async def _http(self, request) -> tuple[int, str, bytes]:
        return await answer(request, self.token, self._page, self._step_file)

    async def _step_file(self, wanted: StepFile) -> bytes:
        """The latest steps' screenshots and observations from memory (the run folder may not
        have them yet); the rest, and model calls, from the run folder."""
        card = self.state.card(wanted.episode_id)
        if card is None or wanted.run not in (None, "0"):
            return b""
        if wanted.kind == "shot" and wanted.step in card.recent:
            return card.recent[wanted.step]
        if wanted.kind == "obs" and wanted.step in card.seen:
            return observation_json(card.seen[wanted.step])
        if self.run_dir is None:
            return b""
        folder = episode_dir(self.run_dir, card.task_id, card.attempt, card.repeat)
        return await anyio.to_thread.run_sync(read, folder, wanted.kind, wanted.step)


class FinishedRunsServer:
    """The viewer page over finished run folders: read-only, the same page as a live run's.
    The stream sends one snapshot (every card, and the comparison of several runs) and stays
    open, so the page treats it as a run that has ended."""

    def __init__(self, runs: FinishedRuns, *, token: str | None = None) -> None:
        self.runs = runs
        self.token = token
        self._page = page_html()
        self._snapshot = to_json(runs.snapshot())

    async def run(self, host: str = "127.0.0.1", port: int = 0,
                  *, task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED) -> None:
        await serve(self._viewer, host=host, port=port, token=self.token, http=self._http, query_token=True,
                    task_status=task_status)

    async def _viewer(self, ws: WebSocket) -> None:
        try:
            await ws.send(self._snapshot)
            async with anyio.create_task_group() as tg:
                await refuse_input(ws, tg.cancel_scope)
        except* ConnectionClosed:
            pass

    async def _http(self, request) -> tuple[int, str, bytes]:
        return await answer(request, self.token, self._page, self._step_file)

    async def _step_file(self, wanted: StepFile) -> bytes:
        return await anyio.to_thread.run_sync(self.runs.step_file, wanted)
