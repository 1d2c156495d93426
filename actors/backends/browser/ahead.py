"""The next episode's environment, made while the current episode runs.

A reset that did everything on the critical path would close the last
context, make a fresh one (a new renderer process), load the task's page and
start it: on a small benchmark page ~430 ms of every episode, and only the
start depends on the task's seed. So as soon as an episode has its
environment, the backend closes the one before it and makes the next one in
the background: a fresh context and page, and in it the page the next
episode will probably want, loaded but not started. The next reset takes it
if it holds that task's page (or is blank, which fits any task); otherwise it
closes it unused and makes its own.

Closing comes first, then making: at most two environments (two renderer
processes) are alive at once, the live one and the one made ahead. Closing
the old ones while the next one is made would leave a third renderer alive
for a moment, which sets the browser's peak memory (~20 MiB PSS above its
steady state with one slot); closing first makes no difference to the visible
reset (docs/performance.md).

Isolation holds: an environment is made fresh, handed out by one
reset only, and closed after its episode; nothing an episode touched is
ever handed to another. What a preparation adds: a page loaded ahead has been
loaded for a while when its episode starts. A site whose task must not see
that (a timer started on load) starts it in `Site.start`, as seeded pages do.

The prediction is the page of the last reset, while the last two resets
wanted the same page (runs group a task's seeds together). When they
differed, only a blank environment is made, which any task can use, so a
run whose consecutive tasks all differ loads no page for nothing.

Playwright's async API runs on asyncio only (the backend refuses any other
loop), so the background work is one asyncio task, owned here: the next
reset awaits it, `aclose` cancels it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from typing import Awaitable, Callable

import anyio

from actors.backends.browser.environment import Environment
from actors.backends.browser.pages import PageSpec

logger = logging.getLogger(__name__)

Open = Callable[[tuple[int, int]], Awaitable[Environment]]
Load = Callable[[Environment, PageSpec], Awaitable[None]]


class Ahead:
    """Prepares one environment at a time; `take` hands it to a reset."""

    def __init__(self, open: Open, load: Load) -> None:
        self._open = open
        self._load = load
        self._next: asyncio.Task[Environment] | None = None
        self._recent: deque[PageSpec] = deque(maxlen=2)

    def prepare(self, done_with: list[Environment], reset_to: PageSpec | None) -> None:
        """Close `done_with`, then make the environment for the reset after `reset_to`'s."""
        assert self._next is None, "one preparation at a time: take the last one first"
        if reset_to is not None:
            self._recent.append(reset_to)
        same = len(self._recent) == 1 or len(self._recent) == 2 and self._recent[0].page == self._recent[1].page
        predicted = self._recent[-1] if self._recent and same else None
        viewport = self._recent[-1].viewport if self._recent else PageSpec(start="about:blank").viewport
        self._next = asyncio.get_running_loop().create_task(self._prepare(done_with, viewport, predicted))

    async def take(self, spec: PageSpec) -> Environment | None:
        """The prepared environment if it can serve `spec`; None if not (it is closed here,
        before the caller makes its own), or if making it failed."""
        if self._next is None:
            return None
        # Shielded: a reset that is given up on leaves the preparation to the next one.
        try:
            env = await asyncio.shield(self._next)
        except Exception as exc:  # the caller checks whether the browser is gone
            logger.debug("the environment prepared ahead failed: %s", exc)
            env = None
        self._next = None
        if env is None or env.holds(spec.page):
            return env
        await _close(env)
        return None

    async def aclose(self) -> None:
        """Stop preparing; close what was prepared."""
        task, self._next = self._next, None
        if task is None:
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await (await task).close()

    async def _prepare(self, done_with: list[Environment], viewport: tuple[int, int],
                       predicted: PageSpec | None) -> Environment:
        # The old environments close before the next one is made (shielded: a preparation that
        # is cancelled still closes them), so their renderers and its are never alive at once.
        async with anyio.create_task_group() as closing:
            for old in done_with:
                closing.start_soon(_close, old)
        return await self._make(predicted.viewport if predicted is not None else viewport, predicted)

    async def _make(self, viewport: tuple[int, int], predicted: PageSpec | None) -> Environment:
        env = await self._open(viewport)
        if predicted is not None:
            try:
                await self._load(env, predicted)
            except BaseException:
                await env.close()
                raise
            env.loaded = predicted.start
        return env

async def _close(env: Environment) -> None:
    with anyio.CancelScope(shield=True):
        await env.close()
